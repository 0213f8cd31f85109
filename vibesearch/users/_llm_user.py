"""What the two LLM-played users share: a model, settings, and the opening question."""

from __future__ import annotations

from .._fields import MissingSetting
from ..config import Settings, get_settings
from ..run.config import Sampling
from ..run.protocols import UserState, UserTurn
from ..tasks.models import Task


class LLMPlayedUser:
    """Base of the structured simulator and the paper-faithful one."""

    kind = "llm"
    title = "simulator"

    def __init__(self, task: Task, settings: Settings | None = None, *, model: str, sampling: Sampling | None = None):
        if not model:
            raise MissingSetting(f"the {self.title} needs a model", "simulator_model")
        self.task = task
        self.settings = settings or get_settings()
        self.model = model
        self.sampling = sampling or Sampling()

    async def opening(self, state: UserState) -> UserTurn:
        return UserTurn(message=self.task.persona.initial_query, reply_kind="open", decided_by="simulator")

