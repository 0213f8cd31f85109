"""Who is asking, and what they may do with a run.

Every run has one owner. With a login on (``VIBESEARCH_AUTH``) the owner is the login
(``user:<name>``); without one it is a per-client token that this server issued (the browser keeps
it in local storage; an API caller gets one from ``/new_owner_token``). Tokens carry an HMAC under
a secret (``VIBESEARCH_SECRET_KEY``, shared by the servers of one database; unset, one made once
and kept beside the database: ``_secret``), so a caller cannot make one up or pick another person's: a
string the server did not issue is refused. The database stores a digest of the token
(``client:<digest>``), never the token itself.

Writing — stopping a run, playing its user, continuing it — is for its owner and the logins in
``VIBESEARCH_ADMINS``. Reading other people's runs is open unless a login is on and
``VIBESEARCH_READ_RUNS=own``; admins read everything. A study's player (a login a study link made,
``study:<study>:<slot>``) is never an admin and reads only their own runs, whatever the setting.
A blind study's runs (``meta.blind``) show their agent to admins only (``agent_hidden``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from .._names import PersonNameError, annotator_name
from ..config import Settings
from ._secret import server_secret

TOKEN_PREFIX = "c-"
AGENT_HIDDEN = "agent hidden (blind study)"
PLAYER_PREFIX = "study:"  # the logins study links make (no VIBESEARCH_AUTH name holds ':')


@dataclass(frozen=True)
class Who:
    owner: str | None  # the owner string of runs this caller starts (None: unknown caller)
    login: str | None = None
    admin: bool = False
    player: bool = False  # a study's player (a login made by a study link): reads only their own runs


def annotator_for(who: Who, typed: Any) -> str:
    """The name labels and votes are stored under: the login when there is one, else the typed name."""
    if who.login:
        return who.login
    text = (typed if isinstance(typed, str) else "")[:1000]
    try:
        return annotator_name(text)  # the one form a name is stored in (" ann" and "ann" are one person)
    except PersonNameError:
        return text.strip()  # refused where it is used (``label.start_problem``, the campaign rules)


class Access:
    def __init__(self, settings: Settings):
        raw = settings.auth.get_secret_value().strip() if settings.auth is not None else ""
        self.login_on = bool(raw)
        self.admins = settings.admin_logins()
        self.read_own = self.login_on and settings.read_runs == "own"
        # VIBESEARCH_SECRET_KEY: the same on every server of one database, so each honours the
        # others' tokens; unset, one kept beside the database, so tokens outlive a restart
        self._secret = server_secret(settings)

    # ------------------------------------------------------------------ tokens
    def browser_key(self) -> str:
        """The key the page's stored owner token is encrypted with (``gr.BrowserState``'s secret,
        which the page's config carries): derived from the server's secret one way, so it is the
        same after a restart and tells nothing of the secret."""
        return hmac.new(self._secret, b"vibesearch browser state", hashlib.sha256).hexdigest()[:32]

    def _mac(self, nonce: str) -> str:
        return hmac.new(self._secret, nonce.encode(), hashlib.sha256).hexdigest()[:32]

    def issue(self) -> str:
        nonce = secrets.token_hex(16)
        return f"{TOKEN_PREFIX}{nonce}.{self._mac(nonce)}"

    def valid(self, token: Any) -> bool:
        if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            return False
        nonce, _, mac = token[len(TOKEN_PREFIX):].partition(".")
        return bool(nonce) and hmac.compare_digest(mac, self._mac(nonce))

    def fresh(self, token: Any) -> str:
        """The token if this server issued it, else a new one."""
        return token if self.valid(token) else self.issue()

    @staticmethod
    def token_owner(token: str) -> str:
        return "client:" + hashlib.sha256(token.encode()).hexdigest()[:24]

    # ------------------------------------------------------------------ callers
    def who(self, request: Any, token: Any = None) -> Who:
        """The caller of a request: its login when there is one, else its token (if valid)."""
        login = getattr(request, "username", None) if request is not None else None
        if login:
            if str(login).startswith(PLAYER_PREFIX):
                return Who(owner=f"user:{login}", login=login, player=True)
            return Who(owner=f"user:{login}", login=login, admin=login in self.admins)
        if self.login_on:
            return Who(owner=None)  # cannot happen behind gradio's login; refuse everything
        if self.valid(token):
            return Who(owner=self.token_owner(token))
        return Who(owner=None)

    def sees_server(self, who: Who) -> bool:
        """May ``who`` see where the server keeps things (its database, its upload area)? Admins;
        with no login on, everyone (the app is then its operator's own)."""
        return who.admin or not self.login_on

    def may_write(self, who: Who, owner: str | None) -> bool:
        return who.admin or (who.owner is not None and owner == who.owner)

    def may_read(self, who: Who, owner: str | None) -> bool:
        return not (self.read_own or who.player) or self.may_write(who, owner)


def agent_hidden(who: "Who | None", run: Any) -> bool:
    """True when ``who`` must not see which agent ran ``run``: a blind study's run, for anyone but
    an admin (``who`` None: a view the same for everyone)."""
    return bool(run.meta().get("blind")) and not (who is not None and who.admin)
