"""One description per user kind (whoever plays the persona), registered once in the kind's own
module: its label and help (the app's choices, the CLI's options), whether it needs a simulator
model (and so which credentials the pre-run check looks for), whether a person plays it, whether
it may run in a batch, and the factory that builds it. Nothing outside this module compares a
kind's name: it asks the registry.

The names a ``RunConfig`` may store are the ``UserKind`` Literal (``vibesearch.config``);
``tests/architecture/test_kind_registries.py`` checks that the Literal and the registry agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from .._registry import KindRegistry
from ..config import USER_KINDS, Settings

if TYPE_CHECKING:  # only for the factory's signature
    from ..run import RunConfig, User
    from ..run.config import UserSpec
    from ..tasks.models import Task

# a person's shadow played by the rule-based simulator instead of a model (``UserSpec.shadow``)
RULES_SHADOW = "rules"


class UserFactory(Protocol):
    def __call__(self, config: "RunConfig", task: "Task", settings: Settings) -> "User": ...


@dataclass(frozen=True)
class UserKindInfo:
    """What one user kind is, does and needs."""

    name: str  # the kind's name in a RunConfig (``config.user.kind``)
    help: str  # a few words for ``--user``'s help ("" for none)
    factory: UserFactory
    label: str | None = None  # the app's Play form offers it under this label (None: API and tests only)
    needs_model: bool = False  # an LLM plays it: ``config.user.model`` (``--simulator-model``)
    person: bool = False  # a person plays it (live only; sets their own pace; may have a shadow)
    scripted: bool = False  # fixed messages, no simulated persona (the direct and staged modes)
    in_batches: bool = True  # ``vibesearch run`` may run it (a person plays with ``vibesearch play``)
    same_answer: bool = False  # answers the same state the same way (no sampling noise)
    simulated: bool = True  # a simulator plays the persona (for the fidelity comparisons)

    def models(self, spec: "UserSpec") -> list[tuple[str, str]]:
        """(role, model) of every litellm model a user of this kind will call."""
        out: list[tuple[str, str]] = []
        if self.needs_model and spec.model:
            out.append(("simulator", spec.model))
        if self.person and spec.shadow and spec.shadow != RULES_SHADOW:
            out.append(("shadow simulator", spec.shadow))
        return out


# the package's own kinds are registered by the time this module is imported: importing it imports
# ``vibesearch.users`` first, whose ``__init__`` imports each kind's module
REGISTRY: KindRegistry[UserKindInfo] = KindRegistry("user kind", USER_KINDS)
register_user_kind = REGISTRY.register
user_kinds = REGISTRY.all
user_kind_names = REGISTRY.names
user_kind = REGISTRY.get
find_user_kind = REGISTRY.find


def is_person(name: str | None) -> bool:
    """A person plays user kind ``name`` (False for a kind not registered)."""
    info = REGISTRY.find(name)
    return info is not None and info.person

