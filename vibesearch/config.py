"""Every default of the product in one place.

Values come from ``VIBESEARCH_*`` environment variables and a ``.env`` file in the working
folder. API keys are NOT settings: providers read them from their own conventional variables
(``OPENAI_API_KEY``, ``SERPER_API_KEY`` ...) so that a settings snapshot stored with a run can never
carry a secret. ``Settings.snapshot()`` is what runs store.
"""

from __future__ import annotations

import ipaddress
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Importing litellm must never reach for the network (it fetches a cost map otherwise).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
BUNDLED_TASKS = REPO_DIR / "personas"
BUNDLED_TABLE_TASKS = REPO_DIR / "tables"

AgentKind = Literal["baseline", "react", "endpoint", "openclaw"]
UserKind = Literal["rules", "simulator", "paper", "human", "direct", "staged"]
# Sub-vocabularies: what the layers below ``agents/`` and ``users/`` need to know of a kind (the
# stored config's shape in ``run/``, the baseline's label in ``scoring/``, the fidelity study's
# people and simulators in ``labels/``), as data they may import. Each is one registry flag
# written out as a Literal: a kind is still described once, in its registry (``agents/registry.py``,
# ``users/registry.py``), and tests/architecture/test_kind_registries.py checks that each
# sub-vocabulary names exactly the registered kinds that have its flag.
ModelAgentKind = Literal["react", "openclaw"]  # ``AgentKindInfo.needs_model``: calls ``agent.model``
OracleAgentKind = Literal["baseline"]  # ``AgentKindInfo.oracle_baseline``: reads the annotated facts
ModelUserKind = Literal["simulator", "paper"]  # ``UserKindInfo.needs_model``: an LLM (``user.model``) plays it
PersonUserKind = Literal["human"]  # ``UserKindInfo.person``: a person plays it (beside a ``user.shadow``)
SimulatedUserKind = Literal["rules", "simulator", "paper"]  # ``UserKindInfo.simulated``: a simulator plays the persona
ScriptedUserKind = Literal["direct", "staged"]  # ``UserKindInfo.scripted``: fixed messages (the official modes)
SearchBackend = Literal["offline", "ddgs", "serper", "tavily", "searxng"]
# the vocabularies every list of them is shown from
AGENT_KINDS: tuple[AgentKind, ...] = get_args(AgentKind)
USER_KINDS: tuple[UserKind, ...] = get_args(UserKind)
MODEL_AGENT_KINDS: tuple[ModelAgentKind, ...] = get_args(ModelAgentKind)
ORACLE_AGENT_KINDS: tuple[OracleAgentKind, ...] = get_args(OracleAgentKind)
MODEL_USER_KINDS: tuple[ModelUserKind, ...] = get_args(ModelUserKind)
PERSON_USER_KINDS: tuple[PersonUserKind, ...] = get_args(PersonUserKind)
SIMULATED_USER_KINDS: tuple[SimulatedUserKind, ...] = get_args(SimulatedUserKind)
SCRIPTED_USER_KINDS: tuple[ScriptedUserKind, ...] = get_args(ScriptedUserKind)
SEARCH_BACKENDS: tuple[SearchBackend, ...] = get_args(SearchBackend)


