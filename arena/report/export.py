"""Standings exports: Markdown, JSON and CSV (the HTML page: arena/report/html.py)."""

from __future__ import annotations

import csv
import io
import json
import math
import re

from arena.report.columns import BOT, HISTORY_COLUMNS, STANDINGS_COLUMNS, per_game_text
from arena.report.facts import fact_text, flat_facts, shown_facts
from arena.results.league_view import view_dict
from arena.results.ratings import NO_RATINGS, RATING_NOTE
from arena.results.standings import Standings
from arena.wording import count, spreadsheet_safe

def _num(x: float) -> float | None:
    return None if isinstance(x, float) and math.isnan(x) else x


_ci_text = per_game_text  # the name the HTML report knows


# What Markdown would act on in a name: a link or image ([...]), emphasis (*, and _ that is not
# between letters or digits: random_bot stays as it is), code (`), strikethrough (~), and the
# backslash that escapes all of them.
_MD_ACTIVE = re.compile(r"[\\`*\[\]~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _md_cell(text: object) -> str:
    """Text as Markdown shows it literally: HTML in a tournament or bot name (which Markdown
    passes through) made text by writing its < and & as entities (only they open a tag or an
    entity: a > stays as it is, "LLR 25.15 >= 2.94", not "&gt;="), what Markdown would act on
    backslash-escaped, and a | that would end a table cell escaped."""
    safe = str(text).replace("&", "&amp;").replace("<", "&lt;").replace("\n", " ")
    return _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), safe).replace("|", "\\|")


def _md_table(columns, rows, marked: tuple[str, ...] = ()) -> list[str]:
    """A Markdown table of `rows` (BotStandings, or versions out of the standings) in `columns`;
    the `marked` bots (a gauntlet's challengers) with "(challenger)" after their names."""
    def cell(column, row) -> str:
        text = _md_cell(column.cell(row))
        return f"{text} ({CHALLENGER_MARK})" if column is BOT and row.bot in marked else text

    return ["| " + " | ".join(c.header for c in columns) + " |",
            "|" + "|".join("---:" if c.numeric else "---" for c in columns) + "|",
            *("| " + " | ".join(cell(c, row) for c in columns) + " |" for row in rows)]


CHALLENGER_MARK = "challenger"


def challengers(standings: Standings) -> tuple[str, ...]:
    """A gauntlet's challengers (its config's first `challengers` bots), which the standings
    reports mark: an SPRT run's from its test (the challenger, and a second challenger, its
    baseline), else the first of the facts' bots (the config's, in order); () for other schedules."""
    playing = {b.bot for b in standings.bots}
    test = standings.test
    if test is not None:
        return tuple(name for name in (test.challenger, test.baseline) if name in playing)
    n = standings.facts.get("challengers")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return ()
    return tuple(name for name in list(standings.facts.get("bots", {}))[:n] if name in playing)


def challengers_sentence(names: tuple[str, ...]) -> str:
    """What the challenger mark means, naming them (no full stop)."""
    if len(names) == 1:
        return f"Challenger: {names[0]} (the gauntlet's first bot), who meets the field of the other bots"
    return (f"Challengers: {', '.join(names)} (the gauntlet's first {len(names)} bots), who each meet the field of "
            "the other bots")


