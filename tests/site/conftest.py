"""Fixtures for the static-site tests: one database per test module, built offline in seconds —
two configurations of the offline baseline (rules user, scripted "direct" user) on a bundled task,
scored by the offline judge; a labelling campaign over two of them with two annotators' labels; an
imported official trajectory (from ../shared, when it is there); a run whose task, replies, tool
results and triples carry markup and a ``javascript:`` link; and secrets planted where a careless
build could pick them up (a run's owner token, its settings snapshot, a login, a study's codes).

Browser tests need Debian's Chromium at /usr/bin/chromium: skipped without it, failed under CI.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

TRAJECTORY = HERE.parents[1].parent / "shared" / "data" / "official-trajectories" / "task_022_airline.condensed.json"


@pytest.fixture(scope="module")
def site_db(tmp_path_factory):
    from concurrent.futures import ThreadPoolExecutor

    from site_data import build_database  # a SiteDb

    # in a thread of its own: the runs and the judge use asyncio.run, which refuses to start
    # inside the event loop Playwright's sync API keeps in the main thread
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(build_database, tmp_path_factory.mktemp("sitedb"), TRAJECTORY if TRAJECTORY.exists() else None).result()


@pytest.fixture(scope="module")
def built_site(site_db, tmp_path_factory) -> Path:
    """The site of every run of the module's database, the study's play included (``--include-studies``)."""
    from vibesearch.site import build_site
    from vibesearch.store import Store

    out = tmp_path_factory.mktemp("site") / "out"
    build_site(Store(site_db.path), out, include_studies=True)
    return out


@pytest.fixture
def cli():
    from typer.testing import CliRunner

    from vibesearch.cli.main import app

    runner = CliRunner()
    return lambda *args: runner.invoke(app, [str(a) for a in args])
