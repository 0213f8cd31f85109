"""Errors that name a setting the person must give, worded for where they are read.

One rule in one place: a ``MissingSetting`` carries the setting's key (``FIELDS``), and each
surface words it: the command line names its flag (``--model``), the app names its field
("Agent model"). ``str(exc)`` is the command line's wording (what the CLI and the logs print);
the app calls ``for_surface(exc, "app")`` and its HTTP API ``for_surface(exc, "api")`` (which names
the endpoint's parameter, ``agent_model=``). Every other exception reads the same everywhere.

A top-level helper (no package of its own) so that agents and users can raise it without
knowing the app or the CLI.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Surface = Literal["cli", "app", "api"]


class Field(NamedTuple):
    flag: str  # the CLI option
    label: str  # the app's field label
    env: str  # the environment variable that sets it
    param: str  # the app API's parameter (``/start_run``); "" when the API has none


FIELDS: dict[str, Field] = {
    "agent_model": Field("--model", "Agent model", "VIBESEARCH_AGENT_MODEL", "agent_model"),
    "simulator_model": Field("--simulator-model", "Simulator model", "VIBESEARCH_SIMULATOR_MODEL", "simulator_model"),
    "endpoint_url": Field("--endpoint-url", "Endpoint URL", "VIBESEARCH_ENDPOINT_URL", ""),
}


def name_of(key: str, surface: Surface) -> str:
    """How ``surface`` names the setting: ``--model`` on the command line, "the Agent model
    field" in the app, ``agent_model=`` in its API."""
    f = FIELDS[key]
    if surface == "cli":
        return f.flag
    if surface == "api" and f.param:
        return f"{f.param}="
    return f"the “{f.label}” field"


class MissingSetting(ValueError):
    """``what`` needs the setting ``key`` and it was not given. ``example`` is put in brackets
    after the setting's name (e.g. a model string)."""

    def __init__(self, what: str, key: str, *, example: str = "") -> None:
        if key not in FIELDS:
            raise KeyError(f"unknown setting {key!r}")
        self.what, self.key, self.example = what, key, example
        super().__init__(self.worded("cli"))

    def worded(self, surface: Surface) -> str:
        f = FIELDS[self.key]
        example = f" ({self.example})" if self.example else ""
        if surface == "cli":
            return f"{self.what}: pass {f.flag}{example} or set {f.env}"
        if surface == "api" and f.param:
            return f"{self.what}: pass {name_of(self.key, 'api')}{example} or have the server set {f.env}"
        return f"{self.what}: fill in {name_of(self.key, 'app')}{example}"


def for_surface(exc: BaseException, surface: Surface) -> str:
    """The exception's message as ``surface`` shows it (quotes a ``KeyError`` adds are dropped)."""
    if isinstance(exc, MissingSetting):
        return exc.worded(surface)
    return str(exc).strip("'\"")