def to_markdown(standings: Standings, title: str = "Standings") -> str:
    facts = [f"- {key}: {_md_cell(fact_text(value))}" for key, value in shown_facts(standings.facts).items()]
    marked = challengers(standings)
    lines = [f"# {_md_cell(title)}", "", *facts, *([""] if facts else []),
             f"{_md_cell(standings.games_words())}{_ranking_note(standings)}.{_not_complete(standings)}", "",
             *_md_table(STANDINGS_COLUMNS, standings.bots, marked)]
    if marked:
        lines += ["", _md_cell(challengers_sentence(marked)) + "."]
    lines += ["", PER_GAME_NOTE + ".", "", RATING_NOTE + "."]
    groups = rating_groups_sentence(standings)
    if groups:
        lines += ["", _md_cell(groups)]
    if standings.test is not None:
        lines += ["", f"**Early stopping (SPRT):** {_md_cell(standings.test.sentence())}."]
    names = [b.bot for b in standings.bots]
    if standings.head_to_head:
        lines += ["", "## Head to head", "", "Row bot finished ahead of column bot in this many of their games together.", "",
                  "| bot | " + " | ".join(_md_cell(n) for n in names) + " |", "|---|" + "---:|" * len(names)]
        for a in names:
            cells = []
            for c in names:
                together, ahead = standings.head_to_head.get((a, c), (0, 0))
                cells.append("-" if a == c or not together else f"{ahead}/{together}")
            lines.append(f"| {_md_cell(a)} | " + " | ".join(cells) + " |")
    if standings.places_by_seat:
        n = len(standings.places_by_seat[0])
        lines += ["", "## Finishing places by seat", "", "| seat | " + " | ".join(place_name(p, n) for p in range(1, n + 1)) + " |",
                  "|---:|" + "---:|" * n]
        for seat, counts in enumerate(standings.places_by_seat):
            lines.append(f"| {seat} | " + " | ".join(str(c) for c in counts) + " |")
    if standings.faults_by_kind:
        kinds, rows = fault_matrix(standings)
        lines += ["", "## Faults by kind", "", "| bot | " + " | ".join(kinds) + " | total |", "|---|" + "---:|" * (len(kinds) + 1)]
        lines += ["| " + " | ".join(_md_cell(str(cell)) for cell in r) + " |" for r in rows]
    if standings.history:
        lines += ["", "## Out of the standings", "", HISTORY_NOTE, "", *_md_table(HISTORY_COLUMNS, standings.history)]
    return "\n".join(lines) + "\n"


# What the "per game" column holds, in every report that has the column.
PER_GAME_NOTE = "per game: points per game ± the 95% confidence interval over deal sets"
HISTORY_NOTE = ("Earlier versions of resubmitted bots, and withdrawn bots, over their superseded games: kept, "
                "and not counted in the standings above.")


def place_name(place: int, n: int) -> str:
    """ "1st out", "2nd out", ..., and "skitgubbe" for the last: the places' names in every report."""
    if place == n:
        return "skitgubbe"
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th') } out"


NOT_COMPLETE = "The tournament is not complete: a run under way, or the next arena tournament run, plays the rest"


LEAGUE_GOES_ON = ("A league goes on until it is frozen: these standings are as its games stand now (arena tournament "
                  "freeze plays its final round robin)")


def not_complete_words(done: object) -> str:
    """What a report says of a tournament not complete: a league's, or one with games to play."""
    return LEAGUE_GOES_ON if getattr(done, "ongoing", False) else NOT_COMPLETE


def _not_complete(standings: Standings) -> str:
    done = standings.completeness
    return "" if done is None or done.complete else f" **{not_complete_words(done)}.**"


def rating_groups_sentence(standings: Standings) -> str:
    """ "Rating groups, each of bots these games cannot tell apart (95%): 1: a, b; 2: c." ("" with
    fewer than two bots rated): the reports for people say it under their tables."""
    groups = standings.ratings.groups if standings.ratings is not None else ()
    if sum(len(group) for group in groups) < 2:
        return ""
    return ("Rating groups, each of bots these games cannot tell apart (95%): "
            + "; ".join(f"{number}: {', '.join(group)}" for number, group in enumerate(groups, start=1)) + ".")


def _ranking_note(standings: Standings) -> str:
    return "; ranked by points per game" if standings.ranks_by_points_per_game else ""


def to_dict(standings: Standings) -> dict:
    ratings = standings.ratings or NO_RATINGS
    return {
        "tournament": standings.facts,
        "games": standings.games,
        **({} if standings.completeness is None else {
            "games_scheduled": standings.completeness.scheduled, "games_void": standings.completeness.void,
            "complete": standings.completeness.complete}),
        "ranked_by": standings.ranked_by,
        "bots": [
            {
                "rank": b.rank, "bot": b.bot, "version": b.version, "games": b.games, "points": b.points,
                "points_per_game": b.points_per_game, "ci95_low": _num(b.ci95_low), "ci95_high": _num(b.ci95_high),
                "deal_sets": b.deal_sets, "wins": b.wins, "skitgubbe": b.skitgubbe, "faults": b.faults,
                "faults_by_kind": b.faults_by_kind, "places": list(b.places),
                "rating": _num(b.rating), "rating_low": _num(b.rating - b.rating_margin),
                "rating_high": _num(b.rating + b.rating_margin), "rating_group": b.rating_group or None,
            }
            for b in standings.bots
        ],
        "head_to_head": [
            {"bot": a, "opponent": c, "games": together, "ahead": ahead}
            for (a, c), (together, ahead) in standings.head_to_head.items()
        ],
        "places_by_seat": [list(row) for row in standings.places_by_seat],
        "faults_by_kind": standings.faults_by_kind,
        "rating_groups": [list(group) for group in ratings.groups],
        "rating_history": [{"games": games, "ratings": points} for games, points in ratings.history],
        "history": [f.as_dict() for f in standings.history],
        "sprt": standings.test.as_dict() if standings.test is not None else None,
        **({} if standings.league is None else {"league": view_dict(standings.league)}),  # its queue, and why
    }


