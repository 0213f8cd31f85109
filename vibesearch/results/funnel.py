"""Where each ground-truth fact of a run was lost: the funnel, one bucket per ground-truth triple.

A triple lands in the first bucket that applies (docs/analysis.md):

1. ``not_asked`` — the stage whose need it answers (``stage_view.stage_map``) was never disclosed;
2. ``not_seen`` — disclosed, but no tool result the agent received showed it. How that is told
   (``SeenMethod``): ``corpus`` — a run on the offline corpus, exact from the pages' fact
   annotations: a page the agent visited (its text came back) shows every fact annotated on it, a
   search hit the annotated facts whose head and tail its own lines name; ``text`` — live or
   recorded web, imports: a tool result naming both the head and the tail (the offline judge's
   ``PhraseText``; conservative); ``none`` — the run kept no tool text: the test cannot be made,
   it is skipped and the triple's ``seen`` is ``"unknown"`` (so the five buckets still sum to the
   ground truth; ``seen_unknown`` counts them);
3. ``not_written`` — seen, but no predicted triple names its head and tail (``PredictionNames``);
4. ``judged_not_covered`` — a prediction names them, but the judge did not count the triple (its
   verdict's rationale is kept; an unscored triple is here too, ``verdict`` "unscored");
5. ``covered`` — the judge counted it.

Two rules keep the funnel honest against the score: a triple the judge covered is ``covered``
whatever the earlier tests say (they are this module's guesses, the verdict is the score's; the
covered share is the run's recall), its ``disclosed`` / ``seen`` still telling what was found; and
a triple whose stage is ``unassigned`` skips the ``not_asked`` test (no stage to have asked).

``run_funnel(...)`` is the pure function (a run's task, its events streamed once, the graded
prediction and the verdicts); ``stored_funnel(store, record)`` reads them for a scored run.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from dataclasses import asdict, dataclass
from typing import Any, Container, Iterable, Literal, Mapping, Sequence, get_args

from ..judges.offline import PhraseText, PredictionNames, norm, phrase_text
from ..run.events import MessageEvent, StageEvent, StoredEvent, ToolCallEvent, ToolResultEvent
from ..run.transcript import is_user_turn
from ..run.scores import Verdict
from ..scoring.metrics import stored_prediction, stored_verdicts
from ..store import Store, TaskSnapshotError
from ..store.tables import GraphRow, Run, ScoreRow
from ..tasks import TaskLoadError
from ..tasks.models import CorpusDoc, Task
from .stage_view import StageSource, stage_map

Bucket = Literal["not_asked", "not_seen", "not_written", "judged_not_covered", "covered"]
BUCKETS: tuple[Bucket, ...] = get_args(Bucket)
Seen = Literal["yes", "no", "unknown"]
SeenMethod = Literal["corpus", "text", "none"]
PAGE_TOOLS = frozenset({"visit"})  # tools whose result is a page's text (the others list hits)
_URL = re.compile(r"https?://[^\s)\]>\"']+")


@dataclass(frozen=True)
class Disclosure:
    """The user turn (from 1) a stage was disclosed on, and the seq of that user message."""

    stage: int
    turn: int
    seq: int | None


@dataclass(frozen=True)
class Sighting:
    """The first tool result that showed a triple: its seq, its call's seq and id, the tool, the
    user turn it came in, and the page (its URL) when the corpus says which."""

    seq: int
    call_seq: int | None
    call_id: str
    tool: str
    turn: int
    url: str | None = None


@dataclass(frozen=True)
class TripleFate:
    """One ground-truth triple's bucket with when and the evidence."""

    gt_index: int
    head: str
    relation: str
    tail: str
    bucket: Bucket
    stage: int | None  # from 0; None: unassigned
    stage_source: StageSource
    disclosed: Disclosure | None
    seen: Seen
    sighting: Sighting | None
    prediction: int | None  # the first predicted triple naming head and tail (index in the graded graph)
    verdict: Literal["covered", "not covered", "unscored"]
    evidence: tuple[int, ...] = ()  # the verdict's supporting predicted triples
    rule: int | None = None
    rationale: str = ""


