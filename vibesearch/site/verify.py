"""``vibesearch site verify OUT/``: every number of a site recomputed from its own bundled data,
every page rendered again from it, every file's sha256 checked.

Steps 1-6 in this order, stopping at the first thing that does not match (one line naming the
file, and the number where there is one):

0. every entry of the bundle is a folder or a regular file (no symbolic link), and no file holds
   more than ``MAX_FILE_BYTES`` (a gzipped one is read in blocks and refused at that cap);
1. each task file's name is the sha256 of its content;
2. each run's per-sample file: P/R/F1 and the counts of every score recomputed from its verdicts
   and graded triples (``metrics.compute_metrics``), an official sample's triplet metrics from its
   coverage details (``official_metrics``) and its node metrics from the answer it graded, parsed
   strictly again (``bundle.official_nodes``; the text checked against the run's bundled events);
3. ``results.json``: the leaderboard, interaction, noise-floor, official summary / per-item and
   left-out figures recomputed by ``bundle.derive`` from the records rebuilt out of the per-sample
   files and the events (statistics by ``stats.stats_from_events``), and the official grader's
   folders written again from those records (``bundle.write_official_folders``);
4. every number a page shows (``data-check``) against the same recomputation;
5. the judges' agreement lines, the label agreement tables and the people-vs-simulator table,
   recomputed by ``rows.people_figures`` over a throwaway database made from ``rows.json`` (the
   runs' facts, every score, the labels and adjudications) and the bundled events and task files;
   the per-stage views (``results.stage_view``) and the funnel per configuration × profile
   (``results.analysis.series_funnels``, "seen" from the bundled tool text: ``funnel_html.BundleOnly``)
   over the same database and the rebuilt records; a run page's funnel counts (``funnel_run:``)
   are made again there too;
   the published web (``--with-web``; ``web_files.check_web``): each page text's name is
   ``web/<sha256>.txt``, its content has that sha256, and the files are exactly the pages the
   bundled runs' ``web`` events name;
6. the sha256 of every file against ``SHA256SUMS`` (and no file unlisted, none missing);
7. then every problem, one line each (``rerender``): a file the build does not write or one it
   writes missing, a page that is not the one rendered again from the bundled data by the code that
   built it (a script, the Content-Security-Policy, the title each named), a run's events that are
   not those its page shows, a run's entry in ``results.json`` that its bundled data does not give.

A SHA256SUMS that matches proves only that the files agree with each other: whoever changed a
file can write a new SHA256SUMS. The site is the one published only when the sha256 of SHA256SUMS
is the digest published elsewhere (``expect``).
"""

from __future__ import annotations

import html
import json
import os
import re
import stat
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ..results.analysis import series_funnels
from ..results.funnel import stored_funnel
from ..results.stage_view import stage_view
from ..scoring.aggregate import RunRecord
from ..store import Store
from .rerender import expected_files, file_problems, rendered_problems
from .web_files import WEB_KEY, check_web
from .funnel_html import BundleOnly
from .site_votes import preference_figures
from .rows import ROWS, RowsError, people_figures, rebuilt_store
from .bundle import (
    DERIVED_KEYS, METRIC_FIELDS, RESULTS, SUMS, close, content_hash, derive, first_difference, metrics_from_verdicts,
    official_nodes, official_triplets, plain, read_sums, rebuild_records, sha256_file, site_files, write_official_folders,
)

CHECK = re.compile(r'data-check="([^"]*)" data-value="([^"]*)"')
STEP = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
MAX_FILE_BYTES = 64 << 20  # the most one bundled file may hold (decompressed): far above any run's events


class Mismatch(Exception):
    """The first thing that does not match: its message is the one line."""


