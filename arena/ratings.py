"""TrueSkill ratings, one pool per ruleset and player count.

Partnerships are TrueSkill teams: a mirrored team (every seat the same bot)
is a team of one player, a mixed partnership a team of its distinct bots.
Rulesets played individually (pepper-30 with 2 or 3 players, five-handed) are
free-for-all, each seat an entry ranked by final score.

A bot may fill several seats of a free-for-all table when there are fewer
bots than seats. TrueSkill cannot rate one player twice in one match, so each
of its seats is rated as a stand-in copy and the bot's new rating is the mean
of its copies' (an approximation, documented in docs/arena.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import trueskill

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
# TrueSkill's dynamics factor tau adds uncertainty before every game so that a
# player who learns can move; with it sigma never falls below a floor (about 0.8
# here) however many games are played. A bot is a fixed program whose skill does
# not drift, so the arena's default is 0: sigma keeps shrinking as games accrue
# and a real difference in strength shows as a clear gap. `--tau` restores drift.
DEFAULT_TAU = 0.0


def pool_name(ruleset: str, players: int) -> str:
    return f"{ruleset}/{players}p"


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the board sorts by."""
        return self.mu - 3 * self.sigma


def ranks_from_result(entry_scores: list[float], entry_won: list[bool]) -> list[int]:
    """TrueSkill ranks (0 best): winners first, then by score; equal scores share a rank."""
    keyed = [(0 if won else 1, -score) for won, score in zip(entry_won, entry_scores)]
    order = sorted(set(keyed))
    return [order.index(k) for k in keyed]


class Rater:
    def __init__(self, draw_probability: float = 0.02, tau: float = DEFAULT_TAU):
        self.env = trueskill.TrueSkill(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, tau=tau, draw_probability=draw_probability)

    def _r(self, r: Rating) -> trueskill.Rating:
        return self.env.create_rating(r.mu, r.sigma)

    def rate(self, current: dict[str, Rating], entries: list[list[str]], ranks: list[int]) -> dict[str, Rating]:
        """New ratings of every bot in ``entries`` (each entry: the bots of one team or seat)."""
        groups = []
        for i, bots in enumerate(entries):
            groups.append({(i, b): self._r(current.get(b, Rating())) for b in dict.fromkeys(bots)})
        rated = self.env.rate(groups, ranks=ranks)
        acc: dict[str, list[trueskill.Rating]] = {}
        for g in rated:
            for (_, b), r in g.items():
                acc.setdefault(b, []).append(r)
        return {b: Rating(sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs)) for b, rs in acc.items()}

    def quality(self, current: dict[str, Rating], entries: list[list[str]]) -> float:
        """TrueSkill match quality (draw probability) of a line-up: high means evenly matched."""
        groups = [{(i, b): self._r(current.get(b, Rating())) for b in dict.fromkeys(bots)} for i, bots in enumerate(entries)]
        return self.env.quality(groups)
