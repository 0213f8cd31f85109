"""A logged-in playtester tries to take the server's keys or files, stall "Load", and stop or drive
someone else's run — through the real HTTP/queue API of the running app (issue 10).

One app for the module: a login for alice, bob and carol (carol is an admin), fake secrets in the
server's environment, a configured endpoint and API base (a "trusted" listener), and an
"attacker" listener on 127.0.0.1 that records every credential header it receives. The page's
private handlers (Start, Load, upload, Runs) are called by raw ``queue/join``, as an attacker
would; the API endpoints with ``gradio_client`` and a login.
"""

from __future__ import annotations

import os
import re
import threading

import pytest
from app_harness import start_app, stop_app
from gradio_client import Client
from raw_gradio import RawSession
from sec_kit import (
    runs_score,
    Listener,
    play_load,
    play_start,
    play_upload,
    runs_continue,
    runs_in,
    runs_open,
    wait_for,
)

from vibesearch.config import BUNDLED_TABLE_TASKS, BUNDLED_TASKS

SECRETS = {
    "VIBESEARCH_ENDPOINT_KEY": "sk-server-endpoint-SECRET-0001",
    "OPENAI_API_KEY": "sk-server-openai-SECRET-0002",
    "ANTHROPIC_API_KEY": "sk-ant-server-SECRET-0003",
    "HF_TOKEN": "hf_serverSECRET0004",
    "HUGGINGFACE_API_KEY": "hf_serverSECRET0005",
}
FILE_SECRET = "OPENAI_API_KEY=sk-file-SECRET-0006"
USERS = {"alice": "pw-a", "bob": "pw-b", "carol": "pw-c"}
LOAD_TIMEOUT_S = 15  # a real load of the bundled tasks beside a bomb on a busy 2-core machine (two test processes) needs more than 6 s
OUTSIDE = "is not inside a folder this app may load tasks from"


@pytest.fixture(scope="module")
def attacker():
    listener = Listener()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def trusted():
    listener = Listener()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """A load root of our own (with traps inside) and secret files outside every root."""
    base = tmp_path_factory.mktemp("sec")
    root, outside = base / "root", base / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.env").write_text(FILE_SECRET + "\n")
    # shaped like a gold table, so that a loader that follows the path would load it as one
    (outside / "secret.csv").write_text(f"University,Group,Founded,City,Website\n{FILE_SECRET},Ivy League,1636,Cambridge,https://x.example\n")
    return {"base": base, "root": root, "outside": outside}


@pytest.fixture(scope="module")
def app(tmp_path_factory, attacker, trusted, places):
    env = {
        **SECRETS,
        "VIBESEARCH_AUTH": ",".join(f"{u}:{p}" for u, p in USERS.items()),
        "VIBESEARCH_ADMINS": "carol",
        "VIBESEARCH_ENDPOINT_URL": f"{trusted.url}/configured/v1",
        "VIBESEARCH_API_BASE": f"{trusted.url}/base/v1",
        "VIBESEARCH_ALLOWED_ENDPOINT_URLS": f"{attacker.url}/allowed/v1",
        "VIBESEARCH_LOAD_ROOTS": str(places["root"]),
        "VIBESEARCH_UPLOAD_DIR": str(places["base"] / "uploads"),
        "VIBESEARCH_LOAD_MAX_FILE_MB": "1",
        "VIBESEARCH_LOAD_TIMEOUT_S": str(LOAD_TIMEOUT_S),
        "VIBESEARCH_LOAD_MEMORY_MB": "512",
    }
    server = start_app(tmp_path_factory.mktemp("secapp"), extra_env=env)
    yield server
    stop_app(server)


def session(app, user: str) -> RawSession:
    return RawSession(app.url, user, USERS[user])


def client(app, user: str) -> Client:
    return Client(app.url, auth=(user, USERS[user]), verbose=False)


def no_secret_in(text: str) -> None:
    for value in [*SECRETS.values(), FILE_SECRET, "sk-file-SECRET"]:
        assert value not in text, f"a secret leaked: {value}"