_DB_URL = re.compile(r"^(postgres(?:ql)?(?:\+\w+)?):/+", re.IGNORECASE)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="VIBESEARCH_", env_file=".env", extra="ignore", env_file_encoding="utf-8",
        allow_inf_nan=False,  # VIBESEARCH_BUDGET_USD=nan (or inf) is refused, not a budget that never stops a run
    )

    # storage and tasks
    # an SQLite file (a path, or ``sqlite:///path``) or a PostgreSQL URL
    # (``postgresql+psycopg://user@host:port/db``, kept as text: see ``store._url``)
    db: Path | str = Path("vibesearch.db")
    tasks: str = Field(default="", description="extra task paths, separated by os.pathsep")
    # files handed to the product (tasks, trajectories, labels, tables ...): size and nesting caps
    max_input_bytes: int = Field(default=50_000_000, ge=1)
    max_input_depth: int = Field(default=100, ge=2)

    # who plays which part
    agent: AgentKind = "baseline"
    agent_model: str | None = None
    user: UserKind = "rules"
    simulator_model: str | None = None
    judge_model: str | None = None
    # where the LLM judge's calls go, as the official grader is pointed (run.py --grader-base-url /
    # --grader-api-url): the judge's own base URL (unset: api_base) and an HTTP header that carries
    # its key (the official Gemini grader sends it as ``api-key``; the value is read from the
    # provider's key variable, GEMINI_API_KEY / OPENAI_API_KEY, never stored)
    judge_api_base: str | None = None
    judge_key_header: str | None = None
    summariser_model: str | None = None
    api_base: str | None = Field(default=None, description="OpenAI-compatible base URL for models")
    # the app: providers whose default address is this server (ollama, llamafile ...) that people
    # may still pick (comma-separated litellm provider names, e.g. "ollama"); those of the
    # configured models count as named
    allowed_providers: str = ""

    # endpoint agent (an agent framework behind an OpenAI-compatible chat endpoint)
    endpoint_url: str | None = None
    endpoint_model: str = "agent"
    endpoint_key: SecretStr | None = None
    # other endpoint URLs a person may type in the app (comma-separated); the configured key never
    # goes to them. Empty: only VIBESEARCH_ENDPOINT_URL.
    allowed_endpoint_urls: str = ""

    # openclaw agent: the folder OpenClaw is installed in (``vibesearch openclaw install``; empty:
    # ~/.cache/vibesearch/openclaw), how long its gateway may take to start and a turn to answer,
    # and whether a run's OpenClaw state folder is kept after the run (for reading it by hand)
    openclaw_dir: Path | None = None
    openclaw_start_timeout_s: float = Field(default=180.0, gt=0)
    openclaw_turn_timeout_s: float = Field(default=1800.0, gt=0)
    openclaw_keep_state: bool = False
    # long-term memory across runs (``--openclaw-long-term-memory``) lives here; empty:
    # openclaw-memory beside the database
    openclaw_memory_dir: Path | None = None

    # tools
    search_backend: SearchBackend = "offline"
    searxng_url: str | None = None
    # visit pages on loopback and private addresses too (a lab's intranet, a test's local server);
    # off: only public addresses are fetched (``tools.web_fetch``)
    web_allow_private: bool = False
    search_topn: int = Field(default=10, ge=1)
    tool_result_max_chars: int = Field(default=20_000, ge=1)
    visit_max_bytes: int = 2_000_000
    http_timeout_s: float = 20.0
    python_timeout_s: float = 20.0
    python_cpu_s: int = 10
    python_memory_mb: int = 512
    python_output_chars: int = 20_000
    # started as root, each running sandbox gets its own uid from [base, base + count), so the
    # process-count limit is per sandbox; count 0 = all share uid 65534 (nobody)
    python_uid_base: int = 1_900_000_000
    python_uid_count: int = 256
    python_uid_lock_dir: str = Field(default="", description="lock files of the uids in use; empty: /run/vibesearch/sandbox-uids")

    # agent loop
    # unset: the run's profile decides (ours 30 user turns; the official profile 50 simulator
    # replies after the opening, what the official scripts pass)
    max_user_turns: int | None = Field(default=None, ge=1)
    max_steps_per_turn: int = Field(default=30, ge=1)
    stop_on_final_answer: bool = False
    budget_tokens: int | None = Field(default=None, ge=0)
    budget_usd: float | None = Field(default=None, ge=0)
    context_window: int = 256_000
    compaction_threshold: float = 0.8
    # a run is driven by one process at a time: its lease expires this long after the driver's
    # last heartbeat (renewed every third of it), then another process may take the run over
    lease_ttl_s: float = Field(default=30.0, gt=0)

    # model access
    llm_retries: int = 4
    llm_backoff_s: float = 1.0
    llm_backoff_max_s: float = 30.0
    llm_timeout_s: float = 180.0
    # the default sampling temperature: drafted into a new run's config (``run.config.default_sampling``,
    # before its profile resolves it) and given to a judge asked outside a run and to the summariser;
    # ``complete()`` never reads it
    temperature: float | None = None

    # judge
    # ground-truth triples per judge call; None: chosen per graph by the judge's token estimate,
    # at most judge_batch_max (see docs/scoring.md, "LLM judge layout and prompt caching")
    judge_batch_size: int | None = None
    judge_batch_max: int = Field(default=50, ge=1)
    judge_concurrency: int = 8
    # the judge's context budget in tokens when litellm's model map does not know the judge model
    # (else its max_input_tokens): a graph too large for one call is split into prediction
    # windows, every batch asked against each (docs/scoring.md, "LLM judge layout")
    judge_context_tokens: int = Field(default=128_000, ge=1_000)
    # scores whose judge agrees with the people's labels less than this share (e.g. 0.985), or was
    # never measured against them, are marked "†" in reports, the leaderboard and compare; unset: no marking
    min_judge_agreement: float | None = Field(default=None, ge=0.0, le=1.0)
    # price of a cached prompt token relative to an uncached one, for the judge's layout choice
    # and its billed-token figure; None: from litellm's cost map for the judge model, else 1
    judge_cache_read_fraction: float | None = Field(default=None, ge=0, le=1)
    # the shortest shared prompt prefix a provider caches (OpenAI: 1,024 tokens)
    judge_cache_min_tokens: int = Field(default=1024, ge=0)
    # the official profile reads its prompts from this checkout of the official harness (parsed,
    # never executed); unset: our own prompts written to the same structure
    official_harness: Path | None = None

    # app
    host: str = "127.0.0.1"
    port: int = Field(default=7860, ge=1, le=65535)
    auth: SecretStr | None = Field(default=None, description="user:pass,user2:pass2")
    # signs the owner tokens the app hands to browsers; set the same value on every app server of
    # one database so a token from one is honoured by the others (unset: a random one per process)
    secret_key: SecretStr | None = None
    # with a login on and ``secret_key`` set, logins are kept in the database (shared by the app
    # servers of one database) and last this long (hours) from the moment they are made
    login_ttl_h: float = Field(default=24.0, gt=0)
    # the address people open the app at behind a reverse proxy (e.g. https://vibes.example.org):
    # a browser request changing anything must come from this origin. Unset: from the address the
    # request itself was sent to (its Host), over http or https
    public_url: str | None = None
    # the reverse proxies (comma-separated addresses or networks, e.g. "127.0.0.1" or "10.0.0.0/8")
    # whose X-Forwarded-For / X-Forwarded-Proto the app believes. Empty: none; the address a request
    # came from is the client's (a header anyone can send never picks the address throttled)
    trusted_proxies: str = ""
    # failed logins: this many per login name and per client address cost nothing, then each
    # further one locks that name and that address for login_lockout_s, doubling per failure up to
    # login_lockout_max_s (shared by the app servers of one database)
    login_free_failures: int = Field(default=5, ge=1)
    login_lockout_s: float = Field(default=2.0, gt=0)
    login_lockout_max_s: float = Field(default=900.0, gt=0)
    app_concurrency: int = 4
    app_max_queue: int = 64
    admins: str = Field(default="", description="logins (comma-separated) that may stop, drive and read every run")
    # a "me" run whose person has not answered for this long is ended as ``abandoned`` (its owner
    # may continue it from the Runs tab); the terminal's `vibesearch play` waits without a limit
    human_idle_timeout_s: float = Field(default=1800.0, gt=0)
    # the app's Start hands a simulated run to the queue workers (``vibesearch worker``) instead of
    # driving it in the server, when the database is PostgreSQL with the queue's tables
    app_queue: bool = False
    read_runs: Literal["all", "own"] = "all"  # with a login on: may a person read others' runs?
    # "Load tasks" in the app: only under these folders (plus the bundled ones, the upload area and
    # VIBESEARCH_TASKS), regular files only, size- and count-capped, parsed in a killable process
    load_roots: str = Field(default="", description="extra folders the app may load tasks from, separated by os.pathsep")
    upload_dir: Path | None = None  # default: vibesearch-uploads beside the database
    # what one person's uploads may take in all (loaded ones are kept: runs may use their tasks)
    upload_quota_mb: float = Field(default=200.0, gt=0)
    load_max_file_mb: float = Field(default=5.0, gt=0)
    load_max_files: int = Field(default=200, ge=1)
    load_timeout_s: float = Field(default=20.0, gt=0)
    load_memory_mb: int = Field(default=1024, ge=64)

    def task_paths(self) -> list[Path]:
        extra = [Path(p) for p in self.tasks.split(os.pathsep) if p.strip()]
        return [BUNDLED_TASKS, *extra]

    # ------------------------------------------------------------------ where keys may go
    def endpoint_key_for(self, url: str | None) -> str | None:
        """The configured endpoint key, but only for the configured endpoint URL: a key never
        follows a URL that someone typed."""
        if self.endpoint_key is None or not url or not self.endpoint_url:
            return None
        if _same_url(url, self.endpoint_url):
            return self.endpoint_key.get_secret_value()
        return None

    @field_validator("db", mode="before")
    @classmethod
    def _db_location(cls, value: object) -> Path | str:
        return db_location(value)

    @field_validator("agent_model", "simulator_model", "judge_model", "summariser_model")  # ("offline" has a model string's shape)
    @classmethod
    def _model_string(cls, value: str | None) -> str | None:
        from ._model_names import model_string_problem

        if value is None:
            return value
        problem = model_string_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("public_url")
    @classmethod
    def _public_origin(cls, value: str | None) -> str | None:
        """An http(s) address the browsers open (its origin is what the app compares): anything
        else made every page load fail at start."""
        if value is None or not value.strip():
            return None
        from urllib.parse import urlsplit

        parts = urlsplit(value.strip())
        try:
            parts.port  # noqa: B018 - raises on a port that is no number or out of range
        except ValueError:
            raise ValueError("its port is not a number from 1 to 65535") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname or parts.username or parts.password:
            raise ValueError("expected the address people open, such as https://vibes.example.org")
        return value.strip()

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: str) -> str:
        for item in value.split(","):
            if item.strip():
                try:
                    ipaddress.ip_network(item.strip(), strict=False)
                except ValueError:
                    raise ValueError(f"{item.strip()!r} is not an IP address or network (e.g. 127.0.0.1, 10.0.0.0/8)") from None
        return value

    def trusted_proxy_list(self) -> list[str]:
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]

    def endpoint_allowed(self, url: str) -> bool:
        """May a person (app or API) send the endpoint agent to this URL?"""
        allowed = [self.endpoint_url or "", *self.allowed_endpoint_urls.split(",")]
        return any(a.strip() and _same_url(url, a) for a in allowed)

    def allowed_provider_names(self) -> set[str]:
        return {p.strip().lower() for p in self.allowed_providers.split(",") if p.strip()}

    def admin_logins(self) -> set[str]:
        return {a.strip() for a in self.admins.split(",") if a.strip()}

    def upload_area(self) -> Path:
        if self.upload_dir is not None:
            return self.upload_dir
        return (self.db.parent if isinstance(self.db, Path) else Path(".")) / "vibesearch-uploads"

    def openclaw_memory_area(self) -> Path:
        """Where the openclaw agent's long-term memory is kept between runs."""
        if self.openclaw_memory_dir is not None:
            return Path(self.openclaw_memory_dir).expanduser()
        return (self.db.parent if isinstance(self.db, Path) else Path(".")) / "openclaw-memory"

    def load_root_paths(self) -> list[Path]:
        """Where the app may load task files from (symlinks resolved)."""
        extra = [Path(p) for p in self.load_roots.split(os.pathsep) if p.strip()]
        roots = [*self.task_paths(), BUNDLED_TABLE_TASKS, self.upload_area(), *extra]
        out: list[Path] = []
        for root in roots:
            resolved = root.expanduser().resolve()
            if resolved not in out:
                out.append(resolved)
        return out

    def snapshot(self) -> dict:
        """Settings as stored with a run: secrets are never included."""
        data = self.model_dump(mode="json", exclude={"endpoint_key", "auth", "secret_key"})
        data["endpoint_key_set"] = self.endpoint_key is not None
        if isinstance(self.db, str):  # a database URL's password is a secret too
            data["db"] = re.sub(r"^([^:/]+://[^:@/]*):[^@/]*@", r"\1:***@", self.db)
        return data


