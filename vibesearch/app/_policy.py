"""What a person may ask the app for: the checks every run request passes on the server.

The Play tab and the API both make their ``RunRequest`` with ``form_request`` and end in
``RunManager.start``, which calls ``check_request`` first, so a raw HTTP call gets exactly the
checks the page does. The rules that keep the server's keys at
home live here:

* an endpoint URL typed in the app must be the configured one (``VIBESEARCH_ENDPOINT_URL``) or one
  listed in ``VIBESEARCH_ALLOWED_ENDPOINT_URLS``; the configured key goes only to the configured
  URL (``Settings.endpoint_key_for``), any other URL gets only the key typed with it;
* a model name is a plain litellm model string: no URL inside (some providers take one there and
  would send their key to it), no spaces, bounded length;
* with ``VIBESEARCH_API_BASE`` set every model call goes to that base, so a model typed in the app
  must be on an OpenAI-compatible route or the provider of a model the server configured — a
  model of another provider would hand that provider's key to the base;
* the web choice is one of ``APP_WEB_CHOICES`` (record, live, replay): a replay from the app
  replays everything recorded for the run's task, never a selection typed in the browser
  (``search.web_from`` is refused), a replay with an agent that reads the offline corpus (the
  baseline: ``AgentKindInfo.needs_corpus``) is refused rather than run on the corpus, and a task
  with nothing recorded is refused before the run (``tools._backend.make_backend``, called when
  the run manager builds the agent).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, get_args

from .._model_names import MODEL_PATTERN, model_string_problem
from ..agents import web_refusal
from ..agents.registry import agent_kind_names, agent_kinds
from ..config import SearchBackend, Settings
from ..judges.registry import judge_for
from ..llm import litellm_provider
from ..protocol import PROTOCOLS, build_config
from ..run import RunConfig
from ..run.web import WEB_MODES
from ..users.registry import RULES_SHADOW, is_person, user_kind_names, user_kinds

MAX_ID = 200
MAX_NAME = 200
MAX_KEY = 1000
MAX_URL = 2000
MAX_MESSAGE = 20_000
MAX_TURNS = 500
MAX_PACE_S = 30.0
OPENAI_ROUTES = {"openai", "hosted_vllm", "fake"}
# providers whose default address is on the server itself (a person picking one would make the
# server post prompts to its own loopback services): only when the operator names them
LOCAL_DEFAULT_PROVIDERS = frozenset({
    "ollama", "ollama_chat", "llamafile", "lm_studio", "hosted_vllm", "vllm", "xinference", "openai_like",
    "custom_openai", "oobabooga", "triton", "litellm_proxy", "lemonade", "docker_model_runner",
})


def app_agents() -> tuple[str, ...]:
    """The agent kinds the form or the API may ask for: every registered one."""
    return agent_kind_names()


def app_users() -> tuple[str, ...]:
    """The user kinds the form or the API may ask for: every registered one."""
    return user_kind_names()


def agent_choices() -> list[tuple[str, str]]:
    """The Play form's agent choices (label, kind), from the agents' registry."""
    return [(k.label, k.name) for k in agent_kinds()]


def user_choices() -> list[tuple[str, str]]:
    """The Play form's user choices (label, kind): the kinds with a label (the scripted ones,
    direct and staged, are for the API and tests)."""
    return [(k.label, k.name) for k in user_kinds() if k.label]


def study_agents() -> list[str]:
    """The agent kinds a study may pair people with (not one behind a URL typed per run)."""
    return [k.name for k in agent_kinds() if k.in_studies]

_PLAIN = re.compile(r"^[^\x00-\x1f\x7f]*$")


def _text(value: Any, what: str, limit: int) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    if len(value) > limit:
        raise ValueError(f"{what} is too long ({len(value)} characters; at most {limit})")
    if not _PLAIN.match(value):
        raise ValueError(f"{what} holds control characters")
    return value.strip()


def check_model(value: Any, what: str, settings: Settings) -> str | None:
    """A model string typed in the app (or None when empty); raises ValueError."""
    model = _text(value, what, MAX_NAME)
    if not model:
        return None
    # (the '@' rule asks which provider litellm places the model with)
    syntax = model_string_problem(model, litellm_provider(model) if "@" in model and "://" not in model else None)
    if syntax:
        raise ValueError(f"{what} {model[:80]!r} {syntax}")
    configured = [settings.agent_model, settings.simulator_model, settings.judge_model, settings.summariser_model]
    named = {p for p in (litellm_provider(m) for m in configured if m) if p} | settings.allowed_provider_names()
    provider = litellm_provider(model)
    if settings.api_base:
        allowed = OPENAI_ROUTES | named
        if provider not in allowed:
            raise ValueError(
                f"{what} {model!r}: this server sends every model call to its VIBESEARCH_API_BASE, so only models "
                f"on {', '.join(sorted(allowed - {'fake'}))} routes can be used here"
            )
        return model
    if provider == "fake" or provider in named:
        return model
    if provider is None:
        raise ValueError(f"{what} {model!r}: litellm knows no provider of that name")
    if provider in LOCAL_DEFAULT_PROVIDERS:  # whatever the environment says: only when named
        raise ValueError(
            f"{what} {model!r}: a {provider} model would be called at an address on this server; the operator "
            "can allow it by naming it in VIBESEARCH_ALLOWED_PROVIDERS"
        )
    return model


def check_endpoint_url(value: Any, settings: Settings) -> str | None:
    url = _text(value, "the endpoint URL", MAX_URL)
    if not url:
        return None
    if not re.match(r"^https?://", url, re.IGNORECASE):
        raise ValueError("the endpoint URL must start with http:// or https://")
    if not settings.endpoint_allowed(url):
        raise ValueError(
            "this endpoint URL is not allowed on this server: use the configured endpoint, or ask the "
            "administrator to list it in VIBESEARCH_ALLOWED_ENDPOINT_URLS"
        )
    return url


def check_turns(value: Any) -> int | None:
    """``max_user_turns`` from a form or an API call: empty/0 → the default, else 1..MAX_TURNS."""
    if value is None or value == "" or value == 0:
        return None
    if isinstance(value, bool):
        raise ValueError("max_user_turns must be a whole number")
    if isinstance(value, str):
        value = value.strip()
        if not re.fullmatch(r"-?\d{1,6}", value):
            raise ValueError(f"max_user_turns must be a whole number from 1 to {MAX_TURNS}")
        value = int(value)
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(f"max_user_turns must be a whole number from 1 to {MAX_TURNS}")
        value = int(value)
    if not isinstance(value, int) or not 1 <= value <= MAX_TURNS:
        raise ValueError(f"max_user_turns must be a whole number from 1 to {MAX_TURNS}, got {str(value)[:20]}")
    return value


@dataclass
class RunRequest:
    """What a person (or an API caller) asks for when starting a run: the run's config, and apart
    from it a key typed with the endpoint URL (never stored). Made by ``form_request``."""

    config: RunConfig
    endpoint_key: str | None = field(default=None, repr=False)
    # a study's play: the person's turns stop being waited for this long after the start (the
    # run ends abandoned), and what the run's meta records of the study
    time_limit_s: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def form_request(
    settings: Settings,
    *,
    task_id: Any,
    agent: Any = "baseline",
    user: Any = "rules",
    agent_model: Any = None,
    simulator_model: Any = None,
    search_backend: Any = "offline",
    judge: Any = None,
    shadow: bool = False,
    endpoint_url: Any = None,
    endpoint_model: Any = None,
    endpoint_key: Any = None,
    max_user_turns: Any = None,
    pace_s: Any = 0.0,
    protocol: Any = "vibesearch",
    web: Any = None,
) -> RunRequest:
    """The run request of what was typed in the Play tab or passed to the API, checked.

    Raw values (any type) are checked first (text, lengths, the kinds offered, turns, pace), then
    made a ``RunConfig`` on the server's settings, which ``check_request`` checks again."""
    task_id = _text(task_id, "the task id", MAX_ID)
    if agent not in app_agents():
        raise ValueError(f"unknown agent kind {str(agent)[:40]!r}: expected one of {', '.join(app_agents())}")
    if user not in app_users():
        raise ValueError(f"unknown user kind {str(user)[:40]!r}: expected one of {', '.join(app_users())}")
    backends = get_args(SearchBackend)
    if (search_backend or "offline") not in backends:
        raise ValueError(f"unknown search backend {str(search_backend)[:40]!r}: expected one of {', '.join(backends)}")
    a_model = check_model(agent_model, "the agent model", settings)
    s_model = check_model(simulator_model, "the simulator model", settings)
    judge_name = _text(judge, "the judge model", MAX_NAME) or "offline"
    url = check_endpoint_url(endpoint_url, settings)
    e_model = _text(endpoint_model, "the endpoint model name", MAX_NAME) or None
    key = _text(endpoint_key, "the endpoint key", MAX_KEY) or None
    turns = check_turns(max_user_turns)
    pace = _pace(pace_s)
    profile = check_protocol(protocol)
    web_mode = check_web(web)
    config = build_config(
        settings,
        task_id=task_id,
        agent=agent,
        agent_model=a_model,
        endpoint_url=url,
        endpoint_model=e_model,
        user=user,
        simulator_model=s_model,
        # a person's shadow: the simulator model typed, else the configured one, else the rules
        shadow=(s_model or settings.simulator_model or RULES_SHADOW) if is_person(user) and shadow else None,
        judge=judge_name,
        search_backend=search_backend or "offline",
        max_user_turns=turns,
        pace_s=pace if not is_person(user) else 0.0,
        protocol=profile,
        web=web_mode,
    )
    req = RunRequest(config, endpoint_key=key)
    check_request(req, settings)
    return req


