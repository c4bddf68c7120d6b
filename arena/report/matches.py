"""Rich renderings for the terminal: selfplay summaries and a match's games and totals."""

from __future__ import annotations

from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.game.rules import Scoring
from arena.game.scoring import MatchScore
from arena.play.match import seat_labels
from arena.play.records import NOT_COUNTED_FAULTS, GameRecord
from arena.report.standings import places_table
from arena.wording import count
from arena.play.selfplay import SelfplaySummary


def render_selfplay(summary: SelfplaySummary, console: Console) -> None:
    head = Table(title="Selfplay: random players", show_header=False)
    head.add_row("games", str(summary.games))
    head.add_row("mean moves per game", f"{summary.mean_moves:.1f}")
    share = 100 * summary.capped_games / summary.games if summary.games else 0.0
    head.add_row("capped games (R51)", f"{summary.capped_games} ({share:.1f}%)")
    head.add_row("rule options", ", ".join(f"{k}={v}" for k, v in summary.rules.changed_options().items()) or "defaults")
    console.print(head)
    console.print(places_table(summary.places_by_seat))


def render_game_record(record: GameRecord, console: Console, score: MatchScore | None = None,
                       seating: Sequence[int] | None = None, players: Sequence[str] | None = None) -> None:
    """One line per game: finishing order with names, points, faults.

    With the match `score` after this game (`arena play`), the points are the match's own
    change, pot included (R55), followed by the running totals and any pot left on the table.
    A match whose seats rotate gives its `players` and the game's `seating` (player by seat): the
    score is the players', and a bot seated twice keeps its player's label (`random_bot#1`)."""
    if players is None or seating is None:
        players, seating = record.bots, range(len(record.bots))
    by_player = seat_labels(players)
    labels = [by_player[player] for player in seating]
    outcome = record.outcome
    order = " > ".join(labels[s] for s in outcome.finishing_order)
    reason = "" if outcome.reason.value == "normal" else f" [{outcome.reason.value}]"
    console.print(escape(f"game {record.number}: {order}{reason}  ({record.moves} moves)"), highlight=False)
    if score is None:
        line = "points " + " ".join(f"{labels[s]}={p}" for s, p in enumerate(record.points))
    else:
        signed = score.rules.scoring is not Scoring.PLACEMENT  # chips and penalties go down as well as up
        line = "points " + " ".join(f"{by_player[i]}={p:+d}" if signed else f"{by_player[i]}={p}"
                                    for i, p in enumerate(score.last_change))
        line += "\n  match  " + " ".join(f"{by_player[i]}={t}" for i, t in enumerate(score.totals))
        if score.pot:
            line += f"\n  nobody went out: the pot of {score.pot} chips carries over to the next game"
    console.print(escape("  " + line), highlight=False)
    counted = [f for f in record.faults if f.kind.value not in NOT_COUNTED_FAULTS]
    for fault in counted[:5]:
        # the detail quotes the bot's own line: escaped, so "[/x]" from a bot is text, not Rich markup
        console.print(f"  [red]fault[/red] seat {fault.seat} ({escape(labels[fault.seat])}): "
                      f"{fault.kind.value}: {escape(fault.detail)}", highlight=False)
    if len(counted) > 5:
        console.print(f"  ... and {len(counted) - 5} more faults")
    # Per gone bot, once: how many of its moves the referee made, and why it was gone (a hung
    # bot's three timeouts above do not say it was then killed).
    gone: dict[int, list] = {}
    for fault in record.faults:
        if fault.kind.value in NOT_COUNTED_FAULTS:
            gone.setdefault(fault.seat, [0, fault.detail])[0] += 1
    for seat, (made, why) in gone.items():
        console.print(f"  ({made} moves made by the referee for seat {seat} ({escape(labels[seat])}), "
                      f"gone: {escape(why)})", highlight=False)


def render_match_totals(names: Sequence[str], totals: Sequence[int], winners: Sequence[int], games: int, console: Console,
                        rotated: bool = False) -> None:
    """The match's totals by player; `rotated`: the players changed seats, so no seat is named."""
    table = Table(title=f"Match result after {count(games, 'game')}" + (", seats rotating" if rotated else ""))
    table.add_column("#" if rotated else "seat", justify="right")
    table.add_column("bot")
    table.add_column("points", justify="right")
    for player, (name, total) in enumerate(zip(seat_labels(names), totals)):
        mark = " (winner)" if player in winners else ""
        table.add_row(str(player), name + mark, str(total))
    console.print(table)
