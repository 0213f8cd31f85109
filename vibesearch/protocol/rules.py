"""The official protocol's numbers, in one place.

Every number here was read off the public official harness (``VibeBench/VibeSearchBench``:
``run.py``, ``agent/general_agent.py``, ``eval/evaluator.py``, ``eval/grader.py``,
``scripts/run_inference.sh``); the comment beside each says where it comes from. Nothing in this
module calls a model or touches a run: the official profile (``profiles.OfficialProfile``), the
official agent and simulator and the official grader read these values.
"""

from __future__ import annotations

from ..run.config import Sampling
from ..run.events import DONE_MARKER  # noqa: F401 - the profiles read the completion signal here

# ------------------------------------------------------------------ judge (eval/evaluator.py, eval/grader.py)
JUDGE_MAX_BATCHES = 5  # ground-truth triples go in at most this many near-equal batches
JUDGE_ATTEMPTS = 3  # answers asked per batch until every index of the batch is present
JUDGE_TEMPERATURE = 0.7  # OpenAI-compatible grader
JUDGE_MAX_TOKENS = 32_768
GEMINI_JUDGE_TEMPERATURE = 0.8  # the Gemini grader's sampling (run.py's default grader; a `gemini/...` judge)
GEMINI_JUDGE_TOP_P = 0.6
GEMINI_JUDGE_MAX_TOKENS = 64_000
GEMINI_JUDGE_PREFIX = "gemini/"  # a judge given as litellm's Google AI Studio route is the official Gemini grader

# ------------------------------------------------------------------ conversation (run.py, general_agent.py)
USER_REPLIES_AFTER_OPENING = 30  # run.py's default --max-user-turns ...
SCRIPT_USER_TURNS = 50  # ... and what every official script passes (run_inference.sh, run_all.sh, run_openclaw.sh): the profile's default
MAX_LLM_CALLS = 200  # --max-rounds: agent calls plus compaction calls, per trajectory
EXTRACTION_MIN_ROUNDS = 5  # the extraction loop always gets at least this many rounds
EXTRACTION_MIN_CALLS = EXTRACTION_MIN_ROUNDS
SIMULATOR_TEMPERATURE = 0.7
SIMULATOR_TOP_P = 0.95  # the OpenAI-compatible client's default, sent with every simulator call
SIMULATOR_MAX_TOKENS = 32_768
SIMULATOR_ATTEMPTS = 3  # after three failed simulator calls the conversation ends as if "[DONE]"
AGENT_TEMPERATURE = 1.0  # run.py / run_inference.sh defaults
AGENT_TOP_P = 0.95
AGENT_MAX_TOKENS = 16_384
PRE_EXTRACTION_COMPACT_FRACTION = 0.85  # compact once more before the extraction request above this
MAX_CONSECUTIVE_ERRORS = 10  # failed agent calls in a row before "error_loop"
CLIENT_ATTEMPTS = 8  # run.py's --max-retries: the client's attempts per call (a blank answer, null text and no calls or reasoning, is one that failed)
MAX_EMPTY_REPLIES = 5  # empty agent replies discarded in one user turn before the turn ends without one
COMPACT_MAX_CHARS = 300_000  # the transcript a compaction summarises is cut to its first this many characters
COMPACT_ATTEMPTS = 3  # compaction calls until the summary is not empty


CONTEXT_TOKENS = 256_000  # run_inference.sh's MAX_CONTEXT_TOKENS (run.py's own default: 240,000)
MODEL_CONTEXT_LIMIT = 262_144  # GeneralAgent's model_context_limit (no flag sets it)


def official_compaction_threshold(
    max_context_tokens: int = CONTEXT_TOKENS, model_context_limit: int = MODEL_CONTEXT_LIMIT, max_tokens: int = 32_768
) -> int:
    """Prompt tokens above which the official agent compacts: the requested limit, capped so that
    the prompt plus one answer fits the model (``general_agent.py``). With the inference script's
    256,000 and a 32,768-token answer budget this is 229,376."""
    return min(max_context_tokens, model_context_limit - max_tokens)


