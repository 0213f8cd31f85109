"""Aggregation over runs (SPEC 5.3): the paper's score table and interaction table.

A *configuration* is agent + agent model + user kind + simulator model. Each task may have N
runs under a configuration.

* Avg@N: for each task, the mean over its runs; then the mean over tasks.
* Best@N (the paper's Max@N): for each task, the best run's value; then the mean over tasks.
  Each metric takes its own best run (the best precision and the best F1 may come from
  different runs).

Rows are given per configuration **and profile** (``profile.profile_label``: the vibesearch
profile, or the official protocol with its prompt source) for all tasks, each subset (pro, daily)
and each language. A run scored under both profiles appears once under each.

Under the official profile the rules are the official grader's (``official_metrics``): Best@N
takes every metric from the run with the best triplet F1, a failed run (no parsable triples)
is a 0 sample averaged in, and the node metrics are reported too. Every task of a configuration
is graded on N samples, padded with 0 samples as the official run grades a missing trace (a run a
person cancelled, one not scored yet or never started takes one of those places): N is
``num_samples`` (the official ``--num-samples N``; a task with more samples is refused,
``SampleCountError``), else the configuration's most samples of a task (``samples_per_task``;
``n_from`` says which). Under both profiles a run a
person cancelled (or abandoned: a "me" run left waiting past the idle timeout) is not a sample (official: every cancelled run; ours: a cancelled run without a
graph — one that has a graph keeps today's numbers): it is left out and counted (``left_out``).

Every score row also carries, per metric, 95% percentile-bootstrap intervals of Avg@N and Best@N
(``avg_f1_ci``, ``best_f1_ci``) and ``sd_f1``, the spread across a task's samples (``_spread``
says how both are made). ``n`` is the row's N (the most samples a task has, or ``num_samples``).

The interaction table (#Asst, #User, their ratio, tool calls, compactions, tokens, cost) is
averaged over runs; its #Asst/#User is total assistant steps over total user turns. Under the
official profile #Asst and #User are counted as the official harness counts them
(``RunStats.official``: the opening query, the triple request and the extraction answer
included, ``[DONE]`` not).

The oracle baseline's runs are labelled as such and count no agent tokens: which agent kinds
those are is ``vibesearch.config.ORACLE_AGENT_KINDS`` (the agents registry's ``oracle_baseline``
flag as data: scoring sits below ``agents/`` and cannot ask the registry; a test keeps the two
in agreement).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime
from statistics import mean
from typing import Any, Callable, Iterable

from pydantic import BaseModel

from ..config import ORACLE_AGENT_KINDS
from ..protocol import profile_of
from ..run.config import OFFLINE_JUDGE, ProtocolProfile
from ..store import Store, TaskSnapshotError
from ..store.tables import Run, ScoreRow
from .spread import interval_settings, pooled_sd, sample_spread, spread_keys  # noqa: F401  (interval_settings, pooled_sd: still importable from here)
from ..judges.official_metrics import OfficialSummary, SampleResult, aggregate_official
from ..judges.judge_failures import judge_gaps
from ..judges.registry import judge_for
from .noise_split import run_seed
from .official_score import sample_of
from .profile import is_cancelled, profile_label, run_protocol, score_protocol
from .stats import AGENT_PURPOSES, RunStats, run_stats


class RunRecord(BaseModel):
    run_id: str
    task_id: str
    subset: str
    language: str
    config: str
    agent: str
    agent_model: str | None
    user: str
    simulator_model: str | None
    source: str
    status: str
    score_id: int | None = None
    judge: str | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    n_gt: int = 0
    n_pred: int = 0
    n_valid: int = 0
    n_covered: int = 0
    n_unscored: int = 0
    stats: RunStats
    created_at: datetime | None = None
    # the profile of the score (of the run itself when it has none) and the score's prompt source
    protocol: ProtocolProfile = "vibesearch"
    prompt_source: str | None = None
    cancelled: bool = False  # a person stopped the run
    has_graph: bool = True  # the scored run had a stored graph
    official: SampleResult | None = None  # the official per-sample record of an official score
    graded: str | None = None  # which extraction the score graded: "extraction" (the run's own) or "reextraction"
    judge_failed_batches: int = 0  # judge batches that failed for good (official: graded not covered; ``judge_failures``)
    seed: int | None = None  # the run's configured seed (a simulator with a seed answers a state the same way)
    judgements: list[float] = []  # the F1 of each judgement in the score's repeat set (``score --repeat K``; empty: judged once)

    @property
    def scored(self) -> bool:
        return self.f1 is not None

    @property
    def profile(self) -> str:
        return profile_label(self.protocol, self.prompt_source)

    @property
    def judge_failure(self) -> bool:
        """Some of the judge's batches failed, or it left triples unscored (``judge_failures.MARK``)."""
        return self.judge_failed_batches > 0 or self.n_unscored > 0

    @property
    def left_out(self) -> bool:
        """Not a sample under its profile (``Profile.left_out``: a run a person cancelled; ours:
        only one without a graph)."""
        return profile_of(self.protocol).left_out(cancelled=self.cancelled, has_graph=self.has_graph)


