"""Which protocol profile a run and a score belong to, and how every output names it.

* A run's profile is its ``RunConfig.protocol``; a run without one is the profile its meta names
  (an imported official trajectory is an ``official`` run), else a ``vibesearch`` run (stored
  before run configurations were kept).
* A score's profile is the one it was computed under (``ScoreRow.protocol``); a score stored
  before the column existed is a ``vibesearch`` score. ``vibesearch score`` follows the run's
  profile unless ``--protocol`` overrides it.
* Which runs are samples: a run a person cancelled is never one (under the official profile it
  is left out and counted; under ours a cancelled run without a graph is left out and counted, so
  it cannot enter a table as a silent 0). A run that failed is a sample: under the official
  profile it scores 0 and is averaged in.
"""

from __future__ import annotations

from ..protocol import PROTOCOLS, as_profile, profile_named
from ..protocol.profiles import OWN_PROMPTS
from ..run.config import ProtocolProfile
from ..store.tables import Run, ScoreRow

PROFILES: tuple[ProtocolProfile, ...] = PROTOCOLS
__all__ = ["OWN_PROMPTS", "PROFILES", "NotASample", "OfficialJudgeRequired", "as_profile", "is_cancelled", "profile_label",
           "run_protocol", "score_protocol"]


class NotASample(ValueError):
    """A run that is not a sample under the profile it would be scored with (cancelled by a person)."""


class OfficialJudgeRequired(ValueError):
    """The official profile is judged by an LLM in the official layout; the offline judge is not offered."""


def run_protocol(run: Run) -> ProtocolProfile:
    """The run's profile: its ``RunConfig``'s; a run without one names it in its meta (an imported
    official trajectory: ``official``) or is a ``vibesearch`` run (stored before configs were kept)."""
    config = run.run_config()
    return config.protocol if config is not None else as_profile(run.meta().get("protocol"))


def score_protocol(score: ScoreRow) -> ProtocolProfile:
    return as_profile(score.protocol)


def is_cancelled(run: Run) -> bool:
    """A person stopped the run, or left a "me" run waiting until it was ``abandoned`` (not a
    sample under either profile's rule)."""
    return run.termination in ("cancelled", "abandoned") or run.status in ("cancelled", "abandoned")


def profile_label(protocol: str | None, prompt_source: str | None = None) -> str:
    """The name every report, export and leaderboard row gives a number's profile."""
    return profile_named(protocol).label(prompt_source)
