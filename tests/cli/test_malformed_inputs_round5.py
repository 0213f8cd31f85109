"""Malformed inputs a fifth, outside probe round found answered with "unexpected error", a run that
started anyway, or a secret stored: each is refused by the real command with exit 1 and one line
``error: ...`` naming the file (or option, or setting) and the field, and nothing is written (no
database made, no label stored)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

import pytest
from cli_harness import VALID, assert_refused, invoke, make_label_db, run_cli
from cli_harness import Refusal as Case


def _label_file(tmp: Path, **change: object) -> Path:
    row = {"run_id": "fuzzrun00001", "gt_index": 0, "annotator": "ann", "covered": True, "evidence": [0], **change}
    path = tmp / "labels.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


def _yaml_nul(tmp: Path) -> Case:
    path = tmp / "task.yaml"
    path.write_bytes(b"id: a\nsubset: da\x00ily\n")  # a raw NUL byte: YAML's reader refuses it before parsing
    return Case(["run", "--tasks", path, "--db", "{db}"], ["task.yaml", "line 2", "#x0000"])


def _yaml_nul_validate(tmp: Path) -> Case:
    path = tmp / "task.yaml"
    path.write_bytes(b"id: a\x00\n")
    return Case(["tasks", "show", "a", "--tasks", path], ["task.yaml", "line 1", "#x0000"])


def _created_at_naive(tmp: Path) -> Case:
    path = _label_file(tmp, created_at="9999-12-31T23:59:59")
    return Case(["labels", "import", path, "--db", "{db}"], ["labels.jsonl:1", "created_at", "time zone"], label_db=True)


def _created_at_out_of_range(tmp: Path) -> Case:
    path = _label_file(tmp, created_at="9999-12-31T23:59:59-05:00")  # in UTC: the year 10000
    return Case(["labels", "import", path, "--db", "{db}"], ["labels.jsonl:1", "created_at", "out of range"], label_db=True)


RUN = ["run", "--tasks", "daily-en-japan-heritage-trip", "--db", "{db}"]


def _resume_without_database(tmp: Path) -> Case:
    return Case(["run", "--resume", "--db", "{db}"], ["--resume", "no database at"])  # it made an empty file first


def _replay_without_database(tmp: Path) -> Case:
    return Case([*RUN, "--agent", "react", "--model", "fake/x", "--web", "replay"], ["nothing is recorded to replay", "no database at"])


def _search_unknown(tmp: Path) -> Case:
    return Case([*RUN, "--search", "zzz"], ["search.backend", "'offline'"])  # it said "1 validation error for RunConfig"


def _topn_setting(tmp: Path) -> Case:
    return Case(RUN, ["VIBESEARCH_SEARCH_TOPN", "greater than or equal to 1"], env={"VIBESEARCH_SEARCH_TOPN": "-5"})


def _runs_huge(tmp: Path) -> Case:
    # every run was planned up front: it never ended (a usage error: as a process, where main() says it in one line)
    return Case([*RUN, "--runs", "9" * 30], ["--runs", "10000"], env={})


def _endpoint_password(tmp: Path) -> Case:
    return Case([*RUN, "--agent", "endpoint", "--endpoint-url", "http://me:hunter2@127.0.0.1:9/v1"], ["endpoint_url", "password"])


def _endpoint_password_ask(tmp: Path) -> Case:
    return Case(["agent", "ask", "hi", "--task", "daily-en-japan-heritage-trip", "--agent", "endpoint", "--endpoint-url", "http://me:hunter2@127.0.0.1:9/v1"],
                ["endpoint_url", "password"])


def _endpoint_file_url(tmp: Path) -> Case:
    return Case([*RUN, "--agent", "endpoint", "--endpoint-url", "file:///etc/passwd"], ["endpoint_url", "http://"])


def _db_dangling_link(tmp: Path) -> Case:
    os.symlink("gone/x.db", tmp / "x.db")  # SQLite cannot make a file through it: "unable to open database file"
    return Case(["import", VALID / "trajectory.json", "--db", tmp / "x.db"], ["x.db", "gone/x.db", "does not exist"])


def _db_mysql_url(tmp: Path) -> Case:
    # it became an SQLite file "db" in a folder "mysql:/u@h" made in the working folder, and the run went on
    return Case(["run", "--tasks", "daily-en-japan-heritage-trip", "--db", "mysql://u@h/db"], ["mysql://", "not a database"])


def _db_unknown_driver(tmp: Path) -> Case:
    return Case(["report", "--db", "postgresql+nosuchdriver://u:secret@127.0.0.1:1/db"], ["nosuchdriver", "postgresql+psycopg://"])


# (a bad option value is a usage error: these run as processes, where main() says it in one line)
def _model_at_host(tmp: Path) -> Case:
    # the app refused it (issue 40 item 13); the command line sent it to the provider's public address
    return Case([*RUN, "--agent", "react", "--model", "openai/gpt-4o-mini@127.0.0.1"], ["--model", "never names a server"], env={})


def _judge_url(tmp: Path) -> Case:
    return Case(["table", "score", VALID / "table.json", "fuzz-table", VALID / "answer.md", "--judge", "http://10.0.0.1/v1"],
                ["--judge", "not a litellm model string"], env={})


def _reextract_padded(tmp: Path) -> Case:
    return Case(["reextract", "--all", "--model", " fake/x", "--db", "{db}"], ["--model", "' fake/x'"], env={})


def _shadow_at_host(tmp: Path) -> Case:
    return Case(["play", "--task", "daily-en-japan-heritage-trip", "--shadow-model", "openai/x@10.0.0.1", "--db", "{db}"], ["--shadow-model", "'@'"], env={})


def _agent_model_setting(tmp: Path) -> Case:
    return Case(RUN, ["VIBESEARCH_AGENT_MODEL", "never names a server"], env={"VIBESEARCH_AGENT_MODEL": "openai/gpt-4o-mini@127.0.0.1"})


def _port_setting(tmp: Path) -> Case:
    return Case(["serve", "--db", "{db}"], ["VIBESEARCH_PORT", "65535"], env={"VIBESEARCH_PORT": "99999"})  # was OverflowError from bind()


def _public_url_setting(tmp: Path) -> Case:
    # the app started, and every page load answered 500 (20 lines of traceback on the terminal)
    return Case(["serve", "--db", "{db}"], ["VIBESEARCH_PUBLIC_URL", "https://"], env={"VIBESEARCH_PUBLIC_URL": "javascript:alert(1)"})


def _openclaw_version_url(tmp: Path) -> Case:
    # npm was asked for openclaw@https://... (a download from wherever it names); refused before npm runs
    return Case(["openclaw", "install", "--version", "https://example.invalid/x.tgz"], ["--version", "release number"], env={"HOME": str(tmp)})


def _campaign_name_two_lines(tmp: Path) -> Case:
    return Case(["campaign", "create", "a\nb", "--runs", "fuzzrun00001", "--annotator", "a", "--annotator", "b", "--db", "{db}"],
                ["campaign's name", "one line"], label_db=True)


def _score_unknown_run(tmp: Path) -> Case:
    return Case(["score", "nosuchrun", "--db", "{db}"], ["nosuchrun", "no run"], label_db=True)  # the line had no "error: "


def _repeat_huge(tmp: Path) -> Case:
    # taken: with a model judge it would judge each graph without end
    return Case(["score", "--all", "--repeat", "9" * 30, "--db", "{db}"], ["--repeat", "100"], env={}, label_db=True)


def _ask_db_folder(tmp: Path) -> Case:
    (tmp / "d").mkdir()  # the agent's header line came before the refusal: two lines
    return Case(["agent", "ask", "hi", "--task", "daily-en-japan-heritage-trip", "--db", tmp / "d"], ["d", "folder"])


def _judge_model_setting(tmp: Path) -> Case:
    # the judge was called with it, and each run said its failure on a line of its own
    return Case(["score", "--all", "--db", "{db}"], ["VIBESEARCH_JUDGE_MODEL", "never names a server"],
                env={"VIBESEARCH_JUDGE_MODEL": "openai/x@127.0.0.1"}, label_db=True)


CASES: dict[str, Callable[[Path], Case]] = {
    "VIBESEARCH_JUDGE_MODEL with @host": _judge_model_setting,
    "score --repeat 10**30": _repeat_huge,
    "agent ask --db a folder": _ask_db_folder,
    "openclaw install --version a URL": _openclaw_version_url,
    "campaign create a name on two lines": _campaign_name_two_lines,
    "score an unknown run": _score_unknown_run,
    "VIBESEARCH_PORT=99999": _port_setting,
    "VIBESEARCH_PUBLIC_URL=javascript:": _public_url_setting,
    "run --model with @host": _model_at_host,
    "table score --judge a URL": _judge_url,
    "reextract --model padded": _reextract_padded,
    "play --shadow-model with @host": _shadow_at_host,
    "VIBESEARCH_AGENT_MODEL with @host": _agent_model_setting,
    "--db a symbolic link to nothing": _db_dangling_link,
    "--db mysql://": _db_mysql_url,
    "--db postgresql+nosuchdriver://": _db_unknown_driver,
    "run --search unknown": _search_unknown,
    "VIBESEARCH_SEARCH_TOPN=-5": _topn_setting,
    "run --runs 10**30": _runs_huge,
    "run --resume with no database": _resume_without_database,
    "run --web replay with no database": _replay_without_database,
    "run --endpoint-url with a password": _endpoint_password,
    "agent ask --endpoint-url with a password": _endpoint_password_ask,
    "run --endpoint-url file://": _endpoint_file_url,
    "YAML task with a raw NUL (run)": _yaml_nul,
    "YAML task with a raw NUL (tasks show)": _yaml_nul_validate,
    "label created_at without a time zone": _created_at_naive,
    "label created_at past year 9999 in UTC": _created_at_out_of_range,
}


@pytest.mark.parametrize("name", list(CASES))
def test_refused_in_one_line_naming_file_and_field(tmp_path, name):
    inputs = tmp_path / "in"
    inputs.mkdir()
    out = assert_refused(tmp_path, CASES[name](inputs))
    assert "hunter2" not in out.text and "secret" not in out.text  # a password typed into a URL is never repeated
    assert not list(tmp_path.glob("mysql*")) and not list(Path.cwd().glob("mysql:*"))  # no file made of a foreign URL


def test_a_label_with_a_zoned_created_at_is_stored_in_utc(tmp_path):
    """The control: a stamp with its zone is taken, and exported as the same moment in UTC."""
    db = make_label_db(tmp_path / "labels.db")
    out = invoke("labels", "import", _label_file(tmp_path, created_at="2026-01-01T10:00:00+05:00"), "--db", db)
    assert out.code == 0, out.text
    assert invoke("labels", "export", "--format", "jsonl", "--out", tmp_path / "out.jsonl", "--db", db).code == 0
    row = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert row["created_at"] == "2026-01-01T05:00:00+00:00"


def test_valid_controls():
    assert invoke("tasks", "validate", VALID / "ours_bom.yaml").code == 0


@pytest.mark.timeout(180)
def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path):
    """Another process listens on the port: one line naming the address and the settings that
    choose it (it was "unexpected error (OSError: Cannot find empty port ...)")."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("VIBESEARCH_")}
        out = run_cli("serve", "--port", port, "--db", tmp_path / "app.db", env=env, cwd=tmp_path, timeout=150)
    assert out.code == 1, (out.code, out.text)
    assert "Traceback" not in out.text and "unexpected error" not in out.text, out.text
    assert out.stderr.strip().splitlines() == [f"error: cannot listen on 127.0.0.1:{port} (--host/--port, VIBESEARCH_HOST/VIBESEARCH_PORT): "
                                               f"Cannot find empty port in range: {port}-{port}"], out.stderr


def test_a_long_table_answer_lists_its_first_rows_and_says_how_many_more(tmp_path):
    """A 100,000-row answer was scored in seconds and then laid out row by row for minutes (the
    probe's 150 s limit ran out): the terminal shows the first rows and the count of the rest."""
    from vibesearch.cli.table import MAX_ROWS_SHOWN

    answer = tmp_path / "answer.md"
    answer.write_text("| Moon | Discoverer |\n|---|---|\n" + "".join(f"| m{i} | g |\n" for i in range(MAX_ROWS_SHOWN + 50)), encoding="utf-8")
    out = invoke("table", "score", VALID / "table.json", "fuzz-table", answer)
    assert out.code == 0, out.text
    assert f"… and {MAX_ROWS_SHOWN + 52 - MAX_ROWS_SHOWN} more rows (--json lists them all)" in out.stdout  # (+2: the gold rows missing)
    assert f"m{MAX_ROWS_SHOWN - 1} " in out.stdout and f"m{MAX_ROWS_SHOWN + 49} " not in out.stdout
