"""The two protocol profiles as objects: every decision that differs between ``vibesearch`` (ours)
and ``official`` (the paper's harness) is a method or an attribute here, and nowhere else.

    profile = profile_of(config.protocol)
    config = profile.resolve(draft)            # the run's sampling and limits under this profile
    profile.user_turns_left(config.limits, n)  # what the user-turn cap counts
    profile.done_events("... [DONE]")          # how a user's completion signal is stored
    profile.left_out(cancelled=True, has_graph=False)

A run's behaviour is its resolved ``RunConfig`` and the profile it names; the parts of a run choose
their implementation from the profile once, when they are built: ``make_agent`` runs the official
loop for the react agent kind when ``official_loop`` is set, ``make_user`` plays an LLM-played user
as the official simulator when ``official_simulator`` is set, and the scorer grades in the official
layout when ``official_grader`` is set. No other module compares a profile's name
(tests/architecture/test_one_carrier.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Protocol

from ..config import Settings
from ..run.config import PROTOCOLS, Limits, OpenclawSpec, ProtocolProfile, RunConfig, Sampling, is_offline_judge
from ..run.conversation import Conversation
from ..run.events import EventData, MessageEvent, NoteEvent
from .prompts import PromptSet, load_openclaw_nudge, load_prompts, resolve_harness
from ..tasks.models import Task
from .rules import (
    AGENT_MAX_TOKENS,
    GEMINI_JUDGE_PREFIX,
    OFFICIAL_GEMINI_JUDGE_SAMPLING,
    MAX_LLM_CALLS,
    OFFICIAL_AGENT_SAMPLING,
    OFFICIAL_JUDGE_SAMPLING,
    OFFICIAL_REEXTRACTION_SAMPLING,
    OFFICIAL_SIMULATOR_SAMPLING,
    OPENCLAW_IDLE_S,
    OPENCLAW_MAX_NUDGES,
    OPENCLAW_POLL_S,
    OPENCLAW_SEPARATOR,
    OPENCLAW_SIMULATOR_ATTEMPTS,
    OPENCLAW_SIMULATOR_SAMPLING,
    SCRIPT_USER_TURNS,
    REEXTRACT_MAX_TOKENS,
    SIMULATOR_ATTEMPTS,
    family_reasoning_effort,
    model_route,
    official_compaction_threshold,
)

OUR_USER_TURNS = 30  # our profile's cap on user turns when the run sets none

# model calls that count against a trajectory's budget of rounds (the official agent counts its
# own calls and each compaction as one round) ...
BUDGET_PURPOSES = frozenset({"agent", "compaction"})
# ... less the empty replies it dropped and took back (a note's data key, written by that agent)
DISCARDED_EMPTY = "discarded_empty_reply"
OWN_PROMPTS = "own prompts"


class _Counts(Protocol):
    """What a profile reads of a run's interaction statistics (``scoring.stats.RunStats``)."""

    @property
    def n_asst(self) -> int: ...

    @property
    def n_user(self) -> int: ...

    @property
    def official(self) -> "_OfficialCounts": ...


class _OfficialCounts(Protocol):
    @property
    def assistant_turns(self) -> int: ...

    @property
    def user_turns(self) -> int: ...


@dataclass(frozen=True)
class Opening:
    """What a new run under a profile records before it begins: facts for its meta, and the note
    that opens its events."""

    meta: dict[str, object]
    note: NoteEvent


def _filled(given: Sampling, defaults: Sampling) -> Sampling:
    """``given`` with each value it leaves unset taken from ``defaults``."""
    values = given.model_dump()
    for name, default in defaults.model_dump().items():
        if values.get(name) is None and default is not None:
            values[name] = default
    return Sampling.model_validate(values)


def rounds_used(convo: Conversation) -> int:
    """Rounds of the trajectory so far that count against ``Limits.max_rounds``, as the official
    harness counts them: the agent's answered calls (the replies it dropped and took back, and the
    null answers its client asked again for, excepted) and each compaction that brought a summary."""
    discarded = sum(1 for t in convo.turns for n in t.notes if n.data.get(DISCARDED_EMPTY))
    return sum(1 for u in convo.usage if u.purpose == "agent") - discarded + convo.compactions


