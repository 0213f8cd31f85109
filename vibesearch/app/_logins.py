"""Logins (``VIBESEARCH_AUTH``) known to every app server of one database.

Gradio keeps its logins in ``app.tokens`` (a dict, token → login name, in the server's memory)
and names its cookie ``access-token-{app.cookie_id}`` with a ``cookie_id`` random per process: a
login made on one server means nothing to another. With ``VIBESEARCH_SECRET_KEY`` set (the same
on every server of the database) ``install`` replaces both on the running app: ``tokens`` becomes
``SharedLogins``, a mapping kept in the database (``store.logins``: only the sha256 of each
token, never the token), and ``cookie_id`` an HMAC of a fixed label under the secret, the same on
every server with that secret (never the secret itself). A login on A is then known to B, and a
logout on either ends it on both. Without the secret, logins stay as Gradio keeps them: per
server process.

Gradio uses the mapping thus (``gradio/routes.py``): ``/login`` sets ``tokens[token] = name``;
every request reads ``tokens.get(cookie)``; ``/logout`` deletes every key whose value is the
person's name (iterating ``tokens.keys()``) or only the cookie's own. The store has no tokens to
iterate, so iteration yields ``ListedLogin`` keys (a digest, with the name read along with it):
they work as keys of this mapping only as the objects iteration made; a string sent by a browser
is always taken as a token and hashed, so knowing a digest logs no one in.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

from ..config import Settings
from ..store import Store
from ._access import PLAYER_PREFIX

log = logging.getLogger(__name__)

_COOKIE_LABEL = b"vibesearch login cookie"


class ListedLogin(str):
    """A key ``SharedLogins`` iteration yields: the stored digest (as the string) and the login
    name read with it. Only these objects address a login by digest."""

    username: str

    def __new__(cls, token_sha256: str, username: str) -> "ListedLogin":
        key = super().__new__(cls, f"sha256:{token_sha256}")
        key.username = username
        return key

    @property
    def token_sha256(self) -> str:
        return str.__str__(self)[len("sha256:"):]


class SharedLogins(MutableMapping[str, str]):
    """Gradio's ``app.tokens`` (token → login name) kept in the database, for ``ttl_s`` seconds
    from each login. Deleting a login that is already gone is not an error (another server may
    have ended it a moment before)."""

    def __init__(self, store: Store, ttl_s: float, cookie_id: str, users: Iterable[str]):
        self.store = store
        self.ttl_s = ttl_s
        self.cookie_id = cookie_id  # the app's cookie name part, the same on every server
        # the logins this server accepts (``VIBESEARCH_AUTH``): a stored login of a name taken out
        # of it counts for nothing here, though it outlives the restart that took it out
        self.users = frozenset(users)

    def __getitem__(self, key: str) -> str:
        if isinstance(key, ListedLogin):
            return key.username
        if type(key) is not str or not key:  # None: no cookie
            raise KeyError(key)
        name = self.store.login_user(key)
        if name is None or (name not in self.users and not self._player(name)):
            raise KeyError("<login token>")  # the token itself never reaches a message or a log
        return name

    def _player(self, name: str) -> bool:
        """A study's player login (made by a study link) counts while its play is stored."""
        return name.startswith(PLAYER_PREFIX) and self.store.study_play_of(name) is not None

    def __setitem__(self, key: str, value: str) -> None:
        if type(key) is not str or not key:
            raise TypeError("a login is a token string")
        self.store.put_login(key, value, self.ttl_s)

    def __delitem__(self, key: str) -> None:
        if isinstance(key, ListedLogin):
            self.store.delete_login_digest(key.token_sha256)
        elif type(key) is str and key:
            self.store.delete_login(key)

    def __iter__(self) -> Iterator[str]:
        return iter([ListedLogin(r.token_sha256, r.username) for r in self.store.logins()])

    def __len__(self) -> int:
        return len(self.store.logins())

    def __repr__(self) -> str:  # never the tokens (there are none here anyway)
        return f"SharedLogins({self.store.path!s})"


def cookie_id(secret_key: str) -> str:
    """The cookie's name part, the same on every server with the secret (an HMAC, not the secret)."""
    return hmac.new(secret_key.encode(), _COOKIE_LABEL, hashlib.sha256).hexdigest()[:32]


def shared_logins(settings: Settings, store: Store, users: Iterable[str]) -> SharedLogins | None:
    """The shared mapping, when a login is on (``users``: the logins of ``VIBESEARCH_AUTH``) and
    ``VIBESEARCH_SECRET_KEY`` is set; else None."""
    names = frozenset(users)
    key = settings.secret_key.get_secret_value() if settings.secret_key is not None else ""
    if not names or not key:
        return None
    return SharedLogins(store, settings.login_ttl_h * 3600.0, cookie_id(key), names)


def install(server_app: Any, logins: SharedLogins) -> None:
    """Put the shared logins into a running Gradio app (its ``server_app``, after Gradio's
    ``configure_app`` emptied its ``tokens``). A login made in the instant between the server
    starting and this call has the old cookie name and is lost: that person logs in again."""
    server_app.cookie_id = logins.cookie_id
    server_app.tokens = logins
    logins.store.purge_expired_logins()
    log.info("logins are shared by the app servers of this database (expire after %.1f h)", logins.ttl_s / 3600)
