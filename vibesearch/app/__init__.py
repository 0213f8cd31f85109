"""The Gradio app: one module per tab (play, runs, label, leaderboard), ``render`` (events → chat
messages, shared by Play and Runs), ``graph_view`` (the graph picture), ``live`` (the run
manager) and ``api`` (endpoints for gradio_client). ``build_app`` / ``launch`` are in ``ui``.

The app's rules and helpers that live in its ``_x`` modules are exported here by name (``_EXPORTS``)
and imported only when asked for, so importing ``vibesearch.app`` still loads neither gradio nor
any tab."""

from __future__ import annotations

from .._lazy import lazy_exports
from ._gradio_load import install as _trim_gradio_import

# before any module of the app imports gradio: its import skips the stub files and MCP classes the
# app never uses (``_gradio_load``)
_trim_gradio_import()

_EXPORTS = {
    # who is asking, and what they may see (``_access``)
    **dict.fromkeys(["AGENT_HIDDEN", "Access", "Who"], "._access"),
    # what a run request from the browser may be (``_policy``)
    **dict.fromkeys(
        ["RunRequest", "agent_choices", "app_agents", "check_model", "check_request", "check_turns", "form_request", "study_agents"],
        "._policy",
    ),
    # the replay's clock (``_replay_cursor``)
    **dict.fromkeys(
        ["MAX_GAP_S", "MIN_EVENT_S", "NOMINAL_GAP_S", "SPEEDS", "Cursor", "delay", "is_timed", "raw_gaps", "stops", "visible"],
        "._replay_cursor",
    ),
    # task files a person loads (``_loading``)
    **dict.fromkeys(["LoadRefused", "load_typed", "resolve_typed", "store_uploads", "survey"], "._loading"),
    # logins shared across the app's processes (``_logins``)
    **dict.fromkeys(["ListedLogin", "SharedLogins", "cookie_id", "shared_logins"], "._logins"),
    # what the page shows: the graph figure, a failure, the Play card's words and style
    "graph_figure": "._graph_figure",
    **dict.fromkeys(["failure_html", "failure_reason", "status_reason"], "._failure"),
    **dict.fromkeys(["DECISION_WORDS", "UI_I18N", "first_choice", "lang_of", "zh_text"], "._words"),
    # the words ``labels`` writes in English, in the browser's language (``_trust_words``)
    **dict.fromkeys(["footnote_text", "trust_text"], "._trust_words"),
    # the Vote tab's card and its New vote campaign form (``_vote_view``, ``_vote_new``)
    **dict.fromkeys(["NO_ANSWER", "WINNER_WORDS", "answer_md", "card_html", "final_answer"], "._vote_view"),
    "make_vote_campaign": "._vote_new",
    **dict.fromkeys(["CHAT_IDS", "PLAY_CSS"], "._play_assets"),
    # a refused API call: one line in the log (``_refusals``)
    "UNREACHABLE": "._refusals",
    # the owner tokens' secret, kept beside the database (``_secret``)
    **dict.fromkeys(["secret_file", "server_secret"], "._secret"),
    # the Label tab's report and its export (``_label_report``, ``_label_export``)
    "report_html": "._label_report",
    **dict.fromkeys(["ExportRefused", "export_file"], "._label_export"),
    # studies (``_studies``)
    **dict.fromkeys(["StudyConfig", "create_study", "player_prefix"], "._studies"),
}
__getattr__ = lazy_exports(__name__, _EXPORTS)


def build_app(*args, **kwargs):
    from .ui import build_app as _build

    return _build(*args, **kwargs)


def launch(*args, **kwargs):
    """``ui.launch`` with the garbage collector paused from before gradio is imported until the
    server answers (``_gc``: the interface and its modules stay for the process's life)."""
    from .._gc import collector_paused

    with collector_paused(keep=True) as serving:
        from .ui import launch as _launch

        return _launch(*args, on_serving=serving, **kwargs)


__all__ = ["build_app", "launch", *_EXPORTS]