def official_judge_sampling(judge: str) -> Sampling:
    """How the official grader samples for ``judge``: the Gemini grader's for a ``gemini/`` model,
    the OpenAI-compatible grader's for any other; the offline judge samples nothing."""
    if is_offline_judge(judge):
        return Sampling()
    return OFFICIAL_GEMINI_JUDGE_SAMPLING if judge.startswith(GEMINI_JUDGE_PREFIX) else OFFICIAL_JUDGE_SAMPLING


def official_language(task: Task) -> str:
    """The language the official harness picks prompts by: Chinese only for a task whose language
    is exactly ``zh`` as written in its file (``zh-CN``, ``cn`` ... read as English there)."""
    written = task.extra.get("language_as_written", task.extra.get("language_original", task.language))
    return "zh" if written == "zh" else "en"


@dataclass(frozen=True)
class OpenclawRules:
    """How the openclaw agent waits for, nudges and opens a conversation with OpenClaw."""

    poll_s: float  # an unanswered turn is looked at again this often ...
    idle_s: float  # ... for this long, then nudged
    max_nudges: int
    nudge: str  # the nudge's text
    nudge_source: str  # where it came from ("own", or the checkout's file)
    # a turn still unanswered after the first idle wait fails the run instead of being nudged
    unanswered_fails_run: bool
    # a turn with no reply of its own takes the session's last reply (the official driver reads
    # the newest reply in the whole session)
    stale_reply_counts: bool = False
    separator: str = OPENCLAW_SEPARATOR  # between the system prompt and the first message


def _runs_openclaw(config: RunConfig) -> bool:
    """The run's agent is driven as the official OpenClaw driver drives it. The profiles sit below
    the agents' registry (``agents/registry.py``): they read the run's shape, not a kind's name. A
    built config carries OpenClaw's switches exactly when its agent is OpenClaw, and a model only
    when its agent calls one (``RunConfig._build``)."""
    return config.agent.openclaw is not None


def _with_openclaw(config: RunConfig) -> RunConfig:
    """``config`` with the openclaw agent's idle rule filled in (the official driver's numbers)."""
    spec = config.agent.openclaw  # set exactly when the agent is OpenClaw (``RunConfig``'s shape)
    if spec is None:
        return config
    filled = spec.model_copy(update={
        "idle_s": spec.idle_s if spec.idle_s is not None else OPENCLAW_IDLE_S,
        "max_nudges": spec.max_nudges if spec.max_nudges is not None else OPENCLAW_MAX_NUDGES,
    })
    return config.model_copy(update={"agent": config.agent.model_copy(update={"openclaw": filled})})


