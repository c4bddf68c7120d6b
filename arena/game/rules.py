"""The rule options of a game (docs/rules.md, section 9) as one frozen, validated value.

Every option has the default of sections 1 to 8. ``Rules.from_options`` takes a mapping of
option names to values (native TOML values, or strings from a command line) and
rejects an unknown name or a bad value with a message that lists what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, Mapping

from arena.game.errors import RulesError


class FirstLead(str, Enum):
    DUEL = "duel"  # R13
    FOREHAND = "forehand"  # R14


class DrawTiming(str, Enum):
    BEFORE = "before"  # R16
    AFTER = "after"  # R17


class BounceExhausted(str, Enum):
    VOID_RETURN = "void_return"  # R22
    SURVIVOR_TAKES_ALL = "survivor_takes_all"


class Phase1End(str, Enum):
    STOCK_OUT = "stock_out"  # R27
    PLAY_OUT = "play_out"


class Phase2FirstLeader(str, Enum):
    TRUMP_HOLDER = "trump_holder"  # R30
    LAST_TRICK_WINNER = "last_trick_winner"


class SequenceResponse(str, Enum):
    ANY = "any"  # R38
    SAME_LENGTH = "same_length"  # R40


class Pickup(str, Enum):
    TRICK = "trick"  # R42
    TOP_CARD = "top_card"  # R43
    TOP_PLAY = "top_play"
    TOP_RUN = "top_run"
    BOTTOM_PLAY = "bottom_play"


class ZeroCardStart(str, Enum):
    OUT = "out"  # R31
    MUST_PICK_UP = "must_pick_up"


class FaultPolicy(str, Enum):
    FALLBACK = "fallback"  # R52
    FORFEIT = "forfeit"  # R53


class NextDealer(str, Enum):
    ROTATE = "rotate"  # R6
    LOSER = "loser"


class Scoring(str, Enum):
    PLACEMENT = "placement"  # R54
    POT = "pot"  # R55
    LOSER_COUNT = "loser_count"  # R56


class Phase1Mode(str, Enum):
    PAIR = "pair"  # R11: each phase-1 trick is between two players
    ALL = "all"  # docs/rules.md, "Phase 1 with everybody": every player plays to each trick


# Options docs/rules.md lists but this engine does not implement yet: name -> the value refused.
# Sloughing is a play out of turn, which a request/answer protocol cannot offer without asking
# every other seat after every card (docs/rules.md, section 9).
NOT_YET_IMPLEMENTED = {"sloughing": True}


@dataclass(frozen=True, slots=True)
class Rules:
    """All rule options in force for a game or match; defaults are docs/rules.md's sections 1 to 8."""

    num_players: int = 3
    ace_high: bool = False
    first_lead: FirstLead = FirstLead.DUEL
    phase1_mode: Phase1Mode = Phase1Mode.PAIR
    sloughing: bool = False
    draw_timing: DrawTiming = DrawTiming.BEFORE
    allow_chance: bool = True
    chance_min_stock: int = 2
    bounce_exhausted: BounceExhausted = BounceExhausted.VOID_RETURN
    phase1_end: Phase1End = Phase1End.STOCK_OUT
    phase2_first_leader: Phase2FirstLeader = Phase2FirstLeader.TRUMP_HOLDER
    allow_sequences: bool = True
    sequence_response: SequenceResponse = SequenceResponse.ANY
    must_beat_if_able: bool = False
    trump_only_if_void: bool = False
    pickup: Pickup = Pickup.TRICK
    completer_leads: bool = True
    zero_card_start: ZeroCardStart = ZeroCardStart.OUT
    max_phase2_actions: int = 1000
    two_player_removed_cards: int = 0
    public_won_piles: bool = True
    fault_policy: FaultPolicy = FaultPolicy.FALLBACK
    next_dealer: NextDealer = NextDealer.ROTATE
    scoring: Scoring = Scoring.PLACEMENT
    target_points: int | None = None  # None means 5 * (num_players - 1) (R54)
    ante: int = 1
    games: int = 12
    max_games: int = 50

    def __post_init__(self) -> None:
        _check_ranges(self)

    @property
    def effective_target_points(self) -> int:
        """R54: the target, defaulting to 5 * (n - 1)."""
        return self.target_points if self.target_points is not None else 5 * (self.num_players - 1)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> "Rules":
        """Build from option names and values; RulesError names any bad option or value."""
        known = {f.name: f for f in fields(cls)}
        converted: dict[str, Any] = {}
        for name, raw in options.items():
            if name not in known:
                raise RulesError(
                    f"unknown rule option {name!r}; allowed options: {', '.join(sorted(known))}"
                )
            converted[name] = _convert(name, raw, _DEFAULTS[name])
        return cls(**converted)

    def with_options(self, options: Mapping[str, Any]) -> "Rules":
        """A copy with some options changed, validated like from_options."""
        merged = self.to_options()
        merged.update(options)
        return Rules.from_options(merged)

    def to_options(self) -> dict[str, Any]:
        """Every option as plain TOML-friendly values (enums as their text); None is left out."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = value.value if isinstance(value, Enum) else value
        return out

    def changed_options(self) -> dict[str, Any]:
        """Only the options that differ from the defaults, as plain values."""
        base = Rules().to_options()
        return {k: v for k, v in self.to_options().items() if base.get(k) != v}


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Rules)}
GAMES_RANGE = (1, 1_000_000)  # the games of a match (`games`, `max_games`; `arena play --games`)
_INT_RANGES = {
    "num_players": (2, 5),
    "chance_min_stock": (2, 52),
    "max_phase2_actions": (1, 10_000_000),
    "two_player_removed_cards": (0, 20),
    "target_points": (1, 1_000_000),
    "ante": (1, 1_000_000),
    "games": GAMES_RANGE,
    "max_games": GAMES_RANGE,
}
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _convert(name: str, raw: Any, default: Any) -> Any:
    if name in NOT_YET_IMPLEMENTED and _same(raw, NOT_YET_IMPLEMENTED[name]):
        raise RulesError(f"rule option {name}={raw} is not implemented yet; only the default is")
    if isinstance(default, Enum):
        enum_type = type(default)
        allowed = [m.value for m in enum_type]
        if isinstance(raw, enum_type):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in allowed:
            return enum_type(raw.strip().lower())
        raise RulesError(f"rule option {name} cannot be {raw!r}; allowed: {', '.join(allowed)}")
    if isinstance(default, bool):
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, int) and raw in (0, 1):  # `ace_high = 1` in a TOML config: the message offers 1/0
            return raw == 1
        if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
            return raw.strip().lower() in _TRUE
        raise RulesError(f"rule option {name} cannot be {raw!r}; allowed: true or false (yes/no, on/off and 1/0 also work)")
    if name in _INT_RANGES:
        low, high = _INT_RANGES[name]
        value = raw
        if isinstance(raw, str):
            try:
                value = int(raw.strip())
            except ValueError:
                value = None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RulesError(f"rule option {name} cannot be {raw!r}; allowed: a whole number from {low} to {high}")
        return value
    raise RulesError(f"rule option {name} cannot be set")  # pragma: no cover - every field is typed above


def _same(raw: Any, value: Any) -> bool:
    if isinstance(value, bool):
        return raw is True or (isinstance(raw, str) and raw.strip().lower() in _TRUE)
    return isinstance(raw, str) and raw.strip().lower() == value


def _check_ranges(rules: Rules) -> None:
    # Direct construction (not via from_options) is checked here too, so no bad value exists.
    for name, (low, high) in _INT_RANGES.items():
        value = getattr(rules, name)
        if value is None and name == "target_points":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RulesError(f"rule option {name} cannot be {value!r}; allowed: a whole number from {low} to {high}")
    for name in NOT_YET_IMPLEMENTED:
        if getattr(rules, name) is not False:
            raise RulesError(f"rule option {name} is not implemented yet; only the default is")
    if rules.two_player_removed_cards and rules.num_players != 2:
        raise RulesError("rule option two_player_removed_cards needs num_players = 2 (R5)")
