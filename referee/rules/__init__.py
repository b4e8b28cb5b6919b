"""The Pepper rules engine (standard library only).

Start here::

    from referee.rules import Game
    g = Game("iowa", seed=7)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    print(g.outcome)
"""

import os as _os

from .sources import is_compiled as _is_compiled
from .sources import prefer_sources as _prefer_sources

_prefer_sources(__path__[0], _os.path.join(__path__[0], "families"))   # PEPPER_PURE=1: the .py files

from . import game as _game
from .actions import ACTIONS, BID_NAMES, Action, ActionKind
from .cards import CARDS, Card, Rank, Strain, Suit, card_strength, effective_suit, legal_plays, trick_winner_index
from .errors import (
    ActionError,
    DealInProgressError,
    DealOverError,
    GameOverError,
    IllegalActionError,
    InvalidActionError,
    NotationError,
    RecordError,
    ReplayMismatchError,
    RulesError,
    RulesetError,
)
from .events import CardPass, Contract, DealResult, Decision, Event, EventKind, Outcome, Phase, SeatView, Trick
from .families import Family
from .game import Game
from .rulesets import BUILTIN_RULESETS, BidLevel, Ruleset, Table, get_ruleset, load_ruleset_file, ruleset_from_dict
from .status import GameStatus, SeatStatus

#: Whether the compiled engine is loaded (setup.py's COMPILED_MODULES built and imported), not its .py source.
COMPILED: bool = _is_compiled(_game)


def why_pure() -> str | None:
    """None while the compiled engine is loaded; else one line: why the .py sources run, and what to do
    (``pepper --version`` and ``pepper arena run`` show it). tools/build_engine.py records a failed build's reason."""
    if COMPILED:
        return None
    if _os.environ.get("PEPPER_PURE"):
        return "PEPPER_PURE=1 is set"
    try:
        with open(_os.path.join(__path__[0], "_compiled_build.failed"), encoding="utf-8") as f:
            return f"the build failed: {f.read().strip()}; then `make compiled`"
    except OSError:
        return "it is not built: `make compiled` builds it (Cython and a C compiler)"

__all__ = [
    "ACTIONS", "BID_NAMES", "Action", "ActionKind", "CARDS", "Card", "Rank", "Strain", "Suit", "card_strength",
    "effective_suit", "legal_plays", "trick_winner_index", "ActionError", "DealOverError", "DealInProgressError", "GameOverError", "IllegalActionError",
    "InvalidActionError", "NotationError", "RecordError", "ReplayMismatchError", "RulesError", "RulesetError", "Family", "Decision", "Contract", "DealResult", "Trick", "CardPass", "Event", "EventKind", "Game", "Outcome",
    "Phase", "SeatView", "BUILTIN_RULESETS", "BidLevel", "Ruleset", "Table", "get_ruleset", "load_ruleset_file",
    "ruleset_from_dict", "GameStatus", "SeatStatus", "COMPILED", "why_pure",
]