class Profile(ABC):
    """One protocol profile: how its runs are resolved, conversed, closed, scored and reported."""

    name: ClassVar[ProtocolProfile]
    # which implementation of a run's parts the profile runs (chosen once, when they are built)
    official_loop: ClassVar[bool]  # the react agent kind runs the official agent loop (agents/official.py)
    official_simulator: ClassVar[bool]  # an LLM-played user is the official simulator (users/official.py)
    official_grader: ClassVar[bool]  # graph runs are graded in the official judge layout (scoring/official_score.py)
    official_tools: ClassVar[bool]  # the agent's tools are the official toolkit's (tools/official.py)
    # scoring and reporting rules
    failed_runs_are_samples: ClassVar[bool]  # a run that failed is scored (0) and averaged in
    combines_judges: ClassVar[bool]  # several judges' verdicts on one run may be combined by majority
    # how ``vibesearch reextract`` asks a run of this profile for its graph again
    reextraction_sampling: ClassVar[Sampling]

    # ------------------------------------------------------------------ resolving a run
    @abstractmethod
    def resolve(self, config: RunConfig) -> RunConfig:
        """``config`` as this profile runs it (sampling filled in, limits the profile sets)."""

    def is_resolved(self, config: RunConfig) -> bool:
        """Would resolving ``config`` again change nothing?"""
        return self.resolve(config) == config

    def prompts(self, settings: Settings) -> PromptSet | None:
        """The prompts the profile runs with (None: each part's own)."""
        return None

    def opening(self, settings: Settings) -> Opening | None:
        """What a new run records before it begins (None: nothing)."""
        return None

    # ------------------------------------------------------------------ the openclaw agent
    @abstractmethod
    def openclaw_rules(self, spec: OpenclawSpec, settings: Settings, *, simulated: bool) -> OpenclawRules:
        """How the openclaw agent of a run resolved under this profile waits and nudges
        (``simulated``: an LLM or a person plays the user, not a direct or staged script)."""

    def simulator_attempts(self, config: RunConfig) -> int:
        """Calls the official simulator makes for one reply before it ends the conversation."""
        return SIMULATOR_ATTEMPTS

    # ------------------------------------------------------------------ the conversation
    @abstractmethod
    def user_turns_left(self, limits: Limits, user_messages: int) -> int:
        """User turns still allowed, given the user messages so far (the opening included)."""

    @abstractmethod
    def turn_cap_detail(self, limits: Limits) -> str:
        """What the end of a run cut by the user-turn cap says."""

    def rounds_left(self, limits: Limits, convo: Conversation) -> int | None:
        """Rounds (``Limits.max_rounds``) still allowed; None: the profile counts none."""
        if limits.max_rounds is None:
            return None
        return max(0, limits.max_rounds - rounds_used(convo))

    @abstractmethod
    def done_events(self, message: str) -> list[EventData]:
        """How a user's completion signal (``message``, the words that came with it) is stored."""

    @abstractmethod
    def extracts(self, *, replied: bool, steps: int, termination: str) -> bool:
        """Is the agent asked for its graph when the conversation ended so (``replied``: it gave a
        reply; ``steps``: its dialogue steps)?"""

    def final_termination(self, termination: str, extraction: str | None) -> str:
        """The run's termination, given how the conversation ended and how the agent's extraction
        ended (``GraphResult.outcome``; None: the agent does not say)."""
        return termination

    # ------------------------------------------------------------------ scoring and reports
    @abstractmethod
    def left_out(self, *, cancelled: bool, has_graph: bool) -> bool:
        """Is a run left out of the averages (and counted) rather than a sample?"""

    def left_out_reason(self, status: str | None) -> str:
        return "abandoned by a person" if status == "abandoned" else "cancelled by a person"

    @abstractmethod
    def interaction_counts(self, stats: _Counts) -> tuple[int, int]:
        """#Asst and #User as this profile reports them."""

    @abstractmethod
    def label(self, prompt_source: str | None = None) -> str:
        """The name every report, export and leaderboard row gives a number of this profile."""


class VibesearchProfile(Profile):
    """Ours: every user message counts as a turn, a step cap per agent turn, compaction at the
    run's own threshold, the offline judge or an LLM judge, left-out only when nothing was left."""

    name = "vibesearch"
    official_loop = False
    official_simulator = False
    official_grader = False
    official_tools = False
    failed_runs_are_samples = False
    combines_judges = True
    reextraction_sampling = Sampling(max_tokens=REEXTRACT_MAX_TOKENS)  # the provider's own temperature

    def resolve(self, config: RunConfig) -> RunConfig:
        given = config.limits
        limits = given.model_copy(update={
            "max_user_turns": given.max_user_turns or OUR_USER_TURNS,
            "compaction_threshold": given.compaction_threshold if given.compaction_threshold is not None else 0.8,
            "max_rounds": None,
            "compaction_tokens": None,
        })
        return _with_openclaw(config.model_copy(update={"limits": limits}))

    def openclaw_rules(self, spec: OpenclawSpec, settings: Settings, *, simulated: bool) -> OpenclawRules:
        from ._own_prompts import OPENCLAW_NUDGE

        # the official driver's waits; the nudges are sent (its simulated mode never reaches them)
        return OpenclawRules(
            poll_s=OPENCLAW_POLL_S, idle_s=spec.idle_s or OPENCLAW_IDLE_S,
            max_nudges=spec.max_nudges if spec.max_nudges is not None else OPENCLAW_MAX_NUDGES,
            nudge=OPENCLAW_NUDGE, nudge_source="own", unanswered_fails_run=False,
        )

    def user_turns_left(self, limits: Limits, user_messages: int) -> int:
        return max(0, (limits.max_user_turns or OUR_USER_TURNS) - user_messages)

    def turn_cap_detail(self, limits: Limits) -> str:
        return f"{limits.max_user_turns} user turns"

    def done_events(self, message: str) -> list[EventData]:
        return [MessageEvent(role="user", content=message)]

    def extracts(self, *, replied: bool, steps: int, termination: str) -> bool:
        return replied

    def left_out(self, *, cancelled: bool, has_graph: bool) -> bool:
        return cancelled and not has_graph

    def left_out_reason(self, status: str | None) -> str:
        return super().left_out_reason(status) + ", no graph"

    def interaction_counts(self, stats: _Counts) -> tuple[int, int]:
        return stats.n_asst, stats.n_user

    def label(self, prompt_source: str | None = None) -> str:
        return "vibesearch profile"


