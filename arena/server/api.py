"""The league server's JSON API, the same paths the pages read (`/api/standings` is `arena standings
--format json`), its live events, and the upload every way in (form, `arena submit`, curl) shares.

    GET  /api/standings[.csv]      GET /api/bots           GET /api/bots/NAME
    GET  /api/games?bot=NAME       GET /api/games/N        GET /api/events (server-sent events)
    POST /api/bots                 (multipart, field `archive`; Authorization: Bearer TOKEN)

Errors are JSON `{"error": sentence}` with a 4xx: 401 without a valid token or session, 403 for
what the author may not do, 404 for what is not there, 400/413/422 for a refused archive."""

from __future__ import annotations

import json
import random
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from arena.errors import ArenaError
from arena.server.auth import Viewer
from arena.submission.manifest import NAME_RE

GAME_NUMBER = re.compile(r"^[1-9][0-9]{0,17}$")
KEEPALIVE_S = 15.0
# When the stream breaks (the server restarted), each live client waits a time of its own in this
# range before it reconnects, so that a classroom of open pages does not come back in one burst
# (200 clients connecting at once held pages for 450-800 ms in benchmarks/server.py).
RECONNECT_MS = (1_000, 6_000)


def error(status: int, sentence: str) -> JSONResponse:
    return JSONResponse({"error": sentence}, status_code=status)


def _server(request: Request) -> Any:
    return request.app.state.server


def _reader_or_401(request: Request) -> tuple[Any, Viewer] | JSONResponse:
    server = _server(request)
    viewer = server.viewer(request)
    if not server.may_read(viewer):
        return error(401, "sign in, or send an author's token (Authorization: Bearer TOKEN)")
    return server, viewer


async def standings(request: Request) -> Response:
    found = _reader_or_401(request)
    if isinstance(found, JSONResponse):
        return found
    board = found[0].hub.board
    if request.url.path.endswith(".csv"):
        return PlainTextResponse(board.csv, media_type="text/csv",
                                 headers={"Content-Disposition": 'attachment; filename="standings.csv"'})
    return JSONResponse(board.standings or {"games": 0, "bots": [], "note": board.note})


async def bots(request: Request) -> Response:
    if request.method == "POST":
        return await post_bot(request)
    found = _reader_or_401(request)
    if isinstance(found, JSONResponse):
        return found
    server, _ = found
    rows = {row["bot"]: row for row in (server.hub.board.standings or {}).get("bots", [])}
    owners = server.store.bot_owners()
    names = server.hub.board.bots or await server.reader.run(_league_bots, server)
    return JSONResponse({"bots": [{"name": name, "author": owners.get(name), "state": _state(server, name),
                                   "standing": rows.get(name)} for name in names]})


def _league_bots(server: Any) -> list[str]:
    results = server.reader.results()
    if results is not None:
        return list(results.config.bots)
    from arena.tournament.config import load_config

    return [Path(entry).name for entry in load_config(server.settings.config).bots]


def _state(server: Any, name: str) -> dict[str, Any] | None:
    """The bot's latest upload: checking, entered, refused (with why) or forced; None for a house bot."""
    latest = server.store.latest_upload(name)
    if latest is None:
        return None
    return {"upload": latest.id, "state": latest.state, "reason": latest.reason, "version": latest.version}


@dataclass(frozen=True)
class BotPage:
    """What the bot's page and its JSON show, for one viewer."""

    view: Any  # views.BotView: its figures (empty before its first game)
    owner: str | None  # its author; None for a house bot
    may_see: bool  # its logs and stderr: its author's and the organiser's only
    uploads: list[dict[str, Any]]


async def bot_page(server: Any, viewer: Viewer, name: str) -> BotPage:
    """The bot's page for `viewer`; ArenaError (a 404) for a name no bot of the league has."""
    from arena.server.views import BotView, bot_view

    if not NAME_RE.match(name):
        raise ArenaError("no such bot: a bot's name is letters, digits, _ . -")
    try:
        view = await server.reader.run(_with_results, server, bot_view, name)
    except ArenaError:
        if server.store.latest_upload(name) is None:
            raise
        view = BotView(name, None, None)  # uploaded, not played yet
    owner = server.store.bot_owners().get(name)
    may_see = viewer.organiser or (owner is not None and owner == viewer.name)
    return BotPage(view, owner, may_see, [up.as_dict(with_logs=may_see) for up in server.store.uploads(bot=name)])


async def bot(request: Request) -> Response:
    found = _reader_or_401(request)
    if isinstance(found, JSONResponse):
        return found
    server, viewer = found
    try:
        page = await bot_page(server, viewer, request.path_params["name"])
    except ArenaError as exc:
        return error(404, str(exc))
    view = page.view
    return JSONResponse({"name": view.name, "author": page.owner, "state": _state(server, view.name),
                         "uploads": page.uploads, "standing": view.standing, "rank": view.rank,
                         "rating_history": view.history, "head_to_head": view.head_to_head, "games": view.games,
                         "faults": view.faults})


def _with_results(server: Any, work: Any, *args: Any) -> Any:
    results = server.reader.results()
    if results is None:
        raise ArenaError("the league has no stored game yet")
    return work(results, *args)


async def games(request: Request) -> Response:
    found = _reader_or_401(request)
    if isinstance(found, JSONResponse):
        return found
    server, _ = found
    name = request.query_params.get("bot")
    if name is not None and not NAME_RE.match(name):
        return error(400, "bot: a bot's name is letters, digits, _ . -")
    try:
        limit = min(500, max(1, int(request.query_params.get("limit", "50"))))
    except ValueError:
        return error(400, "limit: expected a whole number")

    def newest(results: Any) -> list[dict]:
        return [line.as_dict() for line in results.newest_games((name,) if name else (), limit)]
    try:
        lines = await server.reader.run(_with_results, server, newest)
    except ArenaError as exc:
        return error(404, str(exc))
    return JSONResponse({"games": lines})