# The offline baseline reads the corpus' annotated facts; its scores must never pass for a model's.
BASELINE_LABEL = "baseline (retrieval + oracle reader)"


def agent_label(agent: str | None, model: str | None = None) -> str:
    if agent in ORACLE_AGENT_KINDS:
        return BASELINE_LABEL
    return f"{agent or '?'}" + (f" ({model})" if model else "")


def config_key(run: Run) -> str:
    agent = agent_label(run.agent, run.agent_model)
    user = f"{run.user or '?'}" + (f" ({run.simulator_model})" if run.simulator_model else "")
    return f"{agent} · user {user}"


def choose_judge(store: Store, runs: Iterable[Run] | None = None, protocol: ProtocolProfile | None = None) -> str:
    """The judge with scores on the most runs (the offline judge on a tie); ``protocol``: count
    only the scores of that profile."""
    ids = {r.id for r in runs} if runs is not None else None
    counts: Counter[str] = Counter()
    seen: set[tuple[str, str]] = set()
    for s in store.scores():
        if protocol is not None and score_protocol(s) != protocol:
            continue
        if (ids is None or s.run_id in ids) and (s.run_id, s.judge) not in seen:
            seen.add((s.run_id, s.judge))
            counts[s.judge] += 1
    if not counts:
        return OFFLINE_JUDGE
    best = max(counts.values())
    winners = sorted(j for j, n in counts.items() if n == best)
    offline = [j for j in winners if judge_for(j).is_offline]
    return offline[0] if offline else winners[0]


def repeat_sets(store: Store) -> dict[str, list[float]]:
    """Each repeat set (``score --repeat K``) with the F1 of its judgements, in the order made."""
    out: dict[str, list[float]] = defaultdict(list)
    for s in store.scores():
        if s.repeat_set is not None:
            out[s.repeat_set].append(s.f1)
    return dict(out)


def latest_scores(store: Store, judge: str) -> dict[str, ScoreRow]:
    """Per run, its score by ``judge``: the latest judgement (the one rule of which stored score is
    "the" score; earlier judgements of a repeat set only measure the judge's spread)."""
    out: dict[str, ScoreRow] = {}
    for s in store.scores():  # ordered by id: later scores replace earlier ones
        if s.judge == judge:
            out[s.run_id] = s
    return out


def latest_scores_by_profile(store: Store, judge: str) -> dict[str, dict[ProtocolProfile, ScoreRow]]:
    """Per run, the latest score by ``judge`` under each profile."""
    out: dict[str, dict[ProtocolProfile, ScoreRow]] = defaultdict(dict)
    for s in store.scores():  # ordered by id: later scores replace earlier ones
        if s.judge == judge:
            out[s.run_id][score_protocol(s)] = s
    return out


def collect_runs(
    store: Store, *, judge: str | None = None, include_tables: bool = False, protocol: ProtocolProfile | None = None,
    keep: Callable[[Run], bool] | None = None, stats: Callable[[Store, Run], RunStats] | None = None,
) -> tuple[list[RunRecord], str]:
    """Every persona run (finished or with a score) with its latest score by ``judge``: one record
    per profile the run was scored under (``protocol``: only that one), or one unscored record
    under the run's own profile. ``keep`` narrows the runs (e.g. to those a person may read);
    ``stats`` makes a run's statistics (default ``run_stats``; the error analysis reads the
    events once for its own pass and these)."""
    runs = [r for r in store.list_runs() if (include_tables or r.kind != "table") and (keep is None or keep(r))]
    judge = judge or choose_judge(store, runs, protocol)
    by_run = latest_scores_by_profile(store, judge)
    sets = repeat_sets(store)
    records = []
    for run in runs:
        own = run_protocol(run)
        scored = {p: s for p, s in by_run.get(run.id, {}).items() if protocol is None or p == protocol}
        # unscored: finished runs, and cancelled ones (to be counted as left out)
        if not scored and (not (run.status == "finished" or is_cancelled(run)) or (protocol is not None and own != protocol)):
            continue
        records.extend(_records(store, run, list(scored.values()) or [None], own, sets, stats))
    return records, judge


