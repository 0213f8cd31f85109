"""Studies for outside players: what a study is, its links, a player's play and the progress.

An admin makes a study (personas, the agent configuration, plays per persona, a time limit, a
consent text, whether a shadow simulator decides beside the player, whether annotators are kept
blind to the agent) and gets one link per play. A link's one-time code, used once, makes a player
login bound to that play (``study:<study>:<slot>``: no configured login can have that name, since
``VIBESEARCH_AUTH`` names cannot hold ``:``). The player reads the consent and the persona card and
plays that persona, once, against the study's agent; the agent's name is never shown to them. A
play that runs past the time limit or the idle timeout ends as abandoned: it is counted, and left
out of the fidelity study (which reads only finished runs).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ..config import Settings
from ..store import Store
from ..store.tables import StudyCodeRow, StudyRow
from ._access import PLAYER_PREFIX
from ._policy import check_model, study_agents

MAX_PLAYS = 50  # per persona
MAX_TIME_LIMIT_MIN = 24 * 60
MIN_TIME_LIMIT_MIN = 0.05  # three seconds: for trying a study out
MAX_CONSENT_CHARS = 20_000
OUTCOMES = ("not started", "opened", "in progress", "done", "abandoned")


class StudyRefused(ValueError):
    """A study that cannot be made or a play that cannot go on; the message is the status line."""


@dataclass(frozen=True)
class StudyConfig:
    tasks: tuple[str, ...]
    agent: str = "baseline"
    agent_model: str = ""
    simulator_model: str = ""  # the shadow's model ("": the rule-based shadow)
    plays: int = 1  # per persona
    time_limit_min: float = 30.0
    consent: str = ""
    shadow: bool = True
    blind: bool = True

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def of(cls, row: StudyRow) -> "StudyConfig":
        raw = json.loads(row.config_json or "{}")
        raw["tasks"] = tuple(raw.get("tasks") or ())
        return cls(**{k: v for k, v in raw.items() if k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class StudyLink:
    slot: int
    task_id: str
    code: str

    def path(self, study_id: str) -> str:
        return f"study/{study_id}?code={self.code}"


@dataclass
class Progress:
    """Plays of one persona, by outcome."""

    task_id: str
    counts: dict[str, int] = field(default_factory=lambda: {o: 0 for o in OUTCOMES})


def player_prefix(study_id: str) -> str:
    return f"{PLAYER_PREFIX}{study_id}:"


def player_name(study_id: str, slot: int) -> str:
    return f"{player_prefix(study_id)}{slot}"


def is_player(login: str | None) -> bool:
    return bool(login) and str(login).startswith(PLAYER_PREFIX)


__all__ = ["PLAYER_PREFIX", "StudyConfig", "StudyLink", "StudyRefused", "checked_config", "create_study", "is_player",
           "player_name", "player_prefix", "progress"]


def checked_config(settings: Settings, known_tasks: set[str], *, tasks: Any, agent: Any, agent_model: Any,
                   simulator_model: Any, plays: Any, time_limit_min: Any, consent: Any, shadow: Any, blind: Any) -> StudyConfig:
    """A study's configuration from what an admin typed, checked as the Play tab checks a run."""
    picked = [t for t in (tasks or []) if isinstance(t, str)]
    if not picked:
        raise StudyRefused("Pick at least one persona for the study.")
    unknown = [t for t in picked if t not in known_tasks]
    if unknown:
        raise StudyRefused(f"unknown persona {unknown[0][:80]!r}")
    if agent not in study_agents():
        raise StudyRefused(f"the study's agent must be one of {', '.join(study_agents())}")
    try:
        a_model = check_model(agent_model, "the agent model", settings) or ""
        s_model = check_model(simulator_model, "the simulator model", settings) or ""
        n = int(plays)
        limit = float(time_limit_min)
    except (TypeError, ValueError) as exc:
        raise StudyRefused(str(exc)) from None
    if not 1 <= n <= MAX_PLAYS:
        raise StudyRefused(f"plays per persona must be between 1 and {MAX_PLAYS}")
    if not MIN_TIME_LIMIT_MIN <= limit <= MAX_TIME_LIMIT_MIN:  # NaN fails both
        raise StudyRefused(f"the time limit must be between {MIN_TIME_LIMIT_MIN:g} and {MAX_TIME_LIMIT_MIN} minutes")
    text = consent if isinstance(consent, str) else ""
    if len(text) > MAX_CONSENT_CHARS:
        raise StudyRefused(f"the consent text is longer than {MAX_CONSENT_CHARS} characters")
    return StudyConfig(tasks=tuple(dict.fromkeys(picked)), agent=str(agent), agent_model=a_model, simulator_model=s_model,
                       plays=n, time_limit_min=limit, consent=text.strip(), shadow=bool(shadow), blind=bool(blind))


def create_study(store: Store, name: Any, config: StudyConfig, created_by: str) -> tuple[StudyRow, list[StudyLink]]:
    """Store a study and one code per play; the links are returned once (only digests are kept)."""
    title = " ".join(str(name or "").split())
    if not title or len(title) > 120:
        raise StudyRefused("Give the study a name (at most 120 characters).")
    study = StudyRow(id=secrets.token_hex(4), name=title, config_json=config.to_json(), created_by=created_by, created_at=time.time())
    links = [StudyLink(slot=i, task_id=task_id, code=secrets.token_urlsafe(12))
             for i, task_id in enumerate(t for t in config.tasks for _ in range(config.plays))]
    from ..store.studies import StudyExists

    try:
        store.add_study(study, [(link.code, link.slot, link.task_id) for link in links])
    except StudyExists as exc:
        raise StudyRefused(str(exc)) from None
    return study, links


def outcome(store: Store, play: StudyCodeRow) -> str:
    if play.used_at is None:
        return "not started"
    if not play.run_id:
        return "opened"
    try:
        status = store.get_run(play.run_id).status
    except KeyError:
        return "opened"
    if status == "running":
        return "in progress"
    if status == "finished":
        return "done"
    return "abandoned"  # abandoned by the time or idle limit, stopped, failed: left out, counted


def progress(store: Store, study: StudyRow) -> list[Progress]:
    by_task: dict[str, Progress] = {}
    for play in store.study_codes(study.id):
        row = by_task.setdefault(play.task_id, Progress(play.task_id))
        row.counts[outcome(store, play)] += 1
    return list(by_task.values())


def finished_runs(store: Store, study: StudyRow) -> list[str]:
    return [p.run_id for p in store.study_codes(study.id) if p.run_id and outcome(store, p) == "done"]