@dataclass(frozen=True)
class RunFunnel:
    """A run's funnel: every ground-truth triple's fate, and how "seen" was told."""

    run_id: str
    task_id: str
    seen_method: SeenMethod
    fates: tuple[TripleFate, ...]
    # the graded prediction; for each of its triples whether a covered ground-truth triple rests on
    # it (valid), and whether a tool result the agent received named its head and tail (None: the
    # run kept no tool text) — the invalid-prediction types read them
    prediction: tuple[tuple[str, str, str], ...] = ()
    prediction_valid: tuple[bool, ...] = ()
    prediction_seen: tuple[bool | None, ...] = ()

    @property
    def n_gt(self) -> int:
        return len(self.fates)

    def counts(self) -> dict[Bucket, int]:
        out = dict.fromkeys(BUCKETS, 0)
        for f in self.fates:
            out[f.bucket] += 1
        return out

    @property
    def seen_unknown(self) -> int:
        return sum(1 for f in self.fates if f.seen == "unknown")

    @property
    def unassigned(self) -> int:
        return sum(1 for f in self.fates if f.stage_source == "unassigned")

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON: the counts beside ``n_gt`` and every triple's fate."""
        counts: dict[str, int] = {b: n for b, n in self.counts().items()}
        return {"run_id": self.run_id, "task_id": self.task_id, "seen_method": self.seen_method, **counts,
                "n_gt": self.n_gt, "seen_unknown": self.seen_unknown, "unassigned": self.unassigned,
                "triples": [asdict(f) for f in self.fates]}

    def of_stage(self) -> dict[int | None, dict[Bucket, int]]:
        """The bucket counts of each stage's triples (None: the unassigned ones)."""
        out: dict[int | None, dict[Bucket, int]] = {}
        for f in self.fates:
            out.setdefault(f.stage, dict.fromkeys(BUCKETS, 0))[f.bucket] += 1
        return out


class CorpusPages:
    """A task's offline pages, which ground-truth triples each is annotated with, and their texts
    prepared for lookups (made once per task: ``Corpora``)."""

    def __init__(self, docs: Sequence[CorpusDoc], task: Task):
        gt_keys = [_key(t.head, t.relation, t.tail) for t in task.graph]
        index: dict[tuple[str, str, str], list[int]] = {}
        for i, k in enumerate(gt_keys):
            index.setdefault(k, []).append(i)
        self.by_url: dict[str, tuple[CorpusDoc, list[int]]] = {}
        for doc in docs:
            facts = sorted({i for f in doc.facts for i in index.get(_key(f.head, f.relation, f.tail), [])})
            self.by_url.setdefault(_url_key(doc.url), (doc, facts))
        self._texts: dict[str, PhraseText] = {}

    def text_of(self, doc: CorpusDoc) -> PhraseText:
        """A page's whole text, prepared once."""
        text = self._texts.get(doc.url)
        if text is None:
            text = self._texts[doc.url] = phrase_text(doc.text)
        return text

    def in_result(self, text: str) -> list[tuple[CorpusDoc, list[int], str]]:
        """The corpus pages a result names, each with its annotated triples and its part of the
        text (from its URL to the next page's)."""
        found = [(m.start(), self.by_url.get(_url_key(m.group(0)))) for m in _URL.finditer(text)]
        hits = [(at, page) for at, page in found if page is not None]
        out = []
        for n, (at, (doc, facts)) in enumerate(hits):
            start = text.rfind("\n", 0, at) + 1
            end = hits[n + 1][0] if n + 1 < len(hits) else len(text)
            out.append((doc, facts, text[max(0, start - 200):end]))
        return out


@lru_cache(maxsize=4096)
def _url_key(url: str) -> str:
    from ..tools.offline import url_key

    return url_key(url)


def _key(head: str, relation: str, tail: str) -> tuple[str, str, str]:
    return (norm(str(head)), norm(str(relation)), norm(str(tail)))


@dataclass
class RunTrace:
    """What one pass over a run's events found: when each stage was disclosed, the first tool
    result showing each ground-truth triple, and which triples of the prediction it was given a
    tool result named (head and tail)."""

    method: SeenMethod
    disclosed: dict[int, Disclosure]
    sightings: dict[int, Sighting]
    pred_seen: dict[int, bool]
    prediction: tuple[tuple[str, str, str], ...]


def _triples(prediction: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, str, str], ...]:
    return tuple((str(p.get("head", "")), str(p.get("relation", "")), str(p.get("tail", ""))) for p in prediction)


