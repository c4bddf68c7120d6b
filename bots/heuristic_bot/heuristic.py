"""The decision logic of heuristic_bot, on the protocol's text fields only (stdlib, no arena import).

    choose(fields, moves) -> move

`fields` maps the `key=value` fields of a `request` line (plus, optionally, the rule options
of the last `game` line, e.g. `ace_high`) to their text; `moves` are the legal move tokens.

Strategy in brief:
  Phase 1. The cards a player wins become his phase-2 hand, so every card is worth
    `value - PIVOT`: high cards are welcome in phase 2, low ones are a burden. Always draw
    (never play blind). Lead the lowest card (losing it hands it to the others). Answering:
    win with the cheapest card that beats the best card of the round so far when the round's
    cards plus the card we would otherwise give away are worth it, else throw the lowest card.
  Phase 2. Go out when one unit empties the hand. Lead the cheapest unit: long runs of low
    non-trumps first. Answer with the cheapest beating unit, preferring the same suit to
    trumps and long runs to single cards; pick up only when nothing beats or when beating
    would cost a top trump early in the game.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "cdhs"

# Tunables (measured with benchmarks/bots_strength.py).
PIVOT = 8.0  # phase 1: a card below this rank is a burden in phase 2, above it an asset
TRUMP_BONUS = 10  # phase 2: how much dearer a trump is than a plain card of the same rank
RUN_BONUS = 6  # phase 2: value of shedding one more card in a unit
SAVE_TOP_TRUMP_RANK = 12  # phase 2: do not spend a trump of this rank or higher on a single small card...
SAVE_TOP_TRUMP_MIN_HAND = 6  # ...while holding at least this many cards


def card_value(card: str, ace_high: bool = False) -> int:
    """R2: A=1 .. K=13 (ace low), or 2..13 and A=14 (ace high)."""
    rank = RANKS.index(card[0].upper()) + 1
    if ace_high and rank == 1:
        return 14
    return rank


def card_suit(card: str) -> str:
    return card[-1].lower()


def parse_cards(text: str) -> list[str]:
    if not text or text == "-":
        return []
    return text.split(",")


def parse_request(line: str) -> tuple[str, list[str], dict[str, str]]:
    """`request <id> <count> <moves...> <fields...>` -> (id, moves, fields)."""
    tokens = line.rstrip("\r\n").split(" ")
    request_id, count = tokens[1], int(tokens[2])
    moves = tokens[3:3 + count]
    fields: dict[str, str] = {}
    for token in tokens[3 + count:]:
        key, sep, value = token.partition("=")
        if sep:
            fields[key] = value
    return request_id, moves, fields


def _truthy(text: str | None) -> bool:
    return (text or "").lower() in ("1", "true", "yes", "on")


def choose(fields: dict[str, str], moves: list[str]) -> str:
    """The move to play, always one of `moves`."""
    if not moves:
        raise ValueError("no legal moves")
    if len(moves) == 1:
        return moves[0]
    ace_high = _truthy(fields.get("ace_high"))
    try:
        if fields.get("phase") == "2" or "pickup" in moves or any("," in m for m in moves):
            move = _phase2(fields, moves, ace_high)
        else:
            move = _phase1(fields, moves, ace_high)
    except (ValueError, IndexError, KeyError):
        move = None  # a field we could not read: never fail, fall back below
    return move if move in moves else moves[0]


# ---- phase 1 --------------------------------------------------------------------------------

def _phase1(fields: dict[str, str], moves: list[str], ace_high: bool) -> str:
    if "draw" in moves:
        return "draw"  # a 4-card choice beats a blind card
    cards = [m for m in moves if m not in ("draw", "chance")]
    if not cards:
        return moves[0]
    v = lambda c: card_value(c, ace_high)  # noqa: E731
    cards.sort(key=v)
    played = [t.split(":")[1] for t in _current_round(fields)]
    if played:
        best = max(v(c) for c in played)
        lowest = cards[0]
        winners = [c for c in cards if v(c) > best]
        # Win with the cheapest card that beats the best so far when the round's cards, plus the
        # card we would otherwise give away, are worth more than they burden us.
        if winners and sum(v(c) - PIVOT for c in played) + v(lowest) - PIVOT > 0:
            return winners[0]
        # Lose: throw the lowest card, avoiding a stunsa tie when another card does.
        losers = [c for c in cards if v(c) < best] or cards
        return losers[0]
    return cards[0]  # leading: hand the others our lowest card


def _current_round(fields: dict[str, str]) -> list[str]:
    """The `seat:card` plays of the round in progress, before ours (protocol.md section 6)."""
    trick = parse_cards(fields.get("trick", "-"))
    seats = parse_cards(fields.get("round", "-"))
    seat = fields.get("seat", "")
    if seat in seats:  # `round=` lists who plays this round in order; those before us have played
        ahead = seats.index(seat)
        return trick[len(trick) - ahead:] if ahead else []
    # An arena without `round=`: two-player tricks, so an odd count means the leader has played.
    if len(trick) % 2 == 1 and not trick[-1].startswith(seat + ":"):
        return trick[-1:]
    return []


# ---- phase 2 --------------------------------------------------------------------------------

def _phase2(fields: dict[str, str], moves: list[str], ace_high: bool) -> str:
    hand = parse_cards(fields.get("hand", "-"))
    trump_card = fields.get("trump", "-")
    trump = card_suit(trump_card) if trump_card not in ("", "-") else None
    v = lambda c: card_value(c, ace_high)  # noqa: E731
    units = [m for m in moves if m not in ("pickup", "draw", "chance")]

    # Going out ends our game with a good place: do it whenever one unit empties the hand.
    for unit in units:
        if len(parse_cards(unit)) == len(hand):
            return unit

    def cost(unit: str) -> float:
        cards = parse_cards(unit)
        total = 0.0
        for c in cards:
            total += v(c) + (TRUMP_BONUS if card_suit(c) == trump else 0)
        return total - RUN_BONUS * len(cards)

    if "pickup" not in moves:  # leading (R35)
        return min(units, key=lambda u: (cost(u), u))
    if not units:
        return "pickup"
    best = min(units, key=lambda u: (cost(u), u))
    cards = parse_cards(best)
    if trump is not None and len(hand) >= SAVE_TOP_TRUMP_MIN_HAND and len(cards) == 1:
        c = cards[0]
        table = [u.split(":", 1) for u in parse_cards_units(fields.get("table", "-"))]
        table_cards = sum(len(parse_cards(u[1])) for u in table if len(u) == 2)
        if card_suit(c) == trump and v(c) >= SAVE_TOP_TRUMP_RANK and table_cards <= 1:
            top = parse_cards(table[-1][1])[-1] if table else None
            if top is not None and card_suit(top) != trump and v(top) <= 6:
                return "pickup"  # one small card costs less than a top trump
    return best


def parse_cards_units(text: str) -> list[str]:
    """The table field: `seat:cards/seat:cards/...` oldest first, `-` when empty."""
    if not text or text == "-":
        return []
    return text.split("/")
