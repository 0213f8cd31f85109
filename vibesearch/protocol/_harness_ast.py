"""Reading strings out of a Python file by parsing it — the file is never imported or executed.

A user's checkout of the official harness is code we did not write; its prompt strings are read
from the syntax tree (``ast``): module-level assignments of string literals, and a template built
inside a function from literals and f-string fields. Anything that is not plain literal text is
refused with an error naming the file and the name, so nothing in the file can run.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path

from .._files import InputFileError, decode, read_bytes


class HarnessError(InputFileError):
    """The official checkout lacks a name we need, or holds it in a form we cannot read."""


@dataclass(frozen=True)
class Slot:
    """A place in a template filled at render time (``name`` is one of the template's slots)."""

    name: str


Piece = str | Slot


@dataclass(frozen=True)
class ParsedFile:
    path: Path
    sha256: str
    tree: ast.Module


def parse_file(path: Path) -> ParsedFile:
    if not path.is_file():
        raise HarnessError(path, "file not found (is this a checkout of the official harness?)")
    data = read_bytes(path)
    text = decode(data, path)
    try:
        tree = ast.parse(text, filename=str(path))
    except SyntaxError as exc:
        raise HarnessError(path, f"not valid Python (line {exc.lineno}): {exc.msg}") from None
    return ParsedFile(path=path, sha256=hashlib.sha256(data).hexdigest(), tree=tree)


def _assigned(tree: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.expr | None:
    """The value of the first plain assignment ``name = ...`` directly in this body."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name and node.value:
            return node.value
    return None


def _literal_text(node: ast.expr) -> str | None:
    """A string literal, or literals joined with ``+``; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_text(node.left), _literal_text(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def module_string(parsed: ParsedFile, name: str) -> str:
    value = _assigned(parsed.tree, name)
    if value is None:
        raise HarnessError(parsed.path, "no module-level assignment of this name", field=name)
    text = _literal_text(value)
    if text is None:
        raise HarnessError(parsed.path, f"expected a string literal, found {type(value).__name__}", field=name)
    return text


def module_int(parsed: ParsedFile, name: str) -> int:
    value = _assigned(parsed.tree, name)
    if value is None:
        raise HarnessError(parsed.path, "no module-level assignment of this name", field=name)
    if not (isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool)):
        raise HarnessError(parsed.path, "expected a whole-number literal", field=name)
    return value.value


def function_template(parsed: ParsedFile, function: str, variable: str, slots: dict[str, str]) -> list[Piece]:
    """The template assigned to ``variable`` inside top-level ``function``, as literal text and slots.

    ``slots`` maps the source text of each allowed field expression (``ast.unparse`` form, e.g.
    ``len(batch)``) to a slot name; any other expression is refused."""
    where = f"{function}.{variable}"
    func = next(
        (n for n in parsed.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function),
        None,
    )
    if func is None:
        raise HarnessError(parsed.path, "no top-level function of this name", field=function)
    value = _assigned(func, variable)
    if value is None:
        raise HarnessError(parsed.path, "the function assigns no such variable", field=where)
    pieces: list[Piece] = []
    _collect(value, slots, pieces, parsed.path, where)
    return _merge(pieces)


def _slot(expr: ast.expr, slots: dict[str, str], path: Path, where: str) -> Slot:
    source = ast.unparse(expr)
    if source not in slots:
        raise HarnessError(path, f"unexpected field {{{source}}} in the template (known: {', '.join(sorted(slots))})", field=where)
    return Slot(slots[source])


def _collect(node: ast.expr, slots: dict[str, str], out: list[Piece], path: Path, where: str) -> None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        out.append(node.value)
    elif isinstance(node, ast.JoinedStr):
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.append(part.value)
            elif isinstance(part, ast.FormattedValue):
                if part.conversion != -1 or part.format_spec is not None:
                    raise HarnessError(path, f"a formatted field with a conversion or format: {ast.unparse(part)}", field=where)
                out.append(_slot(part.value, slots, path, where))
            else:  # pragma: no cover - JoinedStr holds only these two
                raise HarnessError(path, f"unexpected part {type(part).__name__}", field=where)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        _collect(node.left, slots, out, path, where)
        _collect(node.right, slots, out, path, where)
    elif isinstance(node, (ast.Name, ast.Call, ast.BinOp)):
        out.append(_slot(node, slots, path, where))
    else:
        raise HarnessError(path, f"the template holds a {type(node).__name__}, not text", field=where)


def _merge(pieces: list[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for p in pieces:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + p
        elif p != "":
            out.append(p)
    return out


def _function_anywhere(parsed: ParsedFile, function: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The first function or method named ``function`` anywhere in the file."""
    for node in ast.walk(parsed.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return node
    raise HarnessError(parsed.path, "no function or method of this name", field=function)


def _dict_value(node: ast.expr, key: str) -> ast.expr | None:
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    return None


def method_dict_template(parsed: ParsedFile, function: str, variable: str, key: str, slots: dict[str, str]) -> list[Piece]:
    """The template under ``key`` of the dict literal assigned to ``variable`` in ``function`` (a
    function or method anywhere in the file), as literal text and slots."""
    where = f"{function}.{variable}[{key!r}]"
    value = _assigned(_function_anywhere(parsed, function), variable)
    entry = _dict_value(value, key) if value is not None else None
    if entry is None:
        raise HarnessError(parsed.path, "no dict literal with this key assigned there", field=where)
    pieces: list[Piece] = []
    _collect(entry, slots, pieces, parsed.path, where)
    return _merge(pieces)


def appended_text(parsed: ParsedFile, function: str, receiver: str, role: str) -> str:
    """The literal ``content`` of the last ``receiver.append({"role": role, "content": "..."})``
    in ``function`` whose content is plain text."""
    where = f"{function}: {receiver}.append role {role}"
    found: tuple[int, str] | None = None
    for node in ast.walk(_function_anywhere(parsed, function)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == receiver and len(node.args) == 1):
            continue
        message = node.args[0]
        said = _dict_value(message, "role")
        content = _dict_value(message, "content")
        text = _literal_text(content) if content is not None else None
        if isinstance(said, ast.Constant) and said.value == role and text is not None and (found is None or node.lineno > found[0]):
            found = (node.lineno, text)  # the last in the source
    if found is None:
        raise HarnessError(parsed.path, "no such append of a literal message", field=where)
    return found[1]


# a module-level name may stand for another literal (the official tool list shares one parameter
# block between two schemas): followed this many levels at most
_NAME_DEPTH = 8


def module_literal(parsed: ParsedFile, name: str) -> object:
    """The data of a module-level assignment built only from literals: strings, numbers,
    ``True``/``False``/``None``, lists, tuples, dicts with string keys, strings joined with ``+``,
    and names of other module-level assignments of the same kind. Nothing is evaluated: the tree
    is walked, and anything else (a call, an attribute, ``**`` in a dict, a comprehension) is
    refused with an error naming the file and the name."""
    value = _assigned(parsed.tree, name)
    if value is None:
        raise HarnessError(parsed.path, "no module-level assignment of this name", field=name)
    return _data(value, parsed, name, (name,))


def _data(node: ast.expr, parsed: ParsedFile, where: str, names: tuple[str, ...]) -> object:
    def refuse(what: str) -> HarnessError:
        return HarnessError(parsed.path, f"expected literal data, found {what} (line {getattr(node, 'lineno', '?')})", field=where)

    if isinstance(node, ast.Constant):
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        raise refuse(f"a {type(node.value).__name__} constant")
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_data(item, parsed, where, names) for item in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, object] = {}
        for key, item in zip(node.keys, node.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                raise refuse("a dict key that is not a string literal" if key is not None else "** in a dict")
            out[key.value] = _data(item, parsed, where, names)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _data(node.operand, parsed, where, names)
        if isinstance(operand, (int, float)) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
        raise refuse("a sign before something that is not a number")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        text = _literal_text(node)
        if text is None:
            raise refuse("a + that does not join string literals")
        return text
    if isinstance(node, ast.Name):
        if node.id in names:
            raise refuse(f"a name that refers back to itself ({' -> '.join((*names, node.id))})")
        if len(names) > _NAME_DEPTH:
            raise refuse(f"names nested more than {_NAME_DEPTH} deep")
        target = _assigned(parsed.tree, node.id)
        if target is None:
            raise refuse(f"the name {node.id}, which the module does not assign")
        return _data(target, parsed, where, (*names, node.id))
    raise refuse(f"a {type(node).__name__}")