def _records(store: Store, run: Run, scores: list[ScoreRow | None], own: ProtocolProfile,
             sets: dict[str, list[float]] | None = None, stats: Callable[[Store, Run], RunStats] | None = None) -> list[RunRecord]:
    """The run's records: one per score (or one without a score)."""
    subset: str
    language: str
    try:
        task = run.task()
        subset, language = task.subset, task.language
    except TaskSnapshotError:  # counted, under an unknown subset and language
        subset = language = "?"
    base = RunRecord(
        run_id=run.id,
        task_id=run.task_id,
        subset=subset,
        language=language,
        config=config_key(run),
        agent=run.agent,
        agent_model=run.agent_model,
        user=run.user,
        simulator_model=run.simulator_model,
        source=run.source,
        status=run.status,
        stats=run_stats(store, run.id) if stats is None else stats(store, run),
        created_at=run.created_at,
        protocol=own,
        prompt_source=_own_prompt_source(run, own),
        cancelled=is_cancelled(run),
        has_graph=not is_cancelled(run) or store.latest_graph(run.id) is not None,
        seed=run_seed(run),
    )
    out = []
    for score in scores:
        if score is None:
            out.append(base)
            continue
        out.append(
            base.model_copy(
                update=dict(
                    score_id=score.id, judge=score.judge, precision=score.precision, recall=score.recall, f1=score.f1,
                    n_gt=score.n_gt, n_pred=score.n_pred, n_valid=score.n_valid, n_covered=score.n_covered,
                    n_unscored=score.n_unscored, protocol=score_protocol(score), prompt_source=score.prompt_source,
                    has_graph=score.graph_id is not None, official=sample_of(score),
                    graded=_graded_source(score), judge_failed_batches=judge_gaps(score).failed,
                    judgements=(sets or {}).get(score.repeat_set or "", []),
                )
            )
        )
    return out


METRICS = ("precision", "recall", "f1")

# ``report --where key=value`` and the Leaderboard's filters: what each key reads off a record
WHERE_KEYS: dict[str, Callable[[RunRecord], tuple[str | None, ...]]] = {
    "subset": lambda r: (r.subset,),
    "language": lambda r: (r.language,),
    "agent": lambda r: (r.agent,),
    "model": lambda r: (r.agent_model,),
    "user": lambda r: (r.user,),
    "simulator": lambda r: (r.simulator_model,),
    "profile": lambda r: (r.profile, r.protocol),  # the label ("official (our prompts)") or the profile's name
    "task": lambda r: (r.task_id,),
}


class WhereError(ValueError):
    """A filter that cannot be read (the message names the key or the text)."""


def parse_where(items: Iterable[str]) -> dict[str, list[str]]:
    """``["agent=react", "language=en"]`` as ``{key: [values]}``; a key given twice keeps both
    values (either matches). ``WhereError`` names an item without ``=`` or an unknown key."""
    out: dict[str, list[str]] = defaultdict(list)
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise WhereError(f"--where {item!r}: write key=value")
        if key not in WHERE_KEYS:
            raise WhereError(f"--where: unknown key {key!r} (known: {', '.join(WHERE_KEYS)})")
        out[key].append(value.strip())
    return dict(out)


def where_filter(where: dict[str, list[str]] | None) -> Callable[[RunRecord], bool]:
    """A record passes when, for every key, one of its values is among the key's values (no
    filter or no values for a key: everything passes that key)."""
    checks = [(WHERE_KEYS[k], set(v)) for k, v in (where or {}).items() if v]
    return lambda r: all(any(x in wanted for x in read(r)) for read, wanted in checks)


def filter_values(records: Iterable[RunRecord]) -> dict[str, list[str]]:
    """The values each filter key takes among ``records`` (the profile by its label), sorted."""
    seen: dict[str, set[str]] = defaultdict(set)
    for r in records:
        for key, read in WHERE_KEYS.items():
            value = r.profile if key == "profile" else read(r)[0]
            if value is not None:
                seen[key].add(value)
    return {k: sorted(seen.get(k, ())) for k in WHERE_KEYS}