OFFICIAL_COMPACTION_TOKENS = official_compaction_threshold()  # 229,376


# each role's sampling under the official profile (where the run sets none of its own)
OFFICIAL_AGENT_SAMPLING = Sampling(temperature=AGENT_TEMPERATURE, top_p=AGENT_TOP_P, max_tokens=AGENT_MAX_TOKENS)
OFFICIAL_SIMULATOR_SAMPLING = Sampling(temperature=SIMULATOR_TEMPERATURE, top_p=SIMULATOR_TOP_P, max_tokens=SIMULATOR_MAX_TOKENS)
OFFICIAL_JUDGE_SAMPLING = Sampling(temperature=JUDGE_TEMPERATURE, max_tokens=JUDGE_MAX_TOKENS)
# the official Gemini grader's sampling (eval/grader.py GeminiGrader): what a `gemini/...` judge is asked with
OFFICIAL_GEMINI_JUDGE_SAMPLING = Sampling(temperature=GEMINI_JUDGE_TEMPERATURE, top_p=GEMINI_JUDGE_TOP_P, max_tokens=GEMINI_JUDGE_MAX_TOKENS)

# ------------------------------------------------------------------ re-extraction (scripts/re_extract_triples.py, agent/llm.py)
REEXTRACT_MAX_TOKENS = 32_768  # the script's --max-tokens default
# the script sets no temperature or top_p of its own; the client of the OpenAI route (every official
# script's) then sends its defaults, 0.7 and 0.95
OFFICIAL_REEXTRACTION_SAMPLING = Sampling(temperature=0.7, top_p=0.95, max_tokens=REEXTRACT_MAX_TOKENS)

# ------------------------------------------------------------------ model families (agent/general_agent.py)
DEEPSEEK_REASONING_EFFORT = "max"  # what a DeepSeek agent asks for, when the run names no effort


def family_reasoning_effort(model: str | None) -> str | None:
    """The reasoning effort the official agent puts into its client configuration for ``model``
    (matched on the name, case-insensitive, as the harness does): the highest for DeepSeek, none
    for any other family (Kimi asks for it in the chat template's arguments instead, which stay
    with the agent's own calls)."""
    return DEEPSEEK_REASONING_EFFORT if model and "deepseek" in model.lower() else None


def model_route(model: str | None) -> str:
    """Where a litellm model string is sent: its provider prefix (``openai/...`` with the process's
    ``api_base``, ``deepseek/...`` DeepSeek's API ...). Two models with the same route share one
    endpoint, as the official simulator shares the agent's when no URL of its own is given."""
    name = (model or "").strip()
    return name.split("/", 1)[0].lower() if "/" in name else "openai"  # litellm reads a bare name as OpenAI's

# ------------------------------------------------------------------ the OpenClaw driver (agent/openclaw_agent.py, run.py, scripts/run_openclaw.sh)
OPENCLAW_POLL_S = 5.0  # POLL_INTERVAL: how often an unanswered turn is looked at again
OPENCLAW_IDLE_S = 90.0  # run.py's --idle-threshold default, and what run_openclaw.sh passes
OPENCLAW_MAX_NUDGES = 3  # --max-nudge
OPENCLAW_NO_REPLY = "NO_REPLY"  # a reply of exactly this text counts as none
OPENCLAW_SEPARATOR = "\n\n---\n\n"  # between the system prompt and the first message
# the simulator the OpenClaw driver runs itself: one call per reply (a failed call ends the
# conversation as "[DONE]"), 0.7 and 1,024 tokens, no top_p sent
OPENCLAW_SIMULATOR_SAMPLING = Sampling(temperature=SIMULATOR_TEMPERATURE, max_tokens=1024)
OPENCLAW_SIMULATOR_ATTEMPTS = 1
