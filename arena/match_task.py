"""A match played on a cluster's node (``pepper arena run --ray``, docs/cluster.md): the body of a Ray task,
without Ray. :func:`play_match` plays the planned games of one match or a few with the single-machine tournament
loop itself, on a scratch store that holds just their plan (a fixed planner, a collecting sink), with a referee and
the match's bots of its own on this node; :func:`stream_match` hands its games out as they finish. The driver's
side is :mod:`arena.distributed`."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import queue
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from referee.rules import BUILTIN_RULESETS

from .config import RunConfig
from .errors import ArenaError
from .planners import FixedPlanner
from .progress import Progress
from .sinks import CollectingSink
from .store import Bot, NewGame, PlannedGame, Store
from .tournament import Arena

# How often a task hands the driver the games it finished since the last time (at most).
STREAM_S = 0.5


@dataclass
class MatchResult:
    """What a task sends back: its games (with their global plan indexes), crashes, withdrawals and timings."""

    matches: list[int]
    games: list[NewGame]
    crashes: list[tuple[str, int | None, int]]     # (bot, exit code, games it replayed)
    withdrawn: dict[str, str]                       # bot -> why it was withdrawn while playing the match
    node: str                                       # host name and pid of the worker that played it
    seconds: float                                  # the task's wall time
    setup_s: float                                  # of which before its first game: referee, bots, connections
    round_trip_s: float = 0.0                       # from its submission to its result at the driver (set there)
    streamed: int = 0                               # games handed out before it, as they finished (stream_match)
    final: bool = True                              # False: a batch of games a task handed out while it plays


def match_id(run_id: int, match: int) -> str:
    """A match's id, the same in every session of the run: the unit the driver commits once."""
    return f"{run_id}/{match}"


# ----------------------------------------------------------------------------- on a worker node
def _match_arena(config: RunConfig, store: Store, games: list[PlannedGame], on_progress: Callable[[Progress], None],
                 on_game: Callable[[NewGame], None] | None = None) -> Arena:
    """The tournament loop over a scratch store that holds one match's plan: that plan (a fixed planner), its games
    collected unrated (the driver rates, in the whole run's plan order). A match has only its line-up's bots, so one
    withdrawn leaves too few to play it: its games are not played (they stay pending) and the driver withdraws the
    bot from the run, while the other matches play on (``end_when_short`` off)."""
    plan = [(g.match, g.ruleset, g.players, g.seed, g.seats) for g in games]
    return Arena(config, store, on_progress, planner=lambda ctx: FixedPlanner(ctx, plan),
                 sink=lambda ctx: CollectingSink(ctx, [g.idx for g in games], on_game), end_when_short=False)


def _open_match(arena: Arena, versions: dict[str, int]) -> tuple[int, list[Bot]]:
    run_id, bots = arena.open_run()
    # The scratch store registered each bot as version 1 with the driver's digest; another version now means
    # that this node's files of the bot are not the ones the driver's version stands for.
    changed = [b.name for b in bots if b.version != 1]
    if changed:
        raise ArenaError(f"bot(s) {', '.join(changed)}: their files on {socket.gethostname()} differ from the "
                         "version the driver registered; give every node the same files (docs/cluster.md)")
    arena.ctx.versions = dict(versions)
    return run_id, bots


def shipped_files(config: RunConfig) -> dict[str, str]:
    """The run's own files a node needs, by what they are (``ruleset``, ``deals``): their text travels with each task,
    since a node does not have the driver's files."""
    out = {}
    if config.ruleset not in BUILTIN_RULESETS:
        out["ruleset.toml"] = Path(config.ruleset).read_text(encoding="utf-8")
    if config.deals:
        out["deals.txt"] = Path(config.deals).read_text(encoding="utf-8")
    return out


def _shipped(bot: Bot, root: str | None) -> Bot:
    """``bot`` with its directory found in this task's working directory when it was shipped there: a bot whose
    cwd is ``root`` (the driver's ``--ray-working-dir``) or under it runs from the same place in the copy Ray
    unpacked on this node (the task's cwd). Its files' digest is checked against the driver's all the same."""
    if not root or not bot.cwd:
        return bot
    try:
        rel = Path(bot.cwd).resolve().relative_to(root)
    except ValueError:
        return bot
    return dataclasses.replace(bot, cwd=str(Path.cwd() / rel))


