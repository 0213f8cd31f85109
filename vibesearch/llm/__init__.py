"""Model access: every LLM call of the product goes through ``complete``."""

from ._litellm import litellm_provider
from .client import LLMError, LLMResult, ToolCall, complete, context_window, count_tokens, scrub
from .structured import StructuredOutputError, complete_json, parse_json_as

__all__ = [
    "LLMError",
    "LLMResult",
    "ToolCall",
    "complete",
    "complete_json",
    "context_window",
    "count_tokens",
    "litellm_provider",
    "parse_json_as",
    "scrub",
    "StructuredOutputError",
]
