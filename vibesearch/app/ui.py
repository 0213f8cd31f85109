"""Assembling the app: ``build_app()`` makes the Blocks, ``launch()`` serves it.

Per-person state lives in ``gr.State`` (one per browser tab) and ``gr.BrowserState`` (the owner
token, kept in the browser's local storage so a refresh finds the same live runs). The only
shared objects are the store, the task catalog and the run manager, all created here.
"""

from __future__ import annotations

import os
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

# no usage statistics, no version check: the app must start without a network
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr

from ..config import Settings, db_location, get_settings
from ..store import Store, open_db
from . import api, compare_view, label, leaderboard, play, runs, study_play, study_view
from ._access import Access
from ._assets import CSS, SHORTCUTS_JS, VOTE_KEYS_JS, theme
from ._gradio_load import one_server_app
from ._play_assets import PLAY_CSS, PLAY_JS
from ._refusals import quiet_refusals
from ._words import INTRO, TOAST_JS, UI_I18N, browser_lang, ui_text, words
from .catalog import TaskCatalog
from .context import AppContext
from .live import RunManager

OWNER_KEY = "vibesearch-owner"



def build_app(settings: Settings | None = None, *, store: Store | None = None) -> gr.Blocks:
    settings = settings or get_settings()
    store = store or open_db(settings.db)
    ctx = AppContext(
        settings=settings, store=store, catalog=TaskCatalog.load(settings), manager=RunManager(store, settings), access=Access(settings)
    )

    with ExitStack() as building, gr.Blocks(title="VibeSearch evaluator", analytics_enabled=False) as demo:
        # gradio's server app is made once, in launch(): not again for queue() nor at the block's end
        building.enter_context(one_server_app(demo))
        demo.queue(default_concurrency_limit=settings.app_concurrency, max_size=settings.app_max_queue)
        # the same key after a restart: the browser's stored token is read again (``_secret``)
        owner = gr.BrowserState("", storage_key=OWNER_KEY, secret=ctx.access.browser_key())
        player_h = study_play.build(ctx)  # shown instead of everything below to a study's player
        with gr.Column(elem_id="vs-main") as main:
            gr.Markdown(ui_text(INTRO), elem_id="vs-title")
            with gr.Row(equal_height=True):
                # where the database is: for admins only, filled in on load (``/config`` is everyone's)
                db_path = gr.Markdown("", elem_id="vs-db-path", elem_classes=["vs-muted"], scale=5)
                if auth_pairs(settings):
                    gr.HTML(LOGOUT_FORM, elem_id="vs-logout", container=False, scale=1, min_width=120)
            if ctx.catalog.problems:
                with gr.Accordion(f"⚠ {len(ctx.catalog.problems)} problem(s) while loading tasks", open=False):
                    gr.Markdown("\n".join(f"- {p}" for p in ctx.catalog.problems[:50]))
            with gr.Tabs() as tabs:
                with gr.Tab(ui_text("Play"), id="play", elem_id="vs-play-panel"):
                    play_h = play.build(ctx, owner)
                with gr.Tab(ui_text("Runs"), id="runs", elem_id="vs-runs-panel") as runs_tab:
                    runs_h = runs.build(ctx, owner, tabs, play_h)
                with gr.Tab(ui_text("Label"), id="label", elem_id="vs-label-panel") as label_tab:
                    label_h = label.build(ctx)
                with gr.Tab(ui_text("Leaderboard"), id="leaderboard", elem_id="vs-lb-panel") as lb_tab:
                    lb_h = leaderboard.build(ctx, owner)
                with gr.Tab(ui_text("Compare"), id="compare", elem_id="vs-cmp-panel") as cmp_tab:
                    cmp_h = compare_view.build(ctx, owner)
                with gr.Tab(ui_text("Study"), id="study", elem_id="vs-study-panel"):
                    study_view.build(ctx, owner)
        api.register(ctx)

        def player_load(request: gr.Request):
            out = player_h.on_load(request)
            who = ctx.who(request)
            if who.player:
                out[main] = gr.Column(visible=False)
            out[db_path] = words("database", browser_lang(request), path=store.path) if ctx.access.sees_server(who) else ""
            return out

        demo.load(player_load, None, [main, db_path, *player_h.outputs], api_visibility="private", show_progress="hidden")

        def ensure_owner(tok: str) -> str:
            return ctx.access.fresh(tok)  # a token this server did not issue is replaced

        demo.load(ensure_owner, owner, owner, api_visibility="private").then(
            play_h.reattach, [owner, play_h.view], play_h.outputs, api_visibility="private"
        )
        # a link with ?run=ID opens that run in Runs; ?replay=ID replays it in Play; ?compare=A,B
        # opens the Compare tab on those two
        demo.load(runs_h["on_link"], owner, runs_h["link_outputs"], api_visibility="private", show_progress="hidden")
        demo.load(play_h.replay.link, play_h.replay.link_inputs, play_h.replay.outputs, api_visibility="private", show_progress="hidden")
        def compare_link(tok: str, request: gr.Request):
            got = cmp_h.on_link(tok, request)
            linked = isinstance(got[0], str)
            return (gr.Tabs(selected="compare") if linked else gr.skip(), *got)

        demo.load(compare_link, owner, [tabs, cmp_h.run_a, cmp_h.run_b, *cmp_h.outputs], api_visibility="private", show_progress="hidden")
        # the Label tab's run list (and, with a login, the annotator name) is filled for this person
        demo.load(label_h["on_show"], None, label_h["outputs"], api_visibility="private", show_progress="hidden")
        label_tab.select(label_h["on_show"], None, label_h["outputs"], api_visibility="private", show_progress="hidden")
        runs_tab.select(runs_h["on_show"], runs_h["filters"], runs_h["table"], api_visibility="private", show_progress="hidden")
        runs_tab.select(runs_h["on_queued"], owner, runs_h["queued"], api_visibility="private", show_progress="hidden")
        lb_tab.select(lb_h["on_refresh"], lb_h["inputs"], lb_h["outputs"], api_visibility="private", show_progress="hidden").then(
            lb_h["on_funnel"], lb_h["inputs"], lb_h["funnel"], api_visibility="private", show_progress="hidden")
        cmp_tab.select(cmp_h.on_show, cmp_h.show_io, cmp_h.show_io[1:], api_visibility="private", show_progress="hidden")

    quiet_refusals(demo)  # a handler's refusal is one line in the log, not a traceback
    ctx.player_fns.update(_player_fns(demo, player_h.fns))
    demo.vibesearch = ctx  # tests and launch() reach the context here, through app_context()
    return demo


