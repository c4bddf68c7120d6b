"""A league's deadline (issue 43): `arena tournament freeze` writes `frozen = true` into its config;
from then on no bot enters and no new version is taken, and the league plays a final round robin
of the bots entered, in the same results.

Which games count: the final round robin's. When a frozen league is first opened, every game of
the league before the freeze leaves the standings (superseded, kept whole: `arena games
--superseded only` lists them, the replays show them), the tables it had queued are dropped, and
the final round robin's tables are queued: every combination of the playing bots, each a duplicate
set of `deals` deals, numbered after the league's last table. The standings and ratings then count
those games alone, and say so; the run ends when the last is stored, and the tournament is
complete. A run killed between the two steps does them again: the first has nothing left to move."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Callable

from arena.errors import ArenaError
from arena.results.league_queue import DROPPED, QUEUED, LeagueTable, end_table, league_tables, next_table_number
from arena.results.league_queue import queue_tables, tables_of_reason
from arena.results.store import ResultStore
from arena.tournament.config import TournamentConfig
from arena.wording import count
from arena.wording import shell_command as command

FINAL = "final"  # the reason of a final round robin's table
# The reason kept with each game of the league moved out of the standings at the freeze (a bot's
# name has no blank, so no resubmission's reason, "NAME: version ...", reads as this one).
BEFORE_FREEZE = "played before the league's freeze"


def final_size(config: TournamentConfig) -> tuple[int, int]:
    """The final round robin's tables and games, for the config's playing bots."""
    tables = math.comb(len(config.playing), config.table_size)
    return tables, tables * config.deals * math.factorial(config.table_size)


def refuse_after_freeze(config: TournamentConfig, stored: dict | None, versions: dict[str, str]) -> None:
    """A frozen league takes no bot added and no new version: ArenaError saying which, and how on."""
    if not config.frozen or stored is None:
        return
    entered = str(stored.get("bots") or "").split(",")
    stored_versions = dict(pair.split("=", 1) for pair in str(stored.get("bot_versions") or "").split(",") if "=" in pair)
    added = [name for name in config.bots if name not in entered]
    changed = [name for name in config.playing if name in stored_versions and versions.get(name) != stored_versions[name]]
    if not added and not changed:
        return
    parts = ([f"{', '.join(added)} {'was' if len(added) == 1 else 'were'} added to its bots"] if added else []) + \
        [f"{name}'s files changed (version {stored_versions[name]} entered, now {versions.get(name)})" for name in changed]
    raise ArenaError(f"{config.path}: the league is frozen (frozen = true), so no bot enters and no new version is "
                     f"taken, but {'; '.join(parts)}. Put the entered bots back as they were (take an added bot out "
                     "of `bots`; restore a changed bot's folder), or set frozen = false to let the league take them")


def begin_final(store: ResultStore, config: TournamentConfig, note: Callable[[str], None]) -> None:
    """On a frozen league's first opening: the league's games out of the standings, its queue
    dropped, the final round robin queued (the module's docstring); nothing when that is done."""
    if not config.frozen or tables_of_reason(store, FINAL)[0]:
        return
    moved = store.supersede({name: BEFORE_FREEZE for name in store.bots_played()}, store.fingerprint() or {})
    for table in league_tables(store, QUEUED):
        end_table(store, table.number, DROPPED)
    first = next_table_number(store)
    playing = list(config.playing)
    combos = itertools.combinations(playing, config.table_size)
    why = (f"the final round robin after the freeze: every {config.table_size} of the {len(playing)} entered bots, "
           f"{count(config.deals, 'deal')} each in every seating")
    queue_tables(store, [LeagueTable(first + i, bots, FINAL, why) for i, bots in enumerate(combos)])
    tables, games = final_size(config)
    note(f"frozen: the final round robin of {count(len(playing), 'bot')} is queued ({count(tables, 'table')}, "
         f"{count(games, 'game')}); the league's {count(moved, 'game')} before the freeze left the standings, which "
         f"count the final round robin alone (kept: {command('arena', 'games', config.path, '--superseded', 'only')})")


def final_complete(store: ResultStore) -> bool | None:
    """None for a league not frozen yet (no final table); else whether every final table was played."""
    finals, queued = tables_of_reason(store, FINAL)
    if not finals:
        return None
    return queued == 0




def freeze_words(path: Path, config: TournamentConfig, changed: bool, frozen: bool = True) -> str:
    """What `arena tournament freeze` (`frozen`, else --undo) says it did, and what follows
    (`config`: with its bots loaded)."""
    if not frozen:
        return (f"{path}: {'unfrozen' if changed else 'not frozen'}: the league takes bots and versions again and "
                "chooses its tables; a running league takes it within seconds")
    tables, games = final_size(config)
    return (f"{path}: {'frozen' if changed else 'frozen already'}: no bot enters and no new version is taken. The "
            f"league plays its final round robin of {count(len(config.playing), 'bot')} ({count(tables, 'table')}, "
            f"{count(games, 'game')}), and its standings count those games alone; the games before the freeze are "
            f"kept ({command('arena', 'games', path, '--superseded', 'only')}). A running league takes the freeze "
            f"within seconds; else: {command('arena', 'tournament', 'run', path)}")


__all__ = ["FINAL", "BEFORE_FREEZE", "begin_final", "final_complete", "final_size", "freeze_words",
           "refuse_after_freeze"]
