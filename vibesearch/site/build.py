"""``vibesearch site build``: the runs a filter names, as a static site with its results bundle.

The site is written into a staging folder beside OUT/ and moved into place at the end, so OUT/
holds a whole site or is left as it was. It needs no server (every link is relative, every style
and script inline, nothing is fetched at view time) and opens from ``file://``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .. import __version__
from ..judges.registry import judge_label
from ..results.analysis import series_funnels
from .funnel_html import BundleOnly
from ..results.stage_view import stage_view
from ..store import Store
from .bundle import DERIVED_KEYS, RESULTS, SUMS, content_hash, derive, file_text, gzip_json, plain, record_fields, write_official_folders, write_sums
from .collect import RunData, SiteData, SiteInputError, gather
from .site_votes import preference_figures
from .rows import ROWS, people_figures, rebuilt_store, rows_bundle
from .pages import index_page
from .run_page import run_page
from .web_files import WEB_KEY, MissingPage, write_web


SITE_FORMAT = "vibesearch-site/1"


class SiteOutputError(ValueError):
    """OUT/ cannot be written (one line naming it)."""


def stem(run_id: str) -> str:
    """A run's file name stem (run ids are short hex; an imported one may hold other characters)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", run_id)[:120] or "run"


def _sample_file(data: RunData, task_sha: str | None) -> dict[str, Any]:
    entries = []
    for rec in data.records:
        sid = rec.score_id
        entries.append({
            "record": record_fields(rec),
            "graded_triples": data.graded.get(sid, []) if sid is not None else [],
            "verdicts": data.verdicts.get(sid, []) if sid is not None else [],
            **({"graded_answer": data.answers[sid]} if sid is not None and sid in data.answers else {}),
        })
    return {"run_id": data.run.id, "task_id": data.run.task_id, "task_sha256": task_sha, "stats_inputs": data.stats_inputs,
            "records": entries}


def _public_config(config: dict[str, Any]) -> dict[str, Any]:
    """A run's config as published: an endpoint URL without any user, password, query or fragment
    (a config never holds a key, but a URL typed with one inside must not reach a public page)."""
    agent = config.get("agent")
    if not isinstance(agent, dict):
        return config
    url = agent.get("endpoint_url")
    if isinstance(url, str) and url:
        try:
            parts = urlsplit(url)
            host = parts.netloc.rpartition("@")[2]  # the user and password, if any, stay behind
            agent["endpoint_url"] = urlunsplit((parts.scheme, host, parts.path, "", ""))
        except ValueError:
            agent["endpoint_url"] = "(not shown)"
    return config


def run_entry(data: RunData, task_sha: str | None) -> dict[str, Any]:
    config = data.run.run_config()
    first = data.records[0] if data.records else None
    s = stem(data.run.id)
    return {
        "run_id": data.run.id, "task_id": data.run.task_id, "task_sha256": task_sha, "status": data.run.status,
        "termination": data.run.termination, "source": data.run.source, "kind": data.run.kind,
        "config": first.config if first else f"{data.run.agent} · user {data.run.user}",
        "scored_under": [r.profile for r in data.records if r.score_id is not None],
        "run_config": _public_config(plain(config.model_dump(mode="json"))) if config is not None else None,
        "page_stem": s, "page": f"runs/{s}.html", "sample_file": f"samples/{s}.json", "events_file": f"events/{s}.json.gz",
    }


def results_runs(site: SiteData, shas: dict[str, str | None]) -> list[dict[str, Any]]:
    """``results.json``'s ``runs``: each published run's facts, public config and files."""
    return [run_entry(d, shas[rid]) for rid, d in site.runs.items()]


def results_of(site: SiteData, derived: dict[str, Any], tasks: dict[str, str], app_url: str | None = None,
               people: Store | None = None) -> dict[str, Any]:
    """``results.json``: the derived figures, the agreement with people and the facts of the build
    (``app_url``: the live app the pages link to, kept so ``site verify`` renders the pages again;
    ``people``: the database the people's figures are computed from, the site's own by default)."""
    keep = set(site.runs)
    profiles = sorted({r.profile for r in site.records if r.scored})
    from ..scoring.spread import interval_settings

    return {
        "format": SITE_FORMAT,
        "vibesearch_version": __version__,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "judge": site.judge,
        "judge_label": judge_label(site.judge),
        "selection": site.selection,
        "app_url": app_url,
        "intervals": interval_settings(),
        "n_runs": len(site.runs),
        "tasks": [{"id": tid, "sha256": sha, "file": f"tasks/{sha}.json"} for sha, tid in sorted(tasks.items(), key=lambda kv: kv[1])],
        "runs": results_runs(site, {rid: content_hash(d.task_json) if d.task_json else None for rid, d in site.runs.items()}),
        **derived,
        # the per-stage views (needs each score's verdicts and task: recomputed from rows.json by ``site verify``)
        "stages": plain(stage_view(people or site.store, site.records)),
        # where each fact was lost, per configuration × profile (recomputed from rows.json by ``site verify``)
        "funnel": plain(series_funnels(people or site.store, site.records, corpora=BundleOnly())),
        **people_figures(people or site.store, keep, site.judge, profiles),
        # the votes' Bradley–Terry ratings (recomputed from rows.json's votes by ``site verify``)
        "preference": preference_figures(people or site.store, site.records),
    }


