"""The run's search part the tool tests build toolboxes with: the one a run on these settings
would have (``RunConfig.search``: backend, results per search, the cap on a result)."""

from __future__ import annotations

from vibesearch.protocol import build_config
from vibesearch.run import SearchSpec


def search_of(settings, **given) -> SearchSpec:
    return build_config(settings, **given).search
