"""The rules behind the app's security checks, one by one, without a server: where the endpoint
key may go, what a run request may hold, owner tokens, and the load guard."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from pydantic import SecretStr

from vibesearch.agents import make_agent
from vibesearch.app import Access
from vibesearch.app import (
    LoadRefused,
    load_typed,
    resolve_typed,
    store_uploads,
    survey,
)
from vibesearch.app import RunRequest, check_model, check_request, check_turns, form_request
from vibesearch.config import BUNDLED_TASKS
from vibesearch.run import RunConfig
from vibesearch.protocol import build_config

KEY = "sk-configured-endpoint-key-0001"


@pytest.fixture
def configured(settings):
    return settings.model_copy(update={"endpoint_url": "http://127.0.0.1:9/v1", "endpoint_key": SecretStr(KEY)})


def _endpoint(settings, url=None) -> RunConfig:
    return build_config(settings, agent="endpoint", endpoint_url=url)


def test_the_configured_endpoint_key_goes_only_to_the_configured_url(configured, bundled_tasks):
    task = bundled_tasks[0]
    assert make_agent(_endpoint(configured), task, configured)._key == KEY
    assert make_agent(_endpoint(configured, "http://127.0.0.1:9/v1/chat/completions/"), task, configured)._key == KEY
    for other in ("http://127.0.0.1:10/v1", "http://evil.example/v1"):
        assert make_agent(_endpoint(configured, other), task, configured)._key is None
        assert make_agent(_endpoint(configured, other), task, configured, endpoint_key="typed")._key == "typed"
    with pytest.raises(ValueError, match="user name or password"):  # a URL with a user part is no run's URL at all
        _endpoint(configured, "http://x@127.0.0.1:9/v1")


def test_resuming_a_run_sends_no_key_to_the_url_it_recorded(configured, bundled_tasks, store):
    """The URL stored with a run (its config, or the one the upgrade read off the settings snapshot
    of an older run: migration 0005) never takes the configured key along, whatever the resuming
    process has configured."""
    from vibesearch.run import RunConfig
    from vibesearch.runner import config_of_run
    from vibesearch.store.migrations.versions.r0005_resolved_configs import _derived

    task = bundled_tasks[0]
    for recorded, key in (("http://elsewhere.example/v1", None), ("http://127.0.0.1:9/v1", KEY)):
        new = store.create_run(task.id, run_config=_endpoint(configured, recorded), agent="endpoint", user="rules")
        old = store.create_run(task.id, config={"endpoint_url": recorded}, meta={"agent_config": {"kind": "endpoint"}}, agent="endpoint", user="rules")
        upgraded = RunConfig.model_validate(_derived(store.get_run(old.id))).as_resolved()  # as the upgraded row reads back
        for config in (config_of_run(store.get_run(new.id), configured), upgraded):
            assert config.agent.endpoint_url == recorded
            assert make_agent(config, task, configured)._key == key
            assert configured.endpoint_key_for(recorded) == key


def test_a_typed_endpoint_url_never_gets_the_configured_key(configured, bundled_tasks):
    allowing = configured.model_copy(update={"allowed_endpoint_urls": "http://ok.example/v1"})
    task = bundled_tasks[0]
    typed = form_request(allowing, task_id="t", agent="endpoint", endpoint_url="http://ok.example/v1")
    assert typed.config.agent.endpoint_url == "http://ok.example/v1" and typed.endpoint_key is None
    assert make_agent(typed.config, task, allowing, endpoint_key=typed.endpoint_key)._key is None
    same = form_request(allowing, task_id="t", agent="endpoint", endpoint_url="http://127.0.0.1:9/v1")
    assert make_agent(same.config, task, allowing, endpoint_key=same.endpoint_key)._key == KEY
    assert "endpoint_key" not in same.config.model_dump_json() and KEY not in same.config.model_dump_json()


def test_run_requests_are_checked(settings, configured):
    ok = form_request(settings, task_id="t")
    check_request(ok, settings)
    bad = [
        (dict(max_user_turns=-5), "max_user_turns"),
        (dict(max_user_turns=2.5), "max_user_turns"),
        (dict(max_user_turns=True), "max_user_turns"),
        (dict(agent="shell"), "unknown agent kind"),
        (dict(user="root"), "unknown user kind"),
        (dict(search_backend="gopher"), "unknown search backend"),
        (dict(agent_model="huggingface/https://evil.example/x"), "not a litellm model string"),
        (dict(simulator_model="openai/x y"), "not a litellm model string"),
        (dict(agent_model="openai/gpt-4o-mini@127.0.0.1"), "never names a server"),
        (dict(simulator_model="anthropic/claude-3-haiku@evil.example"), "never names a server"),
        (dict(judge="vertex_ai/gemini-1.5-pro@10.0.0.1:8080"), "never names a server"),
        (dict(judge="a" * 500), "too long"),
        (dict(endpoint_url="http://evil.example/v1"), "not allowed"),
        (dict(endpoint_url="file:///etc/passwd"), "http"),
        (dict(endpoint_key="k\nHost: evil"), "control characters"),
        (dict(pace_s=float("nan")), "pace"),
        (dict(task_id="x" * 10_000), "too long"),
    ]
    for fields, message in bad:
        with pytest.raises(ValueError, match=message):
            form_request(configured, **{"task_id": "t", **fields})
    form_request(configured, task_id="t", agent="endpoint", endpoint_url="http://127.0.0.1:9/v1/")
    assert check_turns("7") == 7 and check_turns(3.0) == 3 and check_turns(0) is None and check_turns(None) is None
    # a request made some other way is checked again when it starts: the config itself
    sneaky = RunRequest(build_config(configured, agent="endpoint", endpoint_url="http://evil.example/v1"))
    with pytest.raises(ValueError, match="not allowed"):
        check_request(sneaky, configured)
    too_long = RunRequest(build_config(configured, max_user_turns=10_000))
    with pytest.raises(ValueError, match="max_user_turns"):
        check_request(too_long, configured)


def test_a_vertex_models_version_may_follow_an_at(settings):
    named = settings.model_copy(update={"allowed_providers": "vertex_ai"})
    assert check_model("vertex_ai/claude-3-5-sonnet@20240620", "m", named) == "vertex_ai/claude-3-5-sonnet@20240620"
    assert check_model("vertex_ai/gemini-1.5-pro@001", "m", named)


def test_with_an_api_base_only_its_routes_can_be_picked(settings):
    based = settings.model_copy(update={"api_base": "http://127.0.0.1:8000/v1", "judge_model": "gemini/gemini-1.5-pro"})
    assert check_model("openai/qwen2.5", "m", based) == "openai/qwen2.5"
    assert check_model("gemini/gemini-1.5-flash", "m", based)  # the provider of a configured model
    with pytest.raises(ValueError, match="VIBESEARCH_API_BASE"):
        check_model("anthropic/claude-3-haiku-20240307", "m", based)



def test_without_an_api_base_no_provider_at_the_servers_own_address_can_be_picked(settings, monkeypatch):
    """A person cannot aim the server at a provider whose default address is the server itself
    (ollama, llamafile ... on 127.0.0.1) unless the operator named it. A provider at its own
    public address may be picked; without its key the run is refused at start, naming the key
    (tests/llm/test_credentials.py)."""
    monkeypatch.setenv("OLLAMA_API_BASE", "http://127.0.0.1:11434")  # even with its address set by someone
    assert check_model("anthropic/claude-3-haiku-20240307", "m", settings)  # its own URL
    for local in ("ollama/llama3", "ollama_chat/qwen2.5", "llamafile/m", "lm_studio/m"):
        with pytest.raises(ValueError, match="address on this server"):
            check_model(local, "m", settings)
    named = settings.model_copy(update={"allowed_providers": "ollama"})
    assert check_model("ollama/llama3", "m", named)  # the operator named it
    with pytest.raises(ValueError, match="address on this server"):
        check_model("llamafile/m", "m", named)
    configured = settings.model_copy(update={"judge_model": "ollama_chat/qwen2.5"})
    assert check_model("ollama_chat/llama3", "m", configured)  # the provider of a configured model
    assert check_model("fake/anything", "m", settings)  # in-process, no network


def test_owner_tokens_are_issued_by_the_server_only(settings):
    access = Access(settings)
    tok = access.issue()
    assert access.valid(tok) and access.fresh(tok) == tok
    for forged in ("", "api", "tok-1", tok[:-1] + ("0" if tok[-1] != "0" else "1"), "c-abc.def", None, 5):
        assert not access.valid(forged)
    # a restart of this database's server knows it (the secret is kept beside the database: issue 39),
    # a server of another database does not
    assert Access(settings).valid(tok) is True
    assert Access(settings.model_copy(update={"db": settings.db.with_name("another.db")})).valid(tok) is False
    assert access.who(None, tok).owner == access.token_owner(tok) != tok
    assert access.who(None, "tok-1").owner is None
    logged = Access(settings.model_copy(update={"auth": SecretStr("ann:pw,bob:pw"), "admins": "bob", "read_runs": "own"}))

    class Req:
        def __init__(self, username):
            self.username = username

    ann, bob = logged.who(Req("ann"), tok), logged.who(Req("bob"), None)
    assert ann.owner == "user:ann" and not ann.admin and bob.admin
    assert logged.may_write(ann, "user:ann") and not logged.may_write(ann, "user:bob") and logged.may_write(bob, "user:ann")
    assert not logged.may_read(ann, "user:bob") and logged.may_read(bob, "user:ann")
    assert logged.who(None, tok).owner is None  # with a login on, a token alone is nobody


def test_the_load_guard(settings, tmp_path: Path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    s = settings.model_copy(update={"load_roots": str(root), "load_max_file_mb": 0.001, "load_max_files": 3})
    for typed in (str(outside), str(tmp_path / "missing.json"), str(root / ".." / "outside.json"), "/dev/zero", "\x00"):
        with pytest.raises(LoadRefused, match="not inside a folder"):
            resolve_typed(typed, s)
    assert resolve_typed(str(BUNDLED_TASKS), s) == BUNDLED_TASKS.resolve()
    os.mkfifo(root / "sub" / "p.yaml")
    t0 = time.monotonic()
    with pytest.raises(LoadRefused, match="not a regular file"):
        survey(root, s)
    assert time.monotonic() - t0 < 5
    (root / "sub" / "p.yaml").unlink()
    (root / "big.json").write_text("[" + "1," * 1000 + "1]")
    with pytest.raises(LoadRefused, match="too large"):
        survey(root, s)
    (root / "big.json").unlink()
    for i in range(5):
        (root / f"t{i}.json").write_text("{}")
    with pytest.raises(LoadRefused, match="more than 3 task files"):
        survey(root, s)
    with pytest.raises(LoadRefused, match="No such file or folder"):
        load_typed(str(root / "nothing-here"), s)


def test_uploads_land_in_the_upload_area_with_plain_names(settings, tmp_path: Path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "my task.json").write_text("{}")
    (src / "evil.sh").write_text("echo")
    s = settings.model_copy(update={"upload_dir": tmp_path / "uploads"})
    folder = store_uploads([str(src / "my task.json")], s, "user:ann")
    assert folder.parent.name.startswith("ann-") and folder.parent.parent == tmp_path / "uploads" and (folder / "my_task.json").is_file()
    with pytest.raises(LoadRefused, match="can be uploaded"):
        store_uploads([str(src / "evil.sh")], s, "user:ann")
    assert folder.resolve().is_relative_to(s.upload_area().resolve()) and s.upload_area().resolve() in s.load_root_paths()
    # one person's uploads are out of another's reach
    assert resolve_typed(str(folder), s, "user:ann") == folder.resolve()
    for other in ("user:bob", None):
        with pytest.raises(LoadRefused, match="not inside a folder"):
            resolve_typed(str(folder), s, other)
    with pytest.raises(LoadRefused, match="not inside a folder"):
        resolve_typed(str(s.upload_area()), s, "user:ann")
