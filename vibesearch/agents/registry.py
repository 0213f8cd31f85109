"""One description per agent kind, registered once in the kind's own module.

An ``AgentKindInfo`` says everything the rest of the package needs to know about a kind: its
label and help (the CLI's options, the app's choices), whether it calls a model (and so which
model settings it reads and which credentials the pre-run check looks for), whether it needs the
task's offline corpus, what it shows (the oracle baseline is labelled as such) and the factory
that builds it. Nothing outside this module compares a kind's name: it asks the registry.

    register_agent_kind(AgentKindInfo(name="toy", label="Toy agent", help="...", factory=build_toy))

The names a ``RunConfig`` may store are the ``AgentKind`` Literal (``vibesearch.config``);
``tests/architecture/test_kind_registries.py`` checks that the Literal and the registry agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .._registry import KindRegistry
from ..config import AGENT_KINDS, Settings

if TYPE_CHECKING:  # only for the factory's signature
    from ..run import Agent, RunConfig, Toolbox
    from ..run.config import AgentSpec
    from ..run.web import WebArchive
    from ..tasks.models import Task


class AgentFactory(Protocol):
    def __call__(
        self, config: "RunConfig", task: "Task", settings: Settings, *, toolbox: "Toolbox | None", endpoint_key: str | None,
        web: "WebArchive | None" = None,
    ) -> "Agent": ...


@dataclass(frozen=True)
class AgentKindInfo:
    """What one agent kind is, does and needs."""

    name: str  # the kind's name in a RunConfig (``config.agent.kind``)
    label: str  # the app's choice ("ReAct agent with a model")
    help: str  # a few words for ``--agent``'s help ("an LLM with tools; needs --model")
    factory: AgentFactory
    needs_model: bool = False  # calls a litellm model: ``config.agent.model`` (``--model``)
    uses_summariser: bool = False  # its visit tool may call ``settings.summariser_model``
    needs_corpus: bool = False  # reads the task's offline corpus
    oracle_baseline: bool = False  # reads the annotated facts: its scores are shown as a baseline's
    in_studies: bool = True  # a study may pair people with it (a URL typed per run cannot be)
    # its calls go to a place of its own, paced and counted under this name (not a litellm model's provider)
    own_provider: str | None = None

    def models(self, spec: "AgentSpec", settings: Settings) -> list[tuple[str, str]]:
        """(role, model) of every litellm model an agent of this kind will call."""
        out: list[tuple[str, str]] = []
        if self.needs_model and spec.model:
            out.append(("agent", spec.model))
        if self.uses_summariser and settings.summariser_model:
            out.append(("summariser", settings.summariser_model))
        return out

    def calls_no_model(self, model: str | None) -> bool:
        """A run of this kind that called no model (the offline oracle baseline)."""
        return self.oracle_baseline and not model


# the package's own kinds are registered by the time this module is imported: importing it imports
# ``vibesearch.agents`` first, whose ``__init__`` imports each kind's module
REGISTRY: KindRegistry[AgentKindInfo] = KindRegistry("agent kind", AGENT_KINDS)
register_agent_kind = REGISTRY.register
agent_kinds = REGISTRY.all
agent_kind_names = REGISTRY.names
agent_kind = REGISTRY.get
find_agent_kind = REGISTRY.find
