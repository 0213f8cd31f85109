"""Hand-built runs for the fidelity study's tests: a person beside a shadow and a simulator's own
run of the same three-stage task, written as events through the store, each with a score."""

from __future__ import annotations

from vibesearch.config import Settings
from vibesearch.protocol import build_config
from vibesearch.run import EndEvent, MessageEvent, StageEvent
from vibesearch.run.scores import RunScore
from vibesearch.store import Store
from vibesearch.store.scores import record_score


def _snapshot(task_id: str) -> dict:
    kinds = ["start", "mentions", "asks"]
    return {
        "id": task_id, "subset": "daily", "language": "en",
        "persona": {"background": "b", "initial_query": "q", "stages": [
            {"name": f"s{i}", "trigger": {"kind": k, "condition": "c"}, "line": "l"} for i, k in enumerate(kinds)
        ]},
        "graph": [{"head": "a", "relation": "r", "tail": "b"}], "extra": {},
    }


def _stage(index: int, kind: str, *, advanced: bool = False, shadow: bool = False, said: str = "", by: str = "human") -> StageEvent:
    return StageEvent(
        stage_index=index, reply_kind=kind, advanced=advanced, shadow=shadow, decided_by="shadow" if shadow else by,  # type: ignore[arg-type]
        rationale=f"r (would have said: {said})" if said else None,
    )


def _run(store: Store, task_id: str, user: str, events: list, *, f1: float, shadow: str | None = None, simulator: str | None = None) -> str:
    settings = Settings(db=":memory:")
    config = build_config(settings, task_id=task_id, user=user, shadow=shadow, simulator_model=simulator)
    run = store.create_run(task_id, task_json=_snapshot(task_id), agent="baseline", user=user, status="finished",
                           simulator_model=simulator, run_config=config)
    for e in events:
        store.append(run.id, e)
    store.append(run.id, EndEvent(termination="done"))
    record_score(store, RunScore(run_id=run.id, judge="offline", protocol="vibesearch", precision=f1, recall=f1, f1=f1,
                                 n_gt=1, n_pred=1, n_covered=1, n_valid=1))
    return run.id


def person_run(store: Store, task_id: str, f1: float, a2: str = "a2") -> str:
    a = lambda text: MessageEvent(role="assistant", content=text, final=True)  # noqa: E731
    u = lambda text: MessageEvent(role="user", content=text)  # noqa: E731
    return _run(store, task_id, "human", [
        _stage(0, "open"), u("q"), a("a1"),
        _stage(1, "disclose", advanced=True), _stage(1, "disclose", advanced=True, shadow=True, said="next please?"), u("tell me more about stage two"), a(a2),
        _stage(1, "push"), _stage(2, "disclose", advanced=True, shadow=True), u("Why? That is not what I asked?"), a("a3"),
        _stage(2, "disclose", advanced=True), _stage(2, "disclose", advanced=True, shadow=True), u("last one"), a("a4"),
        _stage(2, "done"), _stage(2, "push", shadow=True), u("[DONE]"),
    ], f1=f1, shadow="rules")


def simulator_run(store: Store, task_id: str, f1: float) -> str:
    a = lambda text: MessageEvent(role="assistant", content=text, final=True)  # noqa: E731
    u = lambda text: MessageEvent(role="user", content=text)  # noqa: E731
    return _run(store, task_id, "rules", [
        _stage(0, "open", by="rules"), u("q"), a("a1"),
        _stage(1, "disclose", advanced=True, by="rules"), u("stage two please"), a("a2"),
        _stage(2, "disclose", advanced=True, by="rules"), u("and the third?"), a("a3"),
        _stage(2, "done", by="rules"), u("[DONE]"),
    ], f1=f1)
