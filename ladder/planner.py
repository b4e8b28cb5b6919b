"""The ladder's planner: one game at a time among the entrants available now, for as long as the ladder runs.

A :class:`arena.planners.Planner`: the scheduler adds an entrant when it becomes available (connected, not paused,
not retired) and removes it when it is not, and asks for the next game whenever a slot is free. Each game is chosen
so that the table settles where it is least sure:

- its first bot is drawn with a weight of its rating's variance (sigma squared): a new version, at the default
  sigma of 8.3, is drawn about 30 times as often as a settled one at 1.5, so it plays until its interval is narrow
  and takes its provisional place within its first games;
- each opponent is drawn with a weight of how close its mean is to the first bot's, against both uncertainties
  (a Gaussian of the difference): games between neighbours of the table decide most.

A bot already in ``max_per_bot`` games in flight is not drawn. The deck of game ``idx`` is
:func:`arena.schedule.match_seed` of the ladder's seed and ``idx``, so a game replayed after a restart is the same.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from arena import schedule
from arena.context import RunContext
from arena.planners import Entrants
from arena.ratings import Rating

# The spread of a game's outcome around the difference of two means (TrueSkill's beta for the default sigma, 25/6):
# opponents this far apart are about as likely to be drawn as neighbours with wide intervals.
BETA = 25.0 / 6


class LadderPlanner(Entrants):
    """See the module's docstring. ``busy`` is each bot's games in flight, kept by the scheduler."""

    def __init__(self, ctx: RunContext, max_per_bot: int, rng: random.Random | None = None):
        super().__init__()
        self.ctx = ctx
        self.max_per_bot = max_per_bot
        self.busy: Counter[str] = Counter()
        self.rng = rng or random.Random()
        table = ctx.table
        self.partnership = table.teams < ctx.players
        self.sides = table.teams if self.partnership else ctx.players   # distinct bots a game seats

    def connections_needed(self) -> int:
        """The live connections a bot needs for a game: one per seat it takes (its whole team in a partnership)."""
        return self.ctx.players // self.ctx.table.teams if self.partnership else 1

    # -- the Planner protocol ---------------------------------------------------------------------------
    def begin(self, names: list[str]) -> schedule.Plan:
        self._entrants = list(names)
        return []

    def add_entrant(self, name: str) -> None:
        if name not in self._entrants:
            self._entrants.append(name)

    def total(self, run_id: int) -> int:
        return self.ctx.store.planned_count(run_id)

    def to_play(self, run_id: int) -> int:
        return len(self.ctx.store.pending(run_id))

    def more(self, run_id: int, planned: int) -> bool:
        return True

    def window(self, planned: int) -> tuple[int, int]:
        return 0, 1

    def basis(self, planned: int) -> int:
        return planned

    def stop_reason(self, run_id: int) -> str | None:
        return None

    def stored(self, run_id: int) -> None:
        pass

    def finished(self, run_id: int) -> bool:
        return False   # a ladder never completes

    def next_round(self, run_id: int) -> schedule.Plan:
        """The next game among the free entrants, or none when too few are free."""
        free = [n for n in self._entrants if self.busy[n] < self.max_per_bot]
        if len(free) < self.sides:
            return []
        ratings = self.ctx.store.ratings(self.ctx.pool, self.ctx.versions)
        chosen = self.draw(free, {n: ratings.get(n, Rating()) for n in free})
        idx = self.ctx.store.planned_count(run_id)
        return [(idx, self.ctx.rs.name, self.ctx.players, schedule.match_seed(self.ctx.cfg.seed, idx), self.seat(chosen))]

    # -- choosing ---------------------------------------------------------------------------------------
    def draw(self, free: list[str], ratings: dict[str, Rating]) -> list[str]:
        """``self.sides`` distinct bots of ``free``: the first by its variance, the others by closeness to it."""
        rng = self.rng
        first = rng.choices(free, weights=[ratings[n].sigma ** 2 for n in free])[0]
        chosen, rest = [first], [n for n in free if n != first]
        f = ratings[first]
        while len(chosen) < self.sides:
            weights = [_closeness(f, ratings[n]) for n in rest]
            pick = rng.choices(rest, weights=weights)[0] if sum(weights) > 0 else rng.choice(rest)
            chosen.append(pick)
            rest.remove(pick)
        rng.shuffle(chosen)
        return chosen

    def seat(self, chosen: list[str]) -> list[str]:
        """The game's seats: in a partnership each bot holds one team's seats, else one seat each."""
        if not self.partnership:
            return list(chosen)
        seats = [""] * self.ctx.players
        for team, bot in enumerate(chosen):
            for s in self.ctx.table.team_seats(team):
                seats[s] = bot
        return seats


def _closeness(a: Rating, b: Rating) -> float:
    spread = 2 * BETA ** 2 + a.sigma ** 2 + b.sigma ** 2
    return math.exp(-((a.mu - b.mu) ** 2) / (2 * spread)) + 1e-6


__all__ = ["BETA", "LadderPlanner"]