def mean_if_known(values: list[float | None]) -> float | None:
    """The mean of ``values``; None when there are none or any of them is unknown."""
    known = [v for v in values if v is not None]
    return mean(known) if known and len(known) == len(values) else None


def _at_n(records: list[RunRecord]) -> dict[str, Any]:
    by_task: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        by_task[r.task_id].append(r)
    row: dict[str, Any] = {
        "n_tasks": len(by_task),
        "n_runs": len(records),
        "n_min": min(len(v) for v in by_task.values()),
        "n_max": max(len(v) for v in by_task.values()),
    }
    row["n"] = row["n_max"]
    for m in METRICS:
        row[f"avg_{m}"] = mean(mean(getattr(r, m) for r in runs) for runs in by_task.values())
        row[f"best_{m}"] = mean(max(getattr(r, m) for r in runs) for runs in by_task.values())
    for m in METRICS:
        row.update(sample_spread(m, [[getattr(r, m) for r in by_task[t]] for t in sorted(by_task)]))
    return row


def _node_keys(summary: OfficialSummary | None) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for k in ("node_precision", "node_recall", "node_f1"):
        out[f"avg_{k}"] = summary.avg[k] if summary else None
        out[f"best_{k}"] = summary.best[k] if summary else None
    return out


class SampleCountError(ValueError):
    """``num_samples`` is smaller than the samples a task has (the message names the task)."""


