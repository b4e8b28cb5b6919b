"""Sample bots: ``random``, ``heuristic`` and ``montecarlo``.

Each is a policy with one method, ``decide(view) -> action text``, where
``view`` is the seat's view as a dict (the shape of
:meth:`referee.rules.SeatView.to_dict`, which the SDK also produces from the
wire) and the answer is one of ``view["legal_actions"]``.
"""

from .heuristic import HeuristicBot
from .montecarlo import MonteCarloBot
from .random_bot import RandomBot

BOTS = {"random": RandomBot, "heuristic": HeuristicBot, "montecarlo": MonteCarloBot}

__all__ = ["BOTS", "HeuristicBot", "MonteCarloBot", "RandomBot"]
