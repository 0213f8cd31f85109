"""Under the official profile, where a new run's prompts come from: put in the run's meta and said
by the note that opens the run (the official files and their sha256, or our own prompts)."""

from __future__ import annotations

from ..config import Settings
from ..protocol.profile import prompts_for
from ..run import RunConfig
from ..run.events import NoteEvent
from ._record import RunFields


def with_prompt_source(config: RunConfig, settings: Settings, run_fields: RunFields | None) -> tuple[RunFields | None, NoteEvent | None]:
    """Under the official profile: the prompt source (official files and their sha256, or our
    own) put in the new run's meta, and the note that opens the run saying the same."""
    prompts = prompts_for(config, settings)
    if prompts is None:
        return run_fields, None
    label, record = prompts.source.label(), prompts.source.record()
    fields: RunFields = run_fields.copy() if run_fields else {}
    fields["meta"] = {**(fields.get("meta") or {}), "protocol": "official", "prompt_source": label, "prompts": record}
    text = f"official protocol, {label}" if prompts.source.kind == "official" else "official protocol, own prompts"
    data: dict[str, object] = {"protocol": "official", "prompts": record, "notes": list(prompts.notes)}
    return fields, NoteEvent(text=text, data=data)
