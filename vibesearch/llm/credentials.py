"""Credentials preflight: before a run starts, check that every model it will call has the
environment variables its provider needs, and say which one to set.

litellm knows which variables a provider reads (``litellm.validate_environment``); without this
check a missing key shows up only at the first call, after retries, with the run half started.
Only variable *names* ever appear in a message, never a value.

Models that need nothing are skipped: the project's ``fake/`` provider, a model sent to an
``api_base`` (a local OpenAI-compatible server needs no key, see ``client.complete``), a model
given its key explicitly, local servers (ollama, LM Studio, vLLM ...) and providers that can take
their credentials from elsewhere than the environment (AWS, Google Cloud and Azure logins).

Which models a run calls is the agent's and the user's kinds' to say (their registries, above this
package): ``vibesearch.session.preflight`` lists them and passes them to ``check_credentials``.
"""

from __future__ import annotations

from typing import Iterable

from ..config import Settings

# providers whose requests go to a local server by default (nothing to set)
_LOCAL = {"fake", "ollama", "ollama_chat", "lm_studio", "hosted_vllm", "vllm", "llamafile", "openai_like", "custom_openai"}
# providers with other ways to log in (instance roles, ~/.aws, gcloud, Azure AD): the variables
# litellm lists are not the only way, so a missing one is no proof of a problem
_AMBIENT = {"bedrock", "bedrock_converse", "sagemaker", "sagemaker_chat", "vertex_ai", "vertex_ai_beta", "azure", "azure_ai", "watsonx"}
# variables litellm lists together although any one of them is enough
_EITHER = [{"GOOGLE_API_KEY", "GEMINI_API_KEY"}]


class MissingCredentials(ValueError):
    """A model of the run needs an environment variable that is not set."""


def _provider(model: str) -> str:
    from ._litellm import _litellm

    try:
        return str(_litellm().get_llm_provider(model)[1] or "")
    except Exception:  # noqa: BLE001 - unknown to litellm: let the call itself report it
        return model.split("/", 1)[0] if "/" in model else ""


def missing_variables(model: str, *, api_base: str | None = None, api_key: str | None = None) -> list[str]:
    """The environment variables ``model`` needs and does not have ([] when it needs none)."""
    model = (model or "").strip()
    if not model or model == "rules" or model.startswith("fake/") or api_key:
        return []
    if api_base:
        return []
    provider = _provider(model)
    if provider in _LOCAL or provider in _AMBIENT or not provider:
        return []
    from ._litellm import _litellm

    try:
        report = _litellm().validate_environment(model=model)
    except Exception:  # noqa: BLE001 - no verdict: the call will say what is wrong
        return []
    return [str(k) for k in (report or {}).get("missing_keys") or []]


def variables_text(names: list[str]) -> str:
    """``A``, ``A or B`` (either is enough) or ``A and B``."""
    return (" or " if set(names) in _EITHER else " and ").join(names)


def check_credentials(models: Iterable[tuple[str, str]], settings: Settings) -> None:
    """Raise ``MissingCredentials`` naming every model whose provider variables are unset.

    The message is one line: ``agent model 'openai/gpt-4o-mini' needs OPENAI_API_KEY (not set)``.
    """
    problems: list[str] = []
    seen: set[str] = set()
    for role, model in models:
        if not model or model in seen:
            continue
        seen.add(model)
        missing = missing_variables(model, api_base=settings.api_base)
        if not missing:
            continue
        problems.append(f"{role} model {model!r} needs {variables_text(missing)} (not set)")
    if problems:
        raise MissingCredentials("; ".join(problems))
