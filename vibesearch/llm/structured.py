"""Structured output: ask for JSON matching a pydantic model, repair it, retry on bad output."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..config import Settings
from ..run.events import Emit, ErrorEvent
from .client import LLMResult, complete

M = TypeVar("M", bound=BaseModel)


class StructuredOutputError(ValueError):
    def __init__(self, message: str, raw: str):
        super().__init__(message)
        self.raw = raw


def parse_json_as(text: str, schema: type[M]) -> M:
    """Parse model output into ``schema``: code fences, prose and broken JSON are repaired."""
    from json_repair import repair_json

    obj = repair_json(text or "", return_objects=True)
    if isinstance(obj, list) and len(obj) == 1 and isinstance(obj[0], dict):
        obj = obj[0]
    if not isinstance(obj, dict):
        raise StructuredOutputError(f"expected a JSON object, got {type(obj).__name__}", text)
    try:
        return schema.model_validate(obj)
    except ValidationError as exc:
        raise StructuredOutputError(str(exc), text) from None


async def complete_json(
    messages: list[dict[str, Any]],
    schema: type[M],
    *,
    model: str,
    purpose: str,
    emit: Emit | None = None,
    settings: Settings | None = None,
    attempts: int = 2,
    json_mode: bool = True,
    **kwargs: Any,
) -> tuple[M, LLMResult]:
    """Call the model in JSON mode and parse into ``schema``; on bad output, retry with the error."""
    convo = list(messages)
    last_error = ""
    for attempt in range(attempts):
        result = await complete(
            convo,
            model=model,
            purpose=purpose,
            emit=emit,
            settings=settings,
            response_format={"type": "json_object"} if json_mode else None,
            **kwargs,
        )
        try:
            return parse_json_as(result.content, schema), result
        except StructuredOutputError as exc:
            last_error = str(exc)[:500]
            if emit is not None:
                emit(ErrorEvent(source=f"parse:{purpose}", message=f"unparseable output: {last_error}", attempt=attempt + 1))
            convo = convo + [
                {"role": "assistant", "content": result.content},
                {
                    "role": "user",
                    "content": "That reply could not be read as the JSON object asked for "
                    f"({last_error}). Reply again with only the JSON object.",
                },
            ]
    raise StructuredOutputError(f"no valid {schema.__name__} after {attempts} attempts: {last_error}", "")
