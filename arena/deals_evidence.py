"""Deal-by-deal evidence: a duplicate block's deals compared on the same cards from both sides.

A block's games share one deck seed, and every shuffle and the first dealer come from it, so deal k of each of
the block's games is dealt the same cards to the same seats; only who sits there changes with the rotation. Over
the block, A has held each seat's cards of deal k and so has B: summing A's result against B on deal k over the
block's games cancels what the cards gave, and leaves what the bots did with them (duplicate bridge's boards).
A deal number is *paired* when every game of the block played it (a game that reached its target earlier has
fewer deals); the others are left out.

Per paired deal, A's result against B is read three ways, each summed over the block's games (the pairwise form of
:mod:`arena.evidence`: by team when A and B sit on opposite teams, seat against seat at a free-for-all table, a
side in several seats as the mean over its seats):

- **points**: A's deal points minus B's;
- **deals**: 1 when that sum is above 0, 1/2 when it is 0, 0 below: who did better on the cards (bridge's
  matchpoints, one board against one other table);
- **contracts**: +1 for each contract of A's team made or of B's team set, -1 for the reverse, 0 for a deal
  thrown in: the points' sign without their size.

A :class:`Statistic` turns a block into one number, and :data:`STATISTICS` holds them by name: ``score`` and
``margin`` (the game's result, today's block score and margin), ``points``, ``deals`` and ``contracts`` (means over
the block's paired deals). Pure functions over values; :func:`game_deals` reads them from a game or a record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

from .evidence import Side


class Deal(NamedTuple):
    """One deal's result, as the block comparison needs it."""

    points: tuple[float, ...]      # per team, this deal
    bidder_team: int | None        # the contract's team; None: thrown in
    made: bool | None              # the contract made (ceded: made); None: thrown in


class GameDeals(NamedTuple):
    """One game of a block: who sat where, the teams, the game's result and its deals in order."""

    sides: tuple[Side, ...]        # per seat
    team_of: tuple[int, ...]       # per seat
    scores: tuple[float, ...]      # per team, at the end
    winners: tuple[int, ...]       # the winning teams (empty: a draw)
    deals: tuple[Deal, ...]


def game_deals(game, sides: Sequence[Side]) -> GameDeals:
    """From a finished :class:`referee.rules.Game` (its ``deals``, ``outcome`` and ``table``) and the side in each
    seat. A stored record is replayed first (``Game.from_record``): its deal summaries leave out ``made``."""
    table, o = game.table, game.outcome
    team_of = tuple(table.team_of[s] for s in range(len(sides)))
    deals = tuple(Deal(tuple(d.points), None if d.contract is None else table.team_of[d.contract.bidder], d.made)
                  for d in game.deals)
    return GameDeals(tuple(sides), team_of, tuple(o.scores), tuple(o.winners), deals)


def block_of_records(games: Sequence[tuple[Sequence[Side], dict]]) -> list[GameDeals]:
    """A stored block (:meth:`arena.store.Store.block_records`: each game's sides by seat and its record) replayed
    with the rules engine; a game whose record does not replay to an outcome (one given up after a fault) is left
    out, so the block's deals are compared over the games that were played out."""
    from referee.rules import Game, RulesError

    out = []
    for sides, record in games:
        try:
            g = Game.from_record(record)
        except (RulesError, ValueError):
            continue
        if g.outcome is not None:
            out.append(game_deals(g, sides))
    return out


# ----------------------------------------------------------------------------- one game, one pair
def _opposed(g: GameDeals, a: Side, b: Side) -> list[tuple[int, int]]:
    """The (A's seat, B's seat) pairs of ``g`` on opposite teams."""
    sa = [s for s, x in enumerate(g.sides) if x == a]
    sb = [s for s, x in enumerate(g.sides) if x == b]
    return [(x, y) for x in sa for y in sb if g.team_of[x] != g.team_of[y]]


def _contract_value(d: Deal, team: int) -> float:
    """+1 when ``team``'s contract was made or the other team's set, -1 for the reverse, 0 when thrown in."""
    if d.bidder_team is None or d.made is None:
        return 0.0
    return (1.0 if d.made else -1.0) * (1.0 if d.bidder_team == team else -1.0)


def deal_results(g: GameDeals, a: Side, b: Side) -> list[tuple[float, float]]:
    """Per deal of ``g``, A's (points, contracts) against B: A's deal points minus B's and A's contract value minus
    B's, each the mean over their opposed seats. Empty when A and B are not opposed in ``g``."""
    against = _opposed(g, a, b)
    if not against:
        return []
    t = g.team_of
    return [(sum(d.points[t[x]] - d.points[t[y]] for x, y in against) / len(against),
             sum(_contract_value(d, t[x]) - _contract_value(d, t[y]) for x, y in against) / len(against))
            for d in g.deals]