def one_line_of(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


def _check_entries(out: Path) -> None:
    """Every entry of the bundle is a folder or a regular file: a symbolic link (which could point
    out of the bundle), a FIFO or a device is refused before anything is read."""
    for folder, dirs, files in os.walk(out, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(folder, name)
            mode = path.lstat().st_mode
            if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
                continue
            kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise Mismatch(f"{path.relative_to(out).as_posix()}: {kind}; a bundle holds regular files only")


def _bundle_file(out: Path, rel: str) -> Path:
    """The regular file ``rel`` names inside the bundle (never a path that leads out of it)."""
    path = out / rel
    if Path(rel).is_absolute() or ".." in Path(rel).parts:
        raise Mismatch(f"{rel}: not a path inside the bundle")
    if path.is_symlink():
        raise Mismatch(f"{rel}: a symbolic link; a bundle holds regular files only")
    if not path.is_file():
        raise Mismatch(f"{rel}: missing")
    return path


def _read_capped(path: Path, rel: str) -> bytes:
    """The file's bytes (gunzipped for ``.gz``), read in blocks and refused past ``MAX_FILE_BYTES``:
    a small file that decompresses to gigabytes stops at the cap, not at the machine's memory."""
    import gzip

    chunks, size = [], 0
    with path.open("rb") as raw, (gzip.GzipFile(fileobj=raw) if rel.endswith(".gz") else raw) as handle:
        while block := handle.read(1 << 20):
            size += len(block)
            if size > MAX_FILE_BYTES:
                what = "decompresses to" if rel.endswith(".gz") else "holds"
                raise Mismatch(f"{rel}: {what} more than {MAX_FILE_BYTES >> 20} MiB, the most a bundle's file may hold")
            chunks.append(block)
    return b"".join(chunks)


def _load(out: Path, rel: str) -> Any:
    path = _bundle_file(out, rel)
    try:
        return json.loads(_read_capped(path, rel).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, OSError, EOFError) as exc:
        raise Mismatch(f"{rel}: not valid {'gzipped ' if rel.endswith('.gz') else ''}JSON ({one_line_of(exc)})") from None


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:80]


def _check_answer(rel: str, k: int, entry: dict[str, Any], events: list[dict[str, Any]], task_json: dict[str, Any] | None) -> None:
    """An official sample's node metrics and prediction count against the answer it graded (the
    run's message at that seq, as bundled in its events)."""
    official = entry["record"]["official"]
    answer = entry.get("graded_answer")
    if not isinstance(answer, dict) or task_json is None:
        raise Mismatch(f"{rel}: records[{k}] is an official sample without the answer it graded (graded_answer) or its task")
    text = str(answer.get("text") or "")
    if isinstance(answer.get("seq"), int) and answer.get("phase") != "reextraction":
        said = next((str(e["data"].get("content") or "").strip() for e in events if e.get("seq") == answer["seq"]
                     and e["data"].get("kind") == "message" and e["data"].get("role") == "assistant"), None)
        if said != text:
            raise Mismatch(f"{rel}: records[{k}].graded_answer.text is not the run's assistant message {answer['seq']} in its events")
    for key, value in official_nodes(official, text, task_json).items():
        if not close(official.get(key, 0 if key == "num_pred_triples" else 0.0), value):
            raise Mismatch(f"{rel}: records[{k}].official.{key} is {_show(official.get(key))}, the graded answer gives {_show(value)}")


def _check_sample(rel: str, sample: dict[str, Any], gt_count: int | None, events: list[dict[str, Any]],
                  task_json: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The sample file's records with their metrics recomputed; ``Mismatch`` at the first stored
    number the verdicts (or, for an official sample, its coverage details and graded answer) do not give."""
    fresh_records = []
    for k, entry in enumerate(sample.get("records") or []):
        rec = dict(entry["record"])
        official = rec.get("official")
        if official is not None:
            for key, value in official_triplets(official).items():
                if not close(official.get(key), value):
                    raise Mismatch(f"{rel}: records[{k}].official.{key} is {_show(official.get(key))}, its coverage details give {_show(value)}")
            _check_answer(rel, k, entry, events, task_json)
        elif rec.get("score_id") is not None:
            n_gt = gt_count if gt_count is not None else int(rec.get("n_gt") or 0)
            metrics = metrics_from_verdicts(entry.get("verdicts") or [], n_gt, entry.get("graded_triples") or []).model_dump()
            for key in METRIC_FIELDS:
                if not close(rec.get(key), metrics[key]):
                    raise Mismatch(f"{rel}: records[{k}].{key} is {_show(rec.get(key))}, its verdicts give {_show(metrics[key])}")
            rec.update({key: metrics[key] for key in METRIC_FIELDS})
        fresh_records.append({**entry, "record": rec})
    return fresh_records


def _lookup(path: str, derived: dict[str, Any], by_run: dict[str, list[RunRecord]], store: Store | None = None,
            funnels: dict[str, dict[str, int]] | None = None) -> Any:
    if path.startswith("funnel_run:") and store is not None:  # a run's funnel under its k-th record's score
        key, _, field = path.partition(".")
        funnels = {} if funnels is None else funnels
        if key not in funnels:
            run_id, _, k = key[len("funnel_run:"):].rpartition(":")
            score_id = by_run[run_id][int(k)].score_id
            funnel = stored_funnel(store, run_id, score_id, corpora=BundleOnly()) if score_id is not None else None
            if funnel is None:
                raise KeyError(path)
            funnels[key] = {**{str(b): n for b, n in funnel.counts().items()}, "n_gt": funnel.n_gt}
        return funnels[key][field]
    if path.startswith("run:"):
        run_id, _, rest = path[len("run:"):].rpartition(":")
        k, _, field = rest.partition(".")
        return getattr(by_run[run_id][int(k)], field)
    value: Any = derived
    for name, index in STEP.findall(path):
        value = value[int(index)] if index else value[name]
    return value


def _check_pages(out: Path, derived: dict[str, Any], by_run: dict[str, list[RunRecord]], store: Store | None = None) -> None:
    funnels: dict[str, dict[str, int]] = {}  # each run page's funnel, made once (``funnel_run:`` checks)
    for path in [out / "index.html", *sorted((out / "runs").glob("*.html"))]:
        rel = path.relative_to(out).as_posix()
        for check, raw in CHECK.findall(path.read_text(encoding="utf-8")):
            check, raw = html.unescape(check), html.unescape(raw)
            try:
                fresh = _lookup(check, derived, by_run, store, funnels)
            except (KeyError, IndexError, ValueError, AttributeError):
                raise Mismatch(f"{rel}: shows {check}, which the bundled data does not hold") from None
            if fresh is None or raw == "":
                ok = fresh is None and raw == ""
            elif isinstance(fresh, bool):
                ok = raw == str(fresh).lower()
            else:
                try:
                    ok = close(float(raw), fresh)
                except ValueError:
                    ok = False
            if not ok:
                raise Mismatch(f"{rel}: {check} shows {raw or '–'}, recomputed {_show(fresh)}")


@contextmanager
def _rebuilt(out: Path, results: dict[str, Any]) -> Iterator[Store]:
    """A throwaway SQLite database made from rows.json and the bundled events and task files."""
    bundle = _load(out, ROWS)
    by_sha = {t["sha256"]: t["file"] for t in results.get("tasks") or []}
    events_of = {r["run_id"]: r["events_file"] for r in results.get("runs") or []}

    def task_json(sha: str | None) -> dict[str, Any] | None:
        return _load(out, by_sha[sha]) if sha in by_sha else None

    def events(run_id: str) -> list[dict[str, Any]]:
        if run_id not in events_of:
            raise Mismatch(f"{ROWS}: run {run_id} is not one of results.json's runs")
        return _load(out, events_of[run_id])

    with tempfile.TemporaryDirectory() as scratch:
        try:
            store = rebuilt_store(bundle, task_json, events, Path(scratch))
        except RowsError as exc:
            raise Mismatch(str(exc)) from None
        try:
            yield store
        finally:
            store.engine.dispose()


def _check_people(out: Path, results: dict[str, Any], records: list[RunRecord], store: Store | None = None) -> dict[str, Any]:
    """The agreement and study figures recomputed from rows.json (``store``: the database made of
    it, made here when not given); returns them (the pages are checked against them)."""
    if store is None:
        with _rebuilt(out, results) as made:
            return _check_people(out, results, records, made)
    profiles = sorted({r.profile for r in records if r.scored})
    keep = {r["run_id"] for r in results.get("runs") or []}
    fresh = people_figures(store, keep, results.get("judge") or "", profiles)
    fresh["stages"] = plain(stage_view(store, records))
    fresh["funnel"] = plain(series_funnels(store, records, corpora=BundleOnly()))
    fresh["preference"] = preference_figures(store, records)
    for key in ("judge_agreement", "label_agreement", "fidelity", "stages", "funnel", "preference"):
        found = first_difference(results.get(key), fresh[key], key)
        if found:
            where, stored, value = found
            raise Mismatch(f"{RESULTS}: {where} is {_show(stored)}, recomputed from {ROWS} {_show(value)}")
    return fresh


def _check_official(out: Path, records: list[RunRecord], listed: list[str]) -> list[str]:
    """The official grader's folders, written again from the rebuilt records and compared file by
    file; returns the files (their names in the site)."""
    with tempfile.TemporaryDirectory() as scratch:
        fresh_root = Path(scratch)
        names = [f"official/{name}" for name in write_official_folders(records, fresh_root)]
        if sorted(names) != sorted(listed):
            raise Mismatch(f"{RESULTS}: official_folders is {_show(listed)}, recomputed {_show(names)}")
        files = []
        for fresh in sorted(p for p in fresh_root.rglob("*.json")):
            rel = "official/" + fresh.relative_to(fresh_root).as_posix()
            files.append(rel)
            found = first_difference(_load(out, rel), json.loads(fresh.read_text(encoding="utf-8")))
            if found:
                where, stored, value = found
                raise Mismatch(f"{rel}: {where or 'the file'} is {_show(stored)}, recomputed {_show(value)}")
        return files


def _check_sums(out: Path) -> None:
    if not (out / SUMS).is_file():
        raise Mismatch(f"{SUMS}: missing")
    listed = read_sums(out)
    seen = set()
    for path in site_files(out):
        rel = path.relative_to(out).as_posix()
        seen.add(rel)
        if rel not in listed:
            raise Mismatch(f"{rel}: not listed in {SUMS}")
        actual = sha256_file(path)
        if actual != listed[rel]:
            raise Mismatch(f"{rel}: sha256 {actual[:16]}… does not match {SUMS} ({listed[rel][:16]}…)")
    for rel in sorted(set(listed) - seen):
        raise Mismatch(f"{rel}: listed in {SUMS} but missing")


def _verify(out: Path) -> tuple[int, list[str]]:
    """The number of run records, and every problem of the pages and files (the numbers' checks
    raise ``Mismatch`` at the first that does not match)."""
    if not out.is_dir():
        raise Mismatch(f"{out}: no such folder")
    _check_entries(out)
    results = _load(out, RESULTS)
    gt_counts: dict[str, int] = {}
    snapshots: dict[str, dict[str, Any]] = {}
    for task in results.get("tasks") or []:
        content = _load(out, task["file"])
        if content_hash(content) != task["sha256"]:
            raise Mismatch(f"{task['file']}: its content's sha256 is not the {task['sha256'][:16]}… results.json names")
        gt_counts[task["sha256"]] = len(content.get("graph") or [])
        snapshots[task["sha256"]] = content
    records: list[RunRecord] = []
    by_run: dict[str, list[RunRecord]] = {}
    samples: dict[str, dict[str, Any]] = {}
    events_of: dict[str, list[dict[str, Any]]] = {}
    for run in results.get("runs") or []:
        sample = _load(out, run["sample_file"])
        events = _load(out, run["events_file"])
        sha = sample.get("task_sha256") or ""
        sample["records"] = _check_sample(run["sample_file"], sample, gt_counts.get(sha), events, snapshots.get(sha))
        try:
            mine = rebuild_records(sample, events)
        except (KeyError, TypeError, ValueError) as exc:
            raise Mismatch(f"{run['sample_file']}: cannot be read back as run records ({' '.join(str(exc).split())[:160]})") from None
        by_run[run["run_id"]] = mine
        samples[run["run_id"]], events_of[run["run_id"]] = sample, events
        records += mine
    derived = derive(records)
    for key in DERIVED_KEYS:
        found = first_difference(results.get(key), derived[key], key)
        if found:
            where, stored, fresh = found
            raise Mismatch(f"{RESULTS}: {where} is {_show(stored)}, recomputed {_show(fresh)}")
    official = _check_official(out, records, results.get("official_folders") or [])
    if WEB_KEY in results:  # published with --with-web
        problem = check_web(out, results[WEB_KEY], events_of, lambda rel: _read_capped(_bundle_file(out, rel), rel))
        if problem:
            raise Mismatch(problem)
    with _rebuilt(out, results) as store:
        people = _check_people(out, results, records, store)
        _check_pages(out, {**derived, **people}, by_run, store)
        _check_sums(out)
        problems = file_problems(out, expected_files(results, official))
        problems += rendered_problems(out, results, store, samples, events_of, by_run)
    return len(records), problems


@dataclass
class SiteCheck:
    """What ``site verify`` found: a problem per line (none: the site holds), and the sha256 of
    SHA256SUMS, which proves anything only against a copy of it published somewhere else."""

    problems: list[str]
    summary: str = ""
    sums_sha256: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_site(out: Path, expect: str | None = None) -> SiteCheck:
    """Every number recomputed, every page rendered again and compared, every file's sha256
    checked; ``expect``: the sha256 SHA256SUMS must have (the digest published with the site)."""
    out = Path(out)
    try:
        n, problems = _verify(out)
    except Mismatch as exc:
        return SiteCheck([str(exc)])
    except Exception as exc:  # noqa: BLE001 - a damaged site is one line, never a traceback
        return SiteCheck([f"{out}: cannot be verified ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})"])
    digest = sha256_file(out / SUMS)
    if expect is not None and expect.strip().lower() != digest:
        problems.append(f"{SUMS}: its sha256 is {digest}, not the {expect.strip()} --expect gives: this is not the site "
                        "whose digest was published")
    return SiteCheck(problems, f"{out}: every page rendered again from the bundled data matches byte for byte, every number "
                               f"recomputed from it matches ({n} run records), and every file its sha256", digest)
