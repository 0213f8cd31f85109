"""Runs inside the sandbox process, before the model's code (passed to ``python -c``).

It checks that the system-call filter is in place when the sandbox was started with one, drops
root to an unprivileged uid when asked (failing closed if either fails), sets the resource limits
(they cannot be raised again without privileges) and then executes ``main.py`` from the working
directory as ``__main__``. Only the standard library is used; nothing here is imported by
the package itself.
"""

import json
import os
import resource
import sys


def _limit(kind, soft, hard=None):
    hard = soft if hard is None else hard
    _cur_soft, cur_hard = resource.getrlimit(kind)
    if cur_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, cur_hard), min(hard, cur_hard)
    resource.setrlimit(kind, (soft, hard))


def _act_as_init():
    """As PID 1 of a new PID namespace (``unshare --pid``) the kernel would not deliver the
    CPU-limit signal to us, so fork: the child runs the code, we reap and pass its end on."""
    child = os.fork()
    if child == 0:
        return
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(0)
        if pid == child:
            if os.WIFSIGNALED(status):
                os._exit(128 + os.WTERMSIG(status))
            os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _filtered():
    """Does a seccomp filter apply to this process (``Seccomp: 2`` in /proc/self/status)?"""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            return any(line.split() == ["Seccomp:", "2"] for line in fh)
    except OSError:
        return False


def _main():
    cfg = json.loads(sys.argv[1])
    if cfg.get("seccomp") and not _filtered():
        sys.stderr.write("[sandbox] the system-call filter is not in place; refusing to run\n")
        sys.exit(70)
    if os.getpid() == 1:
        _act_as_init()
    uid = cfg.get("drop_uid")
    if uid is not None and os.geteuid() == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        except OSError as exc:
            sys.stderr.write(f"[sandbox] could not switch to an unprivileged user ({exc}); refusing to run\n")
            sys.exit(70)
        if os.geteuid() == 0 or os.getuid() == 0:
            sys.stderr.write("[sandbox] still root after switching users; refusing to run\n")
            sys.exit(70)
    _limit(resource.RLIMIT_CPU, cfg["cpu_s"], cfg["cpu_s"] + 1)
    _limit(resource.RLIMIT_AS, cfg["memory_bytes"])
    _limit(resource.RLIMIT_FSIZE, cfg["file_bytes"])
    _limit(resource.RLIMIT_NPROC, cfg["max_procs"])
    _limit(resource.RLIMIT_NOFILE, cfg["max_files"])
    _limit(resource.RLIMIT_CORE, 0)
    sys.argv = ["main.py"]
    sys.path.insert(0, os.getcwd())
    with open("main.py", encoding="utf-8") as fh:
        source = fh.read()
    namespace = {"__name__": "__main__", "__file__": "main.py", "__builtins__": __builtins__}
    try:
        code = compile(source, "main.py", "exec")
        exec(code, namespace)
    except SystemExit:
        raise
    except BaseException:
        import traceback

        etype, value, tb = sys.exc_info()
        # hide this runner's own frame from the traceback the model sees
        traceback.print_exception(etype, value, tb.tb_next if tb is not None and tb.tb_next is not None else tb)
        sys.exit(1)


_main()
