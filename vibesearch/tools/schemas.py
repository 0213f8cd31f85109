"""The four tools as the model sees them (OpenAI function-calling JSON) and the checking of the
arguments a model sends.

Names and parameters follow the paper: ``search(query, topn=10)``, ``visit(url, goal)``,
``scholar_search(query)``, ``python(code)``. A bad argument never raises: ``check_arguments``
returns either the cleaned arguments or an error text that names the argument.
"""

from __future__ import annotations

from typing import Any

TOOL_NAMES = ("search", "visit", "scholar_search", "python")
MAX_TOPN = 50
MAX_URLS = 10


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


SEARCH = _function(
    "search",
    "Look something up on the web. Gives a numbered list of matching pages, each with its title, "
    "its URL and a short snippet of the text that matched. Use visit to read a page in full.",
    {
        "query": {"type": "string", "description": "What to look for, in keywords or a short question."},
        "topn": {
            "type": "integer",
            "description": f"How many results to return (1-{MAX_TOPN}).",
            "default": 10,
            "minimum": 1,
            "maximum": MAX_TOPN,
        },
    },
    ["query"],
)

VISIT = _function(
    "visit",
    "Open one or more web pages and read them with a purpose. For each page you get the content "
    "that bears on the goal (a summary focused on the goal, or the most relevant passages).",
    {
        "url": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "description": f"The addresses of the pages to open (at least one, at most {MAX_URLS}).",
        },
        "goal": {"type": "string", "description": "What you want to learn from these pages."},
    },
    ["url", "goal"],
)

SCHOLAR_SEARCH = _function(
    "scholar_search",
    "Look for scholarly literature (papers, theses, academic books). Gives a numbered list with "
    "title, link, publication date, venue or source, and a snippet.",
    {"query": {"type": "string", "description": "Topic, title words or authors to look for."}},
    ["query"],
)

PYTHON = _function(
    "python",
    "Run a Python 3 program in an isolated scratch sandbox (no network, no files from outside, "
    "small time and memory limits) and get back what it printed. Use print() to see results; "
    "nothing persists between calls.",
    {"code": {"type": "string", "description": "The complete Python source to run."}},
    ["code"],
)

SCHEMAS: dict[str, dict[str, Any]] = {
    "search": SEARCH,
    "visit": VISIT,
    "scholar_search": SCHOLAR_SEARCH,
    "python": PYTHON,
}


_SCHEMA_TEXT: dict[str, str] = {}


def all_schemas(names: tuple[str, ...] | list[str] = TOOL_NAMES) -> list[dict[str, Any]]:
    """The schemas of the named tools, in the given order (fresh copies, safe to mutate: each read
    from its JSON text, several times quicker than a deep copy)."""
    import json

    out = []
    for n in names:
        text = _SCHEMA_TEXT.get(n)
        if text is None:
            text = _SCHEMA_TEXT[n] = json.dumps(SCHEMAS[n])
        out.append(json.loads(text))
    return out


class ArgumentError(ValueError):
    """A tool call's arguments are unusable; the message names the argument."""


def _text_arg(tool: str, args: dict[str, Any], name: str) -> str:
    if name not in args or args[name] is None:
        raise ArgumentError(f"{tool}: the argument '{name}' is missing (a string is required)")
    value = args[name]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ArgumentError(f"{tool}: the argument '{name}' must be a string, got {type(value).__name__}")
    if not value.strip():
        raise ArgumentError(f"{tool}: the argument '{name}' is empty")
    return value


def _topn(args: dict[str, Any], default: int) -> int:
    value = args.get("topn")
    if value is None:
        return default
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgumentError(f"search: the argument 'topn' must be an integer, got {value!r}")
    if value < 1:
        raise ArgumentError(f"search: the argument 'topn' must be at least 1, got {value}")
    return min(value, MAX_TOPN)


def _urls(args: dict[str, Any]) -> list[str]:
    if "url" not in args or args["url"] is None:
        hint = " (use 'url', not 'urls')" if "urls" in args else ""
        raise ArgumentError(f"visit: the argument 'url' is missing (a list of at least one URL is required){hint}")
    value = args["url"]
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ArgumentError(f"visit: the argument 'url' must be a list of strings, got {type(value).__name__}")
    if not value:
        raise ArgumentError("visit: the argument 'url' is an empty list; give at least one URL")
    urls: list[str] = []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise ArgumentError(f"visit: url[{i}] must be a non-empty string, got {item!r}")
        if item.strip() not in urls:
            urls.append(item.strip())
    if len(urls) > MAX_URLS:
        raise ArgumentError(f"visit: the argument 'url' has {len(urls)} URLs; at most {MAX_URLS} per call")
    return urls


def check_arguments(name: str, args: Any, *, default_topn: int = 10) -> dict[str, Any]:
    """Clean and check the arguments of a call to tool ``name``; raise ``ArgumentError``."""
    if name not in SCHEMAS:
        raise ArgumentError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ArgumentError(f"{name}: the arguments must be a JSON object, got {type(args).__name__}")
    if name == "search":
        return {"query": _text_arg(name, args, "query"), "topn": _topn(args, default_topn)}
    if name == "visit":
        urls = _urls(args)
        goal = args.get("goal")
        if goal is None or (isinstance(goal, str) and not goal.strip()):
            raise ArgumentError("visit: the argument 'goal' is missing (say what you want to learn from the pages)")
        return {"url": urls, "goal": _text_arg(name, args, "goal")}
    if name == "scholar_search":
        return {"query": _text_arg(name, args, "query")}
    code = args.get("code")
    if code is None:
        raise ArgumentError("python: the argument 'code' is missing (the Python source to run)")
    if not isinstance(code, str):
        raise ArgumentError(f"python: the argument 'code' must be a string, got {type(code).__name__}")
    if not code.strip():
        raise ArgumentError("python: the argument 'code' is empty")
    return {"code": code}
