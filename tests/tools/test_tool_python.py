"""The python tool, including a hostile suite: each attack must end in an error text or harmless
output, and the next call must still work.

The isolation on this machine is detected at runtime (bwrap > unshare > none); assertions that
only hold under a given isolation skip with the reason otherwise (docs/tools.md says what holds
where).
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from vibesearch.tools import make_toolbox
from vibesearch.tools.sandbox import PythonSandbox, detect_isolation

from _tool_search import search_of

FAKE_KEY = "sk-fakesecretkey-do-not-leak-0123456789"
MODE = detect_isolation()
IS_ROOT = os.geteuid() == 0


@pytest.fixture
def tb(corpus_task, tool_settings, monkeypatch):
    monkeypatch.setenv("FAKE_API_KEY", FAKE_KEY)
    return make_toolbox(corpus_task, tool_settings, search=search_of(tool_settings))


async def _still_works(tb):
    out = await tb.call("python", {"code": "print(sum(range(10)))"})
    assert not out.error, out.content
    assert out.content.startswith("stdout:\n45")


def _procs_with(token: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if token.encode() in fh.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


async def _run_watching(tb, code: str, token: str) -> tuple[object, int]:
    """Run code while counting (at most) how many processes carry ``token`` in their argv."""
    task = asyncio.create_task(tb.call("python", {"code": code}))
    seen = 0
    while not task.done():
        seen = max(seen, len(_procs_with(token)))
        await asyncio.sleep(0.2)
    return await task, seen


# ---------------------------------------------------------------- ordinary use


async def test_runs_code_and_reports_both_streams(tb):
    out = await tb.call("python", {"code": "import sys\nprint('hello', 6*7)\nprint('warn', file=sys.stderr)"})
    assert not out.error
    assert out.content == "stdout:\nhello 42\nstderr:\nwarn"


async def test_exception_is_an_error_text_with_the_traceback(tb):
    out = await tb.call("python", {"code": "x = 1\nraise ValueError('bad value')"})
    assert out.error
    assert 'File "main.py", line 2' in out.content and "ValueError: bad value" in out.content
    assert "_sandbox_runner" not in out.content and "[exit status 1]" in out.content
    await _still_works(tb)


async def test_scratch_directory_is_fresh_each_time(tb):
    first = await tb.call("python", {"code": "open('note.txt','w').write('hi'); import os; print(sorted(os.listdir('.')))"})
    assert "note.txt" in first.content
    second = await tb.call("python", {"code": "import os; print(os.path.exists('note.txt'))"})
    assert "False" in second.content


async def test_unicode_output(tb):
    out = await tb.call("python", {"code": "print('张衡 — ok')"})
    assert "张衡 — ok" in out.content


@pytest.mark.parametrize("mode", ["bwrap", "unshare", "none"])
async def test_every_available_isolation_runs_code(tool_settings, mode):
    sandbox = PythonSandbox(tool_settings, isolation=mode)
    from vibesearch.tools import isolation_works

    if not isolation_works(mode):
        pytest.skip(f"{mode} does not work on this machine")
    out = await sandbox.run("import os; print('env', sorted(k for k in os.environ if 'KEY' in k))")
    assert out.content.startswith("stdout:\nenv []")


# ---------------------------------------------------------------- hostile suite


async def test_env_var_key_is_not_visible(tb):
    assert os.environ["FAKE_API_KEY"] == FAKE_KEY
    # a process whose real (exec-time) environment holds the key, readable in /proc/<pid>/environ
    # by anything that shares our /proc and uid
    holder = subprocess.Popen(["sleep", "30"], env={"FAKE_API_KEY": FAKE_KEY})
    code = (
        "import os\n"
        "print('FAKE_API_KEY' in os.environ, os.environ.get('FAKE_API_KEY'))\n"
        "print(len(os.environ))\n"
        "for pid in os.listdir('/proc'):\n"
        "    try:\n"
        "        data = open(f'/proc/{pid}/environ', 'rb').read()\n"
        "    except Exception:\n"
        "        continue\n"
        "    if b'do-not-leak' in data: print('LEAK via', pid)\n"
    )
    try:
        out = await tb.call("python", {"code": code})
    finally:
        holder.kill()
        holder.wait()
    assert "False None" in out.content  # nothing inherited
    assert FAKE_KEY not in out.content
    if MODE == "none" and IS_ROOT:
        pytest.skip("without a PID namespace a root sandbox can read other processes' /proc/<pid>/environ; documented")
    assert "LEAK" not in out.content
    await _still_works(tb)


async def test_file_holding_a_key_cannot_be_read(tb, tmp_path):
    secret = tmp_path / "secrets.env"
    secret.write_text(f"FAKE_API_KEY={FAKE_KEY}\n")
    out = await tb.call("python", {"code": f"print(open({str(secret)!r}).read())"})
    if MODE != "bwrap":
        pytest.skip(f"isolation {MODE!r} shows the host filesystem; documented in docs/tools.md")
    assert out.error and "FileNotFoundError" in out.content
    assert FAKE_KEY not in out.content
    await _still_works(tb)


async def test_database_file_cannot_be_read(tb, tool_settings):
    from vibesearch.store import Store

    Store(tool_settings.db)  # creates the SQLite file
    assert Path(tool_settings.db).exists()
    code = f"import os\np = {str(tool_settings.db)!r}\nprint('exists', os.path.exists(p))\nprint(open(p, 'rb').read(16))"
    out = await tb.call("python", {"code": code})
    if MODE != "bwrap":
        pytest.skip(f"isolation {MODE!r} shows the host filesystem (the DB is readable); documented in docs/tools.md")
    assert "exists False" in out.content and "SQLite format" not in out.content
    assert out.error
    await _still_works(tb)


async def test_no_network_to_the_host(tb):
    if MODE == "none":
        pytest.skip("no network namespace without bwrap/unshare on this machine")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                accepted.append(conn)
                return
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=1); print('CONNECTED')\n"
        "except OSError as exc:\n"
        "    print('blocked', type(exc).__name__)\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 80), timeout=1); print('CONNECTED OUT')\n"
        "except OSError as exc:\n"
        "    print('blocked out', type(exc).__name__)\n"
    )
    out = await tb.call("python", {"code": code})
    stop.set()
    thread.join(timeout=2)
    server.close()
    assert "CONNECTED" not in out.content and "blocked" in out.content and "blocked out" in out.content
    assert accepted == []
    await _still_works(tb)


async def test_fork_bomb_is_contained(tb):
    if MODE != "bwrap" and IS_ROOT:
        pytest.skip("as root without bwrap the process-count limit does not apply (Linux exempts root)")
    token = uuid.uuid4().hex
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    # re-exec with a marker in argv so that every forked copy can be found in /proc afterwards
    code = f"import os, sys\nos.execv(sys.executable, [sys.executable, '-c', {bomb!r}, {token!r}])"
    out, seen = await _run_watching(tb, code, token)
    assert out.error and ("wall-clock" in out.content or "CPU-time" in out.content)
    assert seen > 1  # the bomb did fork ...
    if MODE == "bwrap":
        assert seen <= tb.sandbox.max_procs  # ... within the process-count limit ...
    await asyncio.sleep(0.3)
    assert _procs_with(token) == []  # ... and nothing survives the run
    await _still_works(tb)


async def test_a_detached_child_does_not_survive(tb):
    if MODE == "none":
        pytest.skip("without a PID namespace a child that calls setsid() leaves the killed group; documented")
    token = uuid.uuid4().hex
    code = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', '{token}'])\n"
        "time.sleep(60)\n"
    )
    out, seen = await _run_watching(tb, code, token)
    assert out.error and "wall-clock" in out.content
    assert seen == 1
    await asyncio.sleep(0.3)
    assert _procs_with(token) == []


async def test_cancelling_a_call_kills_the_process(tb):
    token = uuid.uuid4().hex
    code = f"import os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', {token!r}])"
    task = asyncio.create_task(tb.call("python", {"code": code}))
    for _ in range(25):  # wait until it is running
        await asyncio.sleep(0.1)
        if _procs_with(token):
            break
    assert _procs_with(token), "the sandboxed process should be visible while it runs"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.3)
    assert _procs_with(token) == []
    await _still_works(tb)


async def test_huge_allocation_fails(tb):
    out = await tb.call("python", {"code": "x = bytearray(8 * 1024**3)\nprint('allocated')"})
    assert out.error and "MemoryError" in out.content and "allocated" not in out.content
    await _still_works(tb)


async def test_infinite_loop_is_stopped(tb, tool_settings):
    out = await tb.call("python", {"code": "while True:\n    pass"})
    assert out.error
    assert "CPU-time limit of 2 s" in out.content or "wall-clock limit of 3 s" in out.content
    sleeper = await tb.call("python", {"code": "import time\ntime.sleep(30)"})
    assert sleeper.error and "wall-clock limit of 3 s" in sleeper.content
    await _still_works(tb)


async def test_writing_outside_the_scratch_dir_leaves_the_host_untouched(tb):
    target = Path(f"/tmp/pwned_{uuid.uuid4().hex[:8]}")
    code = f"p = {str(target)!r}\ntry:\n    open(p, 'w').write('x'); print('wrote inside')\nexcept OSError as exc:\n    print('refused', exc)"
    out = await tb.call("python", {"code": code})
    created = target.exists()
    if created:
        target.unlink()
    if MODE != "bwrap":
        pytest.skip(f"isolation {MODE!r} shares the host /tmp (created={created}); documented in docs/tools.md")
    assert not created, out.content  # the sandbox's /tmp is private
    home = Path.home() / f"pwned_{uuid.uuid4().hex[:8]}"
    out = await tb.call("python", {"code": f"open({str(home)!r}, 'w').write('x')"})
    assert out.error and not home.exists()
    await _still_works(tb)


async def test_printing_a_gigabyte_is_cut(tb, tool_settings):
    code = "import sys\nchunk = 'x' * (1024 * 1024)\nfor _ in range(1024):\n    sys.stdout.write(chunk)\n"
    out = await tb.call("python", {"code": code})
    assert out.error and f"output went over {tool_settings.python_output_chars} characters" in out.content
    assert len(out.content) < tool_settings.tool_result_max_chars + 200
    await _still_works(tb)


async def test_big_file_is_refused(tb):
    out = await tb.call("python", {"code": "open('big.bin', 'wb').write(b'x' * (32 * 1024 * 1024))"})
    assert out.error and "File too large" in out.content
    await _still_works(tb)


def test_isolation_is_reported():
    assert MODE in ("bwrap", "unshare", "none")


# ---------------------------------------------------------------- one process limit per sandbox


def _sandbox_for(tool_settings, timeout_s: float) -> PythonSandbox:
    return PythonSandbox(tool_settings.model_copy(update={"python_timeout_s": timeout_s, "python_cpu_s": 30}))


async def test_a_fork_bomb_does_not_starve_a_concurrent_sandbox(tool_settings):
    """While one sandbox holds every process its limit allows, another starts subprocesses."""
    if not IS_ROOT:
        pytest.skip("per-sandbox process limits need root (a uid per sandbox); documented in docs/tools.md")
    if MODE == "none":
        pytest.skip("as root without bwrap/unshare the interpreter is not reachable by another uid here")
    token = uuid.uuid4().hex
    full = f"{token}-full"
    # fork until the limit refuses, children sleep (no CPU burnt); then the parent re-executes
    # itself with a marker in argv, which tells the test the limit is used up
    bomb = (
        "import os, sys, time\n"
        "while True:\n"
        "    try:\n"
        "        pid = os.fork()\n"
        "    except OSError:\n"
        "        break\n"
        "    if pid == 0:\n"
        "        time.sleep(120)\n"
        "        os._exit(0)\n"
        "os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(120)', sys.argv[1] + '-full'])\n"
    )
    assert full not in bomb  # the marker appears only once the limit is reached
    code = f"import os, sys\nos.execv(sys.executable, [sys.executable, '-c', {bomb!r}, {token!r}])"
    bomber = _sandbox_for(tool_settings, 120)
    bomb_task = asyncio.create_task(bomber.run(code))
    try:
        deadline = asyncio.get_running_loop().time() + 90
        while not _procs_with(full):
            assert not bomb_task.done(), (await bomb_task).content
            assert asyncio.get_running_loop().time() < deadline, "the bomb never filled its process limit"
            await asyncio.sleep(0.1)
        assert len(_procs_with(token)) >= bomber.max_procs - 1  # the limit is really used up
        other = _sandbox_for(tool_settings, 60)
        probe = (
            "import os, subprocess\n"
            "for _ in range(5):\n"
            "    subprocess.run(['true'], check=True)\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    os._exit(7)\n"
            "print('forked fine', os.waitpid(pid, 0)[1] >> 8)\n"
        )
        out = await other.run(probe)
        assert not out.error, out.content
        assert "forked fine 7" in out.content
    finally:
        bomb_task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await bomb_task
    deadline = asyncio.get_running_loop().time() + 30
    while _procs_with(token) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.1)
    assert _procs_with(token) == []
