"""``vibesearch site verify`` reads regular files of the bundle only, and no file past a size cap
(issue 40 item 11): a symbolic link in a built bundle (even one to an exact copy of the file it
replaces) is refused naming it, a path in ``results.json`` that leads out of the bundle is refused,
and a gzip bomb (200 MB of zeros in ~200 KB) is refused at the cap with bounded memory — measured
as the peak RSS of a verifying subprocess."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vibesearch.site.verify import MAX_FILE_BYTES

REPO = Path(__file__).resolve().parents[2]
BOMB_BYTES = 200 << 20
PEAK = ("import resource, sys\nfrom vibesearch.site.verify import verify_site\ncheck = verify_site(sys.argv[1])\n"
        "print(check.ok, ' | '.join(check.problems))\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")


@pytest.fixture
def copy(built_site, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(built_site, out)
    return out


def _events_file(out: Path) -> str:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))["runs"][0]["events_file"]


def _fails(cli, out, *needles):
    res = cli("site", "verify", out)
    assert res.exit_code == 1, res.output
    text = res.output.strip()
    assert len(text.splitlines()) == 1 and text.startswith("error: ") and "Traceback" not in text, text
    for needle in needles:
        assert needle in text, text
    return text


def test_a_symlink_out_of_the_bundle_is_refused_naming_it(cli, copy, tmp_path):
    rel = _events_file(copy)
    outside = tmp_path / "outside.json.gz"
    shutil.copy(copy / rel, outside)  # the same bytes: followed, it would verify
    (copy / rel).unlink()
    (copy / rel).symlink_to(outside)
    _fails(cli, copy, rel, "symbolic link")


def test_a_symlinked_folder_is_refused_before_anything_is_read(cli, copy, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (copy / "extra").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    _fails(cli, copy, "extra", "symbolic link")


def test_a_path_that_leads_out_of_the_bundle_is_refused(cli, copy, tmp_path):
    results = json.loads((copy / "results.json").read_text(encoding="utf-8"))
    task = results["tasks"][0]
    shutil.copy(copy / task["file"], tmp_path / "task.json")
    task["file"] = "../task.json"  # the copy's parent is tmp_path: the file is there
    (copy / "results.json").write_text(json.dumps(results), encoding="utf-8")
    _fails(cli, copy, "../task.json", "not a path inside the bundle")


def _bomb(path: Path) -> None:
    zeros = bytes(1 << 20)
    with gzip.GzipFile(path, "wb", compresslevel=1, mtime=0) as handle:
        for _ in range(BOMB_BYTES >> 20):
            handle.write(zeros)


def _peak_kib(out: Path) -> tuple[str, int]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PEAK, str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    line, peak = done.stdout.strip().splitlines()
    return line, int(peak)  # ru_maxrss is in KiB on Linux


def test_a_gzip_bomb_is_refused_at_the_cap_with_bounded_memory(cli, copy, built_site):
    rel = _events_file(copy)
    _bomb(copy / rel)
    assert (copy / rel).stat().st_size < 1 << 20 < MAX_FILE_BYTES < BOMB_BYTES
    _fails(cli, copy, rel, f"decompresses to more than {MAX_FILE_BYTES >> 20} MiB")
    line, bomb_peak = _peak_kib(copy)
    assert line.startswith("False ") and rel in line, line
    good_line, good_peak = _peak_kib(built_site)
    assert good_line.startswith("True "), good_line
    # reading stops at the cap: at most the cap (and a block) above a good site's whole verify;
    # all 200 MB decompressed (then decoded) would be several times that
    assert bomb_peak < good_peak + (MAX_FILE_BYTES >> 10) + (32 << 10), (bomb_peak, good_peak)