def _player_fns(demo: gr.Blocks, player_deps: list) -> set[int]:
    """The handlers a study's player may call: the player view's, the page's loads and what they
    chain (``.then``)."""
    allowed = {int(dep["id"]) for dep in player_deps}
    allowed |= {int(i) for i, fn in demo.fns.items() if any(event == "load" for _, event in fn.targets)}
    grown = True
    while grown:
        grown = False
        for i, fn in demo.fns.items():
            if int(i) not in allowed and fn.trigger_after is not None and int(fn.trigger_after) in allowed:
                allowed.add(int(i))
                grown = True
    return allowed


def page_script(*scripts: str) -> str:
    """One page script (Gradio takes one) that runs each of ``scripts`` (``() => {…}`` each) in turn."""
    return "() => {" + "".join(f"({src.strip()})();" for src in scripts) + "}"


def app_context(demo: gr.Blocks) -> AppContext:
    """The context ``build_app`` attached to its Blocks."""
    ctx = getattr(demo, "vibesearch", None)
    if not isinstance(ctx, AppContext):
        raise TypeError("these Blocks were not made by build_app()")
    return ctx


# logging out is a POST from this page (``_guard`` refuses a GET: any page could send one)
LOGOUT_FORM = ('<form method="post" action="logout" style="display:flex;justify-content:flex-end;margin:0">'
               '<button type="submit" id="vs-logout-btn" style="font-size:.85rem;padding:.2rem .7rem">Log out</button></form>')
LOGIN_NOTE = ("After a few wrong passwords, further logins of that name (and from that address) wait a while, "
              "doubling each time: if the right password is refused, wait a minute and try again.")
# the login page (HTML): what this is and what to type, then the note on throttling
LOGIN_MESSAGE = (
    "<p><strong>VibeSearch evaluator</strong>: here search agents are run against personas, replayed, "
    "labelled and compared.</p>"
    "<p>Sign in with the name and password the person who runs this server gave you "
    "(one of the pairs in its <code>VIBESEARCH_AUTH</code>).</p>"
    f"<p>{LOGIN_NOTE}</p>"
)


def auth_pairs(settings: Settings) -> list[tuple[str, str]] | None:
    """``VIBESEARCH_AUTH=user:pass,user2:pass2`` → [(user, pass), ...]."""
    if settings.auth is None:
        return None
    raw = settings.auth.get_secret_value().strip()
    if not raw:
        return None
    pairs = []
    for item in raw.split(","):
        user, sep, password = item.strip().partition(":")
        if not sep or not user or not password:
            raise ValueError("VIBESEARCH_AUTH must look like user:pass,user2:pass2 (an entry has no ':' or is empty)")
        pairs.append((user, password))
    return pairs


