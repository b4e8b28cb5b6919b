"""What a cluster's tasks hand back, on the driver (:mod:`arena.distributed`): committed once into the run's store
and rated in plan order, and the planner's next round planned once the games it is chosen on are back."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .match_task import MatchResult, match_id
from .progress import Progress
from .store import PlannedGame, Store
from .tournament import Arena


def plan_round(arena: Arena, store: Store, run_id: int, waiting: set[int], progress: Progress) -> list[PlannedGame] | None:
    """The planner's next round, as the single-machine arena plans it (:meth:`arena.tournament.Arena._plan_round`):
    once none of the games it is chosen on (planned before its basis) is ``waiting`` (in flight and not back) and no
    more than its lag are, rated first; stored in the plan and returned. [] while they are waiting; None when no
    round follows (a fixed plan, the cap reached) or the planner stops the run (``--until-confident``, a decided
    match: ``progress.stopped``)."""
    planner = arena.planner
    planned = store.planned_count(run_id)
    if not planner.more(run_id, planned):
        return None
    # At most the lag and a round in flight, as on one machine: a round planned early is played past a decision.
    lag, _ = planner.window(planned)
    basis = planner.basis(planned)
    if len(waiting) > lag or any(i < basis for i in waiting):
        return []
    arena.sink.rate(run_id)
    if why := planner.stop_reason(run_id):
        progress.stopped = why
        return None
    store.append_plan(run_id, planner.next_round(run_id))
    progress.total = planner.total(run_id)
    return store.planned(run_id, start=planned)


def seat_faults(seat) -> int:
    """A stored seat's faults as the ranked table counts them (``Store.run_table_faults``)."""
    return seat.faults.timeout + seat.faults.illegal + seat.faults.malformed + seat.fallbacks


def commit(arena: Arena, store: Store, run_id: int, back: list[MatchResult], progress: Progress, committed: set[str],
           notify: Callable[[str], None]) -> None:
    """Store the games of the matches ``back`` once, in one transaction (a game already stored is dropped), their
    crashes and withdrawals, and rate what is ready in plan order (one more transaction).

    A result that arrives twice (a retry whose first attempt came back too, or one a later session stored) is
    counted once in everything it carries: its crashes are stored and its faults counted only with the result
    whose games were stored (or, for a result without games, the first one this session saw). A batch of games a
    task handed out while it plays (``final`` False) carries only its games."""
    flags = store.record_group([dataclasses.replace(g, run_id=run_id) for r in back for g in r.games])
    dropped = 0
    k = 0
    for res in back:
        stored = flags[k:k + len(res.games)]
        k += len(res.games)
        ids = {match_id(run_id, m) for m in res.matches}
        new = res.final and (any(stored) if res.games else not ids <= committed)
        if res.final:
            committed.update(ids)
        dropped += stored.count(False)
        progress.done += sum(stored)
        progress.faults += sum(seat_faults(s) for g, kept in zip(res.games, stored) if kept for s in g.seats)
        if new:
            _after(arena, store, run_id, res, progress, notify)
    if dropped:
        notify(f"{dropped} game(s) already stored were dropped, not counted twice")
    arena.sink.rate(run_id)


def _after(arena: Arena, store: Store, run_id: int, res: MatchResult, progress: Progress, notify) -> None:
    """A match's crashes stored and its withdrawals noted."""
    for bot, code, replayed in res.crashes:
        store.record_crash(run_id, arena.pool, bot, (arena.versions or {}).get(bot, 1), code, replayed)
        progress.crashes += 1
        progress.faults += 1   # a crash is one of the bot's faults in the table
        progress.replayed += replayed
    for bot, why in res.withdrawn.items():
        if bot not in arena.fleet.withdrawn:
            arena.fleet.withdrawn[bot] = why
            for on_withdraw in arena.fleet.on_withdraw:   # the planner's rounds leave it out from now on
                on_withdraw(bot)
            notify(f"bot {bot!r} {why} (on {res.node}): it is withdrawn from this run; its matches not begun are not "
                   "played (run the same command again once it is fixed)")


__all__ = ["commit", "plan_round", "seat_faults"]
