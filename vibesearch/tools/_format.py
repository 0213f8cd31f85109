"""How results are written for the model: the same shape for the offline and the web backends."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Hit:
    title: str
    url: str
    snippet: str = ""
    date: str | None = None
    source: str | None = None


def format_hits(query: str, hits: list[Hit], *, scholarly: bool = False) -> str:
    if not hits:
        what = "scholarly results" if scholarly else "results"
        return f"No {what} for {query!r}."
    kind = "Scholarly results" if scholarly else "Results"
    lines = [f"{kind} for {query!r} ({len(hits)}):", ""]
    for i, hit in enumerate(hits, start=1):
        lines.append(f"{i}. {hit.title.strip() or '(untitled)'}")
        lines.append(f"   {'Link' if scholarly else 'URL'}: {hit.url}")
        if scholarly:
            lines.append(f"   Date: {hit.date or 'unknown'}")
            lines.append(f"   Source: {hit.source or 'unknown'}")
        elif hit.date:
            lines.append(f"   Date: {hit.date}")
        snippet = " ".join((hit.snippet or "").split())
        if snippet:
            lines.append(f"   {snippet}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def page_block(url: str, title: str | None, body: str) -> str:
    head = f"=== {title} ({url}) ===" if title else f"=== {url} ==="
    return f"{head}\n{body.strip()}\n"


def join_pages(blocks: list[str]) -> str:
    return "\n".join(blocks)
