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


def add_author(store: ServerStore, name: str, organiser: bool = False) -> tuple[str, str]:
    """A new author: (their one-time sign-up code, their API token)."""
    if not NAME_RE.match(name):
        raise AccountError(f"{name!r}: an author's name is {NAME_RULE}")
    code, token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    taken = store.add_author(name, ORGANISER if organiser else AUTHOR, _digest(token), _digest(code),
                             time.time() + SIGNUP_DAYS * 86400)
    if taken is not None:
        raise AccountError(f"{taken[0]} is an author already{' (arena author token gives a new token)' if taken[0] == name else ', a name too like it'}")
    return code, token


def author_named(store: ServerStore, name: str) -> Author | None:
    row = store.author_row(name)
    return _author(row) if row else None


def author_by_token(store: ServerStore, token: str) -> Author | None:
    if not token or len(token) > 256:
        return None
    wanted = _digest(token)
    row = store.author_row_by_token(wanted)
    if row and hmac.compare_digest(row[4], wanted):
        return _author(row)
    return None


def signup_name(store: ServerStore, code: str) -> str | None:
    return store.signup_name(_digest(code), time.time())


def redeem_signup(store: ServerStore, code: str, password: str) -> Author:
    """The author's password set through their link, which then works no more."""
    name = signup_name(store, code)
    if name is None:
        raise AccountError("this sign-up link was used already or has expired: ask the organiser for a new one")
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    if password.strip().lower() == name.lower():
        raise AccountError("a password must not be your name")
    if not store.redeem_signup(name, _digest(code), _hasher().hash(password)):
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

    name, client = name[:64], client[:64]
    attempt, held_since = store.count_signin(name, client, FAILURE_WINDOW_S, (NAME_FAILURES, CLIENT_FAILURES))
    if not attempt:  # the ceiling-th newest failure is still in the window: wait until it leaves
        minutes = max(1, -(-int(held_since + FAILURE_WINDOW_S - time.time()) // 60))
        raise AccountError(f"too many failed sign-ins: wait {minutes} minute{'s' if minutes > 1 else ''} "
                           "and try again")
    stored = store.password_hash(name)
    try:
        _hasher().verify(stored or _stand_in(), password[:MAX_PASSWORD + 1])
        found = author_named(store, name) if stored and len(password) <= MAX_PASSWORD else None
    except VerificationError:
        found = None
    if found is None:
        raise AccountError("wrong name or password")
    store.forget_signin(attempt)
    return found


@lru_cache(maxsize=1)
def _stand_in() -> str:
    """The hash of a password nobody has: what a sign-in with no such author is verified against."""
    return _hasher().hash(secrets.token_urlsafe(32))


def list_authors(store: ServerStore) -> list[Author]:
    return [_author(row) for row in store.author_rows()]


def remove_author(store: ServerStore, name: str) -> None:
    """Their token, password and sessions stop at once; their uploads and bots stay."""
    if not store.remove_author(name):
        raise AccountError(f"no author {name} here (arena author list names them)")


def new_token(store: ServerStore, name: str) -> str:
    """A new API token for the author; the old one stops working."""
    token = secrets.token_urlsafe(32)
    if not store.set_token(name, _digest(token)):
        raise AccountError(f"no author {name} here (arena author list names them)")
    return token


def new_signup(store: ServerStore, name: str) -> str:
    """A new one-time sign-up code for the author (a forgotten password: the organiser sends it)."""
    code = secrets.token_urlsafe(32)
    if not store.set_signup(name, _digest(code), time.time() + SIGNUP_DAYS * 86400):
        raise AccountError(f"no author {name} here (arena author list names them)")
    return code


__all__ = ["AUTHOR", "ORGANISER", "AccountError", "Author", "add_author", "author_by_token", "author_named",
           "check_password", "list_authors", "new_signup", "new_token", "redeem_signup", "remove_author",
           "signup_name"]
