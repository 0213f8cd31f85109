"""``RunConfig``: one typed description of a run, stored with it and read back to resume it.

A run's behaviour is its resolved ``RunConfig`` and the profile it names (``protocol``): nothing
else. The CLI, the batch runner, the app and the API build one with
``vibesearch.protocol.build_config(settings, **overrides)``, which drafts it here
(``RunConfig.draft``: the settings' defaults with the overrides on top) and has the run's profile
resolve it (``Profile.resolve``: the profile's sampling where the run set none, the limits the
profile runs by). ``make_agent`` and ``make_user`` build the run's parts from it, the agents, the
tools and the compaction read their limits from it (never from the ``Settings``, which hold only
process facts), the session stores it on the run row (one JSON column) and a resumed run reads it
back. It never holds a key: an endpoint key is handed to ``make_agent`` beside it, or comes from
the settings for the configured endpoint URL only.

A part's field that only some kinds read says which (``KeptBy``, in its annotation): ``_build``
clears it for any other kind, so a stored config holds only what its kinds use. That is the
stored config's shape, data on the part itself; the kinds are named there through the
sub-vocabularies of ``vibesearch.config`` (a model for ``MODEL_AGENT_KINDS`` ...) or, for a field
of one kind's own (the endpoint's URL, openclaw's switches), by that kind's name. This module sits
below ``agents/`` and ``users/`` and never asks their registries; the registries' ``needs_model``
and ``person`` flags agree with it (tests/architecture/test_kind_registries.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from .web import WebMode
from ..config import MODEL_AGENT_KINDS, MODEL_USER_KINDS, PERSON_USER_KINDS, AgentKind, SearchBackend, Settings, UserKind

# the protocol profiles a run may name (``vibesearch.protocol`` implements each)
ProtocolProfile = Literal["vibesearch", "official"]
PROTOCOLS: tuple[ProtocolProfile, ...] = get_args(ProtocolProfile)


@dataclass(frozen=True)
class KeptBy:
    """A field's metadata: the part's kinds that read it (``_build`` clears it for any other).
    ``filled``: a kind that keeps it and was given none gets the field's part with its defaults."""

    kinds: tuple[str, ...]
    filled: bool = False


def kept_by(part: type[BaseModel], name: str) -> KeptBy | None:
    """The ``KeptBy`` of ``part``'s field ``name`` (None: every kind keeps it)."""
    return next((m for m in part.model_fields[name].metadata if isinstance(m, KeptBy)), None)