def _results_as_published(site: SiteData, derived: dict[str, Any], tasks: dict[str, str], bundle: dict[str, Any],
                          app_url: str | None) -> dict[str, Any]:
    """``results_of``; with a blind study's play published, the people's figures are computed from
    the published rows (its agent hidden), as ``site verify`` recomputes them, not from the database."""
    if not site.blind:
        return results_of(site, derived, tasks, app_url)
    by_sha = {content_hash(d.task_json): d.task_json for d in site.runs.values() if d.task_json}
    with tempfile.TemporaryDirectory() as scratch:
        people = rebuilt_store(bundle, lambda sha: by_sha.get(sha) if sha else None, lambda rid: site.runs[rid].events, Path(scratch))
        try:
            return results_of(site, derived, tasks, app_url, people)
        finally:
            people.engine.dispose()


def front_page(results: dict[str, Any]) -> str:
    """``index.html`` from ``results.json``'s content alone (``site verify`` renders it again and compares)."""
    return index_page(results, {key: results[key] for key in DERIVED_KEYS}, app_url=results.get("app_url"))


def _is_site(folder: Path) -> bool:
    """Whether ``folder`` holds a site this command wrote (its results.json says so)."""
    try:
        head = json.loads((folder / RESULTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and head.get("format") == SITE_FORMAT and (folder / SUMS).is_file()


def write_site(site: SiteData, out: Path, *, app_url: str | None = None, with_web: bool = False) -> dict[str, Any]:
    """Write the site into ``out`` (replacing what was there only once the new one is whole);
    ``with_web``: the page texts its runs recorded too (``web_files``)."""
    out = Path(out)
    parent = out.resolve().parent
    if out.exists() and not out.is_dir():
        raise SiteOutputError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not _is_site(out):
        raise SiteOutputError(f"{out}: holds files that are not a site built by vibesearch; give a new or empty folder "
                              "(an earlier site is replaced)")
    parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    try:
        for sub in ("runs", "samples", "events", "tasks"):
            (stage / sub).mkdir()
        derived = derive(site.records)
        tasks: dict[str, str] = {}
        for data in site.runs.values():
            sha = content_hash(data.task_json) if data.task_json else None
            if sha is not None and sha not in tasks:
                tasks[sha] = data.run.task_id
                (stage / "tasks" / f"{sha}.json").write_text(file_text(data.task_json), encoding="utf-8")
            s = stem(data.run.id)
            (stage / "samples" / f"{s}.json").write_text(file_text(_sample_file(data, sha)), encoding="utf-8")
            (stage / "events" / f"{s}.json.gz").write_bytes(gzip_json(data.events))
            (stage / "runs" / f"{s}.html").write_text(run_page(data, app_url=app_url, stem=s), encoding="utf-8")
        official = write_official_folders(site.records, stage / "official")
        try:
            web = write_web(site.store, (d.events for d in site.runs.values()), stage) if with_web else None
        except MissingPage as exc:
            raise SiteInputError(f"--with-web: {exc}") from None
        shas = {rid: content_hash(d.task_json) if d.task_json else None for rid, d in site.runs.items()}
        configs = {r["run_id"]: r["run_config"] for r in results_runs(site, shas)}
        bundle = rows_bundle(site.store, {rid: d.run for rid, d in site.runs.items()}, shas.__getitem__, configs.__getitem__)
        (stage / ROWS).write_text(file_text(bundle), encoding="utf-8")
        results = _results_as_published(site, derived, tasks, bundle, app_url)
        results["official_folders"] = [f"official/{name}" for name in official]
        if web is not None:
            results[WEB_KEY] = web
        results = plain(results)  # as results.json reads back: the front page is rendered from that alone
        (stage / RESULTS).write_text(file_text(results), encoding="utf-8")
        (stage / "index.html").write_text(front_page(results), encoding="utf-8")
        write_sums(stage)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.replace(out, old / "site")
            os.replace(stage, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, out)
    except OSError as exc:
        shutil.rmtree(stage, ignore_errors=True)
        raise SiteOutputError(f"{out}: cannot write the site ({exc.strerror or exc})") from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return results


def build_site(store: Store, out: Path, *, judge: str | None = None, runs: list[str] | None = None, campaign: str | None = None,
               study: str | None = None, include_studies: bool = False, app_url: str | None = None,
               with_web: bool = False) -> dict[str, Any]:
    """Build the site of the runs named (every run without a filter; a study's plays only with
    ``study`` or ``include_studies``) into ``out``, with the pages they recorded when ``with_web``;
    returns results.json's content."""
    site = gather(store, judge=judge, runs=runs, campaign=campaign, study=study, include_studies=include_studies)
    return write_site(site, out, app_url=app_url, with_web=with_web)