def official_samples(records: Iterable[RunRecord]) -> list[tuple[RunRecord, SampleResult]]:
    """The official samples among ``records`` (scored under the official profile, not left out),
    numbered per task from 0 in the order the runs were started."""
    by_task: dict[str, list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.official is not None and not r.left_out:  # (only the official grader keeps one)
            by_task[r.task_id].append(r)
    out = []
    for task_id in sorted(by_task):
        runs = sorted(by_task[task_id], key=lambda r: (str(r.created_at), r.run_id))
        out += [(r, r.official.model_copy(update={"qid": task_id, "sample_idx": i})) for i, r in enumerate(runs) if r.official]
    return out


# where a configuration's N of Avg@N / Best@N came from (``samples_per_task``)
N_GIVEN = "--num-samples"
N_MOST = "the most samples of any task"


def samples_per_task(records: Iterable[RunRecord], num_samples: int | None = None) -> int:
    """N of the official Avg@N / Best@N of one configuration: ``num_samples`` (the official
    ``--num-samples``) when given, else the most samples any of its tasks has — the N the runs were
    made with. Every task is graded on exactly N samples (``padding_samples``), as the official run
    grades every task on its ``--num-samples`` samples, a missing one as an empty answer."""
    if num_samples is not None:
        return num_samples
    return max(Counter(s.qid for _, s in official_samples(records)).values(), default=0)


def padding_samples(records: Iterable[RunRecord], num_samples: int) -> list[SampleResult]:
    """The 0 samples that bring every task of ``records`` (one configuration: each task with any
    record, a sample or not) to ``num_samples``, numbered after the task's own samples. A missing
    sample is graded as an empty answer by the official run: no triples, every metric 0."""
    records = list(records)
    have: Counter[str] = Counter(s.qid for _, s in official_samples(records))
    out = []
    for task_id in sorted({r.task_id for r in records}):
        if have[task_id] > num_samples:
            config = records[0].config if records else "?"
            raise SampleCountError(
                f"--num-samples {num_samples} is smaller than the {have[task_id]} samples task {task_id} has ({config})"
            )
        out += [SampleResult(qid=task_id, sample_idx=i) for i in range(have[task_id], num_samples)]
    return out


def official_sample_results(records: Iterable[RunRecord], num_samples: int | None = None) -> list[SampleResult]:
    """Every official sample of ``records`` (one configuration), then the 0 samples that pad each
    task to N (``samples_per_task``)."""
    records = list(records)
    real = [s for _, s in official_samples(records)]
    padding = padding_samples(records, samples_per_task(records, num_samples))
    return sorted(real + padding, key=lambda s: (s.qid, s.sample_idx))


def official_summary(records: Iterable[RunRecord], num_samples: int | None = None) -> OfficialSummary:
    """Avg@N / Best@N of the official grader over ``records`` (one configuration); cancelled runs
    are left out and listed. Every task is padded to N samples with 0 samples (``samples_per_task``:
    ``num_samples``, else the most samples of any task; ``summary.padded`` names how many per
    task); ``SampleCountError`` when a task has more than ``num_samples``."""
    records = list(records)
    n = samples_per_task(records, num_samples)
    real = [s for _, s in official_samples(records)]
    padding = padding_samples(records, n)
    cancelled = [(r.task_id, i) for i, r in enumerate(r for r in records if r.left_out)]
    summary = aggregate_official(real + padding, cancelled=cancelled)
    if n:
        summary.n = n  # (also when no task has a sample at all)
    summary.padded = dict(sorted(Counter(s.qid for s in padding).items()))
    return summary


def _official_at_n(records: list[RunRecord], num_samples: int | None = None) -> dict[str, Any]:
    """``num_samples``: the configuration's N (``samples_per_task`` of all its records: a subset's
    tasks are padded to the configuration's N, not to their own most)."""
    summary = official_summary(records, num_samples)
    counts = [q.num_samples for q in summary.per_query]
    padded = sum(summary.padded.values())
    row: dict[str, Any] = {"n_tasks": summary.num_queries, "n_runs": sum(counts) - padded, "n_min": min(counts), "n_max": max(counts)}
    row["padded"] = padded
    row["n"] = summary.n
    for m, key in zip(METRICS, ("triplet_precision", "triplet_recall", "triplet_f1")):
        row[f"avg_{m}"] = summary.avg[key]
        row[f"best_{m}"] = summary.best[key]
    # the intervals and spreads, from the same samples (padding included) the summary averaged
    by_task: dict[str, list[SampleResult]] = defaultdict(list)
    for s in official_sample_results(records, num_samples):
        by_task[s.qid].append(s)
    queries = summary.per_query  # sorted by task, like by_task below
    for m, key in zip(METRICS, ("triplet_precision", "triplet_recall", "triplet_f1")):
        row.update(spread_keys(m, [q.avg[key] for q in queries], [q.best[key] for q in queries],
                               [[s.metric(key) for s in by_task[t]] for t in sorted(by_task)]))
    return {**row, **_node_keys(summary)}


ProfileKey = tuple[str, ProtocolProfile, str | None]  # configuration, profile, prompt source


def profile_groups(records: Iterable[RunRecord]) -> dict[ProfileKey, list[RunRecord]]:
    """Records by configuration and profile (with the prompt source of its scores), in a stable
    order. An unscored record (no prompt source) joins every group of its configuration and
    profile, so a cancelled run is counted beside the scores it was left out of."""
    records = list(records)
    groups: dict[ProfileKey, list[RunRecord]] = defaultdict(list)
    for r in records:
        if r.scored:
            groups[(r.config, r.protocol, r.prompt_source)].append(r)
    for r in records:
        if not r.scored:
            homes = [key for key in groups if key[:2] == (r.config, r.protocol) and key[2] is not None] or [(r.config, r.protocol, r.prompt_source)]
            for key in homes:
                groups[key].append(r)
    return dict(sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or "")))


def _profile_cols(key: ProfileKey) -> dict[str, Any]:
    config, protocol, source = key
    return {"config": config, "profile": profile_label(protocol, source), "protocol": protocol, "prompt_source": source}


def score_table(records: list[RunRecord], num_samples: int | None = None) -> list[dict[str, Any]]:
    """Avg@N and Best@N of P/R/F1 per configuration and profile, overall, per subset and per
    language (official profile: the official rules, node metrics included; ours: node columns None).
    ``judge_failures``: the samples whose judge failed on some batches or left triples unscored.
    ``left_out``: runs of the group that are not samples (cancelled by a person). ``num_samples``:
    the official rows pad every task to that many samples (``padded``: how many 0 samples were
    added; our rows are unchanged and say None)."""
    rows = []
    for key, mine in profile_groups(r for r in records if r.scored or r.left_out).items():
        groups: list[tuple[str, list[RunRecord]]] = [("all", mine)]
        groups += [(f"subset {s}", [r for r in mine if r.subset == s]) for s in ("pro", "daily")]
        groups += [(f"language {lang}", [r for r in mine if r.language == lang]) for lang in ("en", "zh")]
        for group, members in groups:
            samples = [r for r in members if r.scored and not r.left_out]
            if not samples:
                continue
            if profile_of(key[1]).official_grader:  # the official grader's Avg@N / Best@N, every task on N samples
                figures = {**_official_at_n(members, samples_per_task(mine, num_samples)),
                           "n_from": N_GIVEN if num_samples is not None else N_MOST}
            else:
                figures = {**_at_n(samples), **_node_keys(None), "padded": None, "n_from": None}  # padding is the official profile's rule
            rows.append({**_profile_cols(key), "group": group, **figures, "left_out": sum(r.left_out for r in members),
                         "judge_failures": sum(r.judge_failure for r in samples)})
    return rows