def _keep_what_the_kind_reads(part: type[BaseModel], values: dict[str, Any]) -> None:
    """Clear, in a part's values, every field its kind does not read (``KeptBy``)."""
    for name in part.model_fields:
        kept = kept_by(part, name)
        if kept is None:
            continue
        if values["kind"] not in kept.kinds:
            values[name] = None
        elif kept.filled and values.get(name) is None:
            values[name] = {}


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sampling(_Part):
    """How a model of the run samples (None: the provider's default)."""

    temperature: float | None = Field(default=None, description="the sampling temperature (None: the provider's default)")
    top_p: float | None = Field(default=None, ge=0, le=1, description="nucleus sampling's top_p, 0 to 1 (None: the provider's default)")
    max_tokens: int | None = Field(default=None, ge=1, description="the most tokens one answer may have (None: the provider's default)")
    reasoning_effort: str | None = Field(
        default=None,
        description="a reasoning model's reasoning_effort (None: not sent); only a profile sets it: the official "
        "simulator inherits the agent's when it shares the agent's endpoint",
    )

    def params(self) -> dict[str, float | int | str]:
        """The values set, as keyword arguments of a model call."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


def default_sampling(settings: Settings) -> dict[str, float | int | str]:
    """The sampling the settings give a model that nothing more specific samples: each role of a
    new run (``RunConfig.draft``, before its profile resolves it), a judge asked outside a run
    (scoring, tables) and the visit summariser (the process's, like its model). ``complete()``
    itself reads none from the settings."""
    return Sampling(temperature=settings.temperature).params()


class OpenclawSpec(_Part):
    """The openclaw agent's switches: the paper's three ablations, and its idle rule (None: the
    run's profile fills it in)."""

    subagents: bool = Field(default=True, description="offer OpenClaw's subagents (sessions_spawn, subagents, agents_wait)")
    memory: bool = Field(default=True, description="OpenClaw's memory plugin (memory_search, memory_get)")
    long_term_memory: bool = Field(default=False, description="dreaming and the memory flush: memory kept across runs")
    idle_s: float | None = Field(default=None, gt=0, description="seconds without a reply before a nudge (None: the profile's)")
    max_nudges: int | None = Field(default=None, ge=0, description="nudges before a turn counts as unanswered (None: the profile's)")


# the endpoint agent's own fields: the URL it is reached at and the model name sent there
_ENDPOINT = KeptBy(("endpoint",))


class AgentSpec(_Part):
    """The agent under test."""

    kind: AgentKind = Field(default="baseline", description="which agent answers the persona")
    model: Annotated[str | None, KeptBy(MODEL_AGENT_KINDS)] = Field(
        default=None, description="the react and openclaw agents' litellm model string"
    )
    endpoint_url: Annotated[str | None, _ENDPOINT] = Field(
        default=None, description="the endpoint agent's OpenAI-compatible http(s) base URL (never with a key: a user name or password in it is refused)"
    )
    endpoint_model: Annotated[str | None, _ENDPOINT] = Field(default=None, description="the model name sent to the endpoint")
    sampling: Sampling = Field(default_factory=Sampling, description="how the agent's model samples")

    @field_validator("endpoint_url")
    @classmethod
    def _plain_endpoint_url(cls, url: str | None) -> str | None:
        """An http(s) address without a user name or password: the config is stored with the run
        (and shown), so a key written into the URL would land in the database."""
        if url is None:
            return None
        parts = urlsplit(url.strip())
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname or any(ord(ch) < 32 or ord(ch) == 127 for ch in url):
            raise ValueError("must be an http:// or https:// address such as http://127.0.0.1:8000/v1")
        if parts.username is not None or parts.password is not None:
            raise ValueError("must not hold a user name or password (the run's config is stored); give the key in VIBESEARCH_ENDPOINT_KEY")
        return url.strip()
    openclaw: Annotated[OpenclawSpec | None, KeptBy(("openclaw",), filled=True)] = Field(
        default=None, description="the openclaw agent's switches (None for the other agents)"
    )

    @property
    def shown_model(self) -> str | None:
        """The model named in tables: the react model, the endpoint's model name, or None."""
        return self.endpoint_model if self.kind in _ENDPOINT.kinds else self.model


class UserSpec(_Part):
    """Whoever plays the persona."""

    kind: UserKind = Field(default="rules", description="who plays the persona")
    model: Annotated[str | None, KeptBy(MODEL_USER_KINDS)] = Field(
        default=None, description="the simulator's litellm model string (simulator, paper)"
    )
    sampling: Sampling = Field(default_factory=Sampling, description="how the simulator's model samples")
    shadow: Annotated[str | None, KeptBy(PERSON_USER_KINDS)] = Field(
        default=None, description="beside a person: a simulator model (or 'rules') whose decisions are logged too"
    )


# the judge kinds, each one description in ``vibesearch.judges.registry`` (a test checks the two agree)
JudgeKind = Literal["offline", "llm", "official"]
OFFLINE_JUDGE = "offline"  # the judge name that picks the offline judge; any other name is a litellm model string


def is_offline_judge(name: str | None) -> bool:
    """Whether a judge name picks the offline judge (the one name rule; ``judges.registry.judge_for``
    reads it, and so do ``protocol`` and ``llm``, which sit below the judges)."""
    return name == OFFLINE_JUDGE


class JudgeSpec(_Part):
    """The judge that scores the run's graph."""

    name: str = Field(default=OFFLINE_JUDGE, description="'offline' (the rule judge) or a litellm model string")
    sampling: Sampling = Field(default_factory=Sampling, description="how the judge's model samples")


class SearchSpec(_Part):
    """The agent's search tools."""

    backend: SearchBackend = Field(default="offline", description="where the search tool looks (offline: the task's corpus)")
    topn: int = Field(default=10, ge=1, description="results per search")
    tool_result_max_chars: int = Field(default=20_000, ge=1, description="the most characters of one tool result (longer ones are cut)")
    web: WebMode | None = Field(
        default=None,
        description="what becomes of the web the tools see (docs/web.md): record it in the store (a web backend's default), "
        "replay a recording without any connection, or live (neither); None: nothing recorded (the offline corpus)",
    )
    web_from: str | None = Field(
        default=None,
        description="replay only: the recording replayed, as run ids, a batch id or a task id, comma-separated "
        "(None: everything recorded for the run's task)",
    )


class Limits(_Part):
    """What ends or reshapes a conversation. What the user-turn cap counts is the profile's rule
    (``Profile.user_turns_left``); the values here are the ones the run uses."""

    max_user_turns: int | None = Field(
        default=None, ge=1, description="the most user turns of a conversation (what counts as one is the profile's rule; None: the profile's)"
    )
    max_steps_per_turn: int | None = Field(default=30, ge=1, description="tool steps in one agent turn (None: no cap)")
    max_llm_calls: int | None = Field(default=None, ge=1, description="the agent's model calls in the whole run, a budget (None: none)")
    budget_tokens: int | None = Field(default=None, description="stop a run once it has used this many tokens (None: no budget)")
    budget_usd: float | None = Field(default=None, description="stop a run once it has cost this many US dollars (None: no budget)")
    stop_on_final_answer: bool = Field(default=False, description="end a run when the agent gives its final answer")
    context_window: int = Field(default=256_000, description="the agent model's context window, in tokens")
    compaction_threshold: float | None = Field(
        default=0.8, description="the share of the context window at which the agent compacts (None: the profile fixes a number of tokens instead)"
    )
    max_rounds: int | None = Field(
        default=None, ge=1,
        description="set by the profile, never by a flag: the model calls of the whole trajectory (agent calls and compactions) "
        "after which the conversation ends as max_rounds (official: 200)",
    )
    compaction_tokens: int | None = Field(
        default=None, ge=1,
        description="set by the profile, never by a flag: a fixed prompt size above which the agent compacts (None: context window x threshold)",
    )


# limits only a profile sets (``Profile.resolve``)
PROFILE_LIMITS = ("max_rounds", "compaction_tokens")


# flat keyword -> (part, field) for ``draft``
_FLAT: dict[str, tuple[str, str]] = {
    "agent": ("agent", "kind"),
    "agent_model": ("agent", "model"),
    "endpoint_url": ("agent", "endpoint_url"),
    "endpoint_model": ("agent", "endpoint_model"),
    "agent_sampling": ("agent", "sampling"),
    "openclaw": ("agent", "openclaw"),
    "user": ("user", "kind"),
    "simulator_model": ("user", "model"),
    "user_sampling": ("user", "sampling"),
    "shadow": ("user", "shadow"),
    "judge": ("judge", "name"),
    "judge_sampling": ("judge", "sampling"),
    "search_backend": ("search", "backend"),
    "search_topn": ("search", "topn"),
    "tool_result_max_chars": ("search", "tool_result_max_chars"),
    "web": ("search", "web"),
    "web_from": ("search", "web_from"),
    **{name: ("limits", name) for name in Limits.model_fields if name not in PROFILE_LIMITS},
}
_TOP = ("task_id", "protocol", "seed", "pace_s")


class RunConfig(_Part):
    """One run: what plays, what it is scored by, what ends it, the profile it follows."""

    task_id: str = Field(default="", description="the task the run plays")
    agent: AgentSpec = Field(default_factory=AgentSpec, description="the agent under test")
    user: UserSpec = Field(default_factory=UserSpec, description="whoever plays the persona")
    judge: JudgeSpec = Field(default_factory=JudgeSpec, description="the judge that scores the run's graph")
    search: SearchSpec = Field(default_factory=SearchSpec, description="the agent's search tools")
    limits: Limits = Field(default_factory=Limits, description="what ends or reshapes a conversation")
    protocol: ProtocolProfile = Field(default="vibesearch", description="the protocol profile the run follows (docs/protocol.md)")
    seed: int | None = Field(default=None, description="the run's seed: runs of one simulator with one seed count as one fixed user in the noise study (None: none)")
    pace_s: float = Field(default=0.0, ge=0, description="seconds waited before each simulated user turn (to watch a run)")
    # resolved for its profile (``vibesearch.protocol.resolve``), or read back from a run that was
    # (``as_resolved``): the parts of a run refuse a config that is neither. Never stored.
    _resolved: bool = PrivateAttr(default=False)

    @property
    def resolved(self) -> bool:
        return self._resolved

    def __eq__(self, other: object) -> bool:
        """Equal when they describe the same run (the resolved mark is provenance, not data)."""
        if not isinstance(other, RunConfig):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]  # (mutable, compared by value: not hashable, as pydantic models are not)

    def as_resolved(self) -> "RunConfig":
        """This config, marked as the one a run is driven by: what its profile resolved it to when
        it was built (``protocol.resolve``), or what a stored run began with (read back as stored,
        whatever the profile's rules have become since)."""
        marked = self.model_copy()
        marked._resolved = True
        return marked

    @classmethod
    def draft(cls, settings: Settings, **overrides: Any) -> "RunConfig":
        """The run the settings describe, with ``overrides`` (flat names: ``agent``, ``agent_model``,
        ``user``, ``simulator_model``, ``shadow``, ``judge``, ``search_backend``, ``max_user_turns``,
        ``task_id``, ``protocol`` ...; a None value means "not given"), not yet resolved for its
        profile: ``vibesearch.protocol.build_config`` is what callers use.

        Only what the chosen kinds use is kept: a model for the react agent or an LLM-played user,
        the endpoint's URL and model name for the endpoint agent, a shadow beside a person."""
        def sampling() -> dict[str, Any]:
            return Sampling.model_validate(default_sampling(settings)).model_dump()

        parts: dict[str, Any] = {
            "agent": {"kind": settings.agent, "model": settings.agent_model, "endpoint_url": settings.endpoint_url,
                      "endpoint_model": settings.endpoint_model, "sampling": sampling()},
            "user": {"kind": settings.user, "model": settings.simulator_model, "sampling": sampling(), "shadow": None},
            "judge": {"name": settings.judge_model or "offline", "sampling": sampling()},
            "search": {"backend": settings.search_backend, "topn": settings.search_topn,
                       "tool_result_max_chars": settings.tool_result_max_chars},
            "limits": {name: getattr(settings, name) for name in Limits.model_fields if hasattr(settings, name) and name not in PROFILE_LIMITS},
        }
        return cls._build(parts, overrides)

    def draft_with(self, **overrides: Any) -> "RunConfig":
        """This config with ``overrides`` (the flat names of ``draft``; None: unchanged), not yet
        resolved again: ``vibesearch.protocol.rebuild_config`` is what callers use."""
        return self._build(self.model_dump(), overrides)

    @classmethod
    def _build(cls, parts: dict[str, Any], overrides: dict[str, Any]) -> "RunConfig":
        unknown = sorted(set(overrides) - set(_FLAT) - set(_TOP))
        if unknown:
            raise TypeError(f"RunConfig: unknown setting(s) {', '.join(unknown)}")
        for key, value in overrides.items():
            if value is None:
                continue
            if key == "openclaw" and isinstance(value, dict):  # switches given on top of the ones there
                parts["agent"]["openclaw"] = {**(parts["agent"].get("openclaw") or {}), **value}
            elif key in _FLAT:
                part, name = _FLAT[key]
                parts[part][name] = value
            else:
                parts[key] = value
        _keep_what_the_kind_reads(AgentSpec, parts["agent"])
        _keep_what_the_kind_reads(UserSpec, parts["user"])
        _web_mode(parts["search"])
        return cls.model_validate(parts)


def _web_mode(search: dict[str, Any]) -> None:
    """The web mode a search part keeps: a web backend records unless told otherwise; the offline
    corpus has no web to record or use live (only a replay replaces it); a selection only with a
    replay."""
    if search.get("web") is None and search.get("backend", "offline") != "offline":
        search["web"] = "record"
    elif search.get("backend", "offline") == "offline" and search.get("web") in ("record", "live"):
        search["web"] = None
    if search.get("web") != "replay":
        search["web_from"] = None