class OfficialProfile(Profile):
    """The official harness (docs/protocol.md): 30 simulator replies after the opening, ``[DONE]``
    never shown to the agent, 200 rounds per trajectory, no step cap, compaction above 229,376
    reported prompt tokens, the official sampling per role, prompts from the user's checkout (or
    ours), the official judge layout, cancelled runs left out and failed runs scored 0."""

    name = "official"
    official_loop = True
    official_simulator = True
    official_grader = True
    official_tools = True
    failed_runs_are_samples = True
    combines_judges = False
    reextraction_sampling = OFFICIAL_REEXTRACTION_SAMPLING

    def resolve(self, config: RunConfig) -> RunConfig:
        config = _with_openclaw(config)
        openclaw = _runs_openclaw(config)
        # the OpenClaw driver sets no sampling for OpenClaw's own model calls (OpenClaw asks with
        # its own); the general agent samples as run.py's defaults
        agent = config.agent.sampling if openclaw else _filled(config.agent.sampling, OFFICIAL_AGENT_SAMPLING)
        # the OpenClaw driver runs a simulator of its own, with its own sampling
        simulator = OPENCLAW_SIMULATOR_SAMPLING if openclaw else OFFICIAL_SIMULATOR_SAMPLING
        user = _filled(config.user.sampling, simulator).model_copy(update={"reasoning_effort": self._simulator_effort(config)})
        given = config.limits
        limits = given.model_copy(
            update={
                # what the official scripts pass, unless the run says otherwise
                "max_user_turns": given.max_user_turns or SCRIPT_USER_TURNS,
                "max_steps_per_turn": None,  # no step cap per turn
                "max_rounds": MAX_LLM_CALLS,
                # the threshold follows from the context asked for and the answer's budget, as the
                # official agent computes it; the window fraction of ours is not used
                "compaction_tokens": given.compaction_tokens
                or official_compaction_threshold(given.context_window, max_tokens=agent.max_tokens or AGENT_MAX_TOKENS),
                "compaction_threshold": None,
            }
        )
        return config.model_copy(
            update={
                "limits": limits,
                "agent": config.agent.model_copy(update={"sampling": agent}),
                "user": config.user.model_copy(update={"sampling": user}),
                "judge": config.judge.model_copy(update={"sampling": official_judge_sampling(config.judge.name)}),
            }
        )

    @staticmethod
    def _simulator_effort(config: RunConfig) -> str | None:
        """The official general agent's simulator is called with the agent's own client
        configuration unless it is given a URL of its own (``run_one_simulated``): it then carries
        the agent's reasoning effort (DeepSeek: the highest), whatever the simulator's model. Here
        a simulator on the agent's route (``model_route``) is one on the agent's endpoint. The
        OpenClaw driver's simulator has a configuration of its own: nothing is inherited."""
        if _runs_openclaw(config) or not config.user.model or not config.agent.model:
            return None
        if model_route(config.user.model) != model_route(config.agent.model):
            return None
        return family_reasoning_effort(config.agent.model)

    def prompts(self, settings: Settings) -> PromptSet:
        """The configured checkout's prompts (``--official-harness`` / ``VIBESEARCH_OFFICIAL_HARNESS``:
        the settings only, never a stored config), else our own."""
        return load_prompts(resolve_harness(None, settings))  # two small files parsed: no cache needed

    def openclaw_rules(self, spec: OpenclawSpec, settings: Settings, *, simulated: bool) -> OpenclawRules:
        nudge, source = load_openclaw_nudge(resolve_harness(None, settings))
        # the official simulated mode hands its nudge generator and its nudge count to the nudge
        # helper in swapped places, so the helper fails where it would nudge: the sample ends with
        # the termination "error" and no messages (scored 0). Its direct and staged modes nudge
        # with the fixed text.
        return OpenclawRules(
            poll_s=OPENCLAW_POLL_S, idle_s=spec.idle_s or OPENCLAW_IDLE_S,
            max_nudges=spec.max_nudges if spec.max_nudges is not None else OPENCLAW_MAX_NUDGES,
            nudge=nudge, nudge_source=source, unanswered_fails_run=simulated, stale_reply_counts=True,
        )

    def simulator_attempts(self, config: RunConfig) -> int:
        return OPENCLAW_SIMULATOR_ATTEMPTS if _runs_openclaw(config) else SIMULATOR_ATTEMPTS

    def opening(self, settings: Settings) -> Opening:
        prompts = self.prompts(settings)
        label, record = prompts.source.label(), prompts.source.record()
        text = f"official protocol, {label}" if prompts.source.kind == "official" else "official protocol, own prompts"
        data: dict[str, object] = {"protocol": self.name, "prompts": record, "notes": list(prompts.notes)}
        return Opening(meta={"protocol": self.name, "prompt_source": label, "prompts": record}, note=NoteEvent(text=text, data=data))

    def user_turns_left(self, limits: Limits, user_messages: int) -> int:
        used = max(0, user_messages - 1)  # the simulator's replies: the opening query is not one
        return max(0, (limits.max_user_turns or SCRIPT_USER_TURNS) - used)

    def turn_cap_detail(self, limits: Limits) -> str:
        return f"{limits.max_user_turns} simulator replies after the opening"

    def done_events(self, message: str) -> list[EventData]:
        # the agent never sees [DONE], and it is not a user turn
        return [NoteEvent(text="the simulator said [DONE]: the conversation ends", data={"done": message})]

    def extracts(self, *, replied: bool, steps: int, termination: str) -> bool:
        # the official harness asks for the graph however the conversation ended, but for the
        # OpenClaw driver's unanswered turn
        return termination != "no_response"

    def final_termination(self, termination: str, extraction: str | None) -> str:
        """The official label: the conversation's end counts only when its own rules stopped it
        (the budget of rounds, ``error_loop``; a fatal error or our budget keep theirs); after
        ``[DONE]`` or the turn cap it is ``answer``; an extraction that did not end with an answer
        gives its own ending instead."""
        label = termination if termination in ("max_rounds", "error_loop", "error", "budget", "no_response") else "answer"
        return extraction if extraction is not None and extraction != "answer" else label

    def left_out(self, *, cancelled: bool, has_graph: bool) -> bool:
        return cancelled

    def interaction_counts(self, stats: _Counts) -> tuple[int, int]:
        return stats.official.assistant_turns, stats.official.user_turns

    def label(self, prompt_source: str | None = None) -> str:
        if not prompt_source or prompt_source == OWN_PROMPTS:
            return "official protocol, own prompts"
        return f"official protocol, {prompt_source}"


_PROFILES: dict[ProtocolProfile, Profile] = {p.name: p for p in (VibesearchProfile(), OfficialProfile())}
assert set(_PROFILES) == set(PROTOCOLS), "every profile name has its Profile"


def profile_of(name: ProtocolProfile) -> Profile:
    """The profile a run names."""
    return _PROFILES[name]


def profile_named(value: str | None) -> Profile:
    """The profile a stored name means (None and unknown names read as ours: rows stored before
    profiles were recorded)."""
    for name, profile in _PROFILES.items():
        if value == name:
            return profile
    return _PROFILES["vibesearch"]


def as_profile(value: str | None) -> ProtocolProfile:
    """A stored profile name, read as ``profile_named`` does."""
    return profile_named(value).name
