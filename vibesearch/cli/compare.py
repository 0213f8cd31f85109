"""``vibesearch compare``: two runs of one persona laid out by stage, and what each covered of the
ground truth (``labels/compare.py``); or two whole configurations, task by task, with a paired
interval of the F1 difference and each one's noise floor (``labels/config_compare.py``).

    vibesearch compare RUN_A RUN_B [--judge J] [--json]      # each lost fact's bucket on each side
    vibesearch compare --a agent=react --a agent_model=M --b agent=baseline [--judge J] [--json]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional

import typer
from rich.table import Table

from ._agreement import MinAgreementOption, chosen_threshold
from ._common import DbOption, JsonOption, console, fail, key_values, open_store, print_json

if TYPE_CHECKING:
    from ..labels.judge_trust import Threshold


def _tokens(value: Any) -> str:
    return "n/a" if value is None else str(value)  # no model usage recorded (the offline baseline)


def _trust_lines(result: dict[str, Any]) -> None:
    """Each judge × profile behind the figures: its agreement with the stored labels or "not
    measured" ("†" where the minimum agreement marks it), then what the mark means."""
    from ..labels.judge_trust import MARK
    from ..judges.registry import judge_label

    for t in result.get("judge_trust") or []:
        console.print(f"{judge_label(t['judge'])} · {t['profile']} against people: {t['text']}" + (f" {MARK}" if t["marked"] else ""),
                      highlight=False, markup=False)
    if result.get("footnote") and any((result.get("marked") or {}).values()):
        console.print(result["footnote"], highlight=False, markup=False)


def _marked(value: str, flag: bool) -> str:
    from ..labels.judge_trust import MARK

    return value + MARK if flag else value


def _answered(db: Optional[str], work: Callable[[Any], dict[str, Any]], errors: type[Exception], as_json: bool) -> dict[str, Any] | None:
    """The comparison ``work`` makes on the database (its error as one line, exit 1); None when
    it was printed as JSON already."""
    store = open_store(db, writes=False)
    try:
        result = work(store)
    except errors as exc:
        fail(str(exc))
    if as_json:
        print_json(result)
        return None
    return result


def compare_command(
    run_a: Optional[str] = typer.Argument(None, help="the first run"),
    run_b: Optional[str] = typer.Argument(None, help="the second run (the same task)"),
    config_a: List[str] = typer.Option(None, "--a", help="configuration A as key=value (agent, agent_model, user, simulator_model, search_backend, batch_id, protocol, task; repeat)"),
    config_b: List[str] = typer.Option(None, "--b", help="configuration B, the same way"),
    judge: Optional[str] = typer.Option(None, "--judge", help="whose verdicts or scores to compare (default: the newest)"),
    min_agreement: Optional[str] = MinAgreementOption,
    as_json: bool = JsonOption,
    db: Optional[str] = DbOption,
) -> None:
    """Two runs: stage alignment (the turn each stage was reached, tool calls and tokens per stage)
    and the ground truth covered in both, only in A, only in B. Two configurations (--a/--b): the
    F1 difference per task with a paired 95% interval, marked when it lies inside the noise."""
    from ..labels.compare import CompareError, compare_runs

    if config_a or config_b:
        if run_a or run_b or not (config_a and config_b):
            fail("give two runs, or two configurations with --a key=value … --b key=value …, not both")
        _compare_configs(key_values("--a", config_a), key_values("--b", config_b), judge, as_json, db, chosen_threshold(min_agreement))
        return
    if not run_a or not run_b:
        fail("give two runs (vibesearch compare RUN_A RUN_B) or two configurations (--a … --b …)")
    threshold = chosen_threshold(min_agreement)
    result = _answered(db, lambda store: compare_runs(store, run_a, run_b, judge=judge, min_agreement=threshold), CompareError, as_json)
    if result is None:
        return
    a, b = result["runs"]["a"], result["runs"]["b"]
    console.print(f"task {result['task']}: A = {a['run_id']} ({a['agent']}, user {a['user']}, {a['turns']} turns) · "
                  f"B = {b['run_id']} ({b['agent']}, user {b['user']}, {b['turns']} turns)", highlight=False)
    table = Table("stage", "A reached at turn", "B reached at turn", "A tools", "B tools", "A tokens", "B tokens")
    for st in result["stages"]:
        sa, sb = st["a"], st["b"]
        table.add_row(f"{st['number']}. {st['name']}", str(sa["reached_at"] or "–"), str(sb["reached_at"] or "–"),
                      str(sa["tool_calls"]), str(sb["tool_calls"]), _tokens(sa["tokens"]), _tokens(sb["tokens"]))
    console.print(table)
    cov = result["coverage"]
    if cov.get("missing"):
        console.print(f"no score to compare for {', '.join(cov['missing'])} (vibesearch score RUN first)", highlight=False)
        return
    marked = cov.get("marked") or {}
    f1_a, f1_b = (_marked(f"{cov['f1'][side]:.3f}", marked.get(side, False)) for side in ("a", "b"))
    console.print(f"ground truth by {cov['judge']}: F1 A {f1_a} · B {f1_b}", highlight=False, markup=False)
    _trust_lines(cov)
    for side in ("a", "b"):
        if (cov.get("funnel") or {}).get(side):
            console.print(f"facts lost, {side.upper()}: {_buckets_text(cov['funnel'][side])}", highlight=False, markup=False)
    for key, title in (("both", "covered in both"), ("only_a", "only in A"), ("only_b", "only in B"), ("neither", "in neither")):
        console.print(f"[bold]{title}[/bold] ({len(cov[key])})")
        for item in cov[key]:
            lost = [f"{side.upper()} {_bucket_word(item[f'bucket_{side}'])}" for side in ("a", "b")
                    if item.get(f"bucket_{side}") not in (None, "covered")]
            console.print(f"  #{item['number']} {item['triple']}" + (f"  ({', '.join(lost)})" if lost else ""), highlight=False, markup=False)


