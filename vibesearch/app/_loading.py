"""Loading tasks typed or uploaded in the browser, without letting a person read the server's
files or stall it.

* Only paths inside the load roots (``Settings.load_root_paths``: the bundled folders, the upload
  area — of which each person reaches only their own part —, ``VIBESEARCH_TASKS`` and
  ``VIBESEARCH_LOAD_ROOTS``) are taken. Symlinks are resolved before
  the check, and a path outside gets the same message whether it exists or not.
* Inside, only regular files are read (a FIFO or a device is refused from its ``stat``, never
  opened), each at most ``VIBESEARCH_LOAD_MAX_FILE_MB``, at most ``VIBESEARCH_LOAD_MAX_FILES`` of
  them; a link that leads out of the roots is refused.
* Parsing happens in a separate process (``_load_worker``) with a memory and CPU limit and a wall
  clock timeout, killed when it runs over, so a YAML bomb costs one process for a few seconds and
  the web server's loop never waits on it. The worker gets no secrets in its environment.
* Messages name files and fields; they never quote a file's content.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..config import REPO_DIR, Settings
from ..tables.loader import SKIP_DIRS
from ..tasks.loader import TASK_SUFFIXES
from ..tasks.models import Task

log = logging.getLogger(__name__)

UPLOAD_SUFFIXES = TASK_SUFFIXES | {".csv"}
MAX_PROBLEMS = 20
MAX_PROBLEM_CHARS = 300
_SECRET_NAMES = ("KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH", "CREDENTIAL")


class LoadRefused(ValueError):
    """A path or file the app will not load; the message is safe to show."""


@dataclass
class Loaded:
    tasks: list[Task] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _shown(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 120 else text[:120] + "…")


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def outside_message(typed: str, roots: list[Path]) -> str:
    """The refusal of a typed path: the roots named, but for the person's part of the upload area
    (the last of ``roots_for``), whose place on the server is the operator's business."""
    named = [*(str(r) for r in roots[:-1]), "your uploads"]
    return f"{_shown(typed)} is not inside a folder this app may load tasks from ({', '.join(named)})"


def _owner_dir(owner: str | None) -> str:
    """The folder of one owner's uploads: a readable part and a digest of the whole owner, so two
    owners never share one (``alice.b``, ``alice_b`` and ``alice b`` differ, and no login's folder
    is the ownerless ``anonymous``)."""
    if not owner:
        return "anonymous"
    readable = re.sub(r"[^A-Za-z0-9_-]", "_", owner.split(":", 1)[-1])[:40] or "owner"
    return f"{readable}-{hashlib.sha256(owner.encode()).hexdigest()[:16]}"


def _folder_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def roots_for(settings: Settings, owner: str | None = None) -> list[Path]:
    """The load roots for one person: of the upload area, only their own part."""
    area = settings.upload_area().expanduser().resolve()
    return [*(r for r in settings.load_root_paths() if r != area), area / _owner_dir(owner)]


def resolve_typed(typed: str, settings: Settings, owner: str | None = None) -> Path:
    """The resolved path of what a person typed, if it lies inside their load roots."""
    roots = roots_for(settings, owner)
    text = (typed or "").strip()
    if not text:
        raise LoadRefused("Type a folder (or file) path first.")
    if len(text) > 4096 or "\x00" in text:
        raise LoadRefused(outside_message(text, roots))
    try:
        resolved = Path(text).expanduser().resolve()
    except (OSError, RuntimeError):  # a symlink loop, an unknown ~user ...
        raise LoadRefused(outside_message(text, roots)) from None
    if not _inside(resolved, roots):
        raise LoadRefused(outside_message(text, roots))
    return resolved


def _mb(n: float) -> str:
    return f"{n / 1_000_000:.1f} MB"


