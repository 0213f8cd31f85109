"""The CLI's edge: what no command turned into a message still ends as one line and exit 1."""

from __future__ import annotations

import typer
from cli_harness import VALID, invoke, run_cli
from typer.testing import CliRunner

from vibesearch.cli.main import EdgeGroup
from vibesearch.config import reset_settings


def _app_raising(exc: Exception) -> typer.Typer:
    app = typer.Typer(cls=EdgeGroup)

    @app.command()
    def boom() -> None:
        raise exc

    @app.command()
    def fine() -> None:
        raise typer.Exit(3)

    return app


def test_an_unexpected_exception_becomes_one_line(monkeypatch):
    monkeypatch.delenv("VIBESEARCH_DEBUG", raising=False)
    app = _app_raising(RuntimeError("disk on fire\nsecond line"))
    result = CliRunner().invoke(app, ["boom"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: unexpected error (RuntimeError: disk on fire second line)")
    assert "VIBESEARCH_DEBUG=1" in lines[0] and "Traceback" not in result.output
    assert CliRunner().invoke(app, ["fine"]).exit_code == 3  # exits pass through untouched


def test_debug_shows_the_exception(monkeypatch):
    monkeypatch.setenv("VIBESEARCH_DEBUG", "1")
    result = CliRunner().invoke(_app_raising(KeyError("k")), ["boom"])
    assert isinstance(result.exception, KeyError)


def test_a_known_error_keeps_its_own_message(monkeypatch):
    from vibesearch._files import InputFileError

    monkeypatch.delenv("VIBESEARCH_DEBUG", raising=False)
    result = CliRunner().invoke(_app_raising(InputFileError("a.json", "nested too deep", "x.y")), ["boom"])
    assert result.exit_code == 1 and result.stderr.strip() == "error: a.json: x.y: nested too deep"


def test_a_bad_setting_is_one_line(monkeypatch):
    monkeypatch.setenv("VIBESEARCH_MAX_INPUT_BYTES", "lots")
    reset_settings()
    try:
        out = invoke("tasks", "validate", VALID / "ours.json")
    finally:
        monkeypatch.delenv("VIBESEARCH_MAX_INPUT_BYTES")
        reset_settings()
    assert out.code == 1 and out.exception is None
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: invalid setting") and "max_input_bytes" in lines[0]


def test_the_real_command_as_a_process(tmp_path):
    out = run_cli("labels", "import", tmp_path, "--db", tmp_path / "x.db", cwd=tmp_path)
    assert out.code == 1 and out.stderr.strip() == f"error: {tmp_path} is a meta-eval folder: give --annotator NAME"
    assert not (tmp_path / "x.db").exists()


def test_usage_errors_stay_typers_own(monkeypatch):
    """A missing argument or an unknown option is typer's usage message and exit 2, not an unexpected error."""
    monkeypatch.delenv("VIBESEARCH_DEBUG", raising=False)
    for args in (("tasks", "show"), ("tasks", "list", "--no-such-option")):
        out = invoke(*args)
        assert out.code == 2, (args, out.stderr)
        assert "Usage:" in out.stderr and "unexpected error" not in out.stderr, (args, out.stderr)