async def game(request: Request) -> Response:
    found = _reader_or_401(request)
    if isinstance(found, JSONResponse):
        return found
    server, viewer = found
    number = request.path_params["number"]
    if not GAME_NUMBER.match(number):
        return error(404, "no such game: a game is named by its number")
    try:
        data = await server.reader.run(_with_results, server, _game_for, number, _may_see(server, viewer))
    except ArenaError as exc:
        return error(404, str(exc))
    return JSONResponse(data)


def _game_for(results: Any, number: str, may_see: set[str] | None) -> dict:
    from arena.server.views import game_data

    return game_data(results, number, may_see)


def _may_see(server: Any, viewer: Viewer) -> set[str] | None:
    """The bots whose stderr the viewer may see: all (None) for the organiser, else their own."""
    if viewer.organiser:
        return None
    return {bot for bot, author in server.store.bot_owners().items() if author == viewer.name} if viewer.name else set()


async def events(request: Request) -> Response:
    from sse_starlette.event import ServerSentEvent
    from sse_starlette.sse import EventSourceResponse

    found = _reader_or_401(request)
    if isinstance(found, JSONResponse):
        return found
    server, _ = found
    try:
        seen = int(request.query_params.get("after", "-1"))
    except ValueError:
        seen = -1

    async def stream() -> AsyncIterator[bytes]:
        nonlocal seen
        yield ServerSentEvent(retry=random.randint(*RECONNECT_MS)).encode()
        first = True
        while True:
            board = await server.hub.next_board(seen, KEEPALIVE_S)
            if board is None:
                continue  # sse-starlette sends its own pings
            seen = board.last_game_id
            # Encoded once for every client (arena/server/league.py); the first has the chart.
            yield server.hub.first_event if first else server.hub.event
            first = False
    return EventSourceResponse(stream(), ping=int(KEEPALIVE_S))


# ---- uploads -------------------------------------------------------------------------------------


async def post_bot(request: Request) -> Response:
    server = _server(request)
    viewer = server.viewer(request)
    if not viewer.by_token:
        return error(401, "send your token: Authorization: Bearer TOKEN (arena author token prints a new one)")
    status, body = await receive_upload(request, server, viewer)
    return JSONResponse(body, status_code=status)


async def receive_upload(request: Request, server: Any, viewer: Viewer) -> tuple[int, dict[str, Any]]:
    """The upload of the module's docstring: (status, JSON body), the upload's or the refusal's."""
    from arena.server.uploads import MAX_UPLOAD_BYTES

    try:
        form = await request.form(max_files=1, max_fields=4)
    except Exception as exc:  # noqa: BLE001 - a body that is no form: the client's mistake, said
        return 400, {"error": f"expected a multipart form with the archive in the field `archive` ({exc})"}
    archive = form.get("archive")
    if archive is None or isinstance(archive, str):
        return 400, {"error": "expected the archive in the form field `archive` (curl -F archive=@bot.tar.gz)"}
    ticket = secrets.token_hex(8)
    received = server.paths.staging / f"{ticket}.archive"
    size = 0
    with open(received, "wb") as out:
        while chunk := await archive.read(1 << 16):
            size += len(chunk)
            if size > MAX_UPLOAD_BYTES:
                out.close()
                received.unlink(missing_ok=True)
                return 413, {"error": f"the archive is over {MAX_UPLOAD_BYTES // (1024 * 1024)} MB"}
            out.write(chunk)
    status, body = await server.reader.run(_take_upload, server, viewer, received, ticket)
    if status == 202:
        server.checks.wake()  # here, on the loop: its event is not for other threads to set
    return status, body


def _take_upload(server: Any, viewer: Viewer, received: Path, ticket: str) -> tuple[int, dict[str, Any]]:
    """Unpacked and its name checked (on a worker thread, not the pages' loop), then recorded."""
    from arena.submission.intake import ArchiveRefused, unpack_archive

    folder = server.paths.staging / ticket
    try:
        unpacked = unpack_archive(received, folder)
    except ArchiveRefused as exc:
        received.unlink(missing_ok=True)
        return 422, {"error": f"archive refused: {exc.reason}"}
    name = unpacked.name
    owner = server.store.bot_owners().get(name)
    house = owner is None and name in _league_bots(server)
    if house or (owner is not None and owner != viewer.name and not viewer.organiser):
        shutil.rmtree(folder, ignore_errors=True)
        received.unlink(missing_ok=True)
        whose = "one of the league's own bots" if house else "another author's bot"
        return 403, {"error": f"{name} is {whose}: name yours otherwise in its bot.toml"}
    from arena.server.store import OwnerError

    try:
        upload = server.store.add_upload(viewer.name, name, str(folder), received, any_bot=viewer.organiser)
    except OwnerError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        return 403, {"error": str(exc)}
    return 202, {"upload": upload.id, "bot": name, "state": upload.state, "status": f"/api/bots/{name}",
                 "files": unpacked.files, "bytes": unpacked.bytes}


ROUTES = [
    Route("/api/standings", standings), Route("/api/standings.csv", standings),
    Route("/api/bots", bots, methods=["GET", "POST"]), Route("/api/bots/{name}", bot),
    Route("/api/games", games), Route("/api/games/{number}", game), Route("/api/events", events),
]

__all__ = ["ROUTES", "error", "receive_upload"]
