"""Pepper where researchers work: an OpenSpiel game, a PettingZoo environment, an arena entrant for any OpenSpiel bot.

Importing the package registers the OpenSpiel game::

    import pepper_spiel  # registers python_pepper
    import pyspiel
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa"})

:mod:`pepper_spiel.env` holds the PettingZoo environment and
:mod:`pepper_spiel.entrant` the arena entrant (docs/research.md).
"""

from .game import GAME_TYPE, SHORT_NAME, PepperGame, PepperState

__all__ = ["GAME_TYPE", "SHORT_NAME", "PepperGame", "PepperState"]
