"""Result sinks: where the arena's finished games go.

- :class:`RatedSink`: the run's store, each game committed in a group off the event loop (:mod:`arena.commits`)
  and rated in plan order, each once every game planned before it is stored, in the transaction of the group that
  makes it ready: the same command and seed give the same ratings whatever order the games finished in.
- :class:`CollectingSink`: a cluster node's scratch store, unrated (the driver rates, in the whole run's plan
  order), and the finished games collected under their indexes in the whole run's plan (:mod:`arena.distributed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from pepper_proto.v1 import control_pb2

from . import results, schedule
from .commits import GroupCommitter
from .context import RunContext
from .ratings import Rater
from .store import NewGame, Store


@runtime_checkable
class ResultSink(Protocol):
    """What the arena's loop does with a finished game, and with an adaptive round's plan while games play."""

    async def open(self, run_id: int) -> None:
        """Before the first game of a session."""

    async def put(self, run_id: int, idx: int, seed: int, seats: list[str], res: control_pb2.GameResult) -> None:
        """Store the game of plan index ``idx`` played on deck ``seed``; returns once it is committed."""

    async def append_plan(self, run_id: int, plan: schedule.Plan) -> None:
        """Store an adaptive round's games, in order with the games committed before."""

    async def close(self) -> None:
        """Commit whatever is still queued (whatever ends the session)."""

    def rate(self, run_id: int, *, past_gaps: bool = False) -> None:
        """Rate the stored games that are ready (``past_gaps``: at the end of a session, every stored one)."""


class RatedSink:
    """The run's store, rated in plan order (see the module's docstring). ``committer`` makes the group writer of a
    run from its ``then`` (what runs in each group's transaction): tests give one whose store fails on cue."""

    def __init__(self, ctx: RunContext, rater: Rater | None = None, *, rated: bool = True,
                 committer: Callable[[RunContext, Callable[[Store], object] | None], GroupCommitter] | None = None):
        self.ctx = ctx
        self.rater = rater or Rater(tau=ctx.cfg.tau)
        self.rated = rated
        self._committer = committer or (lambda ctx, then: GroupCommitter(ctx.store.path, then=then))
        self._commits: GroupCommitter | None = None   # the writer of finished games while a session plays
        self._rated_below = 0                           # every planned game below this index is rated

    async def open(self, run_id: int) -> None:
        then = (lambda store: self.rate(run_id, store=store)) if self.rated else None
        self._commits = self._committer(self.ctx, then)
        await self._commits.start()

    def new_game(self, run_id: int | None, idx: int, seed: int, seats: list[str], res: control_pb2.GameResult) -> NewGame:
        ctx = self.ctx
        return results.new_game(res, ctx.table, run_id=run_id, idx=idx, pool=ctx.pool, ruleset=ctx.rs.name, seed=seed,
                                seats=seats, versions=ctx.versions)

    async def put(self, run_id: int, idx: int, seed: int, seats: list[str], res: control_pb2.GameResult) -> None:
        assert self._commits is not None, "open() first"
        await self._commits.commit(self.new_game(run_id, idx, seed, seats, res))

    async def append_plan(self, run_id: int, plan: schedule.Plan) -> None:
        # Through the group writer: committed by the loop, it would wait for the disk and for the writer's lock.
        if self._commits is None:
            self.ctx.store.append_plan(run_id, plan)
        else:
            await self._commits.call(lambda store: store.append_plan(run_id, plan))

    async def close(self) -> None:
        commits, self._commits = self._commits, None
        if commits is not None:
            await commits.close()

    def rate(self, run_id: int, *, past_gaps: bool = False, store: Store | None = None) -> None:
        """Rate the run's stored games in plan order, each once every game planned before it is stored (or every
        stored one, ``past_gaps``: at the end of a session, past the games a withdrawn bot left unplayed). ``store``:
        the connection to do it on (the group writer's, inside its transaction), by default the run's."""
        if not self.rated:
            return
        store = store or self.ctx.store
        games = store.unrated(run_id, past_gaps=past_gaps, start=0 if past_gaps else self._rated_below)
        table = self.ctx.table

        def rate(g, current):
            seats = [s.bot for s in sorted(g.seats, key=lambda s: s.seat)]
            return self.rater.rate(current, results.entries(table, seats), results.stored_ranks(g.seats, table))

        if games:  # in one transaction
            store.rate_games(games, rate)
            if not past_gaps:  # rated without a gap: every game before the next one is rated
                self._rated_below = games[-1].idx + 1


class CollectingSink:
    """A cluster node's match: its games stored unrated in the node's scratch store (so that the run's loop sees
    them played) and collected in ``finished`` under their plan indexes in the whole run (``global_idx``), each
    also handed to ``on_game`` as it finishes (what streams it to the driver)."""

    def __init__(self, ctx: RunContext, global_idx: list[int], on_game: Callable[[NewGame], None] | None = None):
        self.store = RatedSink(ctx, rated=False)
        self.global_idx = global_idx
        self.finished: list[NewGame] = []
        self.on_game = on_game or (lambda game: None)

    async def open(self, run_id: int) -> None:
        await self.store.open(run_id)

    async def put(self, run_id: int, idx: int, seed: int, seats: list[str], res: control_pb2.GameResult) -> None:
        await self.store.put(run_id, idx, seed, seats, res)
        self.finished.append(self.store.new_game(None, self.global_idx[idx], seed, seats, res))
        self.on_game(self.finished[-1])

    async def append_plan(self, run_id: int, plan: schedule.Plan) -> None:
        await self.store.append_plan(run_id, plan)

    async def close(self) -> None:
        await self.store.close()

    def rate(self, run_id: int, *, past_gaps: bool = False) -> None:
        pass  # the driver rates, in the whole run's plan order


__all__ = ["CollectingSink", "RatedSink", "ResultSink"]
