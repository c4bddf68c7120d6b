"""The league server's pages: the leaderboard (live), the queue, a page per bot, each game's replay,
signing in and up, the upload form and the organiser's page. Every form carries the session's
CSRF token (arena/server/auth.py) and a form without it is refused with 403; every page is
rendered with Jinja2's escaping, bot-given text only ever as text."""

from __future__ import annotations

import html
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError
from arena.server.auth import COOKIE, Viewer

SIGNUP_CODE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def _server(request: Request) -> Any:
    return request.app.state.server


def _message(request: Request, viewer: Viewer, status: int, heading: str, text: str, back: str | None = None) -> Response:
    return _server(request).page(request, "message.html", viewer, status=status, heading=heading, text=text, back=back)


def _signed_in_or_page(request: Request) -> tuple[Any, Viewer] | Response:
    server = _server(request)
    viewer = server.viewer(request)
    if not server.may_read(viewer):
        return RedirectResponse("/signin", status_code=303)
    return server, viewer


async def board(request: Request) -> Response:
    found = _signed_in_or_page(request)
    if isinstance(found, Response):
        return found
    server, viewer = found
    from arena.server.api import _league_bots

    names = server.hub.board.bots or await server.reader.run(_league_bots, server)
    return server.page(request, "board.html", viewer, board=server.hub.board, bots=names)


async def queue(request: Request) -> Response:
    found = _signed_in_or_page(request)
    if isinstance(found, Response):
        return found
    server, viewer = found
    return server.page(request, "queue.html", viewer, board=server.hub.board)


async def bot(request: Request) -> Response:
    found = _signed_in_or_page(request)
    if isinstance(found, Response):
        return found
    server, viewer = found
    from arena.server.api import bot_page

    try:
        page = await bot_page(server, viewer, request.path_params["name"])
    except ArenaError as exc:
        return _message(request, viewer, 404, "No such bot", str(exc))
    return server.page(request, "bot.html", viewer, view=page.view, owner=page.owner, uploads=page.uploads,
                       may_see=page.may_see, chart=_history_chart(page.view.history))


def _history_chart(history: list[tuple[int, float]]) -> str:
    """The bot's rating as the games came in, a small SVG (numbers only: nothing a bot wrote)."""
    if len(history) < 2:
        return ""
    width, height = 600, 160
    xs, ys = [g for g, _ in history], [r for _, r in history]
    low, high = min(ys) - 20, max(ys) + 20
    points = " ".join(f"{width * (x - xs[0]) / max(1, xs[-1] - xs[0]):.1f},"
                      f"{height - height * (y - low) / (high - low):.1f}" for x, y in history)
    return (f'<svg class="history" viewBox="0 0 {width} {height}" role="img" aria-label="rating from '
            f'{ys[0]:.0f} to {ys[-1]:.0f} over {xs[-1]} games"><polyline fill="none" stroke="currentColor" '
            f'stroke-width="2" points="{points}"/><text x="4" y="14">{high - 20:.0f}</text>'
            f'<text x="4" y="{height - 4}">{low + 20:.0f}</text></svg>')


async def game(request: Request) -> Response:
    """The game's replay page (arena/report/replay_page.py), the stderr of other authors' bots left out."""
    found = _signed_in_or_page(request)
    if isinstance(found, Response):
        return found
    server, viewer = found
    number = request.path_params["number"]
    from arena.server.api import GAME_NUMBER, _game_for, _may_see, _with_results

    if not GAME_NUMBER.match(number):
        return _message(request, viewer, 404, "No such game", "A game is named by its number.")
    try:
        data = await server.reader.run(_with_results, server, _game_for, number, _may_see(server, viewer))
    except ArenaError as exc:
        return _message(request, viewer, 404, "No such game", str(exc))
    from arena.report.replay_page import replay_page

    roster = [entry["name"] for entry in data.get("bots", [])]
    return HTMLResponse(replay_page(data, roster=roster, back="/", back_words="the leaderboard"))


# ---- signing in, up and out ------------------------------------------------------------------------

async def signin(request: Request) -> Response:
    server = _server(request)
    viewer = server.viewer(request)
    if request.method == "GET":
        return _with_anonymous_session(request, server, viewer, "signin.html")
    form = await request.form(max_files=0, max_fields=4)
    if not viewer.csrf_ok(_text(form.get("csrf"))):
        return _message(request, viewer, 403, "Refused", "This form is out of date or came from another site: open "
                        "the sign-in page again.", "/signin")
    from arena.server import accounts

    client = request.client.host if request.client else ""
    try:
        author = accounts.check_password(server.store, _text(form.get("name")), _text(form.get("password")), client)
    except ArenaError as exc:
        return _message(request, viewer, 401 if "wait" not in str(exc) else 429, "Not signed in", str(exc), "/signin")
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, server.sessions.cookie_value(author.name), **server.sessions.cookie_settings())
    return response


async def signup(request: Request) -> Response:
    server = _server(request)
    viewer = server.viewer(request)
    code = request.path_params["code"]
    from arena.server import accounts

    if not 16 <= len(code) <= 128 or not set(code) <= SIGNUP_CODE_CHARS:
        return _message(request, viewer, 404, "No such sign-up link", "Ask the organiser for a new one.")
    name = accounts.signup_name(server.store, code)
    if name is None:
        return _message(request, viewer, 404, "No such sign-up link", "It was used already or has expired: ask the "
                        "organiser for a new one (arena author token, or add you again).")
    if request.method == "GET":
        return _with_anonymous_session(request, server, viewer, "signup.html", code=code, name=name)
    form = await request.form(max_files=0, max_fields=4)
    if not viewer.csrf_ok(_text(form.get("csrf"))):
        return _message(request, viewer, 403, "Refused", "This form is out of date or came from another site: open "
                        "your sign-up link again.")
    try:
        author = accounts.redeem_signup(server.store, code, _text(form.get("password")))
    except ArenaError as exc:
        return _message(request, viewer, 400, "Not signed up", str(exc), f"/signup/{code}")
    response = RedirectResponse("/upload", status_code=303)
    response.set_cookie(COOKIE, server.sessions.cookie_value(author.name), **server.sessions.cookie_settings())
    return response