def survey(path: Path, settings: Settings, shown: str | None = None, owner: str | None = None) -> list[Path]:
    """The task files under ``path`` (inside the roots), checked: regular files within the size
    and count caps, no link out of the roots. Raises ``LoadRefused``."""
    roots = roots_for(settings, owner)
    max_bytes = int(settings.load_max_file_mb * 1_000_000)
    shown = shown or str(path)
    try:
        info = os.stat(path)
    except OSError:
        raise LoadRefused(f"No such file or folder: {_shown(shown)}") from None

    def check_file(f: Path, info: os.stat_result, rel: str) -> None:
        if not stat.S_ISREG(info.st_mode):
            raise LoadRefused(f"{rel}: not a regular file; only regular files are loaded")
        if info.st_size > max_bytes:
            raise LoadRefused(f"{rel}: too large ({_mb(info.st_size)}; the limit is {_mb(max_bytes)}, VIBESEARCH_LOAD_MAX_FILE_MB)")

    if not stat.S_ISDIR(info.st_mode):
        check_file(path, info, _shown(shown))
        return [path]
    files: list[Path] = []
    seen_dirs: set[Path] = set()
    visited = 0
    budget = settings.load_max_files * 20 + 100  # directory entries looked at, task files or not
    for here, dirs, names in os.walk(path, followlinks=True):
        real = Path(here).resolve()
        if real in seen_dirs:
            dirs[:] = []
            continue
        seen_dirs.add(real)
        rel_dir = Path(here).relative_to(path)
        if not _inside(real, roots):
            raise LoadRefused(f"{rel_dir}: a link leads outside the folders this app may load from")
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            visited += 1
            if visited > budget:
                raise LoadRefused(f"{_shown(shown)} holds too many files (more than {budget} entries looked at)")
            if Path(name).suffix.lower() not in TASK_SUFFIXES:
                continue
            f = Path(here) / name
            rel = str(rel_dir / name)
            target = f.resolve()
            if not _inside(target, roots):
                raise LoadRefused(f"{rel}: a link leads outside the folders this app may load from")
            try:
                finfo = os.stat(target)
            except OSError:
                continue  # a dangling link: the loaders skip it too
            check_file(target, finfo, rel)
            files.append(f)
            if len(files) > settings.load_max_files:
                raise LoadRefused(f"{_shown(shown)} holds more than {settings.load_max_files} task files (VIBESEARCH_LOAD_MAX_FILES)")
    return files


def _worker_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not any(s in k.upper() for s in _SECRET_NAMES)}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_DIR), env.get("PYTHONPATH", "")) if p)  # this very package
    return env


def parse_in_worker(path: Path, settings: Settings, owner: str | None = None) -> Loaded:
    """Load the tasks under ``path`` in a separate, limited process. Raises ``LoadRefused``."""
    request = {
        "path": str(path),
        "roots": [str(r) for r in roots_for(settings, owner)],
        "max_bytes": int(settings.load_max_file_mb * 1_000_000),
        "memory_mb": settings.load_memory_mb,
        "cpu_s": max(1, int(settings.load_timeout_s) + 1),
    }
    started = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "vibesearch.app._load_worker"],
            input=json.dumps(request), capture_output=True, text=True, timeout=settings.load_timeout_s,
            env=_worker_env(), cwd=os.getcwd(),
        )
    except subprocess.TimeoutExpired:
        raise LoadRefused(f"loading took longer than {settings.load_timeout_s:g} s and was stopped (VIBESEARCH_LOAD_TIMEOUT_S)") from None
    if proc.returncode != 0:
        log.warning("task loading worker for %s ended with code %s after %.1fs", path, proc.returncode, time.monotonic() - started)
        raise LoadRefused(
            "loading ran out of its memory or time limit and was stopped "
            f"(VIBESEARCH_LOAD_MEMORY_MB={settings.load_memory_mb}, VIBESEARCH_LOAD_TIMEOUT_S={settings.load_timeout_s:g})"
        )
    try:
        out = json.loads(proc.stdout)
        tasks = []
        for item in out["tasks"]:
            tasks.append(Task.model_validate({**item["task"], "source_file": item.get("file")}))
        problems = [str(p)[:MAX_PROBLEM_CHARS] for p in out["problems"]]
    except Exception:  # noqa: BLE001 - a worker that printed something else
        raise LoadRefused("loading failed (the loader's answer could not be read)") from None
    return Loaded(tasks=tasks, problems=problems)


