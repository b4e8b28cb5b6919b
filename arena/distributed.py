"""One tournament across many machines, on Ray (``pepper arena run --ray ADDRESS``; docs/cluster.md).

The driver (the machine that runs the command) opens the run as the single-machine arena does (its plan stored
first, see :meth:`arena.tournament.Arena.open_run`), splits the planned games still to play into matches (a
duplicate block each, ``planned_games.match``) and runs them as Ray tasks, a few matches each. A task plays them
with the single-machine tournament loop itself, with a referee and the bots of its own on its node, and streams
the finished games back as they finish, then the bot crashes it saw (:mod:`arena.match_task`). So the crash
policy, withdrawals and time controls are the same code on one machine and on a thousand.

The driver is the only writer of the SQLite store. It commits the games that came back in one transaction under
their plan indexes (:meth:`arena.store.Store.record_games`: a game already stored is dropped, so a match that comes
back twice is counted once) and rates the stored games in plan order, as the single-machine arena does: the same
command and seed give the same table, however the matches were spread over the nodes.

Faults. A task whose node dies is retried by Ray on another node (``max_retries``); one that raises is
resubmitted by the driver a few times; one that runs past ``match_timeout_s`` a match (a straggler) is cancelled
(its worker, referee and bots killed) and resubmitted; a cluster left without CPUs stops the run (NO_CPUS_S). A killed driver loses nothing that was committed: the same
command finds the run by its key and resubmits the matches with games still pending (Ray cancels the tasks of a
driver that died).

Rounds. A run's planner decides its games as on one machine: a fixed plan is submitted at once; an adaptive run
(``--adaptive``, ``--until-confident``) and ``pepper arena match --ray`` plan each round once the games it is chosen
on have come back and been rated (:func:`arena.cluster_results.plan_round`), and stop when the planner says so, the matches in flight
played out. The same command and seed plan the same rounds as without Ray.

This module imports Ray only inside :func:`run` and a task's body on a node: the single-machine arena never loads it.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .cluster_results import commit, plan_round
from .config import RunConfig
from .context import RunContext
from .errors import ArenaError, UsageError
from .match_task import MatchResult, match_id, play_match, shipped_files, stream_match
from .planners import Planner
from .progress import Progress
from .ray_start import connect
from .store import Bot, BotKind, NewGame, PlannedGame, Store
from .tournament import Arena

# Ray's own retries of a match whose worker or node died (system failures), and the driver's resubmissions of a
# match whose task failed otherwise (an error raised in it, a straggler cancelled): both before the run stops.
MAX_RETRIES = 3
MAX_RESUBMITS = 3
# Matches a task plays when --ray-matches is not given: enough that each of the cluster's task slots plays about
# TASKS_PER_SLOT tasks (a task's start, its worker, referee and bots, costs 1-4 s: spread over many games, and its
# games in flight keep the processes' batches full, as on one machine), at most MAX_MATCHES_PER_TASK (what a lost
# node or a straggler costs), at least one.
TASKS_PER_SLOT = 4
MAX_MATCHES_PER_TASK = 50
# A match still running this long after it was submitted is a straggler: cancelled and requeued.
MATCH_TIMEOUT_S = 600.0
POLL_S = 0.2
# A cluster left without a node that has CPUs (every worker died or left) this long stops the run, resumable,
# rather than waiting for its matches' timeouts and resubmissions (MATCH_TIMEOUT_S times 1 + MAX_RESUBMITS).
NO_CPUS_S = 20.0


def _on_node(*args) -> Iterator[list[NewGame] | MatchResult]:
    """A Ray task's body: :func:`stream_match`, its node named by its Ray node id."""
    import ray

    yield from stream_match(*args, node=f"{socket.gethostname()}:{os.getpid()} (Ray node "
                                        f"{ray.get_runtime_context().get_node_id()})")


# ----------------------------------------------------------------------------- the driver
def _cpus_per_match(arena: Arena, bots: dict[str, Bot], names: list[str], seats: list[str]) -> int:
    """What a match needs: a CPU per process of each of its bots (as many as it takes seats, at least its
    ``processes``) and one for its referee."""
    need = arena.fleet.connections_needed(names)
    return 1 + sum(max(1, bots[n].processes, need[n]) for n in set(seats))