def stream_match(*args, node: str | None = None, every_s: float = STREAM_S) -> Iterator[list[NewGame] | MatchResult]:
    """:func:`play_match`, its finished games handed out as they finish: a list of them at most every ``every_s``
    while the match plays, then its :class:`MatchResult` (its crashes and withdrawals; its games already handed out,
    ``streamed``). The match plays in a thread of its own meanwhile."""
    finished: queue.Queue[NewGame] = queue.Queue()
    out: list[MatchResult] = []
    error: list[BaseException] = []

    def play() -> None:
        try:
            out.append(play_match(*args, node=node, on_game=finished.put))
        except BaseException as e:  # noqa: BLE001 - raised again in the generator, where Ray reports it
            error.append(e)

    player = threading.Thread(target=play, name="pepper-match", daemon=True)
    player.start()
    while player.is_alive() or not finished.empty():
        player.join(timeout=every_s)
        batch = []
        while not finished.empty():
            batch.append(finished.get())
        if batch:
            yield batch
    if error:
        raise error[0]
    yield dataclasses.replace(out[0], games=[], streamed=len(out[0].games))


def play_match(config: RunConfig, bots: list[Bot], versions: dict[str, int], games: list[PlannedGame],
               files: dict[str, str] | None = None, shipped_root: str | None = None, *,
               node: str | None = None, on_game: Callable[[NewGame], None] | None = None) -> MatchResult:
    """Play the planned ``games`` (one match or a few) on this node: a referee and the bots' processes of its own,
    the single-machine tournament loop, a scratch store. ``files``: :func:`shipped_files`; ``shipped_root``: the
    driver's directory that Ray ships as the task's working directory (:func:`_shipped`); ``on_game``: called with
    each game as it finishes (:func:`stream_match`). The body of a Ray task; callable without Ray too."""
    bots = [_shipped(b, shipped_root) for b in bots]
    t0 = time.monotonic()
    first: list[float] = []
    node = node or f"{socket.gethostname()}:{os.getpid()}"
    with tempfile.TemporaryDirectory(prefix="pepper-match-") as tmp:
        store = Store(Path(tmp) / "match.db")
        try:
            for name, text in (files or {}).items():
                (Path(tmp) / name).write_text(text, encoding="utf-8")
            if "ruleset.toml" in (files or {}):
                config = dataclasses.replace(config, ruleset=str(Path(tmp) / "ruleset.toml"))
            if "deals.txt" in (files or {}):
                config = dataclasses.replace(config, deals=str(Path(tmp) / "deals.txt"))
            for b in bots:
                store.add_bot(b.name, b.kind, command=b.command, cwd=b.cwd, env=b.env, processes=b.processes, sample=b.sample,
                              files=b.files, digest=b.digest, deadline_ms=b.deadline_ms, time_bank_ms=b.time_bank_ms,
                              image=b.image, limits=b.limits)
            matches = sorted({g.match for g in games})
            # One referee per match (shards=1): Ray spreads the matches over the cluster's cores.
            cfg = dataclasses.replace(config, db=str(Path(tmp) / "match.db"), bots=[b.name for b in bots],
                                      log_dir=str(Path(config.log_dir) / f"match-{matches[0]}"), shards=1)
            _log(cfg, f"started on {node}: matches {', '.join(map(str, matches))}, {len(games)} game(s)")
            arena = _match_arena(cfg, store, games, lambda p: first.append(time.monotonic()) if not first else None,
                                 on_game)
            run_id, match_bots = _open_match(arena, versions)
            asyncio.run(arena.play(run_id, match_bots))
            finished = arena.sink.finished  # type: ignore[attr-defined]
            crashes = [(c.bot, c.exit_code, c.games_replayed) for c in arena.fleet.crashes]
            _log(cfg, f"finished on {node}: {len(finished)} game(s) in {time.monotonic() - t0:.1f}s")
            return MatchResult(matches, finished, crashes, dict(arena.fleet.withdrawn), node, time.monotonic() - t0,
                               (first[0] if first else time.monotonic()) - t0)
        finally:
            store.close()


def _log(cfg: RunConfig, line: str) -> None:
    """A line in the match's own log (``match.log`` beside its referee's and bots' logs): each attempt at it, where."""
    Path(cfg.log_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(cfg.log_dir) / "match.log", "a", encoding="utf-8") as f:
        f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")


__all__ = ["STREAM_S", "MatchResult", "match_id", "play_match", "shipped_files", "stream_match"]
