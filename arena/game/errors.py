"""The engine's errors, each carrying a human message.

    GameError
     ├── RulesError    an unknown rule option or a bad value (names it, lists what is allowed)
     ├── ParseError    a card or move text that does not parse
     ├── IllegalMove   a well-formed move that the rules forbid now (cites the rule)
     └── GameOver      a move or a seat to act asked of a game that is over
"""


class GameError(Exception):
    """Base of every error the rules package raises."""


class RulesError(GameError):
    """A rule option that does not exist, or a value it does not take."""


class ParseError(GameError):
    """Text that is not a card or a move."""


class IllegalMove(GameError):
    """A move the rules forbid in the current state; the message says why and cites the rule."""


class GameOver(GameError):
    """Asked for what only a game in progress has (the seat to act): the game is over."""