# ---------------------------------------------------------------------- keys
def test_the_configured_key_never_follows_a_typed_url(app, attacker, trusted):
    def start(**fields):  # each start in a new tab (one live run per tab)
        return play_start(session(app, "alice"), agent="endpoint", turns=1, **fields)

    # a URL of alice's choice with an empty key field: refused before anything is sent ...
    for url in (f"{attacker.url}/evil/v1", f"{attacker.url}/evil/v1/chat/completions", f"http://u:p@127.0.0.1:{attacker.port}/v1",
                f"{trusted.url}/configured/v1@127.0.0.1:{attacker.port}"):
        res = start(endpoint_url=url, endpoint_key="")
        assert not res.ok and "not allowed" in res.error, (url, res)
    # an allow-listed URL gets the key typed with it, or none — never the server's
    assert start(endpoint_url=f"{attacker.url}/allowed/v1", endpoint_key="").ok
    wait_for(lambda: attacker.seen("/allowed/"), 60, "the allowed endpoint to be called")
    assert start(endpoint_url=f"{attacker.url}/allowed/v1", endpoint_key="alice-typed-key").ok
    wait_for(lambda: any("alice-typed-key" in c for c in attacker.credentials()), 60, "alice's own key at her endpoint")
    # the configured endpoint still gets the configured key (the legitimate path works)
    assert start(endpoint_url=f"{trusted.url}/configured/v1", endpoint_key="").ok
    wait_for(lambda: any(SECRETS["VIBESEARCH_ENDPOINT_KEY"] in c for c in trusted.credentials()), 60, "the configured key at the configured URL")

    assert not attacker.seen("/evil/")
    assert set(attacker.credentials()) <= {"Bearer no-key", "Bearer alice-typed-key"}, attacker.credentials()
    no_secret_in(repr(attacker.requests))


def test_model_strings_cannot_point_a_provider_key_elsewhere(app, attacker):
    api = client(app, "alice")
    task = "pro-en-analysis-history"
    sneaky = [
        f"huggingface/{attacker.url}/hf",          # a provider that takes a URL as the model name
        f"huggingface/http://127.0.0.1:{attacker.port}",
        "anthropic/claude-3-haiku-20240307",       # another provider's key would go to VIBESEARCH_API_BASE
        "openai/gpt 4o\nx",
    ]
    for model in sneaky:
        res = play_start(session(app, "alice"), agent="react", agent_model=model, turns=1)
        assert not res.ok and "model" in res.error, (model, res)
        with pytest.raises(Exception, match="model"):
            api.predict(task, "react", "rules", model, api_name="/start_run")
        with pytest.raises(Exception, match="model"):
            api.predict(task, "baseline", "simulator", "", model, api_name="/start_run")
        with pytest.raises(Exception, match="model"):
            api.predict(task, "baseline", "rules", "", "", model, api_name="/start_run")
    assert not attacker.seen("/hf")
    assert not [r for r in attacker.requests if "/allowed/" not in r["path"]]


# ---------------------------------------------------------------------- files
def test_no_file_outside_the_roots_is_read_or_echoed(app, places):
    alice = session(app, "alice")
    root, outside = places["root"], places["outside"]
    exists, missing = str(outside / "secret.env"), str(outside / "no-such-file.env")
    msg_exists, _ = play_load(alice, exists)
    msg_missing, _ = play_load(alice, missing)
    assert OUTSIDE in msg_exists
    # "exists" and "does not exist" read the same
    assert msg_exists.replace(exists, "PATH") == msg_missing.replace(missing, "PATH")
    for typed in ("/etc/passwd", "/proc/self/environ", "~/.bashrc", str(root / ".." / "outside" / "secret.env"), "/dev/zero"):
        msg, _ = play_load(alice, typed)
        assert OUTSIDE in msg, (typed, msg)
        no_secret_in(msg)
    # a link inside a root that leads out is resolved before the check
    (root / "link.json").symlink_to(outside / "secret.env")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    for typed in (root / "link.json", root / "linkdir", root / "linkdir" / "secret.env"):
        msg, _ = play_load(alice, str(typed))
        assert OUTSIDE in msg, (typed, msg)
    # a folder inside a root holding a link out is refused as a whole
    trap = root / "trap"
    trap.mkdir()
    (trap / "task.json").symlink_to(outside / "secret.env")
    msg, _ = play_load(alice, str(trap))
    assert "leads outside" in msg and "Loaded" not in msg, msg
    no_secret_in(msg)


def _table_task(gold: str) -> dict:
    import json

    data = json.loads((BUNDLED_TABLE_TASKS / "university-groups.json").read_text())
    data["id"] = "stolen-gold"
    data.pop("rows", None)
    data.pop("corpus", None)
    data["gold"] = gold
    return data


