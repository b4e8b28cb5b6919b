"""The Pepper rules engine (standard library only).

Start here::

    from referee.rules import Game
    g = Game("iowa", seed=7)
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    print(g.outcome)
"""

import os as _os

if _os.environ.get("PEPPER_PURE"):
    # PEPPER_PURE=1: the .py sources even where compiled modules sit beside them (the differential test,
    # the pure-Python smoke run). This package's and its subpackages' folders get a finder that knows only
    # source and bytecode files, before any submodule is imported.
    from importlib.machinery import BYTECODE_SUFFIXES, SOURCE_SUFFIXES, FileFinder, SourceFileLoader, SourcelessFileLoader
    from sys import path_importer_cache as _cache

    for _d in (__path__[0], _os.path.join(__path__[0], "families")):
        _cache[_d] = FileFinder(_d, (SourceFileLoader, SOURCE_SUFFIXES), (SourcelessFileLoader, BYTECODE_SUFFIXES))

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
COMPILED: bool = _os.path.splitext(_game.__file__)[1] not in (".py", ".pyc")

__all__ = [
    "ACTIONS", "BID_NAMES", "Action", "ActionKind", "CARDS", "Card", "Rank", "Strain", "Suit", "card_strength",
    "effective_suit", "legal_plays", "trick_winner_index", "ActionError", "DealOverError", "DealInProgressError", "GameOverError", "IllegalActionError",
    "InvalidActionError", "NotationError", "RecordError", "ReplayMismatchError", "RulesError", "RulesetError", "Family", "Decision", "Contract", "DealResult", "Trick", "CardPass", "Event", "EventKind", "Game", "Outcome",
    "Phase", "SeatView", "BUILTIN_RULESETS", "BidLevel", "Ruleset", "Table", "get_ruleset", "load_ruleset_file",
    "ruleset_from_dict", "GameStatus", "SeatStatus", "COMPILED",
]