def game_result(g: GameDeals, a: Side, b: Side) -> tuple[float, float] | None:
    """A's (score, margin) against B in ``g``, as :func:`arena.evidence.game_pairs` reads it; None when not opposed."""
    against = _opposed(g, a, b)
    if not against:
        return None
    t = g.team_of

    def ahead(s: int) -> tuple[bool, float]:
        return (t[s] in g.winners, g.scores[t[s]])

    score = sum(1.0 if ahead(x) > ahead(y) else 0.5 if ahead(x) == ahead(y) else 0.0 for x, y in against)
    margin = sum(g.scores[t[x]] - g.scores[t[y]] for x, y in against)
    return score / len(against), margin / len(against)


# ----------------------------------------------------------------------------- one block, one pair
class PairedDeal(NamedTuple):
    """One deal number played in every game of a block: A's results against B on it, summed over the games."""

    number: int                    # 1-based
    points: float
    contracts: float

    @property
    def deal_score(self) -> float:
        """1 when A did better on these cards than B, 1/2 when as well, 0 when worse."""
        return 1.0 if self.points > 0 else 0.5 if self.points == 0 else 0.0


def paired_deals(block: Sequence[GameDeals], a: Side, b: Side) -> list[PairedDeal]:
    """The deals of ``block`` played in every one of its games where A and B are opposed, with A's results summed
    over those games; empty when they never are."""
    per_game = [r for g in block if (r := deal_results(g, a, b))]
    if not per_game:
        return []
    return [PairedDeal(k + 1, sum(r[k][0] for r in per_game), sum(r[k][1] for r in per_game))
            for k in range(min(len(r) for r in per_game))]


class Statistic(NamedTuple):
    """One number per block for A against B, and its value when A and B are equally strong (the duplicate deals
    give both sides the same cards, so then the block's value is as likely above ``centre`` as below by as much)."""

    name: str
    centre: float
    of_block: Callable[[Sequence[GameDeals], Side, Side], float | None]
    what: str


def _game_mean(index: int) -> Callable[[Sequence[GameDeals], Side, Side], float | None]:
    def of_block(block: Sequence[GameDeals], a: Side, b: Side) -> float | None:
        rs = [r[index] for g in block if (r := game_result(g, a, b)) is not None]
        return sum(rs) / len(rs) if rs else None
    return of_block


def _deal_mean(value: Callable[[PairedDeal], float]) -> Callable[[Sequence[GameDeals], Side, Side], float | None]:
    def of_block(block: Sequence[GameDeals], a: Side, b: Side) -> float | None:
        deals = paired_deals(block, a, b)
        return sum(value(d) for d in deals) / len(deals) if deals else None
    return of_block


STATISTICS: dict[str, Statistic] = {s.name: s for s in (
    Statistic("score", 0.5, _game_mean(0), "the block's mean game score: 1 won, 1/2 level, 0 lost"),
    Statistic("margin", 0.0, _game_mean(1), "the block's mean game margin: A's final points minus B's"),
    Statistic("points", 0.0, _deal_mean(lambda d: d.points),
              "per paired deal, A's deal points minus B's summed over the block's games; their mean"),
    Statistic("deals", 0.5, _deal_mean(lambda d: d.deal_score),
              "per paired deal, 1 when A did better on its cards than B, 1/2 as well, 0 worse; their mean"),
    Statistic("contracts", 0.0, _deal_mean(lambda d: d.contracts),
              "per paired deal, contracts made and set by A's team less B's, over the block's games; their mean"),
)}


# ----------------------------------------------------------------------------- comparing statistics
class Separation(NamedTuple):
    """How far one statistic's blocks put A from B: the blocks' mean less the centre, their standard deviation,
    and z = that distance / SD, the evidence one block gives (a test needs about (c / z)^2 blocks for a given c)."""

    blocks: int
    mean: float
    sd: float
    z: float


def separation(values: Sequence[float], centre: float) -> Separation | None:
    """Of the block values of one statistic; None for fewer than 2 blocks or none that differ."""
    n = len(values)
    if n < 2:
        return None
    m = sum(values) / n
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    if var <= 0:
        return None
    sd = math.sqrt(var)
    return Separation(n, m - centre, sd, (m - centre) / sd)


def multiplier(method: Separation, baseline: Separation) -> float | None:
    """The effective-games multiplier of a statistic over the baseline (the block score): (z / z_baseline)^2, the
    blocks the baseline needs for the evidence one block of the statistic gives. None when the baseline's z is 0."""
    return (method.z / baseline.z) ** 2 if baseline.z else None


__all__ = ["STATISTICS", "Deal", "GameDeals", "PairedDeal", "Separation", "Statistic", "block_of_records",
           "deal_results", "game_deals",
           "game_result", "multiplier", "paired_deals", "separation"]