def check_protocol(value: Any) -> str:
    """The profile chosen: ``vibesearch`` or ``official`` (empty: ours). Only the name is taken
    from the form: the official prompts come from the server's configured checkout
    (``VIBESEARCH_OFFICIAL_HARNESS``), never from a path typed in the browser."""
    if value is None or value == "":
        return "vibesearch"
    if value not in PROTOCOLS:
        raise ValueError(f"unknown protocol {str(value)[:40]!r}: expected one of {', '.join(PROTOCOLS)}")
    return str(value)


def _pace(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not 0 <= value <= MAX_PACE_S:
        raise ValueError(f"the watch pace must be between 0 and {MAX_PACE_S:.0f} seconds")
    return float(value)


def check_request(req: RunRequest, settings: Settings) -> None:
    """Refuse a run request that the app does not offer or that would send a key elsewhere
    (every run the app starts passes here, however it was made)."""
    config = req.config
    _text(config.task_id, "the task id", MAX_ID)
    if config.agent.kind not in app_agents():
        raise ValueError(f"unknown agent kind {config.agent.kind!r}: expected one of {', '.join(app_agents())}")
    if config.user.kind not in app_users():
        raise ValueError(f"unknown user kind {config.user.kind!r}: expected one of {', '.join(app_users())}")
    check_model(config.agent.model, "the agent model", settings)
    check_model(config.user.model, "the simulator model", settings)
    if config.user.shadow and config.user.shadow != RULES_SHADOW:
        check_model(config.user.shadow, "the shadow simulator model", settings)
    judge = _text(config.judge.name, "the judge model", MAX_NAME)
    if judge and judge_for(judge).needs_model:
        check_model(judge, "the judge model", settings)
    check_endpoint_url(config.agent.endpoint_url, settings)
    name = _text(config.agent.endpoint_model, "the endpoint model name", MAX_NAME)
    if name and not MODEL_PATTERN.match(name):
        raise ValueError("the endpoint model name may hold letters, digits and . _ - : + @ / only")
    _text(req.endpoint_key, "the endpoint key", MAX_KEY)
    if config.limits.max_user_turns is not None and config.limits.max_user_turns > MAX_TURNS:
        raise ValueError(f"max_user_turns must be a whole number from 1 to {MAX_TURNS}, got {config.limits.max_user_turns}")
    _pace(config.pace_s)
    if config.search.web_from is not None:
        raise ValueError("the web: the app replays everything recorded for the task; it takes no selection of runs")
    if (why := web_refusal(config)) is not None:
        raise ValueError(why)


def check_web(web: Any) -> str | None:
    """The web choice of a form (``record`` | ``live`` | ``replay``; empty: the backend's default)."""
    if web is None or web == "":
        return None
    if web not in WEB_MODES:
        raise ValueError(f"unknown web choice {str(web)[:40]!r}: expected one of {', '.join(WEB_MODES)}")
    return str(web)


def check_message(message: Any) -> str:
    return _text(message, "the message", MAX_MESSAGE)
