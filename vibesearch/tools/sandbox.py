"""The ``python`` tool: run the model's code in a separate, limited, isolated process.

Every run gets a fresh process with resource limits (CPU time, address space, process count,
file size, open files), a wall-clock limit, an output cap, an empty scratch directory and an
environment built from scratch (nothing inherited, so no API key can be read from it).

Isolation is chosen at runtime, the strongest that works on the machine (``isolation="auto"``):

* ``bwrap`` — bubblewrap: new network, PID, IPC and UTS namespaces, and a minimal filesystem
  view (read-only /usr and the Python installation, a private /tmp, /dev/shm and working
  directory; the rest of the host filesystem, the database included, does not exist inside).
  Each writable tmpfs is sized from the run's memory limit (tmpfs pages are not counted by
  ``RLIMIT_AS``) and everything else inside is read-only. A seccomp filter (``_seccomp.seccomp_program``,
  x86_64 and aarch64) refuses the system calls that make namespaces or mounts, use the kernel
  keyrings, trace or read other processes, load BPF or modules, or hold memory outside the
  limits; bubblewrap >= 0.8 also gets ``--disable-userns`` when it runs in a user namespace of
  its own (not as root). When started as root, the code runs as an unprivileged uid leased for
  this run alone (``_sandbox_uids``), so that the process-count limit applies, and applies to
  this sandbox only.
* ``unshare`` — util-linux unshare: new network and PID namespaces; the filesystem is the host's.
* ``none`` — limits, clean environment and scratch directory only.

docs/tools.md states exactly what holds in each mode.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..config import Settings
from ._sandbox_uids import UidLease, uid_pool
from ._seccomp import seccomp_program
from .base import ToolOutput

Isolation = Literal["bwrap", "unshare", "none"]
NOBODY_UID = 65534
_RUNNER = (Path(__file__).with_name("_sandbox_runner.py")).read_text(encoding="utf-8")
_INSIDE_DIR = "/sandbox"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/mime.types")


@dataclass
class SandboxResult:
    stdout: str
    stderr: str
    returncode: int | None
    timed_out: bool = False
    output_exceeded: bool = False
    elapsed_s: float = 0.0


def _is_root() -> bool:
    return os.geteuid() == 0


def _python_roots() -> list[str]:
    """The folders the interpreter and its packages live in (bound read-only inside bwrap)."""
    roots: list[str] = []
    for path in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))):
        path = os.path.realpath(path)
        if any(path == d or path.startswith(d + "/") for d in _SYSTEM_DIRS):
            continue
        if not any(path == r or path.startswith(r + "/") for r in roots):
            roots.append(path)
    return roots


def _world_traversable(path: str) -> bool:
    """Can an unprivileged user reach ``path`` (every ancestor executable by others)?"""
    current = Path(path)
    for part in [current, *current.parents]:
        try:
            if not os.stat(part).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


@functools.lru_cache(maxsize=1)
def _bwrap_version() -> tuple[int, ...]:
    """The installed bubblewrap's version, () when it cannot be told."""
    try:
        out = subprocess.run(["bwrap", "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    found = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    return tuple(int(n) for n in found.groups(default="0")) if found else ()


def _tmpfs_bytes(limits: dict) -> int:
    """The size of each writable tmpfs of a bwrap sandbox (/tmp, /dev/shm, the working
    directory): a quarter of the memory limit, at most 64 MB, so the three together hold at most
    three quarters of it. Files there are memory that RLIMIT_AS does not count."""
    return max(1024 * 1024, min(64 * 1024 * 1024, int(limits["memory_bytes"]) // 4))


def _bwrap_prefix(workdir: Path, env: dict[str, str], limits: dict, seccomp_fd: int | None = None) -> list[str]:
    args = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not _is_root():
        # as root bwrap runs without a user namespace (the runner switches to the leased uid), and
        # --disable-userns needs one; there the seccomp filter alone refuses new user namespaces
        args.append("--unshare-user")
        if _bwrap_version() >= (0, 8):
            args.append("--disable-userns")
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    args += ["--perms", "0755", "--dir", "/etc"]
    for f in _ETC_FILES:
        args += ["--ro-bind-try", f, f]
    made: set[str] = set()
    for root in _python_roots():
        # bwrap creates missing parent folders as 0700, which the unprivileged uid could not cross
        for parent in reversed(Path(root).parents):
            p = str(parent)
            if p != "/" and p not in made:
                args += ["--perms", "0755", "--dir", p]
                made.add(p)
        args += ["--ro-bind", root, root]
    size = str(_tmpfs_bytes(limits))
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", size, "--perms", "01777", "--tmpfs", "/dev/shm"]
    args += ["--size", size, "--perms", "01777", "--tmpfs", "/tmp"]
    args += ["--size", size, "--perms", "01777", "--tmpfs", _INSIDE_DIR]
    args += ["--ro-bind", str(workdir / "main.py"), f"{_INSIDE_DIR}/main.py"]
    # bwrap's own tmpfs (the root, /etc and the folders it made) and the one of /dev cannot be
    # sized; make them read-only (not recursive: the sized mounts above stay writable)
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    args += ["--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args += ["--chdir", _INSIDE_DIR]
    if _is_root():
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return args + ["--"]


def _unshare_prefix() -> list[str]:
    args = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if not _is_root():
        args += ["--user", "--map-root-user"]
    return args + ["--"]


def _sandbox_env(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": home,
    }


_PROBED: dict[str, bool] = {}
_WARNED: set[str] = set()
_PROBE_LOCK = threading.Lock()


def isolation_works(mode: Isolation) -> bool:
    """Does ``mode`` run a trivial program on this machine? (checked once per process)"""
    with _PROBE_LOCK:
        if mode in _PROBED:
            return _PROBED[mode]
        ok = False
        if mode == "none" or shutil.which("bwrap" if mode == "bwrap" else "unshare"):
            workdir = Path(tempfile.mkdtemp(prefix="vibesearch-probe-"))
            try:
                launch = _command(mode, workdir, "print('sandbox-ok')", _probe_limits())
                try:
                    done = subprocess.run(
                        launch.cmd, cwd=launch.cwd, env=launch.env, pass_fds=launch.pass_fds,
                        capture_output=True, timeout=20, stdin=subprocess.DEVNULL,
                    )
                finally:
                    launch.close_fds()
                ok = done.returncode == 0 and b"sandbox-ok" in done.stdout
            except (OSError, subprocess.SubprocessError):
                ok = False
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
        _PROBED[mode] = ok
        return ok


def _probe_limits() -> dict:
    return {"cpu_s": 5, "memory_bytes": 512 * 1024 * 1024, "file_bytes": 1024 * 1024, "max_procs": 64, "max_files": 64}


def detect_isolation() -> Isolation:
    """The strongest isolation that works here: bwrap, then unshare, then none."""
    strongest_first: tuple[Isolation, ...] = ("bwrap", "unshare")
    for mode in strongest_first:
        if isolation_works(mode):
            return mode
    if "none" not in _WARNED:
        _WARNED.add("none")
        logging.getLogger(__name__).warning(
            "python sandbox: neither bubblewrap nor unshare works here; code runs with resource limits "
            "and a clean environment only (no network or filesystem isolation). See docs/tools.md."
        )
    return "none"


@dataclass
class _Launch:
    """How to start one run: the command line, its working directory and environment, and the
    file descriptors the child is given (the parent closes them once it has started)."""

    cmd: list[str]
    cwd: str
    env: dict[str, str]
    pass_fds: list[int] = field(default_factory=list)

    def close_fds(self) -> None:
        fds, self.pass_fds = self.pass_fds, []
        for fd in fds:
            os.close(fd)


def _program_fd(data: bytes) -> int:
    """A pipe's read end holding ``data`` (small: it fits the pipe buffer) and then EOF."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return read_end


def _command(mode: Isolation, workdir: Path, code: str, limits: dict, uid: int = NOBODY_UID) -> _Launch:
    """The launch of one run (``uid``: the one to switch to when started as root)."""
    (workdir / "main.py").write_text(code, encoding="utf-8")
    drop = None
    if mode == "bwrap":
        home = _INSIDE_DIR
        drop = uid if _is_root() else None
    else:
        home = str(workdir)
        if _is_root() and all(_world_traversable(r) for r in [sys.base_prefix, os.path.realpath(sys.executable)]):
            drop = uid
            os.chown(workdir, uid, uid)
    env = _sandbox_env(home)
    program = seccomp_program() if mode == "bwrap" else None
    # the runner checks that the filter is in place and refuses to run the code otherwise
    cfg = dict(limits, drop_uid=drop, run=uuid.uuid4().hex, seccomp=program is not None)
    python = [os.path.realpath(sys.executable), "-I", "-u", "-B", "-X", "utf8", "-c", _RUNNER, json.dumps(cfg)]
    if mode == "bwrap":
        os.chmod(workdir / "main.py", 0o644)
        launch = _Launch([], str(workdir), env, [_program_fd(program)] if program is not None else [])
        try:
            launch.cmd = _bwrap_prefix(workdir, env, limits, launch.pass_fds[0] if launch.pass_fds else None) + python
        except BaseException:
            launch.close_fds()
            raise
        return launch
    if mode == "unshare":
        return _Launch(_unshare_prefix() + python, str(workdir), env)
    return _Launch(python, str(workdir), env)


class PythonSandbox:
    """Runs code with the limits from settings (``python_*``) and the chosen isolation."""

    def __init__(
        self,
        settings: Settings,
        *,
        isolation: Isolation | Literal["auto"] = "auto",
        max_procs: int = 64,
        max_file_mb: int = 16,
        max_files: int = 256,
    ):
        self.settings = settings
        self.requested = isolation
        self.max_procs = max_procs
        self.max_file_mb = max_file_mb
        self.max_files = max_files
        self._isolation: Isolation | None = None if isolation == "auto" else isolation

    @property
    def isolation(self) -> Isolation:
        if self._isolation is None:
            self._isolation = detect_isolation()
        return self._isolation

    def limits(self) -> dict:
        return {
            "cpu_s": max(1, int(self.settings.python_cpu_s)),
            "memory_bytes": int(self.settings.python_memory_mb) * 1024 * 1024,
            "file_bytes": int(self.max_file_mb) * 1024 * 1024,
            "max_procs": int(self.max_procs),
            "max_files": int(self.max_files),
        }

    async def execute(self, code: str) -> SandboxResult:
        """Run ``code``; returns what it printed and how it ended (never raises for bad code)."""
        mode = self._isolation
        if mode is None:
            detected: Isolation = await asyncio.to_thread(detect_isolation)  # probes run subprocesses
            mode = self._isolation = detected
        if self.requested != "auto" and not await asyncio.to_thread(isolation_works, mode):
            raise RuntimeError(f"the sandbox isolation {mode!r} does not work on this machine")
        lease = await self._lease_uid()
        if lease is False:
            return SandboxResult(stdout="", stderr="[sandbox] every sandbox user id is in use; try again later\n", returncode=70)
        try:
            return await self._execute(mode, code, lease.uid if isinstance(lease, UidLease) else NOBODY_UID)
        finally:
            if isinstance(lease, UidLease):
                lease.release()

    async def _execute(self, mode: Isolation, code: str, uid: int) -> SandboxResult:
        workdir = Path(tempfile.mkdtemp(prefix="vibesearch-py-"))
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            launch = _command(mode, workdir, code, self.limits(), uid)
            try:
                proc = await asyncio.create_subprocess_exec(
                    *launch.cmd,
                    cwd=launch.cwd,
                    env=launch.env,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    start_new_session=True,
                    pass_fds=launch.pass_fds,
                )
            finally:
                launch.close_fds()  # the child has its copy (or was never started)
            try:
                result = await self._collect(proc)
            except BaseException:  # cancelled (the run or a deadline): leave nothing running
                if proc.returncode is None:
                    _kill_group(proc)
                raise
            result.elapsed_s = round(loop.time() - start, 3)
            return result
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    async def _lease_uid(self) -> UidLease | None | bool:
        """As root: a uid of its own for this run (None: not root, or the range is off — then
        every sandbox shares uid 65534); False when the whole range stayed busy."""
        s = self.settings
        if not _is_root() or s.python_uid_count <= 0:
            return None
        pool = uid_pool(s.python_uid_base, s.python_uid_count, s.python_uid_lock_dir)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(5.0, float(s.python_timeout_s))
        while True:
            lease = pool.acquire()  # a few milliseconds; no await between holding it and the caller's try
            if lease is not None:
                return lease
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.2)

    async def _collect(self, proc: asyncio.subprocess.Process) -> SandboxResult:
        cap_chars = max(100, int(self.settings.python_output_chars))
        cap_bytes = cap_chars * 4
        over = asyncio.Event()

        async def drain(stream: asyncio.StreamReader) -> bytes:
            # keep reading to the end (discarding past the cap): asyncio only reports the exit
            # once both pipes are closed, and a full pipe would keep the writer alive
            buf = bytearray()
            while True:
                chunk = await stream.read(65536)
                if not chunk:
                    return bytes(buf)
                room = cap_bytes - len(buf)
                if room > 0:
                    buf.extend(chunk[:room])
                if len(chunk) > room:
                    over.set()

        assert proc.stdout is not None and proc.stderr is not None  # both were opened as pipes
        readers = [asyncio.create_task(drain(proc.stdout)), asyncio.create_task(drain(proc.stderr))]
        waiter = asyncio.create_task(proc.wait())
        overflow = asyncio.create_task(over.wait())
        done, _ = await asyncio.wait({waiter, overflow}, timeout=float(self.settings.python_timeout_s), return_when=asyncio.FIRST_COMPLETED)
        timed_out = not done
        exceeded = over.is_set()
        if timed_out or exceeded or waiter not in done:
            _kill_group(proc)
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout=5)
        except asyncio.TimeoutError:
            pass
        # the readers end at EOF; a process that escaped the group could hold the pipe open
        finished, pending = await asyncio.wait(readers, timeout=2)
        for task in (*pending, overflow):
            task.cancel()
        outs = [t.result() if t in finished and not t.cancelled() else b"" for t in readers]
        return SandboxResult(
            stdout=_decode(outs[0], cap_chars),
            stderr=_decode(outs[1], cap_chars),
            returncode=proc.returncode,
            timed_out=timed_out,
            output_exceeded=exceeded,
        )

    async def run(self, code: str) -> ToolOutput:
        """The ``python`` tool: ``stdout:`` / ``stderr:`` sections plus how the run ended."""
        res = await self.execute(code)
        parts = [f"stdout:\n{res.stdout.rstrip()}" if res.stdout.strip() else "stdout: (empty)"]
        parts.append(f"stderr:\n{res.stderr.rstrip()}" if res.stderr.strip() else "stderr: (empty)")
        status, failed = self.describe_end(res)
        if status:
            parts.append(status)
        return ToolOutput("\n".join(parts), error=failed)

    def describe_end(self, res: SandboxResult) -> tuple[str, bool]:
        s = self.settings
        if res.timed_out:
            return f"[stopped: the wall-clock limit of {s.python_timeout_s:g} s was reached]", True
        if res.output_exceeded:
            return f"[stopped: the output went over {s.python_output_chars} characters]", True
        code = res.returncode
        if code == 0:
            return "", False
        if code is None:
            return "[the process did not report an exit status]", True
        sig = -code if code < 0 else (code - 128 if 128 < code < 160 and self.isolation != "none" else 0)
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and res.elapsed_s >= s.python_cpu_s):
            return f"[stopped: the CPU-time limit of {s.python_cpu_s} s was reached]", True
        if sig:
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            return f"[killed by signal {name}; the memory limit is {s.python_memory_mb} MB]", True
        if code == 70 and "[sandbox]" in res.stderr:
            return "[the sandbox refused to run the code]", True
        return f"[exit status {code}]", True


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass


def _decode(data: bytes, cap_chars: int) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(text) > cap_chars:
        text = text[:cap_chars] + f"\n[... output cut at {cap_chars} characters ...]"
    return text
