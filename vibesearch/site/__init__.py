"""A static site of stored runs: leaderboard, one page per run with a replay, and a results bundle
that ``verify_site`` recomputes (see docs/site.md)."""

from __future__ import annotations

from ._html import json_script, read_json_script, safe_href
from .build import SiteOutputError, build_site
from .collect import SiteInputError
from .verify import verify_site

__all__ = ["SiteInputError", "SiteOutputError", "build_site", "safe_href", "verify_site", "json_script", "read_json_script"]
