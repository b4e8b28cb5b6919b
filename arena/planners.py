"""Planners: what games a run plays, and when it has played enough.

The arena (:class:`arena.tournament.Arena`) asks its planner for the plan stored when the run is created
(:meth:`Planner.begin`), and, while games play, whether another round follows (:meth:`Planner.more`), when to plan
it (:meth:`Planner.window`, :meth:`Planner.basis`) and what it holds (:meth:`Planner.next_round`). A round is
chosen on the stored games planned before its basis only (the arena waits for them and rates them first), never on
whichever games happened to finish: the same command and seed give the same plan at any concurrency.

- :class:`FixedPlanner` (``--planned``; a cluster node's match): the whole plan up front, no rounds.
- :class:`AdaptivePlanner` (``--adaptive``): rounds on the ratings, most games to the bots the table may have the
  wrong way round (:func:`schedule.adaptive_order`).
- :class:`arena.match.SequentialPlanner` (``pepper arena match``): blocks of A against B until an SPRT decides.

Entrants may join (:meth:`Planner.add_entrant`) and leave (:meth:`Planner.remove_entrant`, the arena's withdrawals)
while a planner runs: the rounds planned after that include them, or leave them out.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol, runtime_checkable

from . import schedule, stats
from .context import RunContext
from .errors import UsageError
from .evidence import LEVEL, Block, head_to_head
from .points import table_order
from .ratings import Rating

# Adaptive mode plans this many games per round (whole matches), whatever --concurrency says, each round on the
# ratings after the games planned up to ADAPTIVE_LAG_GAMES games before it (in plan order, whatever order they finished
# in: the same ones at any --concurrency, so the plan is too). Small rounds follow the ratings closely; the lag is what
# the arena may keep in flight while it plans (at the start at most 72 games, about 50 on average: the rounds run in a
# convoy). A longer lag from the start costs games to the right order, a shorter one speed: a decision costs more in
# the small batches of few games in flight (docs/arena.md, "How many games a ranking needs"; bench/ranking.py).
ADAPTIVE_ROUND_GAMES = 8
ADAPTIVE_LAG_GAMES = 64
# Past its start the lag grows with the run, to half the games planned, up to ADAPTIVE_LAG_MAX, and a round to an
# eighth of the lag: the early rounds, which decide most, follow the ratings as closely as with a fixed lag of 64, and
# a long run keeps more games in flight, and so runs nearer a planned run's speed. A function of the plan's length
# only, so the plan stays deterministic.
ADAPTIVE_LAG_MAX = 256


def adaptive_lag(planned: int) -> int:
    """The planned games that the next adaptive round is not chosen on (they may still be in flight), after ``planned``."""
    return min(ADAPTIVE_LAG_MAX, max(ADAPTIVE_LAG_GAMES, planned // 2))


def adaptive_round(planned: int) -> int:
    """The games of the next adaptive round (whole matches, at least one), after ``planned`` planned games."""
    return max(ADAPTIVE_ROUND_GAMES, adaptive_lag(planned) // 8)


def adaptive_bases(cap: int, per_match: int) -> list[int]:
    """The basis of each look an adaptive run of ``cap`` games (matches of ``per_match``) takes at its table, one
    before each round once the basis holds a game: the most it can take, if it never stops early."""
    planned, bases = 0, []
    while planned < cap:
        if (basis := planned - adaptive_lag(planned)) > 0:
            bases.append(basis)
        matches = min(-(-(cap - planned) // per_match), max(1, adaptive_round(planned) // per_match))
        planned += matches * per_match
    return bases


def adaptive_looks(cap: int, per_match: int) -> int:
    """How many times at most an adaptive run looks at its table (:func:`adaptive_bases`): each look of
    ``--until-confident`` tests at :data:`LEVEL` divided by this, so that the chance that the run ever stops on a
    difference that is not there stays within LEVEL (Bonferroni over the looks), where testing each look at LEVEL
    stops on one a third of the time or more."""
    return max(1, len(adaptive_bases(cap, per_match)))


@runtime_checkable
class Planner(Protocol):
    """The schedule of a run, as the arena's loop asks for it."""

    @property
    def entrants(self) -> list[str]:
        """The bots the rounds still to plan are for."""

    def begin(self, names: list[str]) -> schedule.Plan:
        """The plan stored when the run is created, with ``names`` its entrants (empty: it is planned in rounds)."""

    def add_entrant(self, name: str) -> None:
        """``name`` joins: the rounds planned from now on include it (UsageError if this planner cannot)."""

    def remove_entrant(self, name: str) -> None:
        """``name`` leaves: no round planned from now on includes it (its games planned already are the arena's)."""

    def total(self, run_id: int) -> int:
        """The games the run's progress counts to."""

    def to_play(self, run_id: int) -> int:
        """The games still to play in this session, as far as it is known (for the default concurrency and shards)."""

    def more(self, run_id: int, planned: int) -> bool:
        """Whether another round follows the ``planned`` games planned so far."""

    def window(self, planned: int) -> tuple[int, int]:
        """(lag, round games) of the next round: it is planned once at most the lag and a round are in flight."""

    def basis(self, planned: int) -> int:
        """The planned games the next round is chosen on (stored and rated before it is planned)."""

    def stop_reason(self, run_id: int) -> str | None:
        """Why the run stops planning now, before its cap, or None (asked once the basis is rated)."""

    def next_round(self, run_id: int) -> schedule.Plan:
        """The next round's games (whole matches), not yet stored: the arena stores them."""

    def stored(self, run_id: int) -> None:
        """A game of the run has been stored (a sequential test looks at its blocks)."""

    def finished(self, run_id: int) -> bool:
        """Whether the run is complete once no planned game is pending."""


