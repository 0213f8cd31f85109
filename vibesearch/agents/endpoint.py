"""An agent framework behind an OpenAI-compatible chat endpoint as the agent under test (SPEC 4.4).

The harness sends the visible conversation (``convo.dialogue()``) to ``<base url>/chat/completions``
and records the reply as one final assistant message; whatever tools the framework uses stay
inside it. The call goes through ``vibesearch.llm.complete`` (litellm's ``openai/<model>`` route
with the endpoint as ``api_base``), so retries and usage records work as for any model. The cost
of an external agent is unknown and is recorded as such (``None``), even when its model name
happens to match a priced model. The endpoint key never appears in an event or an error text.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from .._fields import MissingSetting
from ..config import Settings, normalise_base_url
from ..llm import LLMError, complete
from ..run.config import RunConfig, Sampling
from ..run.conversation import Conversation
from ..run.events import Emit, ErrorEvent, EventData, MessageEvent, UsageEvent
from ..run.protocols import AgentReply, GraphResult
from ..run.tools import Toolbox
from ..run.web import WebArchive
from ..tasks.models import Task
from ._context import ends_with_question
from .extraction import ask_for_graph, record_graph_answer
from .registry import AgentKindInfo, register_agent_kind

__all__ = ["EndpointAgent", "display_url", "normalise_base_url"]

# sent when no key is configured, so that litellm never falls back to OPENAI_API_KEY from the
# environment and hands a real OpenAI key to an arbitrary endpoint
_NO_KEY = "no-key"


def display_url(url: str) -> str:
    """The URL without credentials or query string (safe to show and store)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


class EndpointAgent:
    """The agent under test is whatever answers at an OpenAI-compatible chat endpoint."""

    kind = "endpoint"
    # its tools are inside the endpoint, out of the session's reach; a turn is one call, so a
    # resumed run never finds one half done
    toolbox: Toolbox | None = None
    resumes_open_turn = False

    def __init__(
        self, task: Task, settings: Settings, *, url: str, model: str = "agent", key: str | None = None, sampling: Sampling | None = None
    ):
        if not url or not url.strip():
            raise ValueError("the endpoint agent needs --endpoint-url (or VIBESEARCH_ENDPOINT_URL)")
        self.task = task
        self.settings = settings
        self.base_url = normalise_base_url(url)
        self.model = model
        self._key = key or None
        self.sampling = sampling or Sampling()
        shown = display_url(self.base_url)
        self.name = f"endpoint:{model}"
        self.description = f"external agent at the OpenAI-compatible endpoint {shown} (model {model!r})"

    async def respond(self, convo: Conversation, emit: Emit) -> AgentReply:
        text, thinking = await self._ask(convo.dialogue(), emit, purpose="agent")
        emit(MessageEvent(role="assistant", content=text, thinking=thinking, final=True))
        return AgentReply(text=text, final=self.reply_is_final(text))

    def reply_is_final(self, text: str) -> bool:
        return bool(text.strip()) and not ends_with_question(text)

    async def extract_graph(self, convo: Conversation, emit: Emit) -> GraphResult:
        history = convo.dialogue()
        instruction = ask_for_graph(emit, self.task.language, convo)  # a resumed run may have asked already
        text, thinking = await self._ask(history + [{"role": "user", "content": instruction}], emit, purpose="extraction")
        return record_graph_answer(emit, text, thinking)

    # ------------------------------------------------------------------ internals
    def _hide(self, text: str) -> str:
        if self._key and len(self._key) >= 3:
            text = text.replace(self._key, "[redacted]")
        return text

    def _safe_emit(self, emit: Emit) -> Emit:
        """Record usage with an unknown cost (and unknown tokens when none were reported), and
        keep the key out of error texts."""

        def wrapped(data: EventData) -> None:
            if isinstance(data, UsageEvent):
                update: dict[str, object] = {"cost_usd": None, "model": f"endpoint:{self.model}"}
                if not data.input_tokens and not data.output_tokens:
                    # the endpoint reported no usage (litellm fills in zeros): unknown, not zero
                    update.update(input_tokens=None, output_tokens=None)
                data = data.model_copy(update=update)
            elif isinstance(data, ErrorEvent):
                data = data.model_copy(update={"message": self._hide(data.message)})
            emit(data)

        return wrapped

    async def _ask(self, messages: list[dict[str, str]], emit: Emit, *, purpose: str) -> tuple[str, str | None]:
        try:
            result = await complete(
                messages,
                model=f"openai/{self.model}",
                purpose=purpose,
                emit=self._safe_emit(emit),
                settings=self.settings,
                api_base=self.base_url,
                api_key=self._key or _NO_KEY,
                sampling=self.sampling.params(),
            )
        except LLMError as exc:
            raise LLMError(self._hide(str(exc)).replace(f"openai/{self.model}", f"endpoint:{self.model}")) from None
        return result.content, result.thinking


def build_endpoint(config: RunConfig, task: Task, settings: Settings, *, toolbox: Toolbox | None, endpoint_key: str | None, web: WebArchive | None = None) -> EndpointAgent:
    """``config.agent.endpoint_url`` and ``endpoint_model``; ``endpoint_key`` is a key given with
    the URL (never stored). Without one, the configured key (``settings.endpoint_key``) is sent
    only when the URL is the configured one (``Settings.endpoint_key_for``)."""
    spec = config.agent
    url = spec.endpoint_url
    if not url:
        raise MissingSetting("the endpoint agent needs the URL of an OpenAI-compatible chat endpoint", "endpoint_url",
                             example="e.g. http://127.0.0.1:8000/v1")
    # the configured key goes only to the configured URL; any other URL gets only the key
    # given with it (or none)
    key = endpoint_key if endpoint_key is not None else settings.endpoint_key_for(url)
    return EndpointAgent(task, settings, url=url, model=spec.endpoint_model or "agent", key=key, sampling=spec.sampling)


register_agent_kind(AgentKindInfo(
    name="endpoint", label="Endpoint (OpenAI-compatible agent)", help="an OpenAI-compatible agent", factory=build_endpoint,
    in_studies=False, own_provider="endpoint",
))
