"""Who is asking, for the league server's pages and API: a signed session cookie (itsdangerous),
or an author's API token (`Authorization: Bearer T`); and the CSRF token every form carries.

The cookie holds the author's name and a CSRF secret, signed with the server's key (kept in the
server file, made once), HttpOnly, SameSite=Lax, Secure when the organiser says the server is
behind HTTPS (`arena serve --secure-cookies`), and valid for SESSION_DAYS. A cookie signed with
another key, altered, or older than that is no session: the reader is signed out. A removed
author's cookie and token stop working at once (each request looks the author up).

A form's CSRF token is an HMAC of the session's secret: a page of another site cannot read it,
so it cannot make a signed-in browser post a form here. API calls with a token need none (a
browser never sends the token by itself)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE = "arena_session"
SESSION_DAYS = 14
SESSION_S = SESSION_DAYS * 86400


@dataclass(frozen=True)
class Viewer:
    """The person behind a request: `name` None for someone not signed in."""

    name: str | None = None
    organiser: bool = False
    csrf_secret: str = ""
    by_token: bool = False

    @property
    def signed_in(self) -> bool:
        return self.name is not None

    def csrf_token(self) -> str:
        return hmac.new(self.csrf_secret.encode(), b"arena-csrf", hashlib.sha256).hexdigest() if self.csrf_secret else ""

    def csrf_ok(self, given: str | None) -> bool:
        return bool(self.csrf_secret) and given is not None and hmac.compare_digest(self.csrf_token(), given)


ANONYMOUS = Viewer()


class Sessions:
    """Signs and reads session cookies with the server's key."""

    def __init__(self, key: str, secure: bool) -> None:
        self._serializer = URLSafeTimedSerializer(key, salt="arena-session")
        self.secure = secure

    def cookie_value(self, name: str | None) -> str:
        """A session of `name`, or an anonymous one (None) that only holds a form's CSRF secret."""
        return self._serializer.dumps({"name": name, "csrf": secrets.token_urlsafe(24)})

    def read(self, value: str | None) -> dict[str, Any] | None:
        """The session's contents, or None for no cookie, a forged or altered one, or an expired one."""
        if not value or len(value) > 4096:
            return None
        try:
            data = self._serializer.loads(value, max_age=SESSION_S)
        except BadSignature:  # SignatureExpired is one
            return None
        if not isinstance(data, dict) or not isinstance(data.get("name"), (str, type(None))) or \
                not isinstance(data.get("csrf"), str):
            return None
        return data

    def cookie_settings(self) -> dict[str, Any]:
        return {"max_age": SESSION_S, "httponly": True, "samesite": "lax", "secure": self.secure, "path": "/"}


def bearer_token(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer T` header, else None."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


__all__ = ["ANONYMOUS", "COOKIE", "SESSION_DAYS", "Sessions", "Viewer", "bearer_token"]
