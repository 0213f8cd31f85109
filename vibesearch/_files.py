"""Reading the files a user hands us — one rule for every file input of the product.

Task files (ours and the official format), trajectories, extraction files, labels, calibration
cases, table tasks, gold tables and answers are all read through here:

* only regular files are read (a folder, a FIFO or a device is refused before it is opened, and
  the file is opened non-blocking and checked again, so a swap in between cannot make us block);
* at most ``max_input_bytes`` (setting) are read;
* the text must be UTF-8; a byte-order mark is dropped (JSON, YAML, CSV alike);
* JSON and YAML may nest at most ``max_input_depth`` (setting) levels, and YAML aliases may not
  expand the document beyond ``YAML_MAX_NODES`` nodes (a "billion laughs" file is refused while it
  is being read, before anything walks it); a lone surrogate (``"\\ud800"``) is refused too;
* JSON may not repeat a key in one object nor carry NaN, Infinity or a number too large for a
  float (``loads_strict``); no value read from JSON or YAML may be such a number, and no text may
  hold a NUL character (PostgreSQL cannot store one) — ``check_tree``;
* errors are ``InputFileError``: one line naming the file (and the field or line), never a copy of
  a large value — ``short()`` is how messages quote a value.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, Iterator

YAML_MAX_NODES = 1_000_000  # nodes a YAML document may have once its aliases are expanded
BOM = "\ufeff"
_SURROGATE = re.compile("[\ud800-\udfff]")


class InputFileError(ValueError):
    """A file we cannot take, with where and why, printable on one line."""

    def __init__(self, path: str | Path, message: str, field: str = ""):
        self.path = str(path)
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = short_path(self.path)
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


# ---------------------------------------------------------------------- quoting values
def short(value: Any, limit: int = 60) -> str:
    """A short, one-line quote of a value for an error message. Containers are described, never
    walked (a shared-reference YAML tree would take forever to print)."""
    if isinstance(value, str):
        text = value if len(value) <= limit else value[:limit] + "…"
        suffix = f" ({len(value)} characters)" if len(value) > limit else ""
        return repr(text) + suffix
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        if value.bit_length() > 64:
            return f"a {len(str(abs(value)))}-digit number" if value.bit_length() < 14000 else "a number of over 4000 digits"
        return str(value)
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)} items"
    if isinstance(value, dict):
        return f"an object with {len(value)} keys"
    return f"a {type(value).__name__}"


def short_path(path: str | Path, limit: int = 300) -> str:
    text = str(path)
    return text if len(text) <= limit else text[: limit // 2] + "…" + text[-limit // 2 :]


def _limits() -> tuple[int, int]:
    from .config import get_settings

    settings = get_settings()
    return settings.max_input_bytes, settings.max_input_depth


def _size(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 1_000_000 else f"{n} bytes"


# ---------------------------------------------------------------------- reading
def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bytes(path: str | Path, *, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (default: the setting)."""
    limit = max_bytes if max_bytes is not None else _limits()[0]
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise InputFileError(path, "no such file") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(path, "is a folder; a file is expected here")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(path, f"is {_kind(info.st_mode)}; only regular files are read")
    if info.st_size > limit:
        raise InputFileError(path, f"is too large ({_size(info.st_size)}; the limit is {_size(limit)}, setting VIBESEARCH_MAX_INPUT_BYTES)")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputFileError(path, f"cannot read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the two looks
            raise InputFileError(path, "is not a regular file; only regular files are read")
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise InputFileError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise InputFileError(path, f"is too large (more than {_size(limit)}, setting VIBESEARCH_MAX_INPUT_BYTES)")
    return data


def decode(data: bytes, path: str | Path) -> str:
    """UTF-8 text without its byte-order mark; anything else is an error naming the file."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputFileError(path, "is UTF-16 text; save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError(path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} can't be decoded)", f"line {line}") from None
    return text[1:] if text.startswith(BOM) else text


def read_text(path: str | Path, *, max_bytes: int | None = None) -> str:
    """A regular UTF-8 text file (size-capped, BOM dropped)."""
    return decode(read_bytes(path, max_bytes=max_bytes), path)


def is_regular_file(path: str | Path) -> bool:
    """Whether a path names a regular file (False, never an error, for a name the system refuses:
    too long, a NUL byte ...)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


# ---------------------------------------------------------------------- checking parsed data
def _join(prefix: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    text = str(key)
    if len(text) > 40 or not text.isidentifier():
        text = short(text, 40)
        return f"{prefix}[{text}]"
    return f"{prefix}.{text}" if prefix else text


def _shorten_field(field: str, limit: int = 80) -> str:
    return field if len(field) <= limit else field[:limit] + "…"


NUL_MESSAGE = "holds a NUL character (\\u0000), which cannot be stored"


def check_tree(value: Any, path: str | Path, *, field: str = "", max_depth: int | None = None) -> None:
    """Refuse data nested deeper than ``max_depth``, holding a lone surrogate or a NUL character
    (which no database or UTF-8 file can store, or PostgreSQL cannot), or a number that is not
    finite (YAML's ``.nan``, ``.inf``). Walks iteratively; the error names the field."""
    limit = max_depth if max_depth is not None else _limits()[1]
    stack: list[tuple[Any, str, int]] = [(value, field, 1)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise InputFileError(path, "holds a lone surrogate (an invalid \\ud800-\\udfff escape)", _shorten_field(where))
            if "\x00" in item:
                raise InputFileError(path, NUL_MESSAGE, _shorten_field(where))
            continue
        if isinstance(item, float) and not math.isfinite(item):
            raise InputFileError(path, f"{short(item)} is not a finite number", _shorten_field(where))
        if isinstance(item, (list, tuple)):
            children: Iterator[tuple[Any, Any]] = enumerate(item)
        elif isinstance(item, dict):
            children = iter(item.items())
        else:
            continue
        if depth > limit:
            raise InputFileError(path, f"nested more than {limit} levels deep (setting VIBESEARCH_MAX_INPUT_DEPTH)", _shorten_field(where))
        for key, child in children:
            if isinstance(key, str) and _SURROGATE.search(key):
                raise InputFileError(path, "a key holds a lone surrogate (an invalid \\ud800-\\udfff escape)", _shorten_field(where))
            if isinstance(key, str) and "\x00" in key:
                raise InputFileError(path, "a key " + NUL_MESSAGE, _shorten_field(where))
            stack.append((child, _join(where, key), depth + 1))


# ---------------------------------------------------------------------- parsing
class StrictJSONError(ValueError):
    """A JSON document that parses but is not one we accept (a repeated key, a non-finite number)."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictJSONError(f"the key {short(key)} appears twice in one object")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise StrictJSONError(f"the number {short(text)} is too large")
    return value


def loads_strict(text: str) -> Any:
    """``json.loads`` that refuses a key repeated in one object, NaN, Infinity and numbers too
    large for a float (``StrictJSONError``; any other fault is ``json.JSONDecodeError``): what
    ``parse_json`` reads every input file with."""
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_finite)


def first_non_finite(value: Any) -> str | None:
    """Where in ``value`` (nested lists and dicts) the first NaN or infinite number is, as a field
    path (``"topn"``, ``"a[2]"``); None when there is none. Walks iteratively."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return where or "(the value)"
        if isinstance(item, dict):
            stack.extend((child, _join(where, key)) for key, child in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend((child, _join(where, i)) for i, child in enumerate(item))
    return None


def parse_json(text: str, path: str | Path, *, field: str = "", max_depth: int | None = None) -> Any:
    """One JSON document (a file, a JSONL line or a JSON string inside a field), checked: a key
    repeated in one object, NaN, Infinity and numbers too large for a float are refused."""
    try:
        data = loads_strict(text)
    except StrictJSONError as exc:
        raise InputFileError(path, f"invalid JSON: {exc}", field) from None
    except json.JSONDecodeError as exc:
        at = f"column {exc.colno}" if exc.lineno == 1 or not field else f"its line {exc.lineno}, column {exc.colno}"
        raise InputFileError(path, f"invalid JSON: {exc.msg} ({at})", field or f"line {exc.lineno}") from None
    except RecursionError:
        limit = max_depth if max_depth is not None else _limits()[1]
        raise InputFileError(path, f"nested more than {limit} levels deep (setting VIBESEARCH_MAX_INPUT_DEPTH)", field) from None
    except ValueError as exc:  # a number of more than 4300 digits
        what = "a number has too many digits" if "digits" in str(exc) else str(exc).splitlines()[0][:120]
        raise InputFileError(path, f"invalid JSON: {what}", field) from None
    check_tree(data, path, field=field, max_depth=max_depth)
    return data


_LINE_END = re.compile(r"\r\n|\r|\n")


def json_lines(text: str) -> list[str]:
    """The lines of a JSONL text. They end at a line feed or carriage return only: a JSON string
    may hold U+2028, U+2029 and U+0085 as they are, where ``str.splitlines`` would split it."""
    return _LINE_END.split(text)


def parse_jsonl(text: str, path: str | Path, *, max_depth: int | None = None) -> list[tuple[int, Any]]:
    """(line number, record) for every non-blank line (``json_lines``)."""
    out = []
    for n, line in enumerate(json_lines(text), start=1):
        if line.strip():
            out.append((n, parse_json(line, path, field=f"line {n}", max_depth=max_depth)))
    return out


def parse_yaml(text: str, path: str | Path, *, max_depth: int | None = None) -> Any:
    """One YAML document with the safe loader, nesting and alias expansion bounded."""
    import yaml

    from ._yaml import BoundedLoader, YamlLimit

    limit = max_depth if max_depth is not None else _limits()[1]
    loader = None
    try:
        # the reader checks every character as the loader is made: a NUL (or another character
        # YAML cannot hold) is refused there, before any parsing
        loader = BoundedLoader(text, max_depth=limit, max_nodes=YAML_MAX_NODES)
        data = loader.get_single_data()
    except YamlLimit as exc:
        raise InputFileError(path, str(exc), f"line {exc.line}" if exc.line else "") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        if isinstance(exc, yaml.reader.ReaderError):  # (no mark: it says the character's offset)
            where = f"line {text.count(chr(10), 0, exc.position) + 1}"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputFileError(path, f"invalid YAML: {problem}", where) from None
    except RecursionError:
        raise InputFileError(path, f"nested more than {limit} levels deep (setting VIBESEARCH_MAX_INPUT_DEPTH)") from None
    except (ValueError, TypeError, OverflowError) as exc:  # a tag whose constructor failed (a bad date ...)
        raise InputFileError(path, f"invalid YAML value: {str(exc).splitlines()[0][:120]}") from None
    finally:
        if loader is not None:
            loader.dispose()
    check_tree(data, path, max_depth=limit)
    return data


def read_json(path: str | Path) -> Any:
    return parse_json(read_text(path), path)


def read_structured(path: str | Path) -> Any:
    """A ``.json`` / ``.yaml`` / ``.yml`` file (by its suffix; anything else is read as JSON)."""
    text = read_text(path)
    if Path(path).suffix.lower() in (".yaml", ".yml"):
        return parse_yaml(text, path)
    return parse_json(text, path)


# ---------------------------------------------------------------------- small values
def first_invalid(exc: Any) -> tuple[str, str]:
    """(field path, message) of a pydantic ``ValidationError``'s first error, without its input
    (which may be long, or a key)."""
    err = exc.errors(include_url=False, include_context=False, include_input=False)[0]
    return ".".join(str(p) for p in err["loc"]), str(err["msg"])


def whole_number(value: Any, path: str | Path, field: str, *, high: int = 1_000_000_000) -> int:
    """A non-negative whole number no larger than ``high`` (an int, an integral float or a string of
    ASCII digits); anything else is an error naming the field."""
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer() and math.copysign(1.0, value) > 0:
        number = int(value)  # -0.0 is refused: a sign is no part of a whole number from 0
    elif isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit() and len(text) <= len(str(high)):
            number = int(text)
    if number is None or not 0 <= number <= high:
        raise InputFileError(path, f"expected a whole number from 0 to {high}, got {short(value)}", field)
    return number


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a temporary file beside it, then renamed);
    ``OSError`` when it cannot be written."""
    import tempfile

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class OutputFileError(ValueError):
    """An output file could not be written; the message names it (one line)."""


def write_output(path: str | Path, text: str) -> None:
    """Write a file the user asked for, whole or not at all; ``OutputFileError`` names the file
    and why (a folder in the way, a full disk, no permission ...). Nothing half-written is left."""
    path = Path(path)
    if path.is_dir():
        raise OutputFileError(f"{path}: is a folder; give a file name")
    if path.exists() and not path.is_file():  # a device, a FIFO, a socket: never replaced by a file
        raise OutputFileError(f"{path}: is not a regular file")
    try:
        write_text_atomic(path, text)
    except OSError as exc:
        raise OutputFileError(f"{path}: cannot write it ({exc.strerror or exc})") from None
    except UnicodeEncodeError as exc:  # text that is not valid Unicode (a lone surrogate)
        raise OutputFileError(f"{path}: cannot write it (the text is not valid Unicode: {exc.reason})") from None


class StagedFolder:
    """The files of one export into a folder, written whole or not at all.

    Each file is written into a staging folder beside the target (same file system); only when
    every one is written are they moved into place, each by a rename. A full disk, a file in
    the way or a folder where a file should go raises ``OutputFileError`` naming that file, and
    leaves the target as it was. Files already in the target that the export does not write
    are kept."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._files: list[str] = []
        self._stage: Path | None = None

    def __enter__(self) -> "StagedFolder":
        import tempfile

        root = self.root
        if root.exists() and not root.is_dir():
            raise OutputFileError(f"{root}: is not a folder")
        try:
            root.mkdir(parents=True, exist_ok=True)
            self._stage = Path(tempfile.mkdtemp(dir=root, prefix=".vibesearch-staging-"))
        except OSError as exc:
            raise OutputFileError(f"{root}: cannot write to it ({exc.strerror or exc})") from None
        return self

    def write(self, relative: str, text: str, *, encoding: str = "utf-8") -> Path:
        """Stage ``text`` as ``relative`` (a path inside the folder); returns its final path."""
        assert self._stage is not None, "use StagedFolder in a with block"
        final = self.root / relative
        staged = self._stage / relative
        try:
            staged.parent.mkdir(parents=True, exist_ok=True)
            with open(staged, "w", encoding=encoding, newline="") as fh:
                fh.write(text)
        except OSError as exc:
            raise OutputFileError(f"{final}: cannot write it ({exc.strerror or exc})") from None
        except UnicodeEncodeError as exc:
            raise OutputFileError(f"{final}: cannot write it (the text is not valid Unicode: {exc.reason})") from None
        self._files.append(relative)
        return final

    def _commit(self) -> None:
        assert self._stage is not None
        for relative in self._files:  # everything in the way is found before anything moves
            final = self.root / relative
            for parent in reversed(final.relative_to(self.root).parents[:-1]):
                if (self.root / parent).exists() and not (self.root / parent).is_dir():
                    raise OutputFileError(f"{self.root / parent}: is not a folder")
            if final.is_dir():
                raise OutputFileError(f"{final}: is a folder")
            if final.exists() and not final.is_file():
                raise OutputFileError(f"{final}: is not a regular file")
        for relative in self._files:
            final = self.root / relative
            try:
                final.parent.mkdir(parents=True, exist_ok=True)
                os.replace(self._stage / relative, final)
            except OSError as exc:
                raise OutputFileError(f"{final}: cannot write it ({exc.strerror or exc})") from None

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        import shutil

        try:
            if kind is None:
                self._commit()
        finally:
            if self._stage is not None:
                shutil.rmtree(self._stage, ignore_errors=True)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula (a leading ' where it would)."""
    return "'" + value if value.startswith(_FORMULA_START) else value


def csv_plain(value: str) -> str:
    """A cell ``csv_safe`` wrote, read back as the text it was."""
    return value[1:] if value.startswith("'") and value[1:].startswith(_FORMULA_START) else value
