"""Stored games for the replay tests, and the arena engine's table after every step in the form the
replay page's JavaScript engine gives it (arena/report/replay_assets/engine.js, `snapshot`), so
that the two can be compared step by step."""

from __future__ import annotations

import time
from pathlib import Path

from arena.game import Game, Rules, format_card, replay
from arena.game.cards import SUIT_LETTERS, sort_key_for
from arena.game.state import GameState
from arena.play.records import GameRecord
from arena.play.referee import play_game
from arena.play.seat import Seat
from arena.results.rows import GameRow, decode_row, encode_game
from arena.schedule.games import GameSpec
from tests.fakes import ScriptedTransport, random_policy

NODE_RUNNER = Path(__file__).resolve().parents[1] / "arena" / "report" / "replay_assets" / "engine.js"

# Rule options the page's engine is held to, each with players from 2 to 5 (R5).
OPTION_SETS: list[dict] = [
    {},
    {"ace_high": True, "first_lead": "forehand", "draw_timing": "after"},
    {"phase1_mode": "all", "bounce_exhausted": "survivor_takes_all"},
    {"phase1_mode": "all", "phase1_end": "play_out", "pickup": "top_card"},
    {"phase1_end": "play_out", "bounce_exhausted": "survivor_takes_all", "pickup": "top_run"},
    {"allow_chance": False, "pickup": "top_play", "completer_leads": False, "allow_sequences": False},
    {"pickup": "bottom_play", "must_beat_if_able": True, "trump_only_if_void": True, "zero_card_start": "must_pick_up"},
    {"sequence_response": "same_length", "phase2_first_leader": "last_trick_winner", "public_won_piles": False},
    {"max_phase2_actions": 25, "chance_min_stock": 5},
    {"fault_policy": "forfeit"},
]


def cards(values) -> list[str]:
    return [format_card(c) for c in values]


def snapshot(g: GameState) -> dict:
    """The table as the page's engine says it (engine.js `snapshot`)."""
    key = sort_key_for(g.values).__getitem__
    in_phase1 = g.phase == 1
    outcome = g.outcome
    return {
        "phase": g.phase, "over": outcome is not None, "to_act": g.to_act,
        "hands": [cards(sorted(h, key=key)) for h in g.hands],
        "won": [cards(w) if in_phase1 else [] for w in g.won],
        "known": [cards(sorted(k, key=key)) for k in g.known],
        "stock": cards(g.stock[::-1]), "set_aside": cards(g.set_aside),
        "trump_card": None if g.trump_card is None else format_card(g.trump_card), "trump_holder": g.trump_holder,
        "trump_suit": None if g.trump_suit is None else SUIT_LETTERS[g.trump_suit],
        "duel": [[seat, format_card(c)] for seat, c in g.duel],
        "leader": g.leader if in_phase1 else None, "opponent": g.opponent if in_phase1 else None,
        "trick": [[seat, format_card(c), blind] for seat, c, blind in g.trick] if in_phase1 else [],
        "round_seats": list(g.round_seats) if in_phase1 else [],
        "table": [[owner, cards(unit)] for owner, unit in zip(g.table_owners, g.table)],
        "trick_size": 0 if in_phase1 else g.trick_size,
        "discard": cards(g.discard), "out": list(g.out_order), "actions": g.phase2_actions,
        "outcome": None if outcome is None else {"order": list(outcome.finishing_order), "reason": outcome.reason.value},
    }


def engine_steps(row: GameRow) -> list[dict]:
    """The arena engine's table at every step of a stored game: the deal, after each move, and
    after a forfeit (R53) if the game ended by one."""
    transcript = row.transcript
    game = Game.new(transcript.rules, transcript.seed, transcript.dealer)
    steps = [snapshot(game)]
    for move in transcript.moves:
        game.apply(move)
        steps.append(snapshot(game))
    if transcript.forfeited_seat is not None:
        game.forfeit(transcript.forfeited_seat, transcript.forfeit_reason)
        steps.append(snapshot(game))
    return steps


def row_of(record: GameRecord, spec: GameSpec, extra: dict | None = None, row_id: int = 1) -> GameRow:
    """A stored game as the store gives it back, without a database (rows.encode_game, decode_row)."""
    game, blob, _, _ = encode_game(spec, record, extra, finished_at=1_700_000_000.0)
    return decode_row((row_id, *game, blob))


def spec_for(bots: tuple[str, ...], seed: int, dealer: int, table: int = 0, deal: int = 0) -> GameSpec:
    return GameSpec(key=f"t{table:04d}-d{deal:04d}-s00", table=table, deal=deal, seating=0, bots=bots, seed=seed,
                    dealer=dealer)


def played_row(options: dict, seed: int, policies=None, names: tuple[str, ...] | None = None,
               extra: dict | None = None) -> GameRow:
    """A game played by the referee with scripted bots (random legal moves unless `policies` say
    otherwise), stored and read back."""
    rules = Rules.from_options(options)
    n = rules.num_players
    names = names or tuple("abcde"[:n])
    policies = policies or [random_policy(seed * 7 + s) for s in range(n)]
    seats = [Seat(name=name, transport=ScriptedTransport(policy, name)) for name, policy in zip(names, policies)]
    dealer = seed % n
    record = play_game(Game.new(rules, seed, dealer), seats, number=1)
    assert replay(record.transcript).outcome == record.outcome
    return row_of(record, spec_for(names, seed, dealer), extra)


def seconds_since(start: float) -> float:
    return time.monotonic() - start


def zones(state: dict) -> dict[str, str]:
    """Where the referee's view of the page shows each card at a step with this table (the page's
    `data-zone` of each `data-card`); every card of the game's deck exactly once."""
    found: dict[str, str] = {}

    def put(cards_here, zone: str) -> None:
        for card in cards_here:
            assert card not in found, f"{card} is both in {found[card]} and {zone}"
            found[card] = zone

    for seat, hand in enumerate(state["hands"]):
        put(hand, f"hand-{seat}")
    if state["phase"] == 1:
        for seat, won in enumerate(state["won"]):
            put(won, f"pile-{seat}")
        put([card for _, card, _ in state["trick"]], "table")
        if state["trump_holder"] is not None:
            put([state["trump_card"]], "trump")
    else:
        put([card for _, unit in state["table"] for card in unit], "table")
    put(state["stock"], "stock")
    put(state["discard"], "discard")
    put(state["set_aside"], "aside")
    return found


def seen_by(row: GameRow, seat: int) -> list[set[str]]:
    """At every step, the faces `seat` may see (R8-R10, as the engine's `view` gives them): its hand,
    what is known of the others' hands, won piles where public, the trick or table, the discard."""
    transcript = row.transcript
    game = Game.new(transcript.rules, transcript.seed, transcript.dealer)

    def now() -> set[str]:
        view = game.view(seat)
        shown = set(view.hand) | {c for known in view.known for c in known} | set(view.discard)
        shown |= {c for pile in view.won_piles or () for c in pile} | {c for _, c, _ in view.trick}
        shown |= {c for _, unit in view.table for c in unit}
        return set(cards(shown))

    out = [now()]
    for move in transcript.moves:
        game.apply(move)
        out.append(now())
    if transcript.forfeited_seat is not None:
        game.forfeit(transcript.forfeited_seat, transcript.forfeit_reason)
        out.append(now())
    return out
