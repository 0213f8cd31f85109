"""A network with nothing outside it, for tests that check an offline run sends nothing out.

``run_isolated(cmd, folder)`` runs ``cmd`` under bubblewrap in a network namespace of its own
that has only loopback (``bwrap --unshare-net``: no route anywhere else), with:

* a resolver that records every query: this file, started as the namespace's first process, serves
  DNS on 127.0.0.1:53 (UDP and TCP), writes each question's name and type to ``dns.log`` and
  answers NXDOMAIN; ``/etc/resolv.conf`` is a generated one naming only it, and
  ``/etc/nsswitch.conf``'s ``hosts`` line is ``files dns`` — so glibc's ``getaddrinfo`` (Python,
  Node's ``dns.lookup``) and c-ares (Node's ``dns.resolve``) both ask it, and nothing such as
  systemd-resolved or mDNS answers past it; ``/etc/hosts`` stays the machine's own;
* every ``connect``/``sendto``/``sendmsg`` of the command and all its children traced with
  ``strace -f`` (when strace is installed): ``connects`` are the addresses outside loopback
  (with no route they fail at once; the trace still shows them).

``why_not()`` says why such a namespace cannot be made here (``None`` when it can).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve()


@dataclass
class Isolated:
    returncode: int
    stdout: str
    stderr: str
    queries: list[str] = field(default_factory=list)  # "name TYPE", in the order asked
    connects: list[str] = field(default_factory=list)  # "syscall address:port" outside loopback
    traced: bool = False  # strace watched the command (connects are known)


def why_not() -> str | None:
    """Why an isolated network cannot be made on this machine, or None."""
    if not shutil.which("bwrap"):
        return "bubblewrap (bwrap) is not installed"
    probe = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"bwrap --unshare-net fails here: {probe.stderr.strip()[:200]}"
    # the resolver needs port 53 inside (an unprivileged user namespace may not allow it)
    probe = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--", sys.executable, str(HERE), os.devnull, "--", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"the recording resolver cannot listen on 127.0.0.1:53 here: {probe.stderr.strip()[-200:]}"
    return None


def strace_missing() -> str | None:
    return None if shutil.which("strace") else "strace is not installed (connect attempts cannot be watched)"


def run_isolated(cmd: list[str], folder: Path, *, env: dict[str, str] | None = None, timeout: float = 600, cwd: Path | None = None) -> Isolated:
    """``cmd`` in the recording namespace; ``folder`` receives the generated files and logs."""
    folder.mkdir(parents=True, exist_ok=True)
    resolv = folder / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
    nsswitch = folder / "nsswitch.conf"
    try:
        lines = Path("/etc/nsswitch.conf").read_text().splitlines()
    except OSError:
        lines = []
    nsswitch.write_text("\n".join([ln for ln in lines if not ln.startswith("hosts:")] + ["hosts: files dns", ""]))
    binds = ["--ro-bind", str(resolv), "/etc/resolv.conf"]
    if Path("/etc/nsswitch.conf").exists():
        binds += ["--ro-bind", str(nsswitch), "/etc/nsswitch.conf"]
    trace = folder / "strace.log"
    tracer = ["strace", "-f", "--seccomp-bpf", "-qq", "-e", "signal=none", "-e", "trace=connect,sendto,sendmsg,sendmmsg", "-o", str(trace)] if shutil.which("strace") else []
    inner = [sys.executable, str(HERE), str(folder / "dns.log"), "--", *tracer, *cmd]
    done = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", *binds, "--", *inner],
        capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd,
    )
    queries = (folder / "dns.log").read_text().splitlines() if (folder / "dns.log").exists() else []
    return Isolated(done.returncode, done.stdout, done.stderr, queries, outside_loopback(trace) if tracer else [], bool(tracer))


_ADDR = re.compile(r'^(?:\d+\s+)?(\w+)\(.*?sin6?_port=htons\((\d+)\).*?(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")')


def outside_loopback(trace: Path) -> list[str]:
    """The traced calls that addressed something other than 127.0.0.0/8 or ::1."""
    out: list[str] = []
    try:
        text = trace.read_text(errors="replace")
    except OSError:
        return out
    for line in text.splitlines():
        m = _ADDR.match(line)
        if not m:
            continue
        call, port, v4, v6 = m.groups()
        addr = v4 or v6 or ""
        if addr.startswith("127.") or addr in ("::1", "::ffff:127.0.0.1") or addr.startswith("::ffff:127."):
            continue
        if port == "0" and addr in ("0.0.0.0", "::"):
            continue  # a UDP socket being disconnected (AF_UNSPEC) or bound, not a destination
        out.append(f"{call} {addr}:{port}")
    return out


# ------------------------------------------------------------------ inside the namespace
def _question(packet: bytes) -> tuple[str, int, int]:
    """The first question of a DNS query: its name, type, and where the question ends."""
    labels, i = [], 12
    while i < len(packet) and packet[i]:
        n = packet[i]
        labels.append(packet[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    qtype = struct.unpack("!H", packet[i + 1:i + 3])[0] if i + 3 <= len(packet) else 0
    return ".".join(labels), qtype, i + 5


_TYPES = {1: "A", 28: "AAAA", 5: "CNAME", 12: "PTR", 15: "MX", 16: "TXT", 33: "SRV", 65: "HTTPS", 255: "ANY"}


class _Recorder:
    def __init__(self, log: Path):
        self.log = open(log, "a", encoding="utf-8")  # open for the life of the process
        self.lock = threading.Lock()

    def answer(self, packet: bytes) -> bytes:
        if len(packet) < 12:
            return b""
        name, qtype, end = _question(packet)
        with self.lock:
            self.log.write(f"{name} {_TYPES.get(qtype, qtype)}\n")
            self.log.flush()
        flags = 0x8000 | (struct.unpack("!H", packet[2:4])[0] & 0x0100) | 0x0080 | 3  # response, RD copied, RA, NXDOMAIN
        return packet[:2] + struct.pack("!HHHHH", flags, 1, 0, 0, 0) + packet[12:end]

    def serve_udp(self, sock: socket.socket) -> None:
        while True:
            data, peer = sock.recvfrom(4096)
            reply = self.answer(data)
            if reply:
                sock.sendto(reply, peer)

    def serve_tcp(self, sock: socket.socket) -> None:
        while True:
            conn, _ = sock.accept()
            threading.Thread(target=self._tcp_one, args=(conn,), daemon=True).start()

    def _tcp_one(self, conn: socket.socket) -> None:
        with conn:
            while True:
                head = conn.recv(2)
                if len(head) < 2:
                    return
                size = struct.unpack("!H", head)[0]
                data = b""
                while len(data) < size:
                    chunk = conn.recv(size - len(data))
                    if not chunk:
                        return
                    data += chunk
                reply = self.answer(data)
                conn.sendall(struct.pack("!H", len(reply)) + reply)


def _inside(log: Path, cmd: list[str]) -> int:
    if shutil.which("ip"):  # bwrap brings loopback up already; this is for a namespace made otherwise
        subprocess.run(["ip", "link", "set", "lo", "up"], capture_output=True)
    recorder = _Recorder(log)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 53))
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", 53))
    tcp.listen(16)
    threading.Thread(target=recorder.serve_udp, args=(udp,), daemon=True).start()
    threading.Thread(target=recorder.serve_tcp, args=(tcp,), daemon=True).start()
    return subprocess.call(cmd)


if __name__ == "__main__":
    sep = sys.argv.index("--")
    os._exit(_inside(Path(sys.argv[1]), sys.argv[sep + 1:]))