def normalise_base_url(url: str) -> str:
    """An OpenAI-compatible base URL: ``http://host/v1`` as given, or a full ``.../chat/completions`` URL cut back to it."""
    url = url.strip().rstrip("/")
    for suffix in ("/chat/completions", "/completions"):
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    return url


def _same_url(a: str, b: str) -> bool:
    return normalise_base_url(a) == normalise_base_url(b)


@lru_cache(maxsize=1)
def _cached() -> Settings:
    return Settings()


def get_settings() -> Settings:
    """The process-wide settings (read once). Tests build their own ``Settings(...)``."""
    return _cached()


def reset_settings() -> None:
    _cached.cache_clear()


def db_location(value: object) -> Path | str:
    """``VIBESEARCH_DB`` / ``--db`` as the settings hold it: a PostgreSQL URL stays text (a path
    would fold its ``//``); ``sqlite:///x`` is the path x (``sqlite:////x`` the absolute /x)."""
    text = str(value).strip()
    url = _DB_URL.match(text)
    if url:  # (a URL that went through pathlib lost a slash: put it back)
        return f"{url.group(1)}://{text[url.end():]}"
    if text.lower().startswith("sqlite:///"):
        return Path(text[len("sqlite:///"):])
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", text):  # another kind of URL stays text: opening it says it is none of ours
        return text
    return Path(text)
