"""The typed events a run is made of, and the vocabulary of a user's turn.

Sessions, agents and users *emit* these payloads; the store gives each a run id, a sequence
number and a timestamp and writes it at once. Everything downstream (the UI, statistics, resume,
scoring) is computed from the stored events only, so a live run, a resumed run and an imported
official trajectory are measured the same way.

An assistant *step* (one LLM call of the agent) is one ``message`` event with role
``assistant``; the tool calls it made follow as ``tool_call`` events and their outputs as
``tool_result`` events (matched by ``call_id``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Callable, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter

# What a user may decide on a turn after the opening (a simulator, a person, a script alike) ...
Decision = Literal["disclose", "push", "perfunctory", "redirect", "done"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)
# ... and the kind of a stage event: a decision, or the opening itself.
ReplyKind = Literal[Decision, "open"]
REPLY_KINDS: tuple[ReplyKind, ...] = (*DECISIONS, "open")
# the simulator's completion signal: anywhere in its reply it ends the conversation (never a turn)
DONE_MARKER = "[DONE]"
DecidedBy = Literal["simulator", "rules", "human", "script", "shadow", "import"]
Phase = Literal["dialogue", "extraction"]
Termination = Literal[
    "done",  # the user sent the completion signal
    "answer",  # the agent gave its final answer and the run was set to stop there
    "max_user_turns",
    "budget",
    "max_rounds",  # the official profile's budget of model calls per trajectory was spent
    "error_loop",  # official profile: the agent's calls failed 10 times in a row; the conversation ended there
    "empty_response",  # official profile: the extraction's fifth reply without an answer
    "malformed_tool_call",  # official profile: the same, the replies holding tool-call tags that could not be read
    "no_response",  # the openclaw agent: OpenClaw gave no reply, its nudges included
    "error",
    "cancelled",
    "abandoned",  # nobody answered a person's turn within the idle timeout (the owner may continue)
    "context_length",
    "imported",
]


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageEvent(_Event):
    kind: Literal["message"] = "message"
    role: Literal["user", "assistant", "system"]
    content: str = ""
    thinking: str | None = None
    phase: Phase = "dialogue"
    # assistant steps: how many tool calls this step made (the tool_call events follow)
    n_tool_calls: int = 0
    # True when this assistant step is the reply to the user (no tool calls)
    final: bool = False


class ToolCallEvent(_Event):
    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # raw argument text when it could not be parsed as JSON
    raw_arguments: str | None = None


class ToolResultEvent(_Event):
    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    tool: str
    content: str
    error: bool = False
    truncated_chars: int = 0
    elapsed_s: float | None = None


class StageEvent(_Event):
    """A user's decision on one turn. ``stage_index`` is the stage pointer after the decision."""

    kind: Literal["stage"] = "stage"
    stage_index: int
    stage_name: str = ""
    advanced: bool = False
    reply_kind: ReplyKind
    trigger_met: bool | None = None
    decided_by: DecidedBy
    rationale: str | None = None
    # True for the shadow simulator's opinion logged beside a human's decision
    shadow: bool = False


UsagePurpose = Literal["agent", "simulator", "judge", "summariser", "extraction", "compaction", "other"]


class UsageEvent(_Event):
    kind: Literal["usage"] = "usage"
    purpose: UsagePurpose
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    # of input_tokens, how many the provider served from its prompt cache (None: it did not say)
    cached_input_tokens: int | None = None
    cost_usd: float | None = None  # None means unknown, never silently 0
    latency_s: float | None = None
    retries: int = 0


class CompactionEvent(_Event):
    kind: Literal["compaction"] = "compaction"
    tokens_before: int
    tokens_after: int
    threshold: int
    summary: str


class ErrorEvent(_Event):
    kind: Literal["error"] = "error"
    source: str  # "llm", "tool", "user", "session", "extraction", ...
    message: str
    fatal: bool = False
    attempt: int | None = None


