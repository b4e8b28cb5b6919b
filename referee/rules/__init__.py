"""The Pepper rules engine (standard library only).

Start here::

    from referee.rules import Game
    g = Game("iowa", seed=7)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    print(g.outcome)
"""

from .actions import ACTIONS, BID_NAMES, Action, ActionKind
from .cards import CARDS, Card, Rank, Strain, Suit, card_strength, effective_suit, legal_plays, trick_winner_index
from .errors import (
    ActionError,
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

__all__ = [
    "ACTIONS", "BID_NAMES", "Action", "ActionKind", "CARDS", "Card", "Rank", "Strain", "Suit", "card_strength",
    "effective_suit", "legal_plays", "trick_winner_index", "ActionError", "GameOverError", "IllegalActionError",
    "InvalidActionError", "NotationError", "RecordError", "ReplayMismatchError", "RulesError", "RulesetError", "Family", "Decision", "Contract", "DealResult", "Trick", "CardPass", "Event", "EventKind", "Game", "Outcome",
    "Phase", "SeatView", "BUILTIN_RULESETS", "BidLevel", "Ruleset", "Table", "get_ruleset", "load_ruleset_file",
    "ruleset_from_dict", "GameStatus", "SeatStatus",
]
