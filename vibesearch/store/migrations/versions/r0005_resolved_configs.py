"""Every run gets a run configuration resolved for its profile, so the code reads one shape.

* A run stored before run configurations were kept (no ``run_config_json``) gets the one its
  settings snapshot and the agent and user it recorded describe (what resume used to work out
  each time), under our profile (the only one there was then). Its batch plan, when it names no
  configuration, gets that one too.
* A run of the official profile gets the limits that profile ran it by, which earlier stored
  configurations left implicit: 30 simulator replies after the opening (whatever was asked: the
  profile ignored it), no step cap per turn, 200 rounds per trajectory, compaction above 229,376
  reported prompt tokens (and no window fraction).

Runs whose parts the vocabulary does not know (imported trajectories) keep none. The values are
written here as they were at this revision, not read from the code, so the migration stays what
it was whatever the code becomes. Nothing to undo: a downgrade leaves the configurations.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_AGENTS = ("baseline", "react", "endpoint")
_USERS = ("rules", "simulator", "paper", "human", "direct", "staged")
_BACKENDS = ("offline", "ddgs", "serper", "tavily", "searxng")
_LIMITS = {  # name -> default, as the settings had them
    "max_user_turns": 30, "max_steps_per_turn": 30, "max_llm_calls": None, "budget_tokens": None, "budget_usd": None,
    "stop_on_final_answer": False, "context_window": 256_000, "compaction_threshold": 0.8,
}
# the limits a profile ran its runs by, which configurations stored before left implicit
_PROFILE_LIMITS: dict[str, dict[str, Any]] = {
    "official": {"max_user_turns": 30, "max_steps_per_turn": None, "max_rounds": 200, "compaction_tokens": 229_376,
                 "compaction_threshold": None},
}


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _derived(row: Any) -> dict[str, Any] | None:
    """The configuration a run stored before configurations were describes (None: not a run of
    ours, e.g. an imported trajectory)."""
    snapshot, meta = _json(row.config_json), _json(row.meta_json)
    agent_meta: dict[str, Any] = meta["agent_config"] if isinstance(meta.get("agent_config"), dict) else {}
    user_meta: dict[str, Any] = meta["user_config"] if isinstance(meta.get("user_config"), dict) else {}
    kind = agent_meta.get("kind") or row.agent or snapshot.get("agent") or "baseline"
    user = user_meta.get("kind") or row.user or snapshot.get("user") or "rules"
    if kind not in _AGENTS or user not in _USERS:
        return None
    sampling = {"temperature": snapshot.get("temperature"), "top_p": None, "max_tokens": None}
    pace = meta.get("pace_s")
    limits = {name: snapshot.get(name, default) for name, default in _LIMITS.items()}
    limits.update({"max_rounds": None, "compaction_tokens": None})
    backend = snapshot.get("search_backend") or row.search_backend or "offline"
    return {
        "task_id": row.task_id or "",
        "agent": {
            "kind": kind,
            "model": (agent_meta.get("model") or row.agent_model) if kind == "react" else None,
            "endpoint_url": (agent_meta.get("endpoint_url") or snapshot.get("endpoint_url")) if kind == "endpoint" else None,
            "endpoint_model": (agent_meta.get("endpoint_model") or snapshot.get("endpoint_model") or "agent") if kind == "endpoint" else None,
            "sampling": dict(sampling),
        },
        "user": {
            "kind": user,
            "model": (user_meta.get("model") or row.simulator_model) if user in ("simulator", "paper") else None,
            "sampling": dict(sampling),
            "shadow": user_meta.get("shadow_model") if user == "human" else None,
        },
        "judge": {"name": meta.get("judge") or snapshot.get("judge_model") or "offline", "sampling": dict(sampling)},
        "search": {
            "backend": backend if backend in _BACKENDS else "offline",
            "topn": snapshot.get("search_topn") or 10,
            "tool_result_max_chars": snapshot.get("tool_result_max_chars") or 20_000,
        },
        "limits": limits,
        "protocol": "vibesearch",
        "seed": None,
        "pace_s": float(pace) if isinstance(pace, (int, float)) and not isinstance(pace, bool) and pace >= 0 else 0.0,
    }


def upgrade() -> None:
    bind = op.get_bind()
    runs = sa.table(
        "runs", sa.column("id"), sa.column("task_id"), sa.column("agent"), sa.column("agent_model"), sa.column("user"),
        sa.column("simulator_model"), sa.column("search_backend"), sa.column("config_json"), sa.column("meta_json"),
        sa.column("run_config_json"),
    )
    rows = bind.execute(sa.select(runs)).fetchall()
    for row in rows:
        meta = _json(row.meta_json)
        stored = _json(row.run_config_json) if row.run_config_json else None
        if stored is None:
            stored = _derived(row)
            if stored is None:
                continue
        elif str(stored.get("protocol")) in _PROFILE_LIMITS:
            stored["limits"] = {**(stored.get("limits") or {}), **_PROFILE_LIMITS[str(stored.get("protocol"))]}
        else:
            continue  # a configuration of ours is already in its shape
        changes: dict[str, Any] = {"run_config_json": json.dumps(stored, ensure_ascii=False)}
        plan = meta.get("batch")
        if isinstance(plan, dict) and plan and not isinstance(plan.get("config"), dict):
            plan["config"] = {**stored, "task_id": ""}
            changes["meta_json"] = json.dumps(meta, ensure_ascii=False)
        bind.execute(runs.update().where(runs.c.id == row.id).values(**changes))


def downgrade() -> None:
    pass  # the configurations stay: an older release reads them as it read its own