def left_out_runs(records: list[RunRecord]) -> list[dict[str, Any]]:
    """The runs that are not samples, with the reason."""
    return [
        {"run_id": r.run_id, "task_id": r.task_id, "config": r.config, "profile": r.profile,
         "reason": profile_of(r.protocol).left_out_reason(r.status)}
        for r in records
        if r.left_out
    ]


def token_state(r: RunRecord) -> str:
    """Whether the agent's tokens of a run are known: "n/a" (the offline baseline calls no model),
    "unknown" (an imported run: the file kept no usage of the agent's calls; or a provider that
    reported no token counts for some of the agent's calls, whose sum would be a floor, not a
    total) or "recorded" (our harness writes a usage event for every model call, so none is a
    measured zero)."""
    if r.agent in ORACLE_AGENT_KINDS and not r.agent_model:
        return "n/a"
    if r.source == "imported" and not AGENT_PURPOSES & set(r.stats.tokens_by_purpose):
        return "unknown"
    if r.stats.agent_tokens_unknown_calls:
        return "unknown"
    return "recorded"


def interaction_table(records: list[RunRecord]) -> list[dict[str, Any]]:
    """Table 4 per configuration and profile, over the runs that are samples (finished or scored).
    Under the official profile #Asst / #User are the official harness' counts. ``tokens``:
    "recorded" (the token means are over every run), "unknown" (some run kept no usage; the means
    are None) or "n/a" (the offline baseline; None too). ``cost_state`` "n/a": no run made any
    model call at all (the baseline with the rule-based user), so there is no cost to tell."""
    rows = []
    included = (r for r in records if not r.left_out and (r.scored or r.status == "finished"))
    for key, recs in profile_groups(included).items():
        mine = [r.stats for r in recs]  # a run has one record per profile
        profile = profile_of(key[1])
        asst = [profile.interaction_counts(s)[0] for s in mine]
        user = [profile.interaction_counts(s)[1] for s in mine]
        total_user = sum(user)
        costs = [s.cost_usd for s in mine]
        states = {token_state(r) for r in recs}
        tokens = "n/a" if states == {"n/a"} else "unknown" if "unknown" in states else "recorded"
        no_calls = tokens == "n/a" and not any(s.tokens_by_purpose for s in mine)
        rows.append(
            {
                **_profile_cols(key),
                "n_runs": len(mine),
                "asst": mean(asst),
                "user": mean(user),
                "asst_per_user": (sum(asst) / total_user) if total_user else None,
                "tool_calls": mean(s.tool_calls for s in mine),
                "tool_calls_per_user_turn": (sum(s.tool_calls for s in mine) / total_user) if total_user else None,
                "compactions": mean_if_known([s.compactions for s in mine]),  # None: some run's count is unknown
                "tokens": tokens,
                "input_tokens": mean(s.agent_input_tokens for s in mine) if tokens == "recorded" else None,
                "output_tokens": mean(s.agent_output_tokens for s in mine) if tokens == "recorded" else None,
                "cost_state": "n/a" if no_calls else "recorded",
                "cost_usd": None if no_calls else mean_if_known(costs),
                "cost_known_usd": mean(s.cost_known_usd for s in mine),
            }
        )
    return rows


def _own_prompt_source(run: Run, protocol: ProtocolProfile) -> str | None:
    """The prompts an official run names in its meta (what its unscored record is labelled with;
    a score names its own)."""
    source = run.meta().get("prompt_source") if profile_of(protocol).official_loop else None
    return source if isinstance(source, str) else None


def _graded_source(score: ScoreRow) -> str | None:
    graded = score.details().get("graded_graph")
    source = graded.get("source") if isinstance(graded, dict) else None
    return source if isinstance(source, str) else None