def run(config: RunConfig, address: str, on_progress: Callable[[Progress], None] | None = None,
        notify: Callable[[str], None] | None = None, *, match_timeout_s: float = MATCH_TIMEOUT_S,
        matches_per_task: int | None = None, working_dir: str | None = None,
        on_match: Callable[[MatchResult], None] | None = None, local_cpus: int | None = None,
        object_store_mb: int | None = None, planner: Callable[[RunContext], Planner] | None = None
        ) -> tuple[int, Progress]:
    """Play every pending game of the run ``config`` describes as Ray tasks on the cluster at ``address``
    (``auto``, ``local`` or ``HOST:PORT``); the same command resumes it. ``working_dir``: a directory Ray ships
    to every node as the tasks' working directory (Ray's runtime_env), where the bots registered with a cwd in it
    run from (docs/cluster.md). ``on_match``: called with each match's result as it
    is committed. ``local_cpus``, ``object_store_mb``: the CPUs and object store of the instance ``local`` starts
    (Ray's defaults: every core, 30% of the memory). ``planner``: as :class:`arena.tournament.Arena` takes it
    (default: the config's, adaptive or fixed); its rounds are planned as the games they are chosen on come back,
    and its stop ends the run (:func:`_drive`). Returns (run id, progress)."""
    if config.referee:
        raise UsageError("--ray starts a referee per match on its node: drop --referee")
    try:
        import ray
    except ImportError:
        raise UsageError("--ray needs Ray: pip install -e '.[ray]' (docs/cluster.md)") from None
    notify = notify or (lambda msg: None)
    on_progress = on_progress or (lambda p: None)
    # Each match's referee gets a control token of its own, made on its node: none travels.
    config = dataclasses.replace(config, log_dir=str(Path(config.log_dir).resolve()), control_token=None)
    store = Store(config.db)
    started_ray = False
    try:
        arena = Arena(config, store, on_progress, notify, planner=planner)
        run_id, bots = arena.open_run()
        if remote := [b.name for b in bots if b.kind is BotKind.REMOTE]:
            raise UsageError(f"remote bot(s) {', '.join(remote)} connect to one referee; --ray starts one per match: "
                             "run them with the single-machine arena")
        names = [b.name for b in bots]
        by_name = {b.name: b for b in bots}
        root = str(Path(working_dir).resolve()) if working_dir else None
        if address == "local":
            notify("--ray local: one machine's CPUs, as the arena without --ray uses them, but with Ray's start-up and "
                   "a referee and bots per task: the arena without --ray plays the same run faster here; --ray pays "
                   "off across machines (docs/cluster.md, \"Measured\")")
        started_ray = connect(ray, address, {"working_dir": root} if root else None, cpus=local_cpus,
                               object_store_mb=object_store_mb)
        remote_play = ray.remote(_on_node)
        progress = _drive(ray, remote_play, arena, store, run_id, by_name, names, on_progress, notify,
                          match_timeout_s, matches_per_task, on_match or (lambda r: None), root, address)
        arena.sink.rate(run_id, past_gaps=True)
        pending = store.pending(run_id)
        if not pending and arena.planner.finished(run_id):
            store.finish_run(run_id)
        if arena.fleet.withdrawn:
            progress.withdrawn = sorted(arena.fleet.withdrawn)
            progress.not_played = len(pending)
        on_progress(progress)
        return run_id, progress
    finally:
        store.close()
        if started_ray:
            ray.shutdown()


@dataclass
class _Task:
    games: list[PlannedGame]
    cpus: int
    submitted: float = 0.0
    resubmits: int = 0
    ids: list[str] = field(default_factory=list)


def cpu_nodes(ray) -> dict[str, int]:
    """The cluster's live nodes that have CPUs for matches: node id -> CPUs."""
    return {n["NodeID"]: int(n["Resources"].get("CPU", 0)) for n in ray.nodes()
            if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1}


def task_cpus(need: int, nodes: dict[str, int]) -> int:
    """What a task asks Ray for: the CPUs its match could keep busy (``need``: its referee and a CPU per bot
    process), at most what the smallest node with CPUs has, so that every node can take tasks (a task asking for
    more than a node has never runs there). The processes of a turn-based game mostly wait for each other, so a
    match on fewer CPUs than it has processes loses little."""
    return max(1, min([need, *nodes.values()]))


