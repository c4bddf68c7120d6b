"""The league server's authors: the organiser adds one (`arena author add`), which gives a one-time
sign-up link and an API token; the author chooses a password through the link; signing in is
checked against an argon2 hash and limited; a token names its author. Secrets are never stored:
passwords as argon2 hashes (argon2-cffi, its recommended costs), tokens and codes as SHA-256 of
random values (they carry 32 random bytes: no table or guess reaches them), compared in constant
time. Each refusal is an AccountError with its sentence."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arena.errors import ArenaError
from arena.protocol.messages import NAME_RE, NAME_RULE
from arena.server.store import ServerStore

SIGNUP_DAYS = 7
MIN_PASSWORD = 10
MAX_PASSWORD = 1024
NAME_FAILURES, CLIENT_FAILURES, FAILURE_WINDOW_S = 5, 20, 15 * 60
ORGANISER, AUTHOR = "organiser", "author"


class AccountError(ArenaError):
    pass


@dataclass(frozen=True)
class Author:
    name: str
    role: str
    signed_up: bool
    created_at: float

    @property
    def organiser(self) -> bool:
        return self.role == ORGANISER


@lru_cache(maxsize=1)
def _hasher() -> Any:
    from argon2 import PasswordHasher

    if os.environ.get("ARENA_ARGON2_FAST") == "1":  # tests only: the same algorithm at a tiny cost
        return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    return PasswordHasher()


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def _author(row: tuple) -> Author:
    return Author(row[0], row[1], row[2] is not None, row[3])


_AUTHOR = "SELECT name, role, password_hash, created_at FROM authors"


def add_author(store: ServerStore, name: str, organiser: bool = False) -> tuple[str, str]:
    """A new author: (their one-time sign-up code, their API token)."""
    if not NAME_RE.match(name):
        raise AccountError(f"{name!r}: an author's name is {NAME_RULE}")
    code, token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    with store._write() as db:
        taken = db.execute("SELECT name, removed_at FROM authors WHERE lower(name) = lower(?)", (name,)).fetchone()
        if taken is not None and (taken[0] != name or taken[1] is None):
            raise AccountError(f"{taken[0]} is an author already{' (arena author token gives a new token)' if taken[0] == name else ', a name too like it'}")
        if taken is not None:  # removed before: back, with new credentials and nothing of the old ones
            db.execute("DELETE FROM authors WHERE name = ?", (name,))
        db.execute("INSERT INTO authors (name, role, token_hash, signup_hash, signup_expires, created_at) "
                   "VALUES (?, ?, ?, ?, ?, ?)", (name, ORGANISER if organiser else AUTHOR, _digest(token), _digest(code),
                                                 time.time() + SIGNUP_DAYS * 86400, time.time()))
    return code, token


def author_named(store: ServerStore, name: str) -> Author | None:
    rows = store.rows(f"{_AUTHOR} WHERE name = ? AND removed_at IS NULL", (name,))
    return _author(rows[0]) if rows else None


def author_by_token(store: ServerStore, token: str) -> Author | None:
    if not token or len(token) > 256:
        return None
    wanted = _digest(token)
    rows = store.rows("SELECT name, role, password_hash, created_at, token_hash FROM authors "
                      "WHERE token_hash = ? AND removed_at IS NULL", (wanted,))
    if rows and hmac.compare_digest(rows[0][4], wanted):
        return _author(rows[0])
    return None


def signup_name(store: ServerStore, code: str) -> str | None:
    rows = store.rows("SELECT name FROM authors WHERE signup_hash = ? AND signup_expires > ? AND removed_at IS NULL",
                      (_digest(code), time.time()))
    return rows[0][0] if rows else None


def redeem_signup(store: ServerStore, code: str, password: str) -> Author:
    """The author's password set through their link, which then works no more."""
    name = signup_name(store, code)
    if name is None:
        raise AccountError("this sign-up link was used already or has expired: ask the organiser for a new one")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if password.strip().lower() == name.lower():
        raise AccountError("a password must not be your name")
    hashed = _hasher().hash(password)
    with store._write() as db:
        changed = db.execute("UPDATE authors SET password_hash = ?, signup_hash = NULL, signup_expires = NULL "
                             "WHERE name = ? AND signup_hash = ?", (hashed, name, _digest(code))).rowcount
    if not changed:
        raise AccountError("this sign-up link was used already: sign in")
    found = author_named(store, name)
    assert found is not None
    return found


