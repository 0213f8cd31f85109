"""Every default of the product in one place.

Values come from ``VIBESEARCH_*`` environment variables and a ``.env`` file in the working
folder. API keys are NOT settings: providers read them from their own conventional variables
(``OPENAI_API_KEY``, ``SERPER_API_KEY`` ...) so that a settings snapshot stored with a run can never
carry a secret. ``Settings.snapshot()`` is what runs store.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

# Importing litellm must never reach for the network (it fetches a cost map otherwise).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
BUNDLED_TASKS = REPO_DIR / "personas"
BUNDLED_TABLE_TASKS = REPO_DIR / "tables"

AgentKind = Literal["baseline", "react", "endpoint"]
UserKind = Literal["rules", "simulator", "paper", "human", "direct", "staged"]
SearchBackend = Literal["offline", "ddgs", "serper", "tavily", "searxng"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="VIBESEARCH_", env_file=".env", extra="ignore", env_file_encoding="utf-8"
    )

    # storage and tasks
    db: Path = Path("vibesearch.db")
    tasks: str = Field(default="", description="extra task paths, separated by os.pathsep")

    # who plays which part
    agent: AgentKind = "baseline"
    agent_model: str | None = None
    user: UserKind = "rules"
    simulator_model: str | None = None
    judge_model: str | None = None
    summariser_model: str | None = None
    api_base: str | None = Field(default=None, description="OpenAI-compatible base URL for models")

    # endpoint agent (an agent framework behind an OpenAI-compatible chat endpoint)
    endpoint_url: str | None = None
    endpoint_model: str = "agent"
    endpoint_key: SecretStr | None = None

    # tools
    search_backend: SearchBackend = "offline"
    searxng_url: str | None = None
    search_topn: int = 10
    tool_result_max_chars: int = 20_000
    visit_max_bytes: int = 2_000_000
    http_timeout_s: float = 20.0
    python_timeout_s: float = 20.0
    python_cpu_s: int = 10
    python_memory_mb: int = 512
    python_output_chars: int = 20_000

    # agent loop
    max_user_turns: int = 30
    max_steps_per_turn: int = 30
    stop_on_final_answer: bool = False
    budget_tokens: int | None = None
    budget_usd: float | None = None
    context_window: int = 256_000
    compaction_threshold: float = 0.8

    # model access
    llm_retries: int = 4
    llm_backoff_s: float = 1.0
    llm_backoff_max_s: float = 30.0
    llm_timeout_s: float = 180.0
    temperature: float | None = None

    # judge
    judge_batch_size: int = 10
    judge_concurrency: int = 8
    judge_candidates_above: int = 40
    judge_candidates_topk: int = 15

    # app
    host: str = "127.0.0.1"
    port: int = 7860
    auth: SecretStr | None = Field(default=None, description="user:pass,user2:pass2")
    app_concurrency: int = 4
    app_max_queue: int = 64

    def task_paths(self) -> list[Path]:
        extra = [Path(p) for p in self.tasks.split(os.pathsep) if p.strip()]
        return [BUNDLED_TASKS, *extra]

    def snapshot(self) -> dict:
        """Settings as stored with a run: secrets are never included."""
        data = self.model_dump(mode="json", exclude={"endpoint_key", "auth"})
        data["endpoint_key_set"] = self.endpoint_key is not None
        return data


@lru_cache(maxsize=1)
def _cached() -> Settings:
    return Settings()


def get_settings() -> Settings:
    """The process-wide settings (read once). Tests build their own ``Settings(...)``."""
    return _cached()


def reset_settings() -> None:
    _cached.cache_clear()
