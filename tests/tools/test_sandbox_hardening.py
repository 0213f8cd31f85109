"""Hardening of the bwrap sandbox, attacked through the real ``python`` tool: no new user
namespace or mount, every writable tmpfs bounded by the run's limits, no kernel keyring, no
tracing or BPF, and ordinary code (threads, subprocesses, files, ctypes callbacks) still runs.

These need bubblewrap. Without it they are skipped, except on CI (``CI`` set), where a missing
or broken bubblewrap is a failure. The syscall numbers below are the kernel's for x86_64 and
aarch64; on any other machine the filter is not installed (docs/tools.md), so those checks skip.
"""

from __future__ import annotations

import os
import platform
import shutil
import uuid

import pytest

from vibesearch.tools import isolation_works, make_toolbox

from _tool_search import search_of

MACHINE = platform.machine()
FILTERED = MACHINE in ("x86_64", "aarch64")
# the syscalls the test programs make through ctypes, by machine
NR = {
    "x86_64": {"clone": 56, "clone3": 435, "add_key": 248, "keyctl": 250, "bpf": 321, "userfaultfd": 323,
               "io_uring_setup": 425, "perf_event_open": 298},
    "aarch64": {"clone": 220, "clone3": 435, "add_key": 217, "keyctl": 219, "bpf": 280, "userfaultfd": 282,
                "io_uring_setup": 425, "perf_event_open": 241},
}.get(MACHINE, {})

# shared by the programs below: a libc handle and a helper naming the errno of the last call
PRELUDE = (
    "import ctypes, errno, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.syscall.restype = ctypes.c_long\n"
    f"NR = {NR!r}\n"
    "def err():\n"
    "    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))\n"
)


def _need_bwrap() -> None:
    reason = None
    if shutil.which("bwrap") is None:
        reason = "bubblewrap (bwrap) is not installed"
    elif not isolation_works("bwrap"):
        reason = "bubblewrap is installed but cannot run a sandbox here"
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must install Debian's bubblewrap for the sandbox tests")
    pytest.skip(reason)


def _need_filter() -> None:
    if not FILTERED:
        pytest.skip(f"no system-call filter on {MACHINE} (only x86_64 and aarch64 have one); documented")


@pytest.fixture
def toolbox(corpus_task, tool_settings):
    """A toolbox whose sandbox runs under bubblewrap, built with the given settings changes."""
    _need_bwrap()

    def make(**changes):
        settings = tool_settings.model_copy(update=changes)
        tb = make_toolbox(corpus_task, settings, search=search_of(settings))
        assert tb.sandbox.isolation == "bwrap"
        return tb

    return make


def _lines(content: str) -> dict[str, str]:
    """``key value`` lines printed by a program -> {key: value}."""
    found = {}
    for line in content.splitlines():
        key, _, value = line.partition(" ")
        if key not in ("stdout:", "stderr:"):
            found[key] = value
    return found


async def _run(tb, code: str) -> dict[str, str]:
    out = await tb.call("python", {"code": PRELUDE + code})
    assert not out.error, out.content
    return _lines(out.content)


# ---------------------------------------------------------------- namespaces and mounts


async def test_no_user_namespace_and_no_mount(toolbox):
    _need_filter()
    tb = toolbox()
    code = (
        "import signal, subprocess\n"
        "CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000\n"
        # what the probe did: a user namespace from the command line, then a tmpfs of its own
        "r = subprocess.run(['unshare', '-rm', 'sh', '-c', 'mount -t tmpfs -o size=300m none /tmp && echo MOUNTED'],\n"
        "                   capture_output=True, text=True)\n"
        "print('cli', r.returncode, 'MOUNTED' in r.stdout)\n"
        # a raw clone with the flag (the child of a successful one leaves at once)
        "pid = libc.syscall(NR['clone'], CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0)\n"
        "if pid == 0:\n"
        "    os._exit(0)\n"
        "e = err()\n"
        "if pid > 0:\n"
        "    os.waitpid(pid, 0)\n"
        "print('clone_newuser', pid > 0, e)\n"
        "print('mount', libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), err())\n"
        # last: a call that succeeds leaves this process in a namespace of its own
        "print('unshare_user_mount', libc.unshare(CLONE_NEWUSER | CLONE_NEWNS), err())\n"
        "print('unshare_user', libc.unshare(CLONE_NEWUSER), err())\n"
    )
    got = await _run(tb, code)
    assert got["cli"] != "0 True" and got["cli"].endswith("False"), got
    assert got["clone_newuser"] == "False EPERM", got
    assert got["mount"] == "-1 EPERM", got
    assert got["unshare_user_mount"] == "-1 EPERM", got
    assert got["unshare_user"] == "-1 EPERM", got