def load_typed(typed: str, settings: Settings, owner: str | None = None) -> tuple[Loaded, Path]:
    """Everything between a typed path and the tasks it holds. Raises ``LoadRefused``."""
    resolved = resolve_typed(typed, settings, owner)
    survey(resolved, settings, shown=typed, owner=owner)
    return parse_in_worker(resolved, settings, owner), resolved


def load_uploads(files: list[Any], settings: Settings, owner: str | None) -> Loaded:
    """Store the uploads and parse them. Gradio's copies of the uploads are removed either way,
    and a refused upload leaves nothing in the upload area."""
    try:
        folder = store_uploads(files, settings, owner)
    finally:
        _drop_gradio_copies(files)
    try:
        survey(folder, settings, shown="the uploaded files", owner=owner)
        loaded = parse_in_worker(folder, settings, owner)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    loaded.problems = [_upload_names(p, folder, settings) for p in loaded.problems]
    if not loaded.tasks:  # nothing came of it: nothing to keep
        shutil.rmtree(folder, ignore_errors=True)
    return loaded


def _upload_names(line: str, folder: Path, settings: Settings) -> str:
    """A problem of an upload naming its files as the person uploaded them, not where the server
    keeps them (the upload area is the operator's business)."""
    for place in {str(folder.resolve()), str(folder)}:
        line = line.replace(place + os.sep, "")
    for place in {str(settings.upload_area().expanduser().resolve()), str(settings.upload_area())}:
        line = line.replace(place, "the upload area")
    return line


def _drop_gradio_copies(files: list[Any]) -> None:
    """Remove the files Gradio kept of an upload (in its cache), now copied or refused."""
    for f in files or []:
        name = getattr(f, "name", None) or (f if isinstance(f, str) else None)
        if name:
            try:
                os.unlink(name)
            except OSError:
                pass


# ---------------------------------------------------------------------- uploads
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def store_uploads(files: list[Any], settings: Settings, owner: str | None) -> Path:
    """Copy uploaded files into a new folder of the upload area (regular files, size- and
    count-capped, plain names). Returns that folder. Raises ``LoadRefused``."""
    paths = [Path(getattr(f, "name", None) or str(f)) for f in (files or [])]
    if not paths:
        raise LoadRefused("Choose task files to upload first.")
    if len(paths) > settings.load_max_files:
        raise LoadRefused(f"at most {settings.load_max_files} files at once (VIBESEARCH_LOAD_MAX_FILES)")
    max_bytes = int(settings.load_max_file_mb * 1_000_000)
    mine = settings.upload_area() / _owner_dir(owner)
    quota = int(settings.upload_quota_mb * 1_000_000)
    held = _folder_bytes(mine) if mine.is_dir() else 0
    coming = sum(os.stat(p).st_size for p in paths if p.is_file())
    if held + coming > quota:
        raise LoadRefused(f"your uploads would take {_mb(held + coming)}, more than the {_mb(quota)} each person may keep "
                          "(VIBESEARCH_UPLOAD_QUOTA_MB): ask the operator to remove old ones")
    dest = mine / f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"
    dest.mkdir(parents=True, mode=0o700)
    try:
        for src in paths:
            name = _SAFE_NAME.sub("_", src.name).lstrip(".")[:100] or "file"
            if Path(name).suffix.lower() not in UPLOAD_SUFFIXES:
                raise LoadRefused(f"{_shown(src.name)}: only {', '.join(sorted(UPLOAD_SUFFIXES))} files can be uploaded")
            try:
                info = os.stat(src)
            except OSError:
                raise LoadRefused(f"{_shown(src.name)}: the upload is gone; upload it again") from None
            if not stat.S_ISREG(info.st_mode):
                raise LoadRefused(f"{_shown(src.name)}: not a regular file")
            if info.st_size > max_bytes:
                raise LoadRefused(f"{_shown(src.name)}: too large ({_mb(info.st_size)}; the limit is {_mb(max_bytes)})")
            target = dest / name
            if target.exists():
                raise LoadRefused(f"{_shown(src.name)}: two uploads have the same name")
            with open(src, "rb") as fin, open(target, "xb") as fout:
                shutil.copyfileobj(fin, fout)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    return dest
