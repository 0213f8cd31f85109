"""The score printed when a terminal play ends with done: P/R/F1 and the missed ground truth."""

from __future__ import annotations

from rich.console import Console

from ..config import Settings
from ..llm import scrub
from ..run import RunConfig
from ..store import Store
from ..tasks.models import Task
from ._common import db_shown

MAX_MISSED_SHOWN = 40


async def print_score(console: Console, store: Store, run_id: str, task: Task, config: RunConfig, settings: Settings) -> None:
    """Score the run with the configured judge (offline by default) and print the result; a
    failed score is one line naming the judge and the command to try again."""
    from ..scoring import score_run_async
    from ..judges.registry import judge_label

    judge = config.judge.name or "offline"
    console.print(f"scoring with the {judge_label(judge)} judge…", highlight=False)
    try:
        score = await score_run_async(store, run_id, judge=judge, settings=settings)
    except Exception as exc:  # noqa: BLE001 - the run stays; its score can be computed later
        console.print(f"[red]scoring failed:[/red] {scrub(str(exc))[:500]} — try `vibesearch score {run_id} --judge {judge} --db {db_shown(settings.db)}`", highlight=False)
        return
    console.print(
        f"[b]score[/b] ({judge_label(judge)}): P {100 * score.precision:.1f} · R {100 * score.recall:.1f} · F1 {100 * score.f1:.1f} · "
        f"{score.n_covered}/{score.n_gt} ground-truth triples covered · {score.n_valid}/{score.n_pred} predicted triples valid",
        highlight=False,
    )
    missed = [v.gt_index for v in store.verdicts(score.id) if v.covered is False]
    if not missed:
        console.print("missed ground-truth triples: none", highlight=False)
        return
    console.print(f"missed ground-truth triples ({len(missed)}):", highlight=False)
    for i in missed[:MAX_MISSED_SHOWN]:
        t = task.graph[i] if 0 <= i < len(task.graph) else None
        console.print(f"  ✗ {t.head} | {t.relation} | {t.tail}" if t else f"  ✗ triple #{i + 1}", highlight=False, markup=False)
    if len(missed) > MAX_MISSED_SHOWN:
        console.print(f"  … and {len(missed) - MAX_MISSED_SHOWN} more", highlight=False)
