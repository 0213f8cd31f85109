"""Reports over the runs in a database: Markdown, CSV, JSON and self-contained HTML."""

from __future__ import annotations

from typing import Any, Literal

from .build import build_report

Format = Literal["md", "csv", "json", "html"]


def render(report: dict[str, Any], fmt: Format) -> str:
    if fmt == "html":
        from .html import to_html

        return to_html(report)
    from .text import to_csv, to_json, to_markdown

    renderers = {"md": to_markdown, "csv": to_csv, "json": to_json}
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r} (md, csv, json or html)")
    return renderers[fmt](report)


__all__ = ["build_report", "render", "Format"]