def to_json(standings: Standings) -> str:
    return json.dumps(to_dict(standings), indent=2, allow_nan=False)


CSV_FIELDS = ("rank", "bot", "version", "games", "points", "points_per_game", "ci95_low", "ci95_high", "deal_sets",
              "wins", "skitgubbe", "faults", "ranked_by", "rating", "rating_low", "rating_high", "rating_group")


def _csv_float(x: float) -> str:
    return "" if math.isnan(x) else f"{x:.6f}"


def _test_cells(test, bot: str) -> list[str]:
    if bot != test.challenger:
        return ["", ""]
    return [test.decision or "undecided", f"{test.llr:.6f}"]


def to_csv(standings: Standings) -> str:
    """One row per bot, one value per cell: places in columns place_1..place_n (counts), faults
    in fault_<kind> columns, the tournament's facts (arena/report/facts.py) in the last columns,
    the same in every row, as `ranked_by` is: a CSV has no place for a note, and a gauntlet's
    ranks follow points per game."""
    out = io.StringIO()
    writer = _SafeWriter(csv.writer(out, lineterminator="\n"))
    n = max((len(b.places) for b in standings.bots), default=0)
    kinds = sorted(standings.faults_by_kind)
    facts = flat_facts(standings.facts)
    # With the history asked for, a column says which rows are out of the standings and why.
    history = bool(standings.history)
    test = standings.test  # an SPRT run: its decision and LLR in the challenger's row
    writer.writerow(CSV_FIELDS + tuple(f"place_{p}" for p in range(1, n + 1)) + tuple(f"fault_{k}" for k in kinds)
                    + (("sprt_decision", "sprt_llr") if test else ()) + (("superseded",) if history else ())
                    + tuple(facts))
    for b in standings.bots:
        writer.writerow([
            b.rank, b.bot, b.version, b.games, b.points, f"{b.points_per_game:.6f}",
            _csv_float(b.ci95_low), _csv_float(b.ci95_high), b.deal_sets, b.wins, b.skitgubbe, b.faults, standings.ranked_by,
            *(_csv_float(x) for x in (b.rating, b.rating - b.rating_margin, b.rating + b.rating_margin)),
            b.rating_group or "",
            *(list(b.places) + [0] * (n - len(b.places))), *(b.faults_by_kind.get(k, 0) for k in kinds),
        ] + (_test_cells(test, b.bot) if test else []) + ([""] if history else []) + list(facts.values()))
    for f in standings.history:
        writer.writerow(["", f.bot, f.version, f.games, f.points, f"{f.points_per_game:.6f}",
                         _csv_float(f.ci95_low), _csv_float(f.ci95_high), f.deal_sets, f.wins, f.skitgubbe, f.faults, standings.ranked_by, "", "", "", "",
                         *([""] * (n + len(kinds))), *(["", ""] if test else []), f.why, *facts.values()])
    return out.getvalue()


class _SafeWriter:
    """A csv writer whose text cells are `spreadsheet_safe`: names and reasons come from bots."""

    def __init__(self, writer) -> None:
        self.writer = writer

    def writerow(self, cells) -> None:
        self.writer.writerow([spreadsheet_safe(cell) for cell in cells])


def fault_matrix(standings: Standings) -> tuple[list[str], list[list]]:
    """Faults per bot and kind, with totals: who faulted how, as in the terminal report."""
    kinds = sorted(standings.faults_by_kind)
    rows = [[b.bot, *(b.faults_by_kind.get(k, 0) for k in kinds), b.faults] for b in standings.bots]
    rows.append(["all", *(standings.faults_by_kind[k] for k in kinds), sum(standings.faults_by_kind.values())])
    return kinds, rows