def _with_anonymous_session(request: Request, server: Any, viewer: Viewer, template: str, **context: Any) -> Response:
    """A form's page for someone not signed in: an anonymous session holds its CSRF secret."""
    fresh = None
    if not viewer.csrf_secret:
        fresh = server.sessions.cookie_value(None)
        viewer = Viewer(csrf_secret=server.sessions.read(fresh)["csrf"])
    response = server.page(request, template, viewer, csrf=viewer.csrf_token(), **context)
    if fresh is not None:
        response.set_cookie(COOKIE, fresh, **server.sessions.cookie_settings())
    return response


async def signout(request: Request) -> Response:
    server = _server(request)
    viewer = server.viewer(request)
    form = await request.form(max_files=0, max_fields=2)
    if not viewer.csrf_ok(_text(form.get("csrf"))):
        return _message(request, viewer, 403, "Refused", "This form is out of date or came from another site.")
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


# ---- uploading ----------------------------------------------------------------------------------------

async def upload(request: Request) -> Response:
    server = _server(request)
    viewer = server.viewer(request)
    if not viewer.signed_in:
        return RedirectResponse("/signin", status_code=303)
    from arena.server.uploads import MAX_UPLOAD_BYTES

    context = {"max_mb": MAX_UPLOAD_BYTES // (1024 * 1024), "base_url": server.settings.base_url}
    if request.method == "POST":
        csrf = request.headers.get("x-csrf-token") or request.query_params.get("csrf")
        form_token = await _form_csrf(request)
        if not viewer.csrf_ok(csrf or form_token):
            return _message(request, viewer, 403, "Refused", "This form is out of date or came from another site: open "
                            "the upload page again.", "/upload")
        from arena.server.api import receive_upload

        status, body = await receive_upload(request, server, viewer)
        mine = [up.as_dict() for up in server.store.uploads(author=viewer.name)]
        if status >= 400:
            return server.page(request, "upload.html", viewer, status=status, flash=body["error"], flash_kind="warn",
                               uploads=mine, **context)
        return server.page(request, "upload.html", viewer, status=status, uploads=mine, flash=(
            f"{body['bot']} received: it is being built and checked; its page says when it enters the league."), **context)
    mine = [up.as_dict() for up in server.store.uploads(author=viewer.name)]
    return server.page(request, "upload.html", viewer, uploads=mine, **context)


async def _form_csrf(request: Request) -> str | None:
    form = await request.form(max_files=1, max_fields=4)  # parsed once; receive_upload reads the same form
    return _text(form.get("csrf"))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


# ---- the organiser ------------------------------------------------------------------------------------

async def organiser(request: Request) -> Response:
    server = _server(request)
    viewer = server.viewer(request)
    if not viewer.organiser:
        return _message(request, viewer, 403 if viewer.signed_in else 401, "Organisers only",
                        "This page is the organiser's.", "/")
    from arena.server.organiser import organiser_page

    return await organiser_page(request, server, viewer)


async def not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if request.url.path.startswith("/api/"):
        from arena.server.api import error

        return error(status, "no such path" if status == 404 else html.escape(str(getattr(exc, "detail", exc))))
    return _message(request, _server(request).viewer(request), status, "Not found" if status == 404 else "Refused",
                    "There is no such page here." if status == 404 else str(getattr(exc, "detail", "")), "/")


async def style(request: Request) -> Response:
    """The reports' style (one source: arena/report/html.py) and the server's own rules after it."""
    from pathlib import Path

    from arena.report.html import STYLE

    own = Path(__file__).resolve().parent / "static" / "server.css"
    return Response(STYLE + own.read_text(encoding="utf-8"), media_type="text/css",
                    headers={"Cache-Control": "max-age=300"})


ROUTES = [
    Route("/style.css", style), Route("/", board), Route("/queue", queue), Route("/bots/{name}", bot), Route("/games/{number}", game),
    Route("/signin", signin, methods=["GET", "POST"]), Route("/signup/{code}", signup, methods=["GET", "POST"]),
    Route("/signout", signout, methods=["POST"]), Route("/upload", upload, methods=["GET", "POST"]),
    Route("/organiser", organiser, methods=["GET"]),
    Route("/organiser/{action:path}", organiser, methods=["POST"]),
]
async def failed(request: Request, exc: Exception) -> Response:
    """A fault of the server's own: logged whole, said in a sentence (never a traceback to the reader)."""
    import logging

    logging.getLogger(__name__).error("%s %s failed", request.method, request.url.path, exc_info=exc)
    if request.url.path.startswith("/api/"):
        from arena.server.api import error

        return error(500, "the server could not answer this; the organiser finds why in its log")
    return HTMLResponse("<!DOCTYPE html><title>Not answered</title><main><h1>Not answered</h1><p>The server could "
                        "not show this page; the organiser finds why in its log. <a href=\"/\">The leaderboard</a></p>"
                        "</main>", status_code=500)


EXCEPTION_HANDLERS = {HTTPException: not_found, Exception: failed}

__all__ = ["EXCEPTION_HANDLERS", "ROUTES"]