class Entrants:
    """What every planner keeps of its entrants: the bots :meth:`begin` named, less those that left (a planner that
    takes new ones adds them itself). Its ``entrants`` is a copy."""

    def __init__(self) -> None:
        self._entrants: list[str] = []

    @property
    def entrants(self) -> list[str]:
        return list(self._entrants)

    def remove_entrant(self, name: str) -> None:
        if name in self._entrants:
            self._entrants.remove(name)


class FixedPlanner(Entrants):
    """The whole plan up front: the config's round robin (``--planned``), or ``plan`` as given (a match played on a
    cluster node). Its plan is stored when the run is created, so an entrant cannot join; one that leaves keeps its
    planned games pending (the arena does not start them)."""

    def __init__(self, ctx: RunContext, plan: schedule.Plan | None = None):
        super().__init__()
        self.ctx = ctx
        self.plan = plan

    def begin(self, names: list[str]) -> schedule.Plan:
        self._entrants = list(names)
        if self.plan is not None:
            return self.plan
        cfg = self.ctx.cfg
        return schedule.plan(names, self.ctx.rs, self.ctx.players, cfg.games, cfg.seed, mode=cfg.lineup,
                             duplicate=cfg.duplicate, deal_seeds=self.ctx.deal_seeds())

    def add_entrant(self, name: str) -> None:
        raise UsageError(f"bot {name!r} cannot join a planned run: its whole plan was stored when it began "
                         "(an adaptive run plans in rounds, and takes new entrants)")

    def total(self, run_id: int) -> int:
        return self.ctx.store.planned_count(run_id)

    def to_play(self, run_id: int) -> int:
        return len(self.ctx.store.pending(run_id))

    def more(self, run_id: int, planned: int) -> bool:
        return False

    def window(self, planned: int) -> tuple[int, int]:
        return 0, 0

    def basis(self, planned: int) -> int:
        return planned

    def stop_reason(self, run_id: int) -> str | None:
        return None

    def next_round(self, run_id: int) -> schedule.Plan:
        return []

    def stored(self, run_id: int) -> None:
        pass

    def finished(self, run_id: int) -> bool:
        return True


