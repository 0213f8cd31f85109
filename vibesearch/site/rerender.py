"""The site's pages rendered again from its bundle alone, with the code that built them, and
compared byte for byte — so ``site verify`` vouches for what a reader sees, not only for numbers.

``index.html`` is ``build.front_page(results.json)``; ``runs/<run>.html`` is ``run_page`` of the run
as the bundle holds it (``bundled_run``: its facts from ``rows.json``, its task file, its events,
its ``samples/`` file with the records ``verify`` rebuilt from them). Rendering is deterministic
(no clock, no random: the graph layout has a fixed seed, gzip writes no time), so any page that is
not the rendering of the bundled data was changed after the build: a script added, the
Content-Security-Policy removed, a label or a title rewritten. Each run's events are also compared
with the events its page embeds for the replay, and the folder must hold exactly the files a build
writes. Every problem is one line naming the file.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path
from typing import Any

from ..run.events import StoredEvent
from ..run.transcript import Decided, StepView, ToolCall, Transcript
from ..scoring.aggregate import RunRecord
from ..scoring.stored import stored_prediction
from ..store import Store, TaskSnapshotError
from ..tasks.models import Task
from .bundle import RESULTS, SUMS, first_difference, read_sums, site_files
from .build import front_page, run_entry, stem
from .collect import RunData
from .rows import ROWS
from .web_files import WEB_KEY
from .run_page import run_page

CSP = re.compile(r"<meta[^>]*content-security-policy[^>]*>", re.I)
SCRIPT_OPEN = re.compile(r"<script\b", re.I)
SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.I | re.S)
TITLE = re.compile(r"<title>(.*?)</title>", re.I | re.S)


def _show(value: Any, n: int = 80) -> str:
    return json.dumps(value, ensure_ascii=False)[:n]


def bundled_run(store: Store, run_id: str, sample: dict[str, Any], events: list[dict[str, Any]], records: list[RunRecord]) -> RunData:
    """A run as ``collect.gather`` reads it from the database, read from the bundle instead:
    ``store`` is the throwaway database ``verify`` makes of ``rows.json`` (the run's facts, its
    graphs), ``sample`` its ``samples/`` file, ``records`` the records rebuilt from it."""
    run = store.get_run(run_id)
    file = (sample.get("stats_inputs") or {}).get("file")
    if file is not None:  # what an imported trajectory's file says of its counts (its meta, as far as the pages read it)
        run.meta_json = json.dumps(file, ensure_ascii=False)
    try:
        task: Task | None = run.task()
    except TaskSnapshotError:
        task = None
    data = RunData(run=run, task=task, task_json=json.loads(run.task_json or "{}"), events=events, records=records,
                   latest_graph=stored_prediction(store, run_id)[0])
    for entry, rec in zip(sample.get("records") or [], records):
        if rec.score_id is None:
            continue
        data.graded[rec.score_id] = entry.get("graded_triples") or []
        data.verdicts[rec.score_id] = entry.get("verdicts") or []
        if "graded_answer" in entry:
            data.answers[rec.score_id] = entry["graded_answer"]
    return data


def page_problems(rel: str, shown: bytes, rebuilt: str) -> list[str]:
    """What differs between a page as found and as rendered from the bundle: a changed
    Content-Security-Policy, script or title each named, else the first different character."""
    if shown == rebuilt.encode("utf-8"):
        return []
    try:
        text = shown.decode("utf-8")
    except UnicodeDecodeError:
        return [f"{rel}: is not UTF-8 text, so not the page the build writes"]
    problems = []
    found, wanted = CSP.findall(text), CSP.findall(rebuilt)
    if found != wanted:
        problems.append(f"{rel}: its Content-Security-Policy is {'removed' if not found else 'changed'} "
                        "(the build writes default-src 'none' in every page)")
    n_found, n_wanted = len(SCRIPT_OPEN.findall(text)), len(SCRIPT_OPEN.findall(rebuilt))
    if n_found > n_wanted:
        problems.append(f"{rel}: holds {n_found - n_wanted} script element(s) the build does not write")
    elif SCRIPT.findall(text) != SCRIPT.findall(rebuilt):
        problems.append(f"{rel}: a script or the data it reads is not the one the build writes from the bundled data")
    title, want_title = TITLE.findall(text), TITLE.findall(rebuilt)
    if title != want_title:
        problems.append(f"{rel}: its title is {_show(title[0] if title else None)}, the bundled data gives {_show(want_title[0] if want_title else None)}")
    if problems:
        return problems
    at = next((i for i, (a, b) in enumerate(zip(text, rebuilt)) if a != b), min(len(text), len(rebuilt)))
    line = text.count("\n", 0, at) + 1
    return [f"{rel}: line {line} is not the page rendered from the bundled data: shows {_show(text[at:at + 60], 70)}, "
            f"rendered {_show(rebuilt[at:at + 60], 70)}"]


EVENTS_ELEMENT = re.compile(r'<script type="application/json" id="run-events"( data-encoding="gzip-base64")?>(.*?)</script>', re.S)


def _embedded_events(page: str, cap: int) -> Any:
    """The events a run page embeds for its replay (``_html.json_script``), unpacked to at most
    ``cap`` characters (a page changed after the build may hold anything); None when unreadable."""
    found = EVENTS_ELEMENT.search(page)
    if found is None:
        return None
    packed, body = found.group(1), found.group(2)
    try:
        if packed:
            unpack = zlib.decompressobj(wbits=31)  # gzip
            raw = unpack.decompress(base64.b64decode(json.loads(body)), cap)
            if unpack.unconsumed_tail:
                return None
            body = raw.decode("utf-8")
        return json.loads(body)
    except (ValueError, zlib.error):
        return None


def events_problem(events_rel: str, page_rel: str, page: str, rebuilt: str, events: list[dict[str, Any]]) -> str | None:
    """The run's bundled events against those its page embeds for the replay (one line, or None
    when the page's embedded events are the ones its rendering from the bundle embeds)."""
    found_shown, found_rebuilt = EVENTS_ELEMENT.search(page), EVENTS_ELEMENT.search(rebuilt)
    if found_shown is not None and found_rebuilt is not None and found_shown.group(0) == found_rebuilt.group(0):
        return None
    bundled, seqs = replay_parts(events)
    shown = _embedded_events(page, 2 * len(json.dumps(bundled, ensure_ascii=False)) + 1_000_000)
    if shown is None:
        return f"{page_rel}: does not hold readable events for its replay (the build embeds the run's {len(bundled)} parts)"
    found = first_difference(shown, bundled)
    where = found[0] if found else ""
    index = re.match(r"\[(\d+)\]", where)
    n = int(index.group(1)) if index else None
    part = bundled[n] if n is not None and n < len(bundled) else None
    which = (f"event seq {seqs[n]} ({part.get('kind')})" if isinstance(part, dict) and n is not None
             else f"the events ({where or 'their encoding'})")
    return f"{events_rel}: {which} is not what {page_rel} shows and was built from"


