"""``RunConfig``: one typed description of a run, stored with it and read back to resume it.

The CLI, the batch runner and the app each build one (``RunConfig.from_settings``), ``make_agent``
and ``make_user`` build the run's parts from it, the session stores it on the run row (one JSON
column) and a resumed run is rebuilt from it. It never holds a key: an endpoint key is handed to
``make_agent`` beside it, or comes from the settings for the configured endpoint URL only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..config import AgentKind, SearchBackend, Settings, UserKind

ProtocolProfile = Literal["vibesearch", "official"]


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Sampling(_Part):
    """How a model of the run samples (None: the provider's default)."""

    temperature: float | None = None
    top_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)

    def params(self) -> dict[str, float | int]:
        """The values set, as keyword arguments of a model call."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


class AgentSpec(_Part):
    kind: AgentKind = "baseline"
    model: str | None = None  # the react agent's litellm model string
    endpoint_url: str | None = None  # the endpoint agent's base URL (never with a key)
    endpoint_model: str | None = None  # the model name sent to the endpoint
    sampling: Sampling = Field(default_factory=Sampling)

    @property
    def shown_model(self) -> str | None:
        """The model named in tables: the react model, the endpoint's model name, or None."""
        return self.endpoint_model if self.kind == "endpoint" else self.model


class UserSpec(_Part):
    kind: UserKind = "rules"
    model: str | None = None  # the simulator model (simulator, paper)
    sampling: Sampling = Field(default_factory=Sampling)
    shadow: str | None = None  # beside a person: a simulator model, or "rules"


class JudgeSpec(_Part):
    name: str = "offline"  # "offline" or a litellm model string
    sampling: Sampling = Field(default_factory=Sampling)


class SearchSpec(_Part):
    backend: SearchBackend = "offline"
    topn: int = Field(default=10, ge=1)
    tool_result_max_chars: int = Field(default=20_000, ge=1)


class Limits(_Part):
    max_user_turns: int = Field(default=30, ge=1)
    max_steps_per_turn: int = Field(default=30, ge=1)
    max_llm_calls: int | None = Field(default=None, ge=1)  # the agent's model calls in the whole run
    budget_tokens: int | None = None
    budget_usd: float | None = None
    stop_on_final_answer: bool = False
    context_window: int = 256_000
    compaction_threshold: float = 0.8


# flat keyword -> (part, field) for ``from_settings``
_FLAT: dict[str, tuple[str, str]] = {
    "agent": ("agent", "kind"),
    "agent_model": ("agent", "model"),
    "endpoint_url": ("agent", "endpoint_url"),
    "endpoint_model": ("agent", "endpoint_model"),
    "agent_sampling": ("agent", "sampling"),
    "user": ("user", "kind"),
    "simulator_model": ("user", "model"),
    "user_sampling": ("user", "sampling"),
    "shadow": ("user", "shadow"),
    "judge": ("judge", "name"),
    "judge_sampling": ("judge", "sampling"),
    "search_backend": ("search", "backend"),
    "search_topn": ("search", "topn"),
    "tool_result_max_chars": ("search", "tool_result_max_chars"),
    **{name: ("limits", name) for name in Limits.model_fields},
}
_TOP = ("task_id", "protocol", "seed", "pace_s")


class RunConfig(_Part):
    task_id: str = ""
    agent: AgentSpec = Field(default_factory=AgentSpec)
    user: UserSpec = Field(default_factory=UserSpec)
    judge: JudgeSpec = Field(default_factory=JudgeSpec)
    search: SearchSpec = Field(default_factory=SearchSpec)
    limits: Limits = Field(default_factory=Limits)
    protocol: ProtocolProfile = "vibesearch"
    seed: int | None = None
    pace_s: float = Field(default=0.0, ge=0)  # a wait before each simulated user turn (watching)

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> "RunConfig":
        """The run the settings describe, with ``overrides`` (flat names: ``agent``, ``agent_model``,
        ``user``, ``simulator_model``, ``shadow``, ``judge``, ``search_backend``, ``max_user_turns``,
        ``task_id``, ``protocol`` ...; a None value means "not given").

        Only what the chosen kinds use is kept: a model for the react agent or an LLM-played user,
        the endpoint's URL and model name for the endpoint agent, a shadow beside a person."""
        def sampling() -> dict[str, Any]:
            return Sampling(temperature=settings.temperature).model_dump()

        parts: dict[str, Any] = {
            "agent": {"kind": settings.agent, "model": settings.agent_model, "endpoint_url": settings.endpoint_url,
                      "endpoint_model": settings.endpoint_model, "sampling": sampling()},
            "user": {"kind": settings.user, "model": settings.simulator_model, "sampling": sampling(), "shadow": None},
            "judge": {"name": settings.judge_model or "offline", "sampling": sampling()},
            "search": {"backend": settings.search_backend, "topn": settings.search_topn,
                       "tool_result_max_chars": settings.tool_result_max_chars},
            "limits": {name: getattr(settings, name) for name in Limits.model_fields if hasattr(settings, name)},
        }
        return cls._build(parts, overrides)

    def with_overrides(self, **overrides: Any) -> "RunConfig":
        """This config with ``overrides`` (the flat names of ``from_settings``; None: unchanged)."""
        return self._build(self.model_dump(), overrides)

    @classmethod
    def _build(cls, parts: dict[str, Any], overrides: dict[str, Any]) -> "RunConfig":
        unknown = sorted(set(overrides) - set(_FLAT) - set(_TOP))
        if unknown:
            raise TypeError(f"RunConfig: unknown setting(s) {', '.join(unknown)}")
        for key, value in overrides.items():
            if value is None:
                continue
            if key in _FLAT:
                part, name = _FLAT[key]
                parts[part][name] = value
            else:
                parts[key] = value
        agent, user = parts["agent"], parts["user"]
        if agent["kind"] != "react":
            agent["model"] = None
        if agent["kind"] != "endpoint":
            agent["endpoint_url"] = agent["endpoint_model"] = None
        if user["kind"] not in ("simulator", "paper"):
            user["model"] = None
        if user["kind"] != "human":
            user["shadow"] = None
        return cls.model_validate(parts)

    def settings_for(self, settings: Settings) -> Settings:
        """``settings`` with this run's behaviour put in: what the agents, the tools and the
        compaction read from the settings. The endpoint URL stays out, so that the configured key
        (``Settings.endpoint_key_for``) never follows a URL stored with a run."""
        lim = self.limits
        return settings.model_copy(
            update={
                "search_backend": self.search.backend,
                "search_topn": self.search.topn,
                "tool_result_max_chars": self.search.tool_result_max_chars,
                "max_user_turns": lim.max_user_turns,
                "max_steps_per_turn": lim.max_steps_per_turn,
                "stop_on_final_answer": lim.stop_on_final_answer,
                "budget_tokens": lim.budget_tokens,
                "budget_usd": lim.budget_usd,
                "context_window": lim.context_window,
                "compaction_threshold": lim.compaction_threshold,
            }
        )