# ---------------------------------------------------------------- memory held outside RLIMIT_AS


FILL = (
    "def fill(folder, limit_mb=96):\n"
    "    total = 0\n"
    "    for i in range(limit_mb // 8):\n"
    "        try:\n"
    "            fd = os.open(f'{folder}/fill{i}.bin', os.O_WRONLY | os.O_CREAT, 0o600)\n"
    "        except OSError as exc:\n"
    "            return total, errno.errorcode[exc.errno]\n"
    "        try:\n"
    "            for _ in range(8):  # 8 MB per file: under the 16 MB file-size limit\n"
    "                total += os.write(fd, b'x' * (1 << 20))\n"
    "        except OSError as exc:\n"
    "            return total, errno.errorcode[exc.errno]\n"
    "        finally:\n"
    "            os.close(fd)\n"
    "    return total, None\n"
)


async def test_every_writable_tmpfs_is_bounded_by_the_memory_limit(toolbox):
    # 128 MB of memory: each tmpfs holds a quarter of it (32 MB), where it used to be 64 MB
    tb = toolbox(python_memory_mb=128)
    code = FILL + (
        "for name, folder in (('tmp', '/tmp'), ('workdir', '.'), ('shm', '/dev/shm')):\n"
        "    total, error = fill(folder)\n"
        "    print(name, total >> 20, error)\n"
    )
    got = await _run(tb, code)
    for name in ("tmp", "workdir", "shm"):
        size_mb, error = got[name].split()
        assert error == "ENOSPC", (name, got)
        assert 16 <= int(size_mb) <= 32, (name, got)


async def test_memory_files_and_sysv_segments_are_refused(toolbox):
    _need_filter()
    tb = toolbox()
    code = (
        "try:\n"
        "    os.memfd_create('hold'); print('memfd made')\n"
        "except OSError as exc:\n"
        "    print('memfd', errno.errorcode[exc.errno])\n"
        "IPC_PRIVATE, IPC_CREAT = 0, 0o1000\n"
        "print('shmget', libc.shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0o600), err())\n"
        "print('msgget', libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600), err())\n"
    )
    got = await _run(tb, code)
    assert got == {"memfd": "EPERM", "shmget": "-1 EPERM", "msgget": "-1 EPERM"}, got


# ---------------------------------------------------------------- kernel keyrings


ADD_KEY = (
    "KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5\n"
    "KEYCTL_GET_PERSISTENT, KEYCTL_SEARCH, KEYCTL_READ = 22, 10, 11\n"
    "def add(desc, data, ring):\n"
    "    r = libc.syscall(NR['add_key'], b'user', desc, data, len(data), ctypes.c_long(ring))\n"
    "    return r, err()\n"
)


async def test_keys_can_neither_be_stored_nor_read_by_a_later_run(toolbox, tmp_path):
    _need_filter()
    # a range of one uid: the second run is given the uid of the first
    tb = toolbox(python_uid_base=1_900_700_000, python_uid_count=1, python_uid_lock_dir=str(tmp_path / "locks"))
    marker = f"vibesearch-{uuid.uuid4().hex[:12]}"
    secret = f"secret-{uuid.uuid4().hex}"
    first = ADD_KEY + (
        f"desc, data = {marker.encode()!r}, {secret.encode()!r}\n"
        "for name, ring in (('user', KEY_SPEC_USER_KEYRING), ('user_session', KEY_SPEC_USER_SESSION_KEYRING),\n"
        "                   ('session', KEY_SPEC_SESSION_KEYRING)):\n"
        "    r, e = add(desc, data, ring)\n"
        "    print(name, 'stored' if r > 0 else e)\n"
        "p = libc.syscall(NR['keyctl'], KEYCTL_GET_PERSISTENT, ctypes.c_long(-1), ctypes.c_long(KEY_SPEC_USER_KEYRING))\n"
        "r, e = add(desc, data, p) if p > 0 else (p, err())\n"
        "print('persistent', 'stored' if r > 0 else e)\n"
        "print('uid', os.getuid())\n"
    )
    got = await _run(tb, first)
    assert {k: got[k] for k in ("user", "user_session", "session", "persistent")} == dict.fromkeys(
        ("user", "user_session", "session", "persistent"), "EPERM"
    ), got
    uid = got["uid"]
    second = ADD_KEY + (
        f"desc = {marker.encode()!r}\n"
        "found = []\n"
        "for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):\n"
        "    key = libc.syscall(NR['keyctl'], KEYCTL_SEARCH, ctypes.c_long(ring), b'user', desc, 0)\n"
        "    if key > 0:\n"
        "        buf = ctypes.create_string_buffer(256)\n"
        "        n = libc.syscall(NR['keyctl'], KEYCTL_READ, ctypes.c_long(key), buf, 256)\n"
        "        found.append(buf.raw[:max(n, 0)].decode(errors='replace'))\n"
        "    else:\n"
        "        found.append(err())\n"
        "print('search', ','.join(found))\n"
        "try:\n"
        "    listed = open('/proc/keys').read()\n"
        "except OSError as exc:\n"
        "    listed = errno.errorcode[exc.errno]\n"
        "print('listed', desc.decode() in listed)\n"
        "print('uid', os.getuid())\n"
    )
    got = await _run(tb, second)
    assert got["uid"] == uid  # the same uid really was reused
    assert secret not in str(got)
    assert got["search"] == "EPERM,EPERM", got
    assert got["listed"] == "False", got