def replay_parts(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[int | None]]:
    """What a run page embeds for its replay, made from the bundled events (the transcript view's
    parts, ``Transcript.as_dict``), and the sequence number of the event each part shows."""
    stored = [StoredEvent.model_validate(e) for e in events]
    view = Transcript.of(stored)
    seq_of = {id(ev.data): ev.seq for ev in stored}
    seqs = [seq_of.get(id(_part_event(p))) for p in view.parts()]
    return view.as_dict()["parts"], seqs


def _part_event(part: Any) -> Any:
    """The stored event data a part of a turn's flow shows (a step its message, a call its call)."""
    if isinstance(part, StepView):
        return part.message
    if isinstance(part, ToolCall):
        return part.call
    if isinstance(part, Decided):
        return part.event
    return part


def expected_files(results: dict[str, Any], official_files: list[str]) -> set[str]:
    """The files a build writes for this results.json (the official grader's files as written again)."""
    names = {"index.html", RESULTS, ROWS, SUMS, *official_files}
    for run in results.get("runs") or []:
        s = stem(str(run.get("run_id")))
        names |= {f"runs/{s}.html", f"samples/{s}.json", f"events/{s}.json.gz"}
    names |= {f"tasks/{t.get('sha256')}.json" for t in results.get("tasks") or []}
    web = results.get(WEB_KEY)
    names |= {rel for rel in web if isinstance(rel, str)} if isinstance(web, list) else set()
    return names


def file_problems(out: Path, expected: set[str]) -> list[str]:
    """Every file that a build does not write, every one it writes that is missing, and a
    SHA256SUMS that is not the list the build writes (its lines in order, nothing else)."""
    present = [p.relative_to(out).as_posix() for p in site_files(out)]
    problems = [f"{rel}: not a file the build writes" for rel in present if rel not in expected]
    problems += [f"{rel}: missing" for rel in sorted(expected - set(present) - {SUMS})]
    sums = out / SUMS
    if sums.is_file():
        listed = read_sums(out)
        want = "".join(f"{listed.get(rel, '')}  {rel}\n" for rel in present)
        if sums.read_bytes() != want.encode("utf-8"):
            problems.append(f"{SUMS}: is not the list the build writes (one line per file, in order, nothing else)")
    return problems


def rendered_problems(out: Path, results: dict[str, Any], store: Store, samples: dict[str, dict[str, Any]],
                      events: dict[str, list[dict[str, Any]]], by_run: dict[str, list[RunRecord]]) -> list[str]:
    """Every page of the site rendered again from the bundle and compared; the results.json
    entry of each run against the bundle; the events against the pages. One line per problem."""
    problems = []
    app_url = results.get("app_url")
    for i, entry in enumerate(results.get("runs") or []):
        run_id = str(entry.get("run_id"))
        data = bundled_run(store, run_id, samples[run_id], events[run_id], by_run[run_id])
        fresh = run_entry(data, samples[run_id].get("task_sha256"))
        found = first_difference(entry, fresh)
        if found:
            where, stored, value = found
            problems.append(f"{RESULTS}: runs[{i}].{where} is {_show(stored)}, the bundled data gives {_show(value)}")
        s = stem(run_id)
        rel = f"runs/{s}.html"
        path = out / rel
        if not path.is_file():
            continue  # named by file_problems
        shown, rebuilt = path.read_bytes(), run_page(data, app_url=app_url, stem=s)
        if shown == rebuilt.encode("utf-8"):
            continue
        problem = events_problem(f"events/{s}.json.gz", rel, shown.decode("utf-8", errors="replace"), rebuilt, events[run_id])
        if problem:
            problems.append(problem)
            continue  # the page differs from its rendering for that reason: one line for it
        problems += page_problems(rel, shown, rebuilt)
    index = out / "index.html"
    if index.is_file():
        problems += page_problems("index.html", index.read_bytes(), front_page(results))
    return problems