def cluster_plan(nodes: dict[str, int], cpus: int, matches_per_task: int) -> str:
    """What the driver says at start-up about how it uses the cluster's CPUs."""
    sizes = ", ".join(str(c) for c in sorted(nodes.values(), reverse=True))
    slots = sum(c // cpus for c in nodes.values())
    return (f"Ray cluster: {len(nodes)} node(s) with CPUs ({sizes}; {sum(nodes.values())} in all): each task plays "
            f"{matches_per_task} match(es) on {cpus} CPU(s) with a referee and bots of its own, "
            f"{slots} task(s) at once")


def _tasks(arena: Arena, games: list[PlannedGame], run_id: int, bots: dict[str, Bot], names: list[str],
           matches_per_task: int | None, nodes: dict[str, int]) -> deque[_Task]:
    """The matches of ``games`` (the run's pending ones, or a round just planned), ``matches_per_task`` to a task
    (None: see TASKS_PER_SLOT), each task asking for the CPUs the largest match needs (:func:`task_cpus`)."""
    by_match: dict[int, list[PlannedGame]] = {}
    for g in games:
        by_match.setdefault(g.match, []).append(g)
    if not by_match:
        return deque()
    cpus = task_cpus(max(_cpus_per_match(arena, bots, names, g.seats) for gs in by_match.values() for g in gs), nodes)
    matches = sorted(by_match)
    if matches_per_task is None:
        slots = max(1, sum(c // cpus for c in nodes.values()))
        matches_per_task = min(MAX_MATCHES_PER_TASK, -(-len(matches) // (slots * TASKS_PER_SLOT)))
    per = max(1, matches_per_task)
    return deque(_Task([g for m in matches[k:k + per] for g in by_match[m]], cpus,
                       ids=[match_id(run_id, m) for m in matches[k:k + per]])
                 for k in range(0, len(matches), per))


def _round_tasks(arena: Arena, games: list[PlannedGame], run_id: int, bots: dict[str, Bot], names: list[str],
                 matches_per_task: int | None, nodes: dict[str, int]) -> deque[_Task]:
    """A round's tasks: the whole round in one task unless ``--ray-matches`` says otherwise. A task's start (1-2 s
    of Ray and of its referee and bots) outweighs a small round's games, and the lag keeps several rounds, so
    several tasks, in flight."""
    return _tasks(arena, games, run_id, bots, names, matches_per_task or len({g.match for g in games}), nodes)


def _collect(ray, flying: dict, ready: list, again: Callable[[_Task, str], None]) -> list[MatchResult]:
    """What the ``ready`` tasks handed out: a batch of finished games (``final`` False) or a task's last word (taken
    out of ``flying``); a task that failed is taken out and handed to ``again``."""
    back: list[MatchResult] = []
    for gen in ready:
        task = flying[gen]
        try:
            item = ray.get(next(gen))
        except StopIteration:                       # ended without its result: Ray's retries gave up
            flying.pop(gen)
            again(task, "lost (ended without a result)")
            continue
        except ray.exceptions.RayTaskError as e:   # raised in the task: the message is the arena's
            flying.pop(gen)
            again(task, f"failed: {e.cause if getattr(e, 'cause', None) else e}")
            continue
        except ray.exceptions.RayError as e:        # its worker or node lost past Ray's retries, cancelled
            flying.pop(gen)
            again(task, f"lost ({type(e).__name__})")
            continue
        if isinstance(item, MatchResult):
            flying.pop(gen)
            item.round_trip_s = time.monotonic() - task.submitted
            back.append(item)
        else:
            back.append(MatchResult([int(i.rsplit("/", 1)[1]) for i in task.ids], item, [], {}, "", 0.0, 0.0,
                                    final=False))
    return back


def _opening(ray, arena: Arena, store: Store, run_id: int, bots: dict[str, Bot], names: list[str],
             matches_per_task: int | None, notify, address: str) -> tuple[Progress, dict[str, int], deque[_Task]]:
    """A session's start: its progress (a resumed run's games and faults counted), what a killed driver left unrated
    rated, the cluster's nodes with CPUs (waited for), and the tasks of the games pending or else of the first round;
    says how the cluster's CPUs will be used."""
    done = store.game_ids(run_id).count
    progress = Progress(total=arena.planner.total(run_id), done=done, resumed=done,
                        faults=store.run_table_faults(run_id))
    arena.sink.rate(run_id)  # games a killed driver committed and did not get to rate
    nodes = _wait_for_cpus(ray, cpu_nodes(ray), time.monotonic(), progress, address)
    queue = _tasks(arena, store.pending(run_id), run_id, bots, names, matches_per_task, nodes)
    if not queue and (first := plan_round(arena, store, run_id, set(), progress)):
        queue = _round_tasks(arena, first, run_id, bots, names, matches_per_task, nodes)
    if queue:
        notify(cluster_plan(nodes, queue[0].cpus, len(queue[0].ids)))
    return progress, nodes, queue


def _drive(ray, remote_play, arena: Arena, store: Store, run_id: int, bots: dict[str, Bot], names: list[str],
           on_progress, notify, match_timeout_s: float, matches_per_task: int | None, on_match, root: str | None,
           address: str) -> Progress:
    progress, nodes, queue = _opening(ray, arena, store, run_id, bots, names, matches_per_task, notify, address)
    planning = True     # the planner may plan more rounds (an adaptive run, a match): see plan_round
    back_idx: set[int] = set()   # plan indexes of the games that have come back (stored, or stored before)
    versions = dict(arena.versions or {})
    files = shipped_files(arena.cfg)
    flying: dict = {}   # ObjectRef -> _Task
    committed: set[str] = set()

    def submit(task: _Task) -> None:
        task.submitted = time.monotonic()
        ref = remote_play.options(num_cpus=task.cpus, max_retries=MAX_RETRIES, retry_exceptions=False,
                                  num_returns="streaming", name=f"pepper match {task.ids[0]}").remote(
            arena.cfg, [bots[n] for n in sorted({s for g in task.games for s in g.seats})], versions, task.games, files, root)
        flying[ref] = task

    def again(task: _Task, why: str) -> None:
        task.resubmits += 1
        if task.resubmits > MAX_RESUBMITS:
            raise ArenaError(f"match {', '.join(task.ids)} failed {task.resubmits} times ({why}); the games committed "
                             "are kept: run the same command again to resume")
        notify(f"match {', '.join(task.ids)}: {why}; submitted again")
        queue.appendleft(task)

    last_tick = last_nodes = time.monotonic()
    while queue or flying or planning:
        if time.monotonic() - last_nodes > 1.0:
            last_nodes = time.monotonic()
            nodes = _nodes_left(ray, flying, queue, progress, address)
        # As many matches in flight as the cluster can run at once (and a few queued), so that a match's timeout
        # counts its running time, not a long wait in Ray's queue.
        while queue and len(flying) < max(1, sum(c // queue[0].cpus for c in nodes.values())) + 2:
            task = queue.popleft()
            if arena.fleet.withdrawn.keys() & {s for g in task.games for s in g.seats}:
                continue  # not played: stays pending
            submit(task)
        progress.in_flight = sum(len(t.games) for t in flying.values())
        ready, rest = ray.wait(list(flying), num_returns=1, timeout=POLL_S) if flying else ([], [])
        if ready and rest:  # and every other match that has come back: committed together, one transaction
            ready += ray.wait(rest, num_returns=len(rest), timeout=0)[0]
        if back := _collect(ray, flying, ready, again):
            commit(arena, store, run_id, back, progress, committed, notify)
            back_idx.update(g.idx for res in back for g in res.games)
            arena.planner.stored(run_id)
            for res in filter(lambda r: r.final, back):
                on_match(res)
        if planning and not queue:   # the next round, once the games it is chosen on are back (None: no more)
            new = plan_round(arena, store, run_id, {g.idx for t in flying.values() for g in t.games} - back_idx, progress)
            planning = new is not None
            queue.extend(_round_tasks(arena, new or [], run_id, bots, names, matches_per_task, nodes))
        now = time.monotonic()
        _cancel_stragglers(ray, flying, now, match_timeout_s, again)
        if ready or now - last_tick > 1.0:
            last_tick = now
            progress.in_flight = sum(len(t.games) for t in flying.values())
            on_progress(progress)
    return progress


def _nodes_left(ray, flying: dict, queue: deque[_Task], progress: Progress, address: str) -> dict[str, int]:
    """The cluster's nodes with CPUs; when it has none, its tasks in flight (which cannot finish) are cancelled and
    queued again while :func:`_wait_for_cpus` waits for a node."""
    if nodes := cpu_nodes(ray):
        return nodes
    for ref in flying:
        ray.cancel(ref, force=True)
    nodes = _wait_for_cpus(ray, nodes, time.monotonic(), progress, address)
    queue.extendleft(reversed(list(flying.values())))
    flying.clear()
    return nodes


def _cancel_stragglers(ray, flying: dict, now: float, match_timeout_s: float, again: Callable[[_Task, str], None]) -> None:
    """Cancel each task running past its timeout (``match_timeout_s`` a match it plays) and hand it to ``again``."""
    for ref, task in list(flying.items()):
        if now - task.submitted > match_timeout_s * len(task.ids):
            flying.pop(ref)
            ray.cancel(ref, force=True)
            again(task, f"still running after {match_timeout_s * len(task.ids):.0f}s (a straggler): cancelled")


def _wait_for_cpus(ray, nodes: dict[str, int], since: float, progress: Progress, address: str) -> dict[str, int]:
    """``nodes`` when the cluster has a node with CPUs, else those nodes once one joins within NO_CPUS_S of
    ``since``; raises ArenaError (the run resumable) when none does."""
    while not nodes:
        if time.monotonic() - since > NO_CPUS_S:
            raise ArenaError(f"the Ray cluster at {address} has had no node with CPUs for {NO_CPUS_S:.0f}s (every "
                             f"worker node died or left): stopped with {progress.done}/{progress.total} games "
                             "committed; start worker nodes, then run the same command again to resume")
        time.sleep(1.0)
        nodes = cpu_nodes(ray)
    return nodes


__all__ = ["MATCH_TIMEOUT_S", "MatchResult", "commit", "match_id", "play_match", "run", "shipped_files", "stream_match"]
