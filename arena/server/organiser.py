"""The organiser's page of the league server and what its forms do: add an author (the sign-up link
and token shown once), freeze or unfreeze the league (as `arena tournament freeze` does: the
config's `frozen` key, which the league's run takes within seconds), let a refused upload in
anyway (its check's failure kept beside it), and the league's run as it goes."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.errors import ArenaError
from arena.server.auth import Viewer


async def organiser_page(request: Request, server: Any, viewer: Viewer, status: int = 200, **extra: Any) -> Response:
    action = request.path_params.get("action")
    if request.method == "POST":
        form = await request.form(max_files=0, max_fields=6)
        given = form.get("csrf")
        if not viewer.csrf_ok(given if isinstance(given, str) else None):
            return server.page(request, "message.html", viewer, status=403, heading="Refused",
                               text="This form is out of date or came from another site: open the page again.",
                               back="/organiser")
        try:
            result = await server.reader.run(_act, server, action or "", dict(form))
        except ArenaError as exc:
            return server.page(request, "message.html", viewer, status=400, heading="Not done", text=str(exc),
                               back="/organiser")
        if result is None:
            return RedirectResponse("/organiser", status_code=303)
        extra = {"new_author": result}
    return server.page(request, "organiser.html", viewer, status=status, **await server.reader.run(_context, server),
                       **extra)


def _act(server: Any, action: str, form: dict[str, Any]) -> dict[str, str] | None:
    from arena.server import accounts

    if action == "authors":
        name = str(form.get("name") or "")
        code, token = accounts.add_author(server.store, name, organiser=form.get("organiser") == "1")
        return {"name": name, "link": f"{server.settings.base_url}/signup/{code}", "token": token}
    if action == "freeze":
        from arena.tournament.config_write import set_frozen

        set_frozen(server.settings.config, frozen=form.get("undo") != "1")
        return None
    if action.startswith("let-in/") and action.removeprefix("let-in/").isdigit():
        from arena.server.entering import let_in

        let_in(server.paths, server.store, int(action.removeprefix("let-in/")))
        return None
    raise ArenaError(f"no such action: {action[:40]}")


def _context(server: Any) -> dict[str, Any]:
    from arena.server import accounts
    from arena.tournament.config import load_config
    from arena.tournament.league_final import final_size
    from arena.wording import count

    config = load_config(server.settings.config)
    tables, games = final_size(config)
    words = (f"{config.name}: {count(len(config.playing), 'bot')}, tables of {config.table_size}, "
             f"{count(config.deals, 'deal')} a table; seed kept in {server.settings.config.name}")
    return {"league_words": words, "frozen": config.frozen, "run": server.league.status(),
            "final_words": f"{count(tables, 'table')}, {count(games, 'game')}",
            "authors": accounts.list_authors(server.store),
            "uploads": [up.as_dict() for up in server.store.uploads()]}


__all__ = ["organiser_page"]
