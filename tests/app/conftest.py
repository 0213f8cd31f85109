"""Fixtures for the app tests: the app as a subprocess (see ``app_harness``) and Debian's Chromium
driven by Playwright.

Browser tests need ``/usr/bin/chromium``. Without it they are skipped with the reason — unless
the ``CI`` variable is set, where a missing browser is a failure (CI installs it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from app_harness import CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS, start_app, stop_app  # noqa: E402


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    server = start_app(tmp_path_factory.mktemp("app"))
    yield server
    stop_app(server)


def require_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing; CI must install Debian's chromium for the browser tests")
    pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium); not installed here")


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