class AdaptivePlanner(Entrants):
    """Rounds of :func:`adaptive_round` games (whole matches), each on the ratings after all but the last
    :func:`adaptive_lag` planned games, up to ``--games``; with ``--until-confident``, until every adjacent pair
    of the table is significantly apart."""

    def __init__(self, ctx: RunContext):
        super().__init__()
        self.ctx = ctx

    def begin(self, names: list[str]) -> schedule.Plan:
        self._entrants = list(names)
        return []

    def add_entrant(self, name: str) -> None:
        if name not in self._entrants:
            self._entrants.append(name)

    def total(self, run_id: int) -> int:
        return self.ctx.cfg.games

    def to_play(self, run_id: int) -> int:
        return self.ctx.cfg.games - self.ctx.store.game_ids(run_id).count

    def more(self, run_id: int, planned: int) -> bool:
        return planned < self.ctx.cfg.games

    def window(self, planned: int) -> tuple[int, int]:
        return adaptive_lag(planned), adaptive_round(planned)

    def basis(self, planned: int) -> int:
        return max(0, planned - self.window(planned)[0])

    def stop_reason(self, run_id: int) -> str | None:
        """--until-confident: why the run stops now (every adjacent pair of the table separated), or None."""
        if not self.ctx.cfg.until_confident:
            return None
        pairs = self.separations(run_id)
        if not pairs or not all(sig for _, _, sig in pairs):
            return None
        basis = self.basis(len(self.ctx.planned(run_id)))
        return (f"every adjacent pair of the table is significantly apart (95% over the run's up to "
                f"{self.looks()} looks: {100 * self.level():.2g}% each) after the first {basis} planned games "
                f"({' > '.join([pairs[0][0]] + [b for _, b, _ in pairs])}); the games planned after them are "
                f"played too: {self.ctx.store.planned_count(run_id)} of the --games {self.ctx.cfg.games} cap")

    def stored(self, run_id: int) -> None:
        pass

    def finished(self, run_id: int) -> bool:
        return self.ctx.store.planned_count(run_id) >= self.ctx.cfg.games

    def per_match(self) -> int:
        """The games of one match: a block's rotations with duplicate deals, else one."""
        ctx, cfg = self.ctx, self.ctx.cfg
        ups = schedule.lineups(self.entrants, ctx.rs, ctx.players, cfg.lineup)
        mirrored = cfg.lineup == "mirrored" and ctx.table.teams < ctx.players
        return len(schedule.rotations(ups[0], mirrored)) if cfg.duplicate else 1

    def looks(self) -> int:
        """The most looks at the table this run can take (:func:`adaptive_looks`)."""
        return adaptive_looks(self.ctx.cfg.games, self.per_match())

    def level(self) -> float:
        """The two-sided level each look tests at: LEVEL shared out over the looks."""
        return LEVEL / self.looks()

    def next_round(self, run_id: int) -> schedule.Plan:
        """Every line-up keeps a floor of matches, and the rest go to the line-ups whose bots the table may have the
        wrong way round (:meth:`lineup_scores`), among those of bots with about as many matches as the least-played
        one (:func:`schedule.adaptive_order`)."""
        ctx, cfg, names = self.ctx, self.ctx.cfg, self.entrants
        ups = schedule.lineups(names, ctx.rs, ctx.players, cfg.lineup)
        mirrored = cfg.lineup == "mirrored" and ctx.table.teams < ctx.players
        per_match = self.per_match()
        plan = ctx.planned(run_id)
        planned = len(plan)
        # On the ratings after the games planned up to the lag, whatever has finished meanwhile: the same command and
        # seed plan the same rounds (the arena waits for those games first).
        ratings = ctx.store.ratings_after(ctx.pool, run_id, self.basis(planned), ctx.versions)
        left = -(-max(1, cfg.games - planned) // per_match)  # matches still to plan
        matches = min(left, max(1, self.window(planned)[1] // per_match))
        match_seats = {g.match: g.seats for g in plan}  # the last game's seats of each match
        played = Counter(schedule.lineup_key(s, mirrored) for s in match_seats.values())
        counts = [played[schedule.lineup_key(u, mirrored)] for u in ups]
        bot_counts = Counter(b for seats in match_seats.values() for b in set(seats))
        scores = self.lineup_scores(ratings, names, ups)
        order = [ups[i] for i in schedule.adaptive_order(scores, counts, matches, members=[sorted(set(u)) for u in ups],
                                                         bot_counts={n: bot_counts[n] for n in names})]
        return schedule.plan(names, ctx.rs, ctx.players, matches * per_match, cfg.seed, mode=cfg.lineup,
                             duplicate=cfg.duplicate, first_match=max(match_seats, default=-1) + 1,
                             lineup_order=order, played=played, deal_seeds=ctx.deal_seeds())

    def lineup_scores(self, ratings: dict, names: list[str], ups: list[list[str]]) -> list[float]:
        """How much a game of each line-up of ``ups`` may set the table right: the doubt about the order of the bots it
        sets against each other that the table has next to each other (:func:`schedule.table_doubt`)."""
        doubt = schedule.table_doubt(ratings, names, Rating())
        return [schedule.lineup_table_doubt(doubt, u, self.ctx.table) for u in ups]

    def separations(self, run_id: int) -> list[tuple[str, str, bool]] | None:
        """The table's adjacent pairs in its order (:func:`arena.stats.rank`): (upper, lower, significantly apart at
        this run's per-look :meth:`level`) as of the basis (the planned games before the rounds in flight, all stored
        and rated; None before any): by their head-to-head blocks in which each was its team alone where they have enough, else their ratings, as the
        leaderboard marks ties (:func:`stats.separation`). A function of the plan only, not of the order games
        finished in."""
        ctx = self.ctx
        planned = ctx.planned(run_id)
        basis = self.basis(len(planned))
        if basis == 0:
            return None
        rated = ctx.store.ratings_after(ctx.pool, run_id, basis, ctx.versions)
        ratings = {n: rated.get(n, Rating()) for n in self.entrants}
        done = {g.match for g in planned[:basis]} - ({planned[basis].match} if basis < len(planned) else set())
        blocks: dict[tuple[str, str], list[Block]] = {}
        for b in stats.solo_rows(ctx.store.blocks(ctx.pool)):
            if (b.games == b.planned and (b.run_id != run_id or b.match in done)
                    and ctx.version(b.bot) == b.version and ctx.version(b.opponent) == b.opponent_version):
                blocks.setdefault((b.bot, b.opponent), []).append(Block(b.games, b.score, b.score_sq, b.margin, b.margin_sq))
        # The table's order (stats.rank): by the points rating of these blocks, then TrueSkill.
        points = stats.block_points(blocks)
        order = table_order(self.entrants, {n: ratings[n].conservative for n in self.entrants},
                            {n: p for n, p in points.items() if n in ratings})
        level = self.level()
        return [(a, b, stats.separation(ratings[a], ratings[b], head_to_head(a, b, blocks.get((a, b), [])), level)[1])
                for a, b in zip(order, order[1:])]


def default_planner(ctx: RunContext) -> Planner:
    """The planner a run's config asks for: adaptive (``--adaptive``) or fixed (``--planned``)."""
    return AdaptivePlanner(ctx) if ctx.cfg.adaptive else FixedPlanner(ctx)


__all__ = ["ADAPTIVE_LAG_GAMES", "ADAPTIVE_LAG_MAX", "ADAPTIVE_ROUND_GAMES", "AdaptivePlanner", "FixedPlanner",
           "Planner", "adaptive_bases", "adaptive_lag", "adaptive_looks", "adaptive_round", "default_planner"]