def test_a_task_file_cannot_pull_in_a_file_from_outside(app, places):
    import json

    alice = session(app, "alice")
    secret_csv = places["outside"] / "secret.csv"
    # a task file inside a load root naming a gold table outside it
    folder = places["root"] / "gold-thief"
    folder.mkdir()
    (folder / "stolen.json").write_text(json.dumps(_table_task(str(secret_csv))))
    msg, _ = play_load(alice, str(folder))
    assert "Loaded 0 task(s)" in msg and "gold" in msg, msg
    no_secret_in(msg)
    # the same through an upload, absolute and relative
    for gold in (str(secret_csv), "../../../../../../../../" + str(secret_csv).lstrip("/")):
        msg, _ = play_upload(alice, {"stolen.json": json.dumps(_table_task(gold)).encode()})
        assert "Loaded 0 task(s)" in msg and "gold" in msg, msg
        no_secret_in(msg)
    # a persona task whose corpus is a file outside the roots: the same answer whether it exists or not
    persona = json.loads(next(BUNDLED_TASKS.glob("pro-en-*.json")).read_text())
    answers = []
    for corpus in (str(places["outside"] / "secret.env"), str(places["outside"] / "nothing.jsonl")):
        persona["id"], persona["corpus"] = "stolen-corpus", corpus
        msg, _ = play_upload(alice, {"p.json": json.dumps(persona).encode()})
        assert "Loaded 0 task(s)" in msg, msg
        answers.append(re.sub(r"\S*/p\.json", "FILE", msg.replace(corpus, "PATH")))
        no_secret_in(msg)
    assert answers[0] == answers[1]
    # an honest upload loads, and lands in the upload area
    persona["id"] = "uploaded-ok"
    persona.pop("corpus")
    msg, _ = play_upload(alice, {"ok.json": json.dumps(persona).encode()})
    assert msg.startswith("Loaded 1 task(s)"), msg
    (mine,) = (places["base"] / "uploads").rglob("ok.json")
    assert mine.parent.parent.name.startswith("alice-")  # the login's name and a digest of it
    # each person reaches only their own part of the upload area
    bob = session(app, "bob")
    for typed in (mine.parent, places["base"] / "uploads", mine.parent.parent):
        msg, _ = play_load(bob, str(typed))
        assert OUTSIDE in msg, (typed, msg)
    msg, _ = play_load(alice, str(mine.parent))
    assert msg.startswith("Loaded"), msg