def startup_line(url: str, settings: Settings, *, login: bool) -> str:
    """What the app prints once it serves: where to open it, which database it writes, how to stop it."""
    from .._secrets import scrub
    from ..store import db_target

    try:
        database = db_target(str(settings.db)).shown
    except ValueError:
        database = scrub(str(settings.db))
    sign_in = "sign-in required (VIBESEARCH_AUTH)" if login else "no sign-in"
    return f"VibeSearch evaluator: open {url} in a browser · {sign_in} · database {database} · Ctrl-C stops"


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a service manager, a container stop, ``kill``) shuts the app down as Ctrl-C does:
    people's runs are left interrupted for their owners to continue, not killed mid-write."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@contextmanager
def _forwarded_only_from(proxies: list[str]) -> Iterator[None]:
    """uvicorn (which Gradio starts without asking) believes ``X-Forwarded-For``/``-Proto`` from
    the peers in ``FORWARDED_ALLOW_IPS``, by default 127.0.0.1: behind a local proxy passing the
    client's header on, anyone could name any address. While Gradio makes its server, that list is
    ``VIBESEARCH_TRUSTED_PROXIES`` (empty: no one; the peer is the client)."""
    before = os.environ.get("FORWARDED_ALLOW_IPS")
    os.environ["FORWARDED_ALLOW_IPS"] = ",".join(proxies)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("FORWARDED_ALLOW_IPS", None)
        else:
            os.environ["FORWARDED_ALLOW_IPS"] = before


def launch(settings: Settings | None = None, *, host: str | None = None, port: int | None = None, db: str | Path | None = None,
           on_serving: Callable[[], None] | None = None, **kwargs) -> None:
    """Serve the app (blocking). Fake models named in VIBESEARCH_FAKE_MODELS are installed first.
    With a login and ``VIBESEARCH_SECRET_KEY``, logins are shared through the database (``_logins``).
    ``on_serving`` is called once the server answers, before this blocks (``vibesearch.app.launch``
    ends its pause of the garbage collector there)."""
    from starlette.middleware import Middleware

    from ..llm.fake import install_from_env
    from . import _logins
    from ._guard import Guard

    settings = settings or get_settings()
    if db is not None:  # through the settings' validator: a URL stays a URL, sqlite:///x is the file x
        settings = settings.model_copy(update={"db": db_location(db)})
    install_from_env()
    demo = build_app(settings)
    pairs = auth_pairs(settings)
    shared = _logins.shared_logins(settings, app_context(demo).store, (user for user, _ in pairs or []))
    blocking = not kwargs.pop("prevent_thread_lock", False)
    server_name = host or settings.host
    # every request passes the guard first (_guard: origin, login throttling, session ownership)
    ctx = app_context(demo)
    guard = Middleware(Guard, settings=settings, store=ctx.store, bound_host=server_name, private_files=ctx.private_files,
                       player_fns=ctx.player_fns)
    quiet = bool(kwargs.pop("quiet", False))
    app_kwargs = dict(kwargs.pop("app_kwargs", None) or {})
    app_kwargs["middleware"] = [guard, *app_kwargs.get("middleware", [])]
    try:
        with _forwarded_only_from(settings.trusted_proxy_list()):
            demo.launch(
                server_name=server_name,
                server_port=port or settings.port,
                auth=pairs,
                auth_message=LOGIN_MESSAGE if pairs else None,
                share=False,
                ssr_mode=False,
                show_error=True,
                theme=theme(),
                css=CSS + PLAY_CSS,
                js=page_script(SHORTCUTS_JS, VOTE_KEYS_JS, PLAY_JS, TOAST_JS),
                i18n=UI_I18N,
                footer_links=["api"],
                max_file_size=int(settings.load_max_file_mb * 1_000_000),
                # Gradio makes its app object in launch(): return, so the shared logins go in before we
                # block (with GRADIO_DEBUG=1 Gradio blocks in launch() itself and logins stay per process)
                prevent_thread_lock=True,
                app_kwargs=app_kwargs,
                quiet=True,  # Gradio's own lines (its URL and a hint about share=True) make way for ours
                **kwargs,
            )
        if shared is not None:
            _logins.install(demo.server_app, shared)
        if on_serving is not None:
            on_serving()
        if not quiet:
            print(startup_line(demo.local_url or f"http://{server_name}:{port or settings.port}/", settings, login=bool(pairs)), flush=True)
        if blocking:
            with _sigterm_as_interrupt():
                demo.block_thread()
    finally:
        app_context(demo).manager.shutdown()