def check_password(store: ServerStore, name: str, password: str, client: str) -> Author:
    """The author, if the password is theirs. The attempt is counted as a failure, in the same
    transaction that checks the limit, before any hash is computed (so that attempts sent together
    cannot all pass the count), and forgotten if the password is right. A name that is no author's
    is verified against a stand-in hash, so that it takes as long and reads the same."""
    from argon2.exceptions import VerificationError

    name, client, now = name[:64], client[:64], time.time()
    with store._write() as db:
        for column, value, ceiling in (("name", name, NAME_FAILURES), ("client", client, CLIENT_FAILURES)):
            oldest = db.execute(f"SELECT at FROM signin_failures WHERE {column} = ? AND at > ? ORDER BY at DESC "
                                "LIMIT 1 OFFSET ?", (value, now - FAILURE_WINDOW_S, ceiling - 1)).fetchone()
            if oldest is not None:  # the ceiling-th newest failure is still in the window: wait until it leaves
                minutes = max(1, -(-int(oldest[0] + FAILURE_WINDOW_S - now) // 60))
                raise AccountError(f"too many failed sign-ins: wait {minutes} minute{'s' if minutes > 1 else ''} "
                                   "and try again")
        attempt = db.execute("INSERT INTO signin_failures VALUES (?, ?, ?)", (name, client, now)).lastrowid
        db.execute("DELETE FROM signin_failures WHERE at < ?", (now - 86400,))
    rows = store.rows("SELECT password_hash FROM authors WHERE name = ? AND removed_at IS NULL", (name,))
    hashed = rows[0][0] if rows and rows[0][0] else _stand_in()
    try:
        _hasher().verify(hashed, password[:MAX_PASSWORD + 1])
        found = author_named(store, name) if rows and rows[0][0] and len(password) <= MAX_PASSWORD else None
    except VerificationError:
        found = None
    if found is None:
        raise AccountError("wrong name or password")
    with store._write() as db:
        db.execute("DELETE FROM signin_failures WHERE rowid = ?", (attempt,))
    return found


@lru_cache(maxsize=1)
def _stand_in() -> str:
    """The hash of a password nobody has: what a sign-in with no such author is verified against."""
    return _hasher().hash(secrets.token_urlsafe(32))


def list_authors(store: ServerStore) -> list[Author]:
    return [_author(row) for row in store.rows(f"{_AUTHOR} WHERE removed_at IS NULL ORDER BY created_at, name")]


def remove_author(store: ServerStore, name: str) -> None:
    """Their token, password and sessions stop at once; their uploads and bots stay."""
    with store._write() as db:
        if not db.execute("UPDATE authors SET removed_at = ?, token_hash = NULL, password_hash = NULL, "
                          "signup_hash = NULL WHERE name = ? AND removed_at IS NULL", (time.time(), name)).rowcount:
            raise AccountError(f"no author {name} here (arena author list names them)")


def new_token(store: ServerStore, name: str) -> str:
    """A new API token for the author; the old one stops working."""
    token = secrets.token_urlsafe(32)
    with store._write() as db:
        if not db.execute("UPDATE authors SET token_hash = ? WHERE name = ? AND removed_at IS NULL",
                          (_digest(token), name)).rowcount:
            raise AccountError(f"no author {name} here (arena author list names them)")
    return token


def new_signup(store: ServerStore, name: str) -> str:
    """A new one-time sign-up code for the author (a forgotten password: the organiser sends it)."""
    code = secrets.token_urlsafe(32)
    with store._write() as db:
        if not db.execute("UPDATE authors SET signup_hash = ?, signup_expires = ? WHERE name = ? AND removed_at IS NULL",
                          (_digest(code), time.time() + SIGNUP_DAYS * 86400, name)).rowcount:
            raise AccountError(f"no author {name} here (arena author list names them)")
    return code


__all__ = ["AUTHOR", "ORGANISER", "AccountError", "Author", "add_author", "author_by_token", "author_named",
           "check_password", "list_authors", "new_signup", "new_token", "redeem_signup", "remove_author",
           "signup_name"]