class NoteEvent(_Event):
    kind: Literal["note"] = "note"
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class GraphEvent(_Event):
    """The agent's final graph. The store also writes it to the graphs table."""

    kind: Literal["graph"] = "graph"
    triples: list[dict[str, str]]
    raw_text: str = ""
    repaired: list[str] = Field(default_factory=list)
    dropped: list[dict[str, Any]] = Field(default_factory=list)
    source: str = "extraction"
    # how the agent's extraction ended when its rules say ("answer", "empty_response" ...)
    outcome: str | None = None


# what a tool asked of the web, and how a replayed run's request was answered from its recording
WebOp = Literal["search", "scholar", "visit"]
ReplayOutcome = Literal["exact", "fallback", "missing"]


class WebEvent(_Event):
    """One exchange of a tool with the web (``run.web``): recorded when the run records its web,
    or answered from a recording when it replays one (``replayed`` then says how).

    A search (``op`` "search" or "scholar") keeps its backend, query, ``topn`` and its hits (or
    the provider's error); a visit the requested and final URL, the status, the headers that
    matter, the title, and the extracted text and raw body by content (``text_sha256``,
    ``body_sha256``: the store keeps each content once, compressed). The bytes travel with the
    event in memory (``blobs``) until the store writes them; secrets are scrubbed before (keys in
    URLs, and only an allow-list of headers is kept)."""

    kind: Literal["web"] = "web"
    op: WebOp
    backend: str
    call_id: str | None = None  # the tool call that made it (``run.tools.execute_tool_call``)
    query: str | None = None
    topn: int | None = None
    url: str | None = None
    final_url: str | None = None
    status: int | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    title: str | None = None
    hits: list[dict[str, Any]] | None = None
    error: str | None = None
    truncated: bool = False
    text_sha256: str | None = None
    body_sha256: str | None = None
    body_bytes: int = 0  # the raw body's size as downloaded (the stored body may be cut: ``body_capped``)
    body_capped: bool = False
    fetched_at: float | None = None  # Unix time of the fetch
    replayed: ReplayOutcome | None = None
    _blobs: dict[str, bytes] = PrivateAttr(default_factory=dict)

    def attach(self, content: bytes) -> str:
        """Keep ``content`` with the event (written by the store) and give its sha256."""
        import hashlib

        digest = hashlib.sha256(content).hexdigest()
        self._blobs[digest] = content
        return digest

    @property
    def blobs(self) -> dict[str, bytes]:
        """The contents carried with the event, by sha256 (what the store writes, or read back)."""
        return self._blobs

    def text(self) -> str | None:
        """The extracted text (None: not carried, or a failed visit)."""
        raw = self._blobs.get(self.text_sha256 or "")
        return raw.decode("utf-8") if raw is not None else None


class EndEvent(_Event):
    kind: Literal["end"] = "end"
    termination: Termination
    detail: str = ""


EventData = Annotated[
    Union[
        MessageEvent,
        ToolCallEvent,
        ToolResultEvent,
        StageEvent,
        UsageEvent,
        CompactionEvent,
        ErrorEvent,
        NoteEvent,
        GraphEvent,
        EndEvent,
        WebEvent,
    ],
    Field(discriminator="kind"),
]

EVENT_ADAPTER: TypeAdapter[EventData] = TypeAdapter(EventData)


class StoredEvent(BaseModel):
    """An event as read back from the store."""

    run_id: str
    seq: int
    ts: datetime
    data: EventData

    @property
    def kind(self) -> str:
        return self.data.kind


def parse_event(payload: dict[str, Any] | str | bytes) -> EventData:
    if isinstance(payload, (str, bytes)):
        return EVENT_ADAPTER.validate_json(payload)
    return EVENT_ADAPTER.validate_python(payload)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


# The callback agents, users and the session use to record what happens (what it returns, if
# anything, is of no concern to the caller).
Emit = Callable[[EventData], object]