def _bucket_word(bucket: str) -> str:
    return bucket.replace("_", " ")


def _buckets_text(counts: dict[str, int], n_gt: int | None = None) -> str:
    """"not asked 3 · not seen 10 · … · covered 40 (of 70)": a funnel's counts in a line."""
    total = n_gt if n_gt is not None else sum(counts.values())
    return " · ".join(f"{_bucket_word(b)} {counts[b]}" for b in counts) + f" (of {total} ground-truth triples)"


def _compare_configs(a: dict[str, str], b: dict[str, str], judge: Optional[str], as_json: bool, db: Optional[str],
                     threshold: Threshold = None) -> None:
    from ..reports.noise import split_text
    from ..labels.config_compare import ConfigCompareError, compare_configs

    result = _answered(db, lambda store: compare_configs(store, a, b, judge=judge, min_agreement=threshold), ConfigCompareError, as_json)
    if result is None:
        return
    marked = result.get("marked") or {}
    both = marked.get("a", False) or marked.get("b", False)
    table = Table("task", "A F1", "B F1", "B − A", "runs A", "runs B")
    for row in result["tasks"]:
        table.add_row(row["task"], _marked(f"{row['a']:.3f}", marked.get("a", False)), _marked(f"{row['b']:.3f}", marked.get("b", False)),
                      _marked(f"{row['b_minus_a']:+.3f}", both), str(row["runs_a"]), str(row["runs_b"]))
    console.print(table)
    diff = result["difference"]
    shown_diff = _marked(f"{diff['b_minus_a']:+.3f}", both)
    console.print(f"B − A = {shown_diff} [{diff['ci'][0]:+.3f}, {diff['ci'][1]:+.3f}] over {diff['tasks']} task(s): {result['verdict']}", highlight=False)
    from ..results.funnel import BUCKETS

    for side in ("a", "b"):
        row = (result.get("funnel") or {}).get(side)
        if row and row["n_gt"]:
            console.print(f"facts lost, {side.upper()}: " + _buckets_text({b: row[b] for b in BUCKETS}, row["n_gt"])
                          + f" over {row['n_runs']} run(s)", highlight=False, markup=False)
    for side in ("a", "b"):
        noise: dict[str, Any] = result[side]["noise"]
        sd = "–" if noise["sd"] is None else f"{noise['sd']:.3f}"
        fixed = "–" if noise["sd_user_fixed"] is None else f"{noise['sd_user_fixed']:.3f}"
        console.print(f"noise floor {side.upper()}: F1 sd across runs {sd} ({noise['tasks_with_repeats']} task(s) repeated), with the user fixed {fixed}", highlight=False)
        console.print(f"  split (F1 sd, 95% interval): {split_text(noise['split'])}", highlight=False)
    _trust_lines(result)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)
