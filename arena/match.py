"""A match between two bots: duplicate blocks until a sequential test decides (``pepper arena match A B``).

A match is a run of the tournament machinery (:class:`arena.tournament.Arena`) with two bots and a planner of
its own (:class:`SequentialPlanner`), planned a round of blocks at a time like an adaptive run, and stored like any run (so it resumes: the same command
plays on where it stopped, and a decided match just prints its result). After each stored game the
complete blocks are fed, in plan order, to a generalized SPRT (:class:`arena.sprt.Sequential`); the
first block whose LLR reaches a bound decides, and no further block is planned. The test reads each block as its
``statistic`` (:data:`arena.deals_evidence.STATISTICS`): ``margin`` (the default) or another statistic by the
normalized test (:class:`arena.sprt.Normalized`), or ``score``, fishtest's GSPRT on the block score. The statistic is
part of the run's key (a run keyed without one reads the score), so a match resumes on the statistic it started on. Games already in flight
then finish and are stored, but the verdict and its estimate are those of the blocks up to the deciding
one: a function of the plan and the results, whatever order the games finished in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

from . import schedule
from .config import RunConfig
from .context import RunContext
from .deals_evidence import STATISTICS
from .errors import UsageError
from .evidence import Block, HeadToHead, head_to_head
from .planners import ADAPTIVE_LAG_GAMES, ADAPTIVE_ROUND_GAMES, Entrants
from .sprt import BlockTest, Sprt, StopAdjusted
from .store import Store
from .tournament import Arena

# Games planned per round (whole blocks): enough to keep the bots busy, few enough that little is played past
# the deciding block.
ROUND_GAMES = 32

# Exit statuses of `pepper arena match` (besides 1: the match cannot go on; 2: bad input; 130: interrupted).
EXIT_H1, EXIT_H0, EXIT_UNDECIDED = 0, 3, 4

# What a match's test reads in each block unless told: the game margin, which separates the bots in fewer blocks
# than the block score at the same error rates (docs/statistics.md, the effective-games multiplier).
DEFAULT_STATISTIC = "margin"


@dataclass
class MatchConfig(RunConfig):
    """A run between ``bots[0]`` (A) and ``bots[1]`` (B), at most ``games`` games, decided by ``sprt``."""

    sprt: Sprt = field(default_factory=Sprt)
    adaptive: bool = True   # planned a round at a time
    # What the test reads in each block (arena.deals_evidence.STATISTICS); None: the stored match's (see statistic_for)
    statistic: str | None = None

    def __post_init__(self):
        if self.statistic is not None and self.statistic not in STATISTICS:
            raise UsageError(f"statistic {self.statistic!r}: expected one of {', '.join(STATISTICS)}")

    def run_key(self, bots: list[str]) -> dict:
        statistic = self.statistic or DEFAULT_STATISTIC
        test = asdict(self.sprt) | ({} if statistic == "score" else {"statistic": statistic})
        return super().run_key(bots) | {"match": {"a": self.bots[0], "b": self.bots[1], **test}}

    def statistic_for(self, store: Store) -> MatchConfig:
        """This match with its statistic settled: the one asked for; else, unset, :data:`DEFAULT_STATISTIC` unless
        the store holds this match on the score (keyed without a statistic) and none on the default, which it then
        resumes as it was started."""
        if self.statistic is not None:
            return self
        default, score = (replace(self, statistic=s) for s in (DEFAULT_STATISTIC, "score"))
        if store.find_run(default.run_key(self.bots)) is None and store.find_run(score.run_key(self.bots)) is not None:
            return score
        return default


@dataclass
class MatchStatus:
    """Where a match stands: its SPRT over the complete blocks in plan order, and the estimate from them."""

    sprt: Sprt
    verdict: str | None = None    # "H1", "H0", or None (undecided)
    llr: float = 0.0
    blocks: int = 0               # blocks fed to the test (up to the deciding one)
    games: int = 0                # their games
    played: int = 0               # games of the match stored (games in flight when it decided too)
    estimate: HeadToHead | None = None
    adjusted: StopAdjusted | None = None   # the Elo estimate corrected for the SPRT's stop (decided matches)

    @property
    def exit_code(self) -> int:
        return {"H1": EXIT_H1, "H0": EXIT_H0}.get(self.verdict, EXIT_UNDECIDED)


class SequentialPlanner(Entrants):
    """Blocks of A against B, a round at a time, until the SPRT over the complete blocks in plan order decides or
    ``games`` are planned. Its entrants are A and B: neither may leave (a match cannot go on without one) nor may
    another join; when one leaves (it is withdrawn), the fleet ends the match: a game needs both."""

    def __init__(self, ctx: RunContext, on_block: Callable[[MatchStatus], None] | None = None):
        super().__init__()
        self.ctx = ctx
        self.cfg: MatchConfig = ctx.cfg  # type: ignore[assignment]
        self.a, self.b = self.cfg.bots
        self.on_block = on_block or (lambda st: None)
        self.seq = BlockTest(self.cfg.sprt, self.cfg.statistic or DEFAULT_STATISTIC)
        self.blocks: list[Block] = []
        self.next_match = 0

    def begin(self, names: list[str]) -> schedule.Plan:
        self._entrants = list(names)
        return []

    def add_entrant(self, name: str) -> None:
        raise UsageError(f"bot {name!r} cannot join a match: it is between {self.a} and {self.b}")

    def total(self, run_id: int) -> int:
        return self.cfg.games

    def to_play(self, run_id: int) -> int:
        return self.cfg.games - self.ctx.store.game_ids(run_id).count

    def finished(self, run_id: int) -> bool:
        return self.ctx.store.planned_count(run_id) >= self.cfg.games

    def status(self, run_id: int) -> MatchStatus:
        """Feed the test the complete blocks that follow the ones it has seen, in plan order (stopping at the first
        block not complete yet), and say where the match stands."""
        store, pool = self.ctx.store, self.ctx.pool
        rows = {r.match: r for r in store.blocks(pool, run_id, self.next_match) if r.bot == self.a and r.opponent == self.b}
        fed = False
        while self.seq.verdict is None and (r := rows.get(self.next_match)) is not None and r.complete:
            self.blocks.append(Block(r.games, r.score, r.score_sq, r.margin, r.margin_sq))
            self.seq.feed(r, lambda m=r.match: store.block_records(run_id, m))
            self.next_match += 1
            fed = True
        estimate = head_to_head(self.a, self.b, self.blocks, self.seq.estimate_basis)
        adjusted = self.seq.adjusted()
        st = MatchStatus(self.cfg.sprt, self.seq.verdict, self.seq.llr, len(self.blocks),
                         sum(k.games for k in self.blocks), store.game_ids(run_id).count, estimate, adjusted)
        if fed:
            self.on_block(st)
        return st

    def more(self, run_id: int, planned: int) -> bool:
        return planned < self.cfg.games and self.status(run_id).verdict is None

    def stored(self, run_id: int) -> None:
        self.status(run_id)

    def window(self, planned: int) -> tuple[int, int]:
        # The next round planned once no more than 64 games are in flight, as in an adaptive run's start, whatever
        # the match's length: a window growing with it would only play more games past the SPRT's verdict.
        return ADAPTIVE_LAG_GAMES, ADAPTIVE_ROUND_GAMES

    def basis(self, planned: int) -> int:
        return 0  # its rounds are not chosen on ratings: nothing to wait for

    def stop_reason(self, run_id: int) -> str | None:
        return None

    def next_round(self, run_id: int) -> schedule.Plan:
        """Whole blocks of the line-ups of A and B, in turn, on fresh decks."""
        ctx, names = self.ctx, self.entrants
        ups = schedule.lineups(names, ctx.rs, ctx.players, "mirrored")
        mirrored = ctx.table.teams < ctx.players
        per_block = len(schedule.rotations(ups[0], mirrored))
        planned = ctx.store.planned(run_id)
        left = -(-max(1, self.cfg.games - len(planned)) // per_block)
        blocks = min(left, max(1, ROUND_GAMES // per_block))
        first = max((g.match for g in planned), default=-1) + 1
        order = [ups[(first + k) % len(ups)] for k in range(len(ups))]
        return schedule.plan(names, ctx.rs, ctx.players, blocks * per_block, self.cfg.seed, mode="mirrored",
                             first_match=first, lineup_order=order)


def play(config: MatchConfig, on_progress=None, notify=None, on_block=None, *, ray: str | None = None,
         ray_options: dict | None = None) -> MatchStatus:
    """Play (or resume) the match ``config`` describes until its test decides or its games run out; a match
    already decided, or out of games, plays nothing more. ``ray``: its blocks as Ray tasks on the cluster at that
    address (:func:`arena.distributed.run`, with ``ray_options``), each round planned once the blocks it follows are
    back. Returns its status."""
    store = Store(config.db)
    try:
        asked, config = config.statistic, config.statistic_for(store)
        if asked is None and config.statistic != DEFAULT_STATISTIC and notify is not None:
            notify(f"resuming the match started on the {config.statistic} (--statistic {DEFAULT_STATISTIC} starts one "
                   f"on the {DEFAULT_STATISTIC})")
        arena = Arena(config, store, on_progress, notify, planner=lambda ctx: SequentialPlanner(ctx, on_block))
        planner: SequentialPlanner = arena.planner  # type: ignore[assignment]
        bots = arena.check()
        run_id, _ = store.find_or_create_run(config.run_key([b.name for b in bots]), [])
        st = planner.status(run_id)
        out_of_games = store.planned_count(run_id) >= config.games and not store.pending(run_id)
        if st.verdict is None and not out_of_games:
            if ray:   # only then is Ray imported
                from . import distributed

                distributed.run(config, ray, on_progress, notify, planner=lambda ctx: SequentialPlanner(ctx, on_block),
                                **(ray_options or {}))
                # Read again on this store (the run's closed with it); on_block has seen every block already.
                st = SequentialPlanner(arena.ctx).status(run_id)
            else:
                asyncio.run(arena.run())
                st = planner.status(run_id)
        return st
    finally:
        store.close()


__all__ = ["DEFAULT_STATISTIC", "EXIT_H0", "EXIT_H1", "EXIT_UNDECIDED", "MatchConfig", "MatchStatus", "ROUND_GAMES", "SequentialPlanner", "play"]
