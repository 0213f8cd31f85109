"""``site build --with-web`` and ``site verify`` of the published web (docs/site.md "The recorded
web"): a run recorded on this test's own local search API and pages, and a replay of it with an
unseen query and an unseen URL. The site publishes the page texts their events name
(web/<sha256>.txt, listed in results.json), the replay's page says its misses, and verify refuses
an edited page and a page left out — even with SHA256SUMS written anew. Without --with-web no page
text is published."""

from __future__ import annotations

import hashlib
import json
import shutil

from typer.testing import CliRunner

from vibesearch.cli.main import app
from vibesearch.llm import fake as fake_mod
from vibesearch.scoring.scorer import score_run
from vibesearch.site.bundle import write_sums
from vibesearch.store import Store

from _web_agent import QUERY, agent
from test_web_record_replay import UNSEEN_QUERY, _run, _task, web_env  # noqa: F401  (web_env: the servers, a fixture)

runner = CliRunner()


def _verify(out) -> tuple[int, str]:
    got = runner.invoke(app, ["site", "verify", str(out)])
    return got.exit_code, got.output


def test_site_with_web_publishes_the_pages_and_verify_checks_them(web_env, tmp_path):  # noqa: F811
    pages, searx, names = web_env
    names += ["webrec", "webrec-unseen"]
    model = fake_mod.register("webrec", agent(QUERY, lambda: [pages.base + "/gone"]))
    tasks, db = _task(tmp_path / "tasks"), tmp_path / "web.db"
    recorded = _run(db, tasks, model, "--search", "searxng")
    pages.stop()
    searx.stop()
    unseen = fake_mod.register("webrec-unseen", agent(UNSEEN_QUERY, lambda: [pages.base + "/never-fetched"]))
    replayed = _run(db, tasks, unseen, "--web", f"replay:{recorded}")
    store = Store(db)
    for run_id in (recorded, replayed):
        score_run(store, run_id)

    plain = tmp_path / "plain"
    assert runner.invoke(app, ["site", "build", str(plain), "--db", str(db)]).exit_code == 0
    assert not (plain / "web").exists() and "web_files" not in json.loads((plain / "results.json").read_text(encoding="utf-8"))

    out = tmp_path / "site"
    built = runner.invoke(app, ["site", "build", str(out), "--with-web", "--db", str(db)])
    assert built.exit_code == 0, built.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    files = results["web_files"]
    texts = {rel: (out / rel).read_bytes() for rel in files}
    assert sorted(p.relative_to(out).as_posix() for p in (out / "web").iterdir()) == files
    assert all(rel == f"web/{hashlib.sha256(b).hexdigest()}.txt" for rel, b in texts.items())
    joined = b"\n".join(texts.values()).decode("utf-8")
    assert "Aldo Ferri" in joined and "Jürgen Müller" in joined
    assert len(files) == 3  # the bridge (redirected), the café, the almanac: the 404 has no text, the replay names the same
    code, said = _verify(out)
    assert code == 0, said

    page = (out / "runs" / f"{replayed}.html").read_text(encoding="utf-8")
    assert 'id="run-web"' in page and '<b data-count="web_replay_misses">2</b> misses' in page
    assert "1 by the fallback search, 1 not in the recording" in page
    first = (out / "runs" / f"{recorded}.html").read_text(encoding="utf-8")
    assert 'id="run-web"' in first and "exchanges recorded" in first and "misses" not in first

    edited = tmp_path / "edited"
    shutil.copytree(out, edited)
    (edited / files[0]).write_bytes(texts[files[0]] + b" and a sentence added later")
    write_sums(edited)
    code, said = _verify(edited)
    assert code == 1 and f"{files[0]}: its content's sha256 is" in said, said

    dropped = tmp_path / "dropped"
    shutil.copytree(out, dropped)
    (dropped / files[1]).unlink()
    kept = json.loads((dropped / "results.json").read_text(encoding="utf-8"))
    kept["web_files"] = [f for f in files if f != files[1]]
    (dropped / "results.json").write_text(json.dumps(kept, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    write_sums(dropped)
    code, said = _verify(dropped)
    assert code == 1 and f"{files[1]}: a bundled run's events name this page and the site does not publish it" in said, said

    stray = tmp_path / "stray"
    shutil.copytree(out, stray)
    (stray / "web" / ("0" * 64 + ".txt")).write_bytes(b"a page nobody recorded")
    write_sums(stray)
    code, said = _verify(stray)
    assert code == 1 and "not a file the build writes" in said, said
