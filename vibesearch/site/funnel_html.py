"""Where each fact was lost (issue 41, docs/analysis.md) on the site's pages.

* the front page: ``funnel_table`` — per configuration × profile (``results.json``'s ``funnel``,
  made by ``results.analysis.series_funnels``), the five bucket counts (they sum to the ground
  truth) with their shares and 95% intervals, and a stacked bar; each count carries
  ``data-check="funnel[i].<bucket>"``, so ``site verify`` recomputes it from the bundled rows;
* a run page: ``run_funnel_section`` — the run's funnel under its main score, made from the run as
  the page has it (``run_data_funnel``: its events, the triples its score graded and the verdicts),
  the counts checked as ``funnel_run:<run>:<k>.<bucket>`` (verify recomputes them from the rebuilt
  database by ``results.funnel.stored_funnel``), then every ground-truth triple with its bucket,
  its stage and the user turn that disclosed it, the first tool call that showed it and the
  prediction naming it.

Every text from a task, an agent or a page is escaped (``esc``).
"""

from __future__ import annotations

from typing import Any

from ..reports.funnel import BUCKET_COLOURS, BUCKET_HEADERS
from ..results.funnel import BUCKETS, Corpora, RunFunnel, funnel_of, trace_run
from ..run.events import StoredEvent
from ..run.scores import Verdict
from ..scoring.aggregate import RunRecord
from .collect import RunData
from ._html import esc, number

class BundleOnly(Corpora):
    """No offline pages: a site's funnel is told from its bundled data alone (``site verify`` must
    get the same anywhere), so "seen" is the tool text's test (``text``), never the corpus files'."""

    def pages(self, run: Any, task: Any) -> None:
        return None


FUNNEL_NOTE = ("Each ground-truth triple counted once, in the first bucket that applies: its stage never disclosed (not asked), "
               "no tool result the agent received showed it (not seen), no prediction names its head and tail (not written), "
               "a prediction names them but the judge did not count it (judged not covered), covered. The counts sum to the "
               "ground truth; shares in %, with 95% bootstrap intervals (runs resampled). Seen is told from the bundled tool "
               "results' text (the head and tail named in it), not from the offline corpus' annotations, so that anyone can "
               "recompute it from this site's files: it can differ from `vibesearch analyse` on offline-corpus runs.")


def _bar(row: dict[str, Any]) -> str:
    n = row.get("n_gt") or 0
    parts = "".join(f'<span title="{esc(h)}: {row[b]}" style="display:inline-block;height:12px;width:{100 * row[b] / n:.3f}%;'
                    f'background:{BUCKET_COLOURS[b]}"></span>' for b, h in zip(BUCKETS, BUCKET_HEADERS) if n and row[b])
    return f'<div class="funnel-bar" style="width:180px;white-space:nowrap;font-size:0">{parts}</div>'


def _share(row: dict[str, Any], bucket: str) -> str:
    share = (row.get("shares") or {}).get(bucket) or {}
    if share.get("share") is None:
        return ""
    ci = share.get("ci")
    return f' <span class="note">{100 * share["share"]:.1f}%' + (f" [{100 * ci[0]:.1f}–{100 * ci[1]:.1f}]" if ci else "") + "</span>"


def funnel_table(rows: list[dict[str, Any]] | None) -> str:
    """The front page's funnel per configuration × profile."""
    if not rows:
        return '<p class="note" id="funnel">No scored runs.</p>'
    legend = " ".join(f'<span style="display:inline-block;width:10px;height:10px;background:{BUCKET_COLOURS[b]}"></span> {esc(h)}'
                      for b, h in zip(BUCKETS, BUCKET_HEADERS))
    body = []
    for i, r in enumerate(rows):
        cells = "".join(f"<td>{number(r[b], f'funnel[{i}].{b}', pct=False)}{_share(r, b)}</td>" for b in BUCKETS)
        body.append(f'<tr><td class="text">{esc(r["group"])}</td><td>{number(r["n_runs"], f"funnel[{i}].n_runs", pct=False)}</td>'
                    f'<td>{number(r["n_gt"], f"funnel[{i}].n_gt", pct=False)}</td>{cells}<td class="text">{_bar(r)}</td></tr>')
    heads = "".join(f"<th>{esc(h)}</th>" for h in ["runs", "GT triples", *BUCKET_HEADERS])
    return (f'<p class="note">{esc(FUNNEL_NOTE)}</p><p class="note">{legend}</p><table id="funnel"><thead><tr>'
            f'<th class="text">configuration · profile</th>{heads}<th class="text">funnel</th></tr></thead><tbody>{"".join(body)}</tbody></table>')


def run_data_funnel(data: RunData, record: RunRecord) -> RunFunnel | None:
    """The run's funnel under ``record``'s score, from what the page has of it (None: no task or no score)."""
    if data.task is None or record.score_id is None or record.score_id not in data.verdicts:
        return None
    events = (StoredEvent.model_validate(e) for e in data.events)
    trace = trace_run(data.task, events, data.graded.get(record.score_id, []), pages=None)  # (``BundleOnly``)
    return funnel_of(data.run.id, data.task, trace, [Verdict.model_validate(v) for v in data.verdicts[record.score_id]])


def _when(f: Any) -> str:
    stage = "unassigned" if f.stage is None else f"stage {f.stage + 1}"
    told = "" if f.stage is None else (f", disclosed on user turn {f.disclosed.turn}" if f.disclosed is not None else ", never disclosed")
    return stage + told


def _seen(f: Any) -> str:
    if f.sighting is None:
        return {"unknown": "unknown (no tool text kept)", "no": "no"}.get(f.seen, "")
    s = f.sighting
    return f"{s.tool} call on user turn {s.turn}" + (f" ({s.url})" if s.url else "")


def run_funnel_section(data: RunData, k: int, record: RunRecord) -> str:
    """A run page's funnel under its ``k``-th record's score (``data-check`` on every count)."""
    funnel = run_data_funnel(data, record)
    if funnel is None:
        return '<p class="note" id="run-funnel">Not scored: no funnel.</p>'
    check = f"funnel_run:{data.run.id}:{k}"
    counts = funnel.counts()
    line = " · ".join(f"{esc(h)} {number(counts[b], f'{check}.{b}', pct=False)}" for b, h in zip(BUCKETS, BUCKET_HEADERS))
    rows = []
    for f in funnel.fates:
        written = ""
        if f.prediction is not None and 0 <= f.prediction < len(funnel.prediction):
            written = f"#{f.prediction + 1}: " + " — ".join(funnel.prediction[f.prediction])
        rows.append(f'<tr data-bucket="{f.bucket}"><td>{f.gt_index + 1}</td><td class="text">{esc(f.head)} — {esc(f.relation)} → {esc(f.tail)}</td>'
                    f'<td class="text" style="border-left:4px solid {BUCKET_COLOURS[f.bucket]}">{esc(BUCKET_HEADERS[BUCKETS.index(f.bucket)])}</td>'
                    f'<td class="text">{esc(_when(f))}</td><td class="text">{esc(_seen(f))}</td><td class="text">{esc(written)}</td></tr>')
    return (f'<p class="note">{esc(record.profile)}: {line} · of {number(funnel.n_gt, f"{check}.n_gt", pct=False)} ground-truth triples '
            f'(seen told by: {esc(funnel.seen_method)}).</p><table id="run-funnel"><thead><tr><th>#</th><th class="text">ground-truth triple</th>'
            '<th class="text">bucket</th><th class="text">stage and disclosure</th><th class="text">first shown by</th>'
            f'<th class="text">prediction naming it</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