# ---------------------------------------------------------------- tracing and kernel interfaces


async def test_tracing_bpf_and_other_kernel_interfaces_are_refused(toolbox):
    _need_filter()
    tb = toolbox()
    code = (
        "import time\n"
        "status = dict(line.split(':\\t', 1) for line in open('/proc/self/status').read().splitlines() if ':\\t' in line)\n"
        "print('seccomp', status.get('Seccomp', '?').strip())\n"
        "PTRACE_TRACEME, PTRACE_ATTACH = 0, 16\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(5)\n"
        "    os._exit(0)\n"
        "print('ptrace_attach', libc.ptrace(PTRACE_ATTACH, child, 0, 0), err())\n"
        "os.kill(child, 9); os.waitpid(child, 0)\n"
        "print('ptrace_traceme', libc.ptrace(PTRACE_TRACEME, 0, 0, 0), err())\n"
        "attr = ctypes.create_string_buffer(128)\n"
        "print('bpf', libc.syscall(NR['bpf'], 0, attr, 128), err())\n"  # BPF_MAP_CREATE
        "print('userfaultfd', libc.syscall(NR['userfaultfd'], 1), err())\n"  # UFFD_USER_MODE_ONLY
        "params = ctypes.create_string_buffer(120)\n"
        "print('io_uring', libc.syscall(NR['io_uring_setup'], 1, params), err())\n"
        "print('perf', libc.syscall(NR['perf_event_open'], attr, 0, -1, -1, 0), err())\n"
        "print('clone3', libc.syscall(NR['clone3'], None, 0), err())\n"
    )
    got = await _run(tb, code)
    assert got.pop("seccomp") == "2", got  # a filter is in place
    assert got.pop("clone3") == "-1 ENOSYS", got  # so that the C library falls back to clone
    assert got == dict.fromkeys(("ptrace_attach", "ptrace_traceme", "bpf", "userfaultfd", "io_uring", "perf"), "-1 EPERM"), got


# ---------------------------------------------------------------- ordinary code still works


async def test_ordinary_code_still_runs(toolbox):
    tb = toolbox()
    code = (
        "import subprocess, tempfile, threading, multiprocessing\n"
        "results = []\n"
        "threads = [threading.Thread(target=lambda i=i: results.append(sum(range(i * 1000)))) for i in range(8)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "print('threads', len(results))\n"
        "r = subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True)\n"
        "print('subprocess', r.stdout.strip())\n"
        "print('shell', subprocess.run(['sh', '-c', 'echo ok'], capture_output=True, text=True).stdout.strip())\n"
        "open('data.bin', 'wb').write(b'x' * (8 << 20))\n"
        "open('/tmp/data.bin', 'wb').write(b'y' * (8 << 20))\n"
        "print('files', os.path.getsize('data.bin') >> 20, os.path.getsize('/tmp/data.bin') >> 20)\n"
        "with tempfile.TemporaryFile() as fh:\n"
        "    fh.write(b'abc'); fh.seek(0); print('tempfile', fh.read().decode())\n"
        "CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))\n"
        "arr = (ctypes.c_int * 5)(5, 1, 4, 2, 3)\n"
        "libc.qsort(arr, 5, ctypes.sizeof(ctypes.c_int), CMP(lambda a, b: a[0] - b[0]))\n"
        "print('callback', list(arr))\n"
        "lock = multiprocessing.Lock()\n"  # a POSIX semaphore in /dev/shm
        "with lock: print('semaphore', 'ok')\n"
    )
    got = await _run(tb, code)
    assert got == {
        "threads": "8",
        "subprocess": "42",
        "shell": "ok",
        "files": "8 8",
        "tempfile": "abc",
        "callback": "[1, 2, 3, 4, 5]",
        "semaphore": "ok",
    }, got
