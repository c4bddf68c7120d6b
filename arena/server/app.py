"""The league server's web application (issue 44): Starlette under uvicorn, Jinja2 pages, server-sent
events for the live leaderboard, a JSON API beside every page. It only words what the layers below
decide: the league's results (arena/server/reader.py), the accounts and uploads (arena/server/
store.py, accounts.py, uploads.py), the league's run (arena/server/league.py).

    app = build_app(ServerSettings(config_path))      # then: uvicorn.run(app, host=..., port=...)

Routes: pages.py (HTML) and api.py (JSON, SSE); both read `request.app.state.server`."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from arena.server.auth import ANONYMOUS, COOKIE, Sessions, Viewer, bearer_token
from arena.server.league import LeagueRunner, LiveHub, freeze_objects_so_far
from arena.server.paths import ServerPaths
from arena.server.reader import LeagueReader
from arena.server.uploads import MAX_UPLOAD_BYTES, UploadChecks

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ServerSettings:
    """What the organiser's command line says of the server."""

    config: Path
    base_url: str = "http://127.0.0.1:8000"  # what sign-up links start with
    secure_cookies: bool = False  # behind HTTPS (a reverse proxy): cookies only over HTTPS
    public: bool = False  # the leaderboard and replays to anyone, signed in or not
    play: bool = True  # play the league (off: serve its results only)
    own_process: bool = False  # `arena serve`: the process is the server's to tune (not the tests' app in theirs)


class Server:
    """Everything a request may need, made once at start-up."""

    def __init__(self, settings: ServerSettings) -> None:
        from arena.server.store import ServerStore

        self.settings = settings
        self.paths = ServerPaths(settings.config)
        self.paths.make()
        self.store = ServerStore(self.paths.server_file)
        self.sessions = Sessions(self.store.secret_key(), settings.secure_cookies)
        self.store.set_base_url(settings.base_url)  # `arena author add` gives links that start with it
        self.reader = LeagueReader(settings.config)
        self.hub = LiveHub(self.reader, on_first_board=freeze_objects_so_far if settings.own_process else None)
        self.league = LeagueRunner(self.paths, play=settings.play)
        self.checks = UploadChecks(self.paths, self.store.waiting_uploads)
        # The templates ship with the arena: read once, not looked at again for changes at every page.
        self.templates = Jinja2Templates(env=jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                                                                autoescape=True, auto_reload=False))

    def viewer(self, request: Request) -> Viewer:
        """The signed-in author of the request (by token or cookie), else an anonymous viewer with
        the CSRF secret of its anonymous session, if it has one."""
        from arena.server import accounts

        token = bearer_token(request.headers.get("authorization"))
        if token is not None:
            author = accounts.author_by_token(self.store, token)
            return ANONYMOUS if author is None else Viewer(author.name, author.organiser, by_token=True)
        session = self.sessions.read(request.cookies.get(COOKIE))
        if session is None:
            return ANONYMOUS
        name = session["name"]
        author = accounts.author_named(self.store, name) if name else None
        if name and author is None:  # removed since: signed out
            return Viewer(csrf_secret=session["csrf"])
        return Viewer(name, author.organiser if author else False, session["csrf"])

    def may_read(self, viewer: Viewer) -> bool:
        return self.settings.public or viewer.signed_in

    def page(self, request: Request, template: str, viewer: Viewer, status: int = 200, **context: Any) -> Response:
        league = self.hub.board.league or self.settings.config.stem
        response = self.templates.TemplateResponse(request, template, {"viewer": viewer, "league": league, **context},
                                                   status_code=status)
        _secure_headers(response)
        return response


def _secure_headers(response: Response) -> None:
    response.headers.setdefault("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; "
                                "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")


class BodyLimit:
    """Refuses a request body over MAX_UPLOAD_BYTES (and a bit for the form around it) with 413 while
    it arrives: neither a Content-Length that says more nor a chunked body that grows past it is read."""

    def __init__(self, app: Any, limit: int = MAX_UPLOAD_BYTES + 64 * 1024) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _too_large(send, self.limit)
        seen = 0

        async def limited() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge()
            return message
        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(send, self.limit)


class _TooLarge(Exception):
    pass


async def _too_large(send: Any, limit: int) -> None:
    body = f'{{"error": "the request is over {limit // (1024 * 1024)} MB: an archive may be at most {MAX_UPLOAD_BYTES // (1024 * 1024)} MB"}}'.encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def build_app(settings: ServerSettings) -> Starlette:
    from arena.server import api, pages

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server = Server(settings)
        app.state.server = server
        server.store.recover_uploads()  # received but not checked, or checked half-way: checked again
        server.hub.start()
        server.league.start()
        server.checks.start()
        try:
            yield
        finally:
            await server.checks.stop()
            await server.league.stop()
            await server.hub.stop()
            server.reader.close()
            server.store.close()

    routes = [*pages.ROUTES, *api.ROUTES, Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")]
    return Starlette(routes=routes, lifespan=lifespan, middleware=[Middleware(BodyLimit)],
                     exception_handlers=pages.EXCEPTION_HANDLERS)


__all__ = ["BodyLimit", "Server", "ServerSettings", "build_app"]