# ---------------------------------------------------------------------- denial of service
BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{c}: &{c} [{','.join(['*' + p] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi")]
) + "\n"


def test_fifo_devices_huge_files_and_bombs_are_refused_quickly(app, places):
    alice, bob = session(app, "alice"), session(app, "bob")
    root = places["root"]
    fifo = root / "pipe.json"
    os.mkfifo(fifo)
    for _ in range(4):  # four FIFO loads once stalled "Load" for everybody
        msg, took = play_load(alice, str(fifo), timeout=30)
        assert "not a regular file" in msg and took < 10, (msg, took)
    (root / "zero.json").symlink_to("/dev/zero")
    msg, took = play_load(alice, str(root / "zero.json"), timeout=30)
    assert OUTSIDE in msg and took < 10, (msg, took)
    (root / "huge.json").write_bytes(b"[" + b"1," * 700_000 + b"1]")
    msg, took = play_load(alice, str(root / "huge.json"), timeout=30)
    assert "too large" in msg and took < 10, (msg, took)
    # a folder holding a FIFO among task files is refused as a whole, without opening it
    mixed = root / "mixed"
    mixed.mkdir()
    os.mkfifo(mixed / "b.yaml")
    msg, took = play_load(alice, str(mixed), timeout=30)
    assert "not a regular file" in msg and took < 10, (msg, took)

    # a YAML bomb: refused within the load time limit, and Load keeps working for others meanwhile
    bombs = root / "bombs"
    bombs.mkdir()
    (bombs / "bomb.yaml").write_text(BOMB)
    got: dict = {}
    worker = threading.Thread(target=lambda: got.update(bomb=play_load(alice, str(bombs), timeout=LOAD_TIMEOUT_S + 40)))
    worker.start()
    msg, took = play_load(bob, str(BUNDLED_TASKS), timeout=60)
    assert msg.startswith("Loaded"), msg
    worker.join(timeout=LOAD_TIMEOUT_S + 45)
    assert not worker.is_alive(), "the bomb load never answered"
    bomb_msg, bomb_took = got["bomb"]
    assert "Loaded 1" not in bomb_msg and not bomb_msg.startswith("ERROR"), bomb_msg
    assert bomb_took < LOAD_TIMEOUT_S + 15, bomb_took
    # and afterwards Load still answers at once
    msg, took = play_load(alice, str(BUNDLED_TASKS), timeout=60)
    assert msg.startswith("Loaded") and took < 30, (msg, took)


# ---------------------------------------------------------------------- other people's runs
def test_bob_cannot_stop_or_drive_alices_run(app):
    api_a, api_b, api_c = client(app, "alice"), client(app, "bob"), client(app, "carol")
    run_id = api_a.predict("pro-en-analysis-history", "baseline", "human", api_name="/start_run")
    wait_for(lambda: api_a.predict(run_id, api_name="/run_status")["waiting_for_person"], 60, "alice's turn")
    owners = {rid: owner for rid, owner, _ in runs_in(app.db)}
    assert owners[run_id] == "user:alice"

    for owner in ("", "user:alice", "alice", "api"):
        with pytest.raises(Exception, match="another browser session or login"):
            api_b.predict(run_id, owner, api_name="/stop_run")
        with pytest.raises(Exception, match="another browser session or login"):
            api_b.predict(run_id, "hijacked by bob", "push", owner, api_name="/submit_turn")
    # nor through the page: bob may open (read) the run, but not take it over into Play
    bob = session(app, "bob")
    assert runs_open(bob, run_id).ok
    res = runs_continue(bob)
    assert not res.ok and "started this run" in res.error, res

    assert api_a.predict(run_id, "", "disclose", api_name="/submit_turn") == "sent"
    assert api_a.predict(run_id, api_name="/run_status")["live"]
    # an admin may stop it
    # ("stopped" when the run was already waiting for alice again and ended at once)
    assert api_c.predict(run_id, api_name="/stop_run") in ("stopping", "stopped")
    status = wait_for(lambda: (s := api_a.predict(run_id, api_name="/run_status")) and not s["live"] and s, 30, "the run to stop")
    assert status["termination"] == "cancelled"
    events = api_a.predict(run_id, 0, api_name="/run_events")
    assert not any("hijacked" in str(e.get("content", "")) for e in events)
    assert any(e["kind"] == "stage" and e.get("decided_by") == "human" for e in events)


def test_only_the_owner_or_an_admin_scores_a_run_and_the_score_names_who_asked(app):
    """Scoring spends the server's judge keys and becomes the run's score: a reader may not."""
    import json as _json

    from vibesearch.store import open_db

    api_a = client(app, "alice")
    run_id = api_a.predict("pro-en-analysis-history", "baseline", "rules", "", "", "", "offline", 1, api_name="/start_run")
    wait_for(lambda: not api_a.predict(run_id, api_name="/run_status")["live"], 90, "alice's run to end")
    store = open_db(app.db, writes=False)
    before = len(store.scores(run_id))
    bob = session(app, "bob")
    assert runs_open(bob, run_id).ok  # bob may read it ...
    res = runs_score(bob)
    assert not res.ok and "Only the run's owner or an admin" in res.error, res  # ... not score it
    assert len(store.scores(run_id)) == before
    alice = session(app, "alice")
    assert runs_open(alice, run_id).ok and runs_score(alice).ok
    newest = store.scores(run_id)[-1]
    assert _json.loads(newest.details_json)["asked_by"] == "alice"


# ---------------------------------------------------------------------- request validation
def test_absurd_run_requests_are_refused_with_a_clear_error(app):
    api = client(app, "alice")
    before = len(runs_in(app.db))
    task = "pro-en-analysis-history"
    bad = [
        ((task, "baseline", "rules", "", "", "", "offline", -5), "max_user_turns"),
        ((task, "baseline", "rules", "", "", "", "offline", 10**9), "max_user_turns"),
        ((task, "evil", "rules"), "unknown agent kind"),
        ((task, "baseline", "root"), "unknown user kind"),
        ((task, "baseline", "rules", "", "", "", "gopher"), "unknown search backend"),
        ((task, "react", "rules", "openai/" + "x" * 5000), "too long"),
        (("x" * 100_000,), "task_id"),
        ((task, "react", "rules"), r"pass agent_model= \(.*\) or have the server set VIBESEARCH_AGENT_MODEL"),  # worded for the API
    ]
    for args, expected in bad:
        with pytest.raises(Exception, match=expected):
            api.predict(*args, api_name="/start_run")
    for turns in (-5, 10**9):
        res = play_start(session(app, "alice"), turns=turns)
        assert not res.ok and ("max_user_turns" in res.error or "imum value" in res.error), (turns, res)
    assert len(runs_in(app.db)) == before
    # gradio logs each refusal (gr.Error) with its stack; nothing else may have been raised
    raised = re.findall(r"^([A-Za-z_][\w.]*(?:Error|Exception)): ", app.log.read_text(errors="replace"), re.M)
    assert raised and set(raised) == {"gradio.exceptions.Error"}, set(raised)
