"""Shared fixtures. No test touches the network or needs a key: models are ``fake/...`` handlers
(``vibesearch.llm.fake``), reached through ``complete()``'s direct HTTP path as an in-process
OpenAI-compatible endpoint, or through litellm's custom-provider hook for streamed calls and with
``VIBESEARCH_LLM_DIRECT=0`` (tests/llm/test_direct_path.py checks that both give the same)."""

from __future__ import annotations

import os

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
# never let a developer's real keys or settings leak into a test
for _name in list(os.environ):
    if _name.startswith("VIBESEARCH_") or _name.endswith("_API_KEY"):
        del os.environ[_name]
# what the app keeps in the user's state folder (the secret of a PostgreSQL database without
# VIBESEARCH_SECRET_KEY) goes to a folder of this test session, never the developer's home
import tempfile  # noqa: E402

os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="vibesearch-state-")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from vibesearch.config import BUNDLED_TASKS, Settings  # noqa: E402
from vibesearch.store import Store  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def pytest_configure(config):
    """Before any test (in the main process, not again in each xdist worker): the project's and the
    tests' modules compiled to bytecode, as an installed copy has them. Hundreds of tests start
    Python processes (the app, the CLI, workers); with ``PYTHONDONTWRITEBYTECODE`` set (this
    machine's image sets it) none of them could keep what it compiled, and each compiled this
    project's modules again: 1.3 s of an app's start measured here. ``compileall`` writes the files
    whatever that setting, and processes read them."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    for folder in ("vibesearch", "tests", "benchmarks"):
        compileall.compile_dir(str(REPO / folder), quiet=1, workers=1)


@pytest.fixture(scope="session")
def pg_cluster():
    """A PostgreSQL cluster of this test session (``tests/pg_cluster.py``). Skipped when the
    PostgreSQL programs are missing, except on CI (``CI`` set), where that is a failure."""
    cluster = _new_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture
def private_pg_cluster():
    """A PostgreSQL cluster of one test alone, for tests that shut it down and start it again."""
    cluster = _new_cluster()
    yield cluster
    cluster.stop()


def _new_cluster():
    from pg_cluster import PgCluster, find_bindir

    bindir = find_bindir()
    if bindir is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL (initdb, pg_ctl) is missing; CI must install Debian's postgresql for the database tests")
        pytest.skip("PostgreSQL (initdb, pg_ctl) is not installed")
    return PgCluster(bindir).start()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path: Path) -> str:
    """A new database on each engine: an SQLite file, or a fresh PostgreSQL database brought to
    the newest schema (what ``vibesearch db upgrade`` does)."""
    if request.param == "sqlite":
        return str(tmp_path / "test.db")
    from vibesearch.store import upgrade_database

    url = request.getfixturevalue("pg_cluster").new_database()
    upgrade_database(url)
    return url


@pytest.fixture
def tmp_db(tmp_path: Path) -> Path:
    return tmp_path / "test.db"


@pytest.fixture
def store(tmp_db: Path) -> Store:
    return Store(tmp_db)


@pytest.fixture
def settings(tmp_db: Path) -> Settings:
    """Settings for tests: a temporary database, fast retries, bundled tasks only."""
    return Settings(db=tmp_db, llm_backoff_s=0.01, llm_backoff_max_s=0.05, tasks="")


@pytest.fixture
def fake():
    """The fake litellm provider; handlers registered in a test are removed after it."""
    from vibesearch.llm import fake as fake_mod

    fake_mod.install()
    names: list[str] = []
    original = fake_mod.register

    def register(name, handler):
        names.append(name)
        return original(name, handler)

    yield type("FakeModels", (), {"register": staticmethod(register), "Reply": fake_mod.Reply, "Request": fake_mod.Request})
    for name in names:
        fake_mod.unregister(name)


@pytest.fixture
def bundled_tasks():
    from vibesearch.tasks import load_tasks

    return load_tasks([BUNDLED_TASKS])


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.exists():
        pytest.skip("../shared is not beside the repository")
    return SHARED


# --------------------------------------------------------------------------- Debian's Chromium
def require_chromium() -> None:
    """Browser tests need Debian's Chromium: skipped without it, except under CI (a failure there)."""
    from chromium import CHROMIUM

    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing; CI must install Debian's chromium for the browser tests")
    pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium); not installed here")


@pytest.fixture(scope="module")
def browser():
    """Chromium driven by Playwright, one per test module."""
    require_chromium()
    from chromium import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()

