"""The few rules every page of the static site is written by: escaping, embedded data, links.

* All text that came from a task, an agent, a user or a web page goes through ``esc``
  (``html.escape`` with quotes), in element text and in attribute values alike.
* Data for the page's scripts sits in ``<script type="application/json">``; ``json_script``
  writes ``<``, ``>`` and ``&`` (and the two line separators JavaScript dislikes) as ``\\u`` escapes,
  so no text can close the element or open a comment. Large data is gzipped and base64-encoded
  (the replay unpacks it with the browser's own ``DecompressionStream``).
* ``safe_href`` keeps only ``http``/``https`` links (and the site's own relative ones): a
  ``javascript:`` or ``data:`` link is shown as text, never made clickable.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
from typing import Any
from urllib.parse import urlsplit

from ._assets import STYLE

COMPRESS_ABOVE = 50_000  # characters of embedded JSON above which it is gzipped (a run page is then ~40% smaller)


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def json_script(elem_id: str, value: Any) -> str:
    """A data element the page's scripts read; gzipped + base64 when large."""
    text = script_json(value)
    if len(text) > COMPRESS_ABOVE:
        packed = base64.b64encode(gzip.compress(text.encode("utf-8"), mtime=0)).decode("ascii")
        return f'<script type="application/json" id="{esc(elem_id)}" data-encoding="gzip-base64">"{packed}"</script>'
    return f'<script type="application/json" id="{esc(elem_id)}">{text}</script>'


def read_json_script(page: str, elem_id: str) -> Any:
    """The value ``json_script`` embedded under ``elem_id`` (for checks and tests)."""
    start_tag = f'id="{elem_id}"'
    at = page.index(start_tag)
    head_end = page.index(">", at)
    body_end = page.index("</script>", head_end)
    body = page[head_end + 1:body_end]
    if 'data-encoding="gzip-base64"' in page[at:head_end]:
        body = gzip.decompress(base64.b64decode(json.loads(body))).decode("utf-8")
    return json.loads(body)


def safe_href(url: Any) -> str | None:
    """``url`` when it is an http(s) link, else None (shown as text, not linked)."""
    text = str(url or "").strip()
    try:
        scheme = urlsplit(text).scheme.lower()
    except ValueError:
        return None
    return text if scheme in ("http", "https") and "\n" not in text else None


def link(url: Any, label: Any = None) -> str:
    """An ``<a>`` for an http(s) URL; any other URL is only text."""
    href = safe_href(url)
    shown = esc(label if label is not None else url)
    if href is None:
        return f'<span class="unlinked">{shown}</span>'
    return f'<a href="{esc(href)}" rel="noopener noreferrer nofollow">{shown}</a>'


def number(value: Any, check: str | None = None, *, pct: bool = True, digits: int = 2) -> str:
    """A number as the site shows it (a share as a percentage), in a span that names where it
    comes from (``data-check``: ``site verify`` recomputes it) and holds its raw value for sorting."""
    if value is None:
        shown, raw = "–", ""
    elif isinstance(value, bool):
        shown, raw = str(value).lower(), str(value).lower()
    elif isinstance(value, (int, float)):
        shown = f"{100 * value:.{digits}f}" if pct else (f"{value:,}" if isinstance(value, int) else f"{value:.{digits}f}")
        raw = repr(value)
    else:
        shown, raw = str(value), str(value)
    attr = f' data-check="{esc(check)}"' if check else ""
    return f'<span class="num"{attr} data-value="{esc(raw)}">{esc(shown)}</span>'


def page(title: str, body: str, *, root: str = "", scripts: str = "", head: str = "") -> str:
    """A whole page: no external resource of any kind (styles and scripts inline)."""
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        f"<title>{esc(title)}</title><style>{STYLE}</style>{head}</head><body>"
        f"<nav><a href=\"{root}index.html\">Leaderboard</a></nav><main>{body}</main>{scripts}</body></html>\n"
    )