def trace_run(task: Task, events: Iterable[StoredEvent], prediction: Sequence[Mapping[str, Any]], *,
              pages: CorpusPages | None = None) -> RunTrace:
    """One pass over ``events`` (read once, in order: a stream). ``pages``: the task's offline
    pages when the run searched them (the exact ``corpus`` test), else None (the ``text`` test, or
    ``none`` when no tool result holds text)."""
    gt = list(task.graph)
    pred = _triples(prediction)
    disclosed: dict[int, Disclosure] = {}
    sightings: dict[int, Sighting] = {}
    received: dict[int, PhraseText] = {}  # each text once (a page visited twice is one text)
    calls: dict[str, tuple[int, str]] = {}
    turn, pending, tool_text = 0, [0], False
    for ev in events:
        d = ev.data
        if isinstance(d, StageEvent):
            if not d.shadow and d.advanced:
                pending.append(d.stage_index)
        elif isinstance(d, MessageEvent) and is_user_turn(d):
            turn += 1
            for k in pending:
                disclosed.setdefault(k, Disclosure(k, turn, ev.seq))
            pending = []
        elif isinstance(d, ToolCallEvent):
            calls[d.call_id] = (ev.seq, d.tool)
        elif isinstance(d, ToolResultEvent) and d.content.strip():
            tool_text = True
            if d.error and pages is None:
                continue
            call_seq, tool = calls.get(d.call_id, (None, d.tool))
            found, texts = _read_result(d.content, tool, gt, pages, sightings)
            for i, url in found:
                sightings.setdefault(i, Sighting(ev.seq, call_seq, d.call_id, tool, max(turn, 1), url))
            received.update((id(text), text) for text in texts)
    method: SeenMethod = "corpus" if pages is not None else "text" if tool_text else "none"
    return RunTrace(method, disclosed, sightings, _predictions_seen(pred, received.values()), pred)


def funnel_of(run_id: str, task: Task, trace: RunTrace, verdicts: Sequence[Verdict]) -> RunFunnel:
    """The funnel from a run's trace and the verdicts of a score of the prediction the trace was
    given."""
    gt = list(task.graph)
    stages = stage_map(task)
    by_gt = {v.gt_index: v for v in verdicts}
    names: PredictionNames | None = None
    fates = []
    for i, t in enumerate(gt):
        stage, source = stages[i]
        v = by_gt.get(i)
        verdict: Literal["covered", "not covered", "unscored"] = (
            "unscored" if v is None or v.covered is None else "covered" if v.covered else "not covered")
        when = trace.disclosed.get(stage) if stage is not None else None
        seen: Seen = "unknown" if trace.method == "none" else "yes" if i in trace.sightings else "no"
        written: int | None = None
        if verdict == "covered":
            bucket: Bucket = "covered"
            written = v.evidence[0] if v is not None and v.evidence else None
        elif source != "unassigned" and when is None:
            bucket = "not_asked"
        elif seen == "no":
            bucket = "not_seen"
        else:
            if names is None:
                names = PredictionNames([(g.head, g.relation, g.tail) for g in gt], trace.prediction)
            written = names.naming(t.head, t.tail)
            bucket = "not_written" if written is None else "judged_not_covered"
        fates.append(TripleFate(
            gt_index=i, head=t.head, relation=t.relation, tail=t.tail, bucket=bucket, stage=stage, stage_source=source,
            disclosed=when, seen=seen, sighting=trace.sightings.get(i), prediction=written, verdict=verdict,
            evidence=tuple(v.evidence) if v is not None else (), rule=v.rule if v is not None else None,
            rationale=(v.rationale or "") if v is not None else "",
        ))
    valid = {j for v in verdicts if v.covered for j in v.evidence}
    n = len(trace.prediction)
    return RunFunnel(run_id, task.id, trace.method, tuple(fates), trace.prediction, tuple(j in valid for j in range(n)),
                     tuple(None if trace.method == "none" else trace.pred_seen.get(j, False) for j in range(n)))


def run_funnel(run_id: str, task: Task, events: Iterable[StoredEvent], prediction: Sequence[Mapping[str, Any]],
               verdicts: Sequence[Verdict], *, corpus: Sequence[CorpusDoc] | None = None) -> RunFunnel:
    """The funnel of one run from its events (streamed once), the graded prediction and its
    verdicts; ``corpus``: the task's offline pages when the run searched them."""
    pages = CorpusPages(corpus, task) if corpus is not None else None
    return funnel_of(run_id, task, trace_run(task, events, prediction, pages=pages), verdicts)


