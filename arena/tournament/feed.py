"""The tables of a run, handed to its pool one at a time, with a bot that cannot be reached paused.

When a table reports a void game (a bot at it could not be started or reached for a reason outside
its code, after the retry window: arena/play/match.py), that bot is paused for the run: its tables
not yet handed out are held back, and the other tables go on. A game of the bot played at another
table shows it is back: its tables are handed out again, its void games with them. When nothing
else is left to play, each paused bot gets one last try, a table of its held work; if that fails
too, it is given up for the run and its held games are void, not tried. So an outage costs games
to play again, never a wait per table, and the run ends.

A bot with a void game after its retry window has spent that window for the run: every table
handed out from then on says so (`TableSpec.retried`), and a ZeroMQ service of its that cannot be
reached or refuses the handshake is charged there, not void (protocol.md section 9). So a service
that opts out when it is losing has its held games played, and charged, at its last try.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Iterable

from arena.play.records import GameRecord, VoidGame
from arena.schedule.games import GameSpec, TableSpec


class _Wait:
    """`TableFeed.next`: nothing to hand out now, but a table under way may bring work back."""

    def __repr__(self) -> str:
        return "WAIT"


WAIT = _Wait()


class TableFeed:
    """What a pool plays: `next` for the next table, `done` when one ends; the runner tells it
    each game as it comes (`played`, `voided`)."""

    def __init__(self, tables: Iterable[TableSpec]) -> None:
        self._ready = collections.deque(tables)
        self._entries = {table.index: table.entries for table in self._ready}
        # Table index -> its games held back, each with whether it is kept as void already (a
        # void attempt) or not (never handed out).
        self._held: dict[int, list[tuple[GameSpec, bool]]] = {}
        self._running = 0
        self.paused: dict[str, str] = {}  # bot -> why it was paused
        self._last_try: set[str] = set()
        self.given_up: dict[str, str] = {}  # bot -> why, for the rest of this run
        self._untried: list[tuple[GameSpec, VoidGame]] = []
        self._retried: set[str] = set()  # bots whose retry window of this run is spent

    def add(self, tables: Iterable[TableSpec]) -> None:
        """More tables to hand out, after those ready (a league's, chosen as it plays)."""
        for table in tables:
            self._entries[table.index] = table.entries
            self._ready.append(table)

    @property
    def ready(self) -> int:
        """Tables ready to hand out now."""
        return len(self._ready)

    # ---- the pool's side ----------------------------------------------------------------------

    def next(self) -> TableSpec | _Wait | None:
        """The next table to play; WAIT while only held work is left and a table is under way;
        None when nothing is left."""
        if self._ready:
            self._running += 1
            return self._stamped(self._ready.popleft())
        if not self._held:
            return None
        if self._running:
            return WAIT
        for bot in sorted(set(self.paused) - self._last_try):
            self._last_try.add(bot)
            table = self._hand_held(bot)
            if table is not None:
                return table
        self._give_up_held()
        return None

    def _hand_held(self, bot: str) -> TableSpec | None:
        """One table of `bot`'s held work handed out (a try of the paused bot), or None if it has none."""
        index = next((i for i in sorted(self._held) if bot in self._entries[i]), None)
        if index is None:
            return None
        self._running += 1
        return self._stamped(self._table(index))

    def done(self) -> None:
        """A table handed out has ended (all its games reported, or its worker stopped)."""
        self._running = max(0, self._running - 1)

    @property
    def finished(self) -> bool:
        return not self._ready and not self._held and not self._running

    # ---- the runner's side --------------------------------------------------------------------

    def played(self, spec: GameSpec, record: GameRecord | None = None) -> None:
        """A game was played: a paused bot at it is back, and its held work with it, unless
        `still_out` says the game never reached it."""
        out = self.still_out(record)
        back = [bot for bot in spec.bots if bot in self.paused and bot not in out]
        for bot in back:
            del self.paused[bot]
            self._last_try.discard(bot)
        if back:
            for index in [i for i in self._held if not set(self._entries[i]) & set(self.paused)]:
                self._ready.appendleft(self._table(index))

    def voided(self, spec: GameSpec, void: VoidGame) -> str | None:
        """A game was void (and is kept as such): it is held for a later try, and its bot paused.
        Returns the bot when this pauses it (the run says so, once), else None."""
        self._held.setdefault(spec.table, []).append((spec, True))
        bot = void.bot
        newly = bot not in self.paused and bot not in self.given_up
        if void.tried:  # the games a failed try left untried keep its reason
            self._retried.add(bot)  # a tried void game comes after the bot's retry window
            if bot in self._last_try and bot in self.paused:
                self.given_up[bot] = void.why  # its last try failed too
            self.paused[bot] = void.why
        else:
            self.paused.setdefault(bot, void.why)
        self._hold(bot)
        return bot if newly else None

    def still_out(self, record: GameRecord | None) -> set[str]:
        """The bots a played game did not reach (charged for it): none here. A finite run's last
        try plays every held game of a paused bot, each charged, so that none is left void."""
        return set()

    def _hold(self, bot: str) -> None:
        """`bot`'s tables not yet handed out, held back until it is tried again."""
        for table in [t for t in self._ready if bot in t.entries]:
            self._ready.remove(table)
            self._held.setdefault(table.index, []).extend((game, False) for game in table.games)

    def when_tried_again(self) -> str:
        """When a bot paused now is tried again, in words for the run's note."""
        return "tried again at its end"

    def untried(self) -> list[tuple[GameSpec, VoidGame]]:
        """The games given up without a try (their bot stayed paused to the end of the run): the
        runner keeps each as void. Taken once."""
        taken, self._untried = self._untried, []
        return taken

    def _stamped(self, table: TableSpec) -> TableSpec:
        """The table as handed out: with its bots whose retry window is spent."""
        return dataclasses.replace(table, retried=tuple(sorted(self._retried & set(table.entries))))

    def _table(self, index: int) -> TableSpec:
        games = sorted((spec for spec, _ in self._held.pop(index)), key=lambda game: (game.deal, game.seating))
        return TableSpec(index, self._entries[index], tuple(games))

    def _give_up_held(self) -> None:
        for index, games in sorted(self._held.items()):
            bot = next((b for b in self._entries[index] if b in self.paused), self._entries[index][0])
            why = (f"not tried in this run: {bot} was paused after it could not be started or reached "
                   f"({self.paused.get(bot, '')})")
            self._untried += [(spec, VoidGame(0, spec.bots, bot, why, tried=False)) for spec, kept in games if not kept]
        self.given_up.update(self.paused)
        self._held.clear()


__all__ = ["TableFeed", "WAIT"]