def _read_result(content: str, tool: str, gt: Sequence[Any], pages: CorpusPages | None,
                 sighted: Container[int]) -> tuple[list[tuple[int, str | None]], list[PhraseText]]:
    """What one tool result showed: the ground-truth triples (with the page, when the corpus says;
    those ``sighted`` already are not looked for again), and its texts as the agent received them
    (a visited page whole; a list of search hits as one text)."""
    out: list[tuple[int, str | None]] = []
    if pages is not None:
        texts = []
        for doc, facts, part in pages.in_result(content):
            whole = tool in PAGE_TOOLS and f"({doc.url})" in content
            if whole:
                texts.append(pages.text_of(doc))
            hit = None if whole else phrase_text(part)
            for i in facts:
                if i not in sighted and (hit is None or (hit.names(gt[i].head) and hit.names(gt[i].tail))):
                    out.append((i, doc.url))
        if tool not in PAGE_TOOLS:
            texts.append(phrase_text(content))
        return out, texts
    text = phrase_text(content)
    for i, t in enumerate(gt):
        if i not in sighted and text.names(t.head) and text.names(t.tail):
            out.append((i, None))
    return out, [text]


def _predictions_seen(pred: Sequence[tuple[str, str, str]], received: Iterable[PhraseText]) -> dict[int, bool]:
    """For each predicted triple: did one text the agent received name its head and its tail?"""
    texts = list(received)
    return {j: any(text.names(h) and text.names(t) for text in texts) for j, (h, _, t) in enumerate(pred)}


def graded_prediction(store: Store, score: ScoreRow) -> list[dict[str, Any]]:
    """The predicted triples a stored score graded (its graph; the run's newest when it names none):
    the indices of its verdicts' evidence point into this list."""
    if score.graph_id is not None:
        with store.session() as s:
            row = s.get(GraphRow, score.graph_id)
        if row is not None:
            return [t for t in json.loads(row.triples_json or "[]") if isinstance(t, dict)]
    return stored_prediction(store, score.run_id)[0]


class Corpora:
    """Each task's offline pages as ``CorpusPages``, read once per task (file and graph) across runs."""

    def __init__(self) -> None:
        self._pages: dict[tuple[Any, ...], CorpusPages | None] = {}

    def pages(self, run: Run, task: Task) -> CorpusPages | None:
        """The pages a run searched: its config's backend is the offline corpus and its task has a
        readable corpus (None otherwise: an import, the web, a corpus file that is gone)."""
        config = run.run_config()
        if run.source == "imported" or config is None or config.search.backend != "offline" or not task.corpus:
            return None
        key = (task.id, task.corpus, task.source_file, tuple((t.head, t.relation, t.tail) for t in task.graph))
        if key not in self._pages:
            from ..tasks.loader import load_corpus

            try:
                self._pages[key] = CorpusPages(load_corpus(task), task)
            except TaskLoadError:
                self._pages[key] = None  # the corpus file is gone: the tool text is read instead
        return self._pages[key]


def trace_stored(store: Store, run: Run, task: Task, events: Iterable[StoredEvent], corpora: Corpora) -> tuple[RunTrace, int | None]:
    """A stored run's trace against its newest graph, and that graph's id."""
    row = store.latest_graph(run.id)
    prediction = [t for t in json.loads(row.triples_json or "[]") if isinstance(t, dict)] if row is not None else []
    return trace_run(task, events, prediction, pages=corpora.pages(run, task)), row.id if row is not None else None


def stored_funnel(store: Store, run_id: str, score_id: int, *, corpora: Corpora | None = None,
                  trace: tuple[RunTrace, int | None] | None = None, task: Task | None = None) -> RunFunnel | None:
    """The funnel of a stored run under one of its scores (None: its task cannot be read, or no
    such score). ``trace``: the run's trace made already (``trace_stored``), used when the score
    graded the graph it was made with; otherwise the run's events are streamed again. ``task``:
    the run's task, read already."""
    if task is None:
        try:
            task = store.get_run(run_id).task()
        except TaskSnapshotError:
            return None
    with store.session() as s:
        score = s.get(ScoreRow, score_id)
    if score is None:
        return None
    if trace is None or trace[1] != score.graph_id:
        pages = (corpora or Corpora()).pages(store.get_run(run_id), task)
        trace = (trace_run(task, store.iter_events(run_id), graded_prediction(store, score), pages=pages), score.graph_id)
    return funnel_of(run_id, task, trace[0], stored_verdicts(store, score_id))
