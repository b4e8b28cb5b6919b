"""``pepper arena ...``: run a tournament, and read its results (the ranked table, the games, one game's replay)."""

from __future__ import annotations

import csv
import io
import json
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from arena.config import RunConfig

from .common import DbOption, echo_lines, resolve_control_token
from .common import fail as _fail
from .common import open_store as _store

app = typer.Typer(no_args_is_help=True, help="Run tournaments and read the ranked results.")
WideOption = Annotated[bool, typer.Option("--wide", "-w", help="Every column: mu and sigma, average points, contracts "
                                                                   "made, faults by kind, decision latency.")]


# ------------------------------------------------------------------ arena
# The Ray options, shared by `pepper arena run` and `pepper arena match` (docs/cluster.md).
RayOption = Annotated[str | None, typer.Option("--ray", metavar="ADDRESS", help="Play the matches as Ray tasks across a "
                                               "cluster: auto (the cluster this machine is in), local (start one here) "
                                               "or HOST:PORT (docs/cluster.md; needs Ray: the ray extra).")]
RayTimeoutOption = Annotated[float, typer.Option("--ray-timeout", min=1.0, help="With --ray: seconds per match after "
                                                 "which a task still running is cancelled and played again.")]
RayWorkingDirOption = Annotated[Path | None, typer.Option("--ray-working-dir", metavar="DIR", help="With --ray: ship DIR "
                                                          "to every node (Ray's working_dir); bots registered with a "
                                                          "cwd in it run from the copy there.")]
RayMatchesOption = Annotated[int | None, typer.Option("--ray-matches", min=1, help="With --ray: matches per Ray task "
                                                      "(more spreads the start of a referee and the bots over more "
                                                      "games; default: about 4 tasks per task slot, at most 50).")]
RayCpusOption = Annotated[int | None, typer.Option("--ray-cpus", min=1, help="With --ray local: the CPUs of the Ray "
                                                   "instance it starts (default: every core).")]
RayObjectStoreOption = Annotated[int | None, typer.Option("--ray-object-store", metavar="MB", min=64, help="With --ray "
                                                          "local: its object store's size in MB (default: Ray's, 30% "
                                                          "of the memory).")]


def _ray_options(timeout: float, working_dir: Path | None, matches: int | None, cpus: int | None,
                 object_store: int | None) -> dict:
    """The keyword arguments of :func:`arena.distributed.run` the Ray options give."""
    return {"match_timeout_s": timeout, "matches_per_task": matches,
            "working_dir": str(working_dir) if working_dir else None, "local_cpus": cpus, "object_store_mb": object_store}


@app.command("run")
def arena_run(
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="A built-in ruleset or a .toml ruleset file.")] = "iowa",
    players: Annotated[int | None, typer.Option("--players", "-p")] = None,
    games: Annotated[int, typer.Option("--games", "-g", min=1)] = 1000,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", "-c", min=1, show_default="from the bots' processes and the cores, at most the games to play",
        help="Games in flight.")] = None,
    seed: Annotated[int, typer.Option("--seed", "-s")] = 1,
    lineup: Annotated[str, typer.Option(help="mirrored (each team one bot) or mixed partnerships.")] = "mirrored",
    duplicate: Annotated[bool, typer.Option("--duplicate/--no-duplicate", help="Replay each deck with seats rotated.")] = True,
    adaptive: Annotated[bool | None, typer.Option(
        "--adaptive/--planned", show_default="--adaptive (--planned with --ray)",
        help="--adaptive: plan in rounds of 8 games, each on the ratings of all but the last 64 planned games (both "
        "growing with the run: the lag to 256 games, a round to 32): most "
        "games to the bots the table may have the wrong way round, every bot about as many as the others. --planned: "
        "the whole round robin planned up front (as many games in flight as --concurrency).")] = None,
    until_confident: Annotated[bool, typer.Option(
        "--until-confident", help="Adaptive runs: stop once every adjacent pair of the table is significantly apart "
        "(95%), or at --games (the cap).")] = False,
    bots: Annotated[str | None, typer.Option(help="Comma-separated bot names (default: all registered).")] = None,
    referee: Annotated[str | None, typer.Option(help="Use this referee (HOST:PORT) instead of starting one.")] = None,
    shards: Annotated[int | None, typer.Option(
        "--shards", min=1, show_default="one per 2 cores up to 4 for 500 games or more to play, else 1; 1 with --referee, --sandbox "
        "docker or a remote bot",
        help="Referee processes to start, the games spread over them (each bot gets processes on each): one "
        "referee uses one core.")] = None,
    control_token: Annotated[str | None, typer.Option(
        envvar="PEPPER_CONTROL_TOKEN", help="With --referee: its control token (hidden from this process's /proc at "
        "start, never given to the bots; --control-token-file is safer).")] = None,
    control_token_file: Annotated[str | None, typer.Option(
        metavar="PATH", help="With --referee: read its control token from the first line of PATH (mode 0600), or "
        "of stdin with '-'.")] = None,
    listen: Annotated[str, typer.Option(help="HOST:PORT where the arena's own referee listens (remote bots connect "
                                              "here; 0.0.0.0:PORT for bots on other machines).")] = "127.0.0.1:0",
    deadline_ms: Annotated[int, typer.Option(min=1, help="Time per decision, ms, from when the bot could start on it.")] = RunConfig.deadline_ms,
    time_bank_ms: Annotated[int, typer.Option(min=0, help="Extra time per seat per game, ms, drawn on overruns.")] = RunConfig.time_bank_ms,
    mc_budget_ms: Annotated[float, typer.Option(help="Search budget per decision of the montecarlo sample bot.")] = 1.0,
    play_forced: Annotated[bool, typer.Option("--play-forced/--ask-forced",
                                              help="Forced moves (one legal action) are played without asking the bot.")] = True,
    tau: Annotated[float, typer.Option(min=0.0, help="TrueSkill dynamics (skill drift per game); 0 suits fixed bots.")] = 0.0,
    deals: Annotated[Path | None, typer.Option("--deals", metavar="FILE", help="Deal the matches from this deal set "
                                               "(one deal per line: seed N and/or decks; see `pepper arena deals "
                                               "export`).")] = None,
    log_dir: Annotated[Path, typer.Option(help="Referee and bot logs.")] = Path("arena-logs"),
    db: DbOption = Path("arena.db"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or progress lines.")] = False,
    progress_every: Annotated[float, typer.Option(min=0.1, help="Seconds between progress lines when the output is "
                                                                "not a terminal.")] = 10.0,
    wide: WideOption = False,
    sandbox: Annotated[str, typer.Option(help="none, or docker: every command bot in a container with limits and no "
                                              "network (docs/sandbox.md; `make images` first).")] = "none",
    twins: Annotated[str, typer.Option(help="apart: each game of a duplicate block played by processes of the bot's "
                                            "that play no other game of it (a process per rotation, docs/sandbox.md); "
                                            "shared: by any of its processes (trusted bots).")] = "apart",
    ray: RayOption = None,
    ray_timeout: RayTimeoutOption = 600.0,
    ray_working_dir: RayWorkingDirOption = None,
    ray_matches: RayMatchesOption = None,
    ray_cpus: RayCpusOption = None,
    ray_object_store: RayObjectStoreOption = None,
) -> None:
    """Run a tournament (resumable: the same command continues it) and print the ranked table."""
    from arena.store import StoreError
    from arena.tournament import Arena, ArenaError, UsageError, run

    try:
        cfg = run_config(
            ruleset=ruleset, players=players, games=games, seed=seed, lineup=lineup, duplicate=duplicate,
            adaptive=adaptive, until_confident=until_confident, bots=bots, concurrency=concurrency, referee=referee,
            shards=shards, control_token=control_token, control_token_file=control_token_file, listen=listen,
            deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, mc_budget_ms=mc_budget_ms, play_forced=play_forced,
            tau=tau, deals=deals, log_dir=log_dir, db=db, sandbox=sandbox, ray=ray, twins=twins)
    except ValueError as e:   # RunOptionsError, ControlTokenError, RulesetError
        _fail(str(e))
    ray_plan = ray and adaptive is None and not until_confident   # --ray plans up front unless told otherwise
    rs = cfg.ruleset_obj()
    st = _store(db)
    try:
        Arena(cfg, st).check()  # unknown bots, too few bots for the line-up: before anything starts
    except UsageError as e:
        _fail(str(e))
    finally:
        st.close()
    from rich.console import Console

    t0 = time.time()
    label = f"{rs.name}/{cfg.resolved_players()}p"
    shown = _BarProgress(label, quiet) if Console().is_terminal else _PlainProgress(label, progress_every, quiet)
    with shown.active() as note:
        if not referee:   # the arena's own referees load this engine (another referee's is its own business)
            from referee.rules import why_pure
            if (why := why_pure()) is not None:
                note(f"note: the rules engine runs as pure Python, slower: {why}")
        try:
            if ray:  # only then is Ray imported (the single-machine arena never loads it)
                from arena import distributed
                if ray_plan:
                    note("--ray: the run's games are planned up front (--planned), so that every node has matches "
                         "from the start; --adaptive plans in rounds, each once the games it is chosen on are back")
                run_id, prog = distributed.run(cfg, ray, on_progress=None if quiet else shown.update, notify=note,
                                               **_ray_options(ray_timeout, ray_working_dir, ray_matches, ray_cpus,
                                                              ray_object_store))
            else:
                run_id, prog = run(cfg, on_progress=None if quiet else shown.update, notify=note)
        except UsageError as e:
            _fail(str(e))
        except (ArenaError, StoreError) as e:  # a bot that stays down, the referee, the database: resumable
            _fail(str(e), 1)
        except KeyboardInterrupt:
            _fail("interrupted; run the same command again to resume", 130)
    st = _store(db)
    n, lo, _hi = st.game_ids(run_id)
    where = (f"; {_id_range(st, run_id)}: replay one with `pepper arena replay {lo}{_db_flag(db)}`, "
             f"list them with `pepper arena games{_db_flag(db)}`") if n else ""
    out = f"; withdrawn: {', '.join(prog.withdrawn)}, {prog.not_played} games not played" if prog.withdrawn else ""
    typer.echo(f"run {run_id}: {prog.done}/{prog.total} games in {time.time() - t0:.1f}s ({prog.faults} faults{out}){where}")
    if until_confident:
        typer.echo(f"stopped: {prog.stopped}" if prog.stopped else
                   f"stopped: reached the cap, --games {games}, before every adjacent pair was significantly apart"
                   if not prog.withdrawn else "stopped: a bot was withdrawn (see above); run the same command to resume")
    _print_table(st, cfg.pool().key, wide)


class RunOptionsError(ValueError):
    """Options of ``pepper arena run`` that do not go together, or a value it does not know; the message says which."""


def run_config(*, ruleset: str, players: int | None, games: int, seed: int, lineup: str, duplicate: bool,
               adaptive: bool | None, until_confident: bool, bots: str | None, concurrency: int | None,
               referee: str | None, shards: int | None, control_token: str | None, control_token_file: str | None,
               listen: str, deadline_ms: int, time_bank_ms: int, mc_budget_ms: float, play_forced: bool, tau: float,
               deals: Path | None, log_dir: Path, db: Path, sandbox: str, ray: str | None,
               twins: str = "apart") -> RunConfig:
    """The run ``pepper arena run``'s options describe, checked before anything starts: the line-up, the control
    token (resolve_control_token: read, and hidden from /proc), the options that exclude each other, the ruleset
    and the player count. ``adaptive`` None: adaptive, or planned with ``ray`` (unless ``until_confident``). Raises RunOptionsError,
    ControlTokenError or RulesetError (all ValueErrors) naming the option; the bots are checked against the
    store by Arena.check."""
    if lineup not in ("mirrored", "mixed"):
        raise RunOptionsError(f"--lineup {lineup!r}: expected mirrored or mixed")
    if twins not in ("apart", "shared"):
        raise RunOptionsError(f"--twins {twins!r}: expected apart or shared")
    control_token = resolve_control_token(control_token, control_token_file)
    if referee and not control_token:
        raise RunOptionsError("--referee needs --control-token-file PATH, --control-token or PEPPER_CONTROL_TOKEN")
    if ray and shards and shards > 1:
        raise RunOptionsError(f"--shards {shards}: --ray starts one referee per match on its node (Ray spreads the "
                              "matches over the cluster's cores): drop --shards")
    if adaptive is None:
        adaptive = not ray or until_confident
    if until_confident and not adaptive:
        raise RunOptionsError("--until-confident stops between the rounds of an adaptive run: drop --planned")
    cfg = RunConfig(ruleset=ruleset, players=players, games=games, seed=seed, lineup=lineup, duplicate=duplicate,
                    adaptive=adaptive, until_confident=until_confident,
                    bots=[b.strip() for b in bots.split(",")] if bots else None, concurrency=concurrency,
                    referee=referee, shards=shards, control_token=control_token, deadline_ms=deadline_ms,
                    time_bank_ms=time_bank_ms, listen=listen, db=str(db), log_dir=str(log_dir),
                    bot_env={"PEPPER_MC_BUDGET_MS": str(mc_budget_ms)}, tau=tau, play_forced=play_forced,
                    sandbox=sandbox, deals=str(deals) if deals else None, twins=twins)
    cfg.resolved_players()   # the ruleset (a file is read and checked) and the player count it allows
    return cfg


@app.command("match")
def arena_match(
    a: Annotated[str, typer.Argument(help="The bot under test (H1: it is elo1 stronger than B).")],
    b: Annotated[str, typer.Argument(help="The bot it is measured against.")],
    sprt: Annotated[str, typer.Option(help="The test: elo0 (H0), elo1 (H1), logistic Elo per game, and the error "
                                           "rates alpha (accepting H1 under H0) and beta.")] = "elo0=0 elo1=5 alpha=0.05 beta=0.05",
    max_games: Annotated[int, typer.Option("--max-games", min=1, help="Stop undecided after this many games.")] = 20000,
    statistic: Annotated[str | None, typer.Option(
        help="What the test reads in each block: margin (the default: the game margin), points, deals or contracts "
             "(the normalized test, elo0 and elo1 in normalized Elo), or score (the games won, fishtest's GSPRT; "
             "docs/statistics.md). Unset, a match stored on the score resumes on it.", show_default=False)] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="A built-in ruleset or a .toml ruleset file.")] = "iowa",
    players: Annotated[int | None, typer.Option("--players", "-p")] = None,
    seed: Annotated[int, typer.Option("--seed", "-s")] = 1,
    concurrency: Annotated[int | None, typer.Option("--concurrency", "-c", min=1, help="Games in flight.")] = None,
    deadline_ms: Annotated[int, typer.Option(min=1, help="Time per decision, ms.")] = RunConfig.deadline_ms,
    time_bank_ms: Annotated[int, typer.Option(min=0, help="Extra time per seat per game, ms.")] = RunConfig.time_bank_ms,
    mc_budget_ms: Annotated[float, typer.Option(help="Search budget per decision of the montecarlo sample bot.")] = 1.0,
    log_dir: Annotated[Path, typer.Option(help="Referee and bot logs.")] = Path("arena-logs"),
    db: DbOption = Path("arena.db"),
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No LLR lines while it plays.")] = False,
    progress_every: Annotated[float, typer.Option(min=0.0, help="Seconds between LLR lines (0: one per block).")] = 5.0,
    ray: RayOption = None,
    ray_timeout: RayTimeoutOption = 600.0,
    ray_working_dir: RayWorkingDirOption = None,
    ray_matches: RayMatchesOption = None,
    ray_cpus: RayCpusOption = None,
    ray_object_store: RayObjectStoreOption = None,
) -> None:
    """Play duplicate blocks of A against B until a sequential test (SPRT) decides whether A is stronger.

    Prints the LLR and its bounds as it goes, then the verdict with an Elo estimate and its 95% interval.
    Exit status: 0 H1 accepted (A is stronger by elo1), 3 H0 accepted, 4 undecided after --max-games, 1 the
    match cannot go on, 2 bad input. Resumable: the same command plays on where it stopped (docs/statistics.md)."""
    from arena.match import MatchConfig, play
    from arena.sprt import Sprt
    from arena.store import StoreError
    from arena.tournament import Arena, ArenaError, UsageError
    from referee.rules import RulesetError

    if a == b:
        _fail(f"a match needs two different bots, got {a!r} twice (to compare two versions of one bot, register the "
              "other version under its own name)")
    try:
        test = Sprt.parse(sprt)
    except ValueError as e:
        _fail(f"--sprt: {e}")
    try:
        cfg = MatchConfig(ruleset=ruleset, players=players, games=max_games, seed=seed, bots=[a, b],
                          concurrency=concurrency, deadline_ms=deadline_ms, time_bank_ms=time_bank_ms, db=str(db),
                          log_dir=str(log_dir), bot_env={"PEPPER_MC_BUDGET_MS": str(mc_budget_ms)}, sprt=test,
                          statistic=statistic)
    except UsageError as e:
        _fail(f"--statistic: {e}")
    try:
        cfg.ruleset_obj()
        cfg.resolved_players()
    except RulesetError as e:
        _fail(str(e))
    st = _store(db)
    try:
        Arena(cfg, st).check()
    except UsageError as e:
        _fail(str(e))
    finally:
        st.close()
    bounds = f"[{test.lower:.2f}, {test.upper:.2f}]"
    last = [0.0]

    def line(status) -> str:
        h = status.estimate
        elo = "" if h is None else f", Elo {_signed(h.elo)} [{_signed(h.elo_low)}, {_signed(h.elo_high)}]"
        return f"{a} vs {b}: {status.blocks} blocks ({status.games} games), LLR {status.llr:.2f} {bounds}{elo}"

    def on_block(status) -> None:
        now = time.monotonic()
        if not quiet and (status.verdict or now - last[0] >= progress_every):
            last[0] = now
            typer.echo(line(status))

    try:
        status = play(cfg, notify=lambda m: typer.echo(m, err=True), on_block=on_block, ray=ray,
                      ray_options=_ray_options(ray_timeout, ray_working_dir, ray_matches, ray_cpus, ray_object_store))
    except UsageError as e:
        _fail(str(e))
    except (ArenaError, StoreError) as e:
        _fail(str(e), 1)
    except KeyboardInterrupt:
        _fail("interrupted; run the same command again to resume", 130)
    h = status.estimate
    verdict = {"H1": f"H1 accepted: {a} is stronger than {b} (elo1={test.elo1:g})",
               "H0": f"H0 accepted: {a} is not stronger than {b} by elo1={test.elo1:g} (elo0={test.elo0:g})"}.get(
        status.verdict, f"undecided after {status.played} games (--max-games {max_games})")
    typer.echo(line(status))
    typer.echo(verdict)
    if (adj := status.adjusted) is not None:
        typer.echo(f"Elo {_signed(adj.elo, 1)} [{_signed(adj.elo_low, 1)}, {_signed(adj.elo_high, 1)}] (95%), "
                   f"adjusted for the test's stop (the plain figures below overstate a difference the test stopped on)")
    if h is not None:
        los = "?" if h.los != h.los else f"{100 * h.los:.1f}%"
        plain = "plain: " if status.adjusted is not None else ""
        typer.echo(f"{plain}Elo {_signed(h.elo, 1)} [{_signed(h.elo_low, 1)}, {_signed(h.elo_high, 1)}] (95%), "
                   f"nElo {_signed(h.nelo, 1)}, LOS {los}, score {100 * h.score:.1f}%, margin {_signed(h.margin, 2)} "
                   f"points per game, over {h.blocks} blocks ({h.games} games)")
    raise typer.Exit(status.exit_code)


class _PlainProgress:
    """Progress as plain lines (output to a pipe or a file): at the first finished game, then every ``every``
    seconds, and at the end."""

    def __init__(self, label: str, every: float, quiet: bool):
        self.label, self.every, self.quiet = label, every, quiet
        self.last: float | None = None   # when the last line was printed
        self.prog = None

    def update(self, p) -> None:
        self.prog = p
        now = time.monotonic()
        if (self.last is None and p.done > p.resumed) or (self.last is not None and now - self.last >= self.every):
            self.last = now
            typer.echo(p.line(self.label))

    @contextmanager
    def active(self):
        yield typer.echo
        if not self.quiet and self.prog is not None:
            typer.echo(self.prog.line(self.label))


class _BarProgress:
    """Progress as a rich bar in a terminal: finished games, rate, ETA, faults and games in flight."""

    def __init__(self, label: str, quiet: bool):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(bar_width=20), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]:.1f} games/s"), TextColumn("ETA {task.fields[eta]}"),
                            TextColumn("faults {task.fields[faults]}"), TextColumn("in flight {task.fields[flight]}"),
                            TimeElapsedColumn(), disable=quiet)
        self.task = self.bar.add_task(label, total=None, rate=0.0, eta="-", faults=0, flight=0)

    def update(self, p) -> None:
        self.bar.update(self.task, total=p.total, completed=p.done, rate=p.rate(), faults=p.faults,
                        flight=p.in_flight, eta=p.eta())

    @contextmanager
    def active(self):
        with self.bar:
            yield lambda m: self.bar.console.print(m, markup=False)


def _db_flag(db: Path) -> str:
    """``--db PATH`` for a command suggested to the user, unless the database is the default one."""
    return "" if str(db) == "arena.db" else f" --db {db}"


def _id_range(st, run_id: int | None = None) -> str:
    """The ids of the stored games (of one run): "games 1-1000", or for gaps the count, range and latest few."""
    n, lo, hi = st.game_ids(run_id)
    if not n:
        return "no games"
    if lo == hi:
        return f"game {lo}"
    if hi - lo + 1 == n:
        return f"games {lo}-{hi}"
    latest = st.latest_game_ids(run_id)
    return f"{n} games with ids from {lo} to {hi} (the latest: {', '.join(map(str, latest))})"


def _open_existing(db: Path):
    if not db.exists():
        _fail(f"no results database at {db} (run `pepper arena run` first, or pass --db)")
    return _store(db, read_only=True)


def _stored_pools(st) -> list:
    """The pools with ratings, in the order of their labels."""
    from arena.ratings import Pool

    pools = [Pool.parse(k) for k in st.pools()]
    return sorted(pools, key=lambda p: (p.label(pools), p.digest))


def _choose_pools(st, db: Path, ruleset: str, players: int | None) -> list:
    """The pools ``--ruleset`` (and ``--players``) stand for: a built-in or a .toml file by its content, a
    ruleset file's name that has games in ``db``, or ``NAME@DIGEST``. Where a name has pools of several
    contents, the newest one's, with a note naming the others; exits 2 for an unknown ruleset or a player count
    the ruleset does not allow."""
    from arena.ratings import DIGEST_SHOWN, ruleset_digest
    from referee.rules import RulesetError, get_ruleset

    stored = _stored_pools(st)
    name, at, prefix = ruleset.rpartition("@")
    if not (at and len(prefix) >= 4 and all(c in "0123456789abcdef" for c in prefix)):
        name, prefix = ruleset, ""
    rs = None
    if not prefix:
        try:
            rs = get_ruleset(ruleset)
        except RulesetError as e:
            if ruleset not in {p.ruleset for p in stored}:  # a ruleset file's pool, stored under its name
                _fail(f"{e}; pools with games in {db}: {_pool_list(stored) or 'none yet'}")
        else:
            name = rs.name
            if players is not None:
                try:
                    rs.table(players)
                except RulesetError as e:
                    _fail(str(e))
    found = [p for p in stored if p.ruleset == name and (players is None or p.players == players)]
    if prefix:
        return [p for p in found if p.digest.startswith(prefix)]
    if rs is not None:
        digest = ruleset_digest(rs)
        if current := [p for p in found if p.digest == digest]:
            return current
    if len({p.digest for p in found}) > 1:
        newest = max(found, key=lambda p: st.newest_game(p.key)).digest
        others = sorted({f"{p.ruleset}@{p.digest[:DIGEST_SHOWN]}" for p in found if p.digest != newest})
        typer.echo(f"note: {name} names rulesets of different contents; showing the newest, "
                   f"{name}@{newest[:DIGEST_SHOWN]} (the others: {', '.join(others)}; pass --ruleset NAME@DIGEST)",
                   err=True)
        found = [p for p in found if p.digest == newest]
    return found


def _pool_list(pools: list) -> str:
    return ", ".join(p.label(pools) for p in pools)


def _no_pool(st, db: Path, ruleset: str | None, players: int | None) -> NoReturn:
    pools = _stored_pools(st)
    if not pools:
        _fail(f"no rated games yet in {db} (run `pepper arena run` first)")
    what = f"in pool {ruleset}/{players}p" if players is not None else f"for ruleset {ruleset}"
    _fail(f"no rated games yet {what}; pools with games in {db}: {_pool_list(pools)}")


def _print_table(st, pool: str, wide: bool = False, all_versions: bool = False, cross: bool = False,
                 as_of: int | None = None, after: str = "", order: str = "points") -> None:
    """The ranked table of ``pool`` (a key): compact (fits 80 columns) or ``wide`` (every column).

    In a terminal rich takes its width (or ``COLUMNS``); into a pipe or a file it is ``COLUMNS`` if set, else 80
    for the compact table and the wide one's own width (a file has no width to fit)."""
    from rich import box
    from rich.table import Table

    from arena.ratings import Pool
    from arena.stats import (
        BEATS_CAPTION,
        COMPACT,
        FIELD_CAPTION,
        NEXT_CAPTION,
        POINTS_CAPTION,
        REMOTE_CAPTION,
        WIDE,
        ordered_by,
        remote_marked,
        table,
    )

    columns = WIDE if wide else COMPACT
    label = Pool.parse(pool).label(_stored_pools(st))
    rows = table(st, pool, all_versions=all_versions, as_of=as_of, order=order)
    notes = [POINTS_CAPTION, FIELD_CAPTION] + ([REMOTE_CAPTION] if remote_marked(rows) else [])
    notes += (["field of: the other bots it has such blocks against; win %: games won, which depends on whom it was "
               "scheduled against",
               "vs next: P(better than the next bot); ~ not significant (95%); ^ the next bot beats it head to head"]
              if wide else ["faults = timeouts + illegal + crashes + fallbacks (--wide)", NEXT_CAPTION])
    notes += [BEATS_CAPTION] if any(r.beats_above for r in rows) else []
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    for c in columns:  # short of room, the compact table folds the names and keeps the numbers whole
        t.add_column(c.header, justify="left" if c.left else "right", overflow="fold", no_wrap=not (c.left or wide))
    for r in rows:
        t.add_row(*(c.cell(r) for c in columns))
    # The title and the notes as lines of their own, not rich's title and caption: those wrap to the table's width,
    # and the compact table is narrower than its notes.
    con = _console(t, wide)
    con.print(f"{label}{after}: ranked by {ordered_by(rows, order)}", markup=False)
    con.print(t)
    for note in notes:
        con.print(note, markup=False)
    if cross:
        _print_cross(st, pool, rows, as_of)


def _console(t, wide: bool):
    """A console for the rich table ``t``: as wide as the terminal; into a pipe or a file ``COLUMNS`` if set, else
    80, or for a ``wide`` table the width it needs (a file has no width to fit)."""
    from rich.console import Console

    con = Console(highlight=False)
    if not con.is_terminal:
        cols = os.environ.get("COLUMNS", "")
        width = int(cols) if cols.isdigit() and int(cols) > 0 else \
            Console(width=10_000).measure(t).maximum if wide else 80
        con = Console(highlight=False, width=width)
    return con


def _signed(x: float | None, digits: int = 0) -> str:
    if x is None or x != x:
        return "?"
    return "+inf" if x == float("inf") else "-inf" if x == float("-inf") else f"{x:+.{digits}f}"


def _print_cross(st, pool: str, rows: list, as_of: int | None = None) -> None:
    """Every pair's head-to-head statistics over their complete duplicate blocks (docs/statistics.md)."""
    from rich import box
    from rich.table import Table

    from arena.evidence import MIN_BLOCKS
    from arena.stats import cross_table

    cross = cross_table(st, pool, rows, as_of)
    t = Table(title="head to head, over complete duplicate blocks (per game; [95% interval])", box=box.SIMPLE_HEAD,
              show_edge=False, pad_edge=False, collapse_padding=True,
              caption="Elo and LOS from the block margins (their normalized Elo and Student's t; from the score "
                      "where the margins do not vary); nElo: the score's; LOS = P(bot stronger); margin: points per "
                      "game; x games: effective games per game played; "
                      "~ not significant; ? every block alike (no spread); too few: under "
                      f"{MIN_BLOCKS} blocks, where no difference can be significant")
    for head in ("bot", "opponent", "blocks", "games", "score %", "Elo [95%]", "nElo", "LOS %", "margin [95%]",
                 "x games"):
        t.add_column(head, justify="left" if head in ("bot", "opponent") else "right", overflow="fold")
    for (i, j), h in sorted(cross.pairs.items()):
        if i < j:
            t.add_row(h.a, h.b, str(h.blocks), str(h.games), f"{100 * h.score:.1f}",
                      f"{_signed(h.elo)} [{_signed(h.elo_low)}, {_signed(h.elo_high)}]" + ("" if h.significant else " ~"),
                      _signed(h.nelo), "too few" if h.too_few else "?" if h.los != h.los else f"{100 * h.los:.1f}",
                      f"{_signed(h.margin, 2)} [{_signed(h.margin_low, 2)}, {_signed(h.margin_high, 2)}]",
                      "-" if h.multiplier is None else "inf" if h.multiplier == float("inf") else f"{h.multiplier:.2f}")
    if not cross.pairs:
        typer.echo("head to head: no complete duplicate blocks in this pool yet (games played by `pepper arena run` "
                   "or `pepper arena match` form them)")
        return
    _console(t, True).print(t)
    for kind in ("score", "margin"):
        sc = cross.pooled[kind]
        if sc["multiplier"] is not None:
            rho = "-" if sc["rho"] is None else f"{sc['rho']:+.3f}"
            typer.echo(f"blocks, {kind}: {sc['games']} games worth {sc['effective_games']:.0f} independent games "
                       f"(x{sc['multiplier']:.2f}; correlation inside blocks {rho})")


@app.command("table")
def arena_table(
    ruleset: Annotated[str | None, typer.Option("--ruleset", "-r", help="A built-in ruleset, a .toml ruleset file, a "
                                                "ruleset file's name, or NAME@DIGEST for one of its contents.")] = None,
    players: Annotated[int | None, typer.Option("--players", "-p")] = None,
    all_versions: Annotated[bool, typer.Option("--all-versions", help="A row for every version of each bot, not "
                                                                     "only its newest.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="JSON: {pool: \\[rows]}.")] = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="CSV with a pool column.")] = False,
    cross: Annotated[bool, typer.Option("--cross", help="Also the head-to-head statistics of every pair over their "
                                        "duplicate blocks (with --json: {pool: {table, head_to_head, blocks}}).")] = False,
    wide: WideOption = False,
    as_of: Annotated[int | None, typer.Option("--as-of", min=1, metavar="N", help="The table as it stood after the "
                                              "first N planned games of a run (games are rated in plan order).")] = None,
    run: Annotated[int | None, typer.Option("--run", metavar="ID", help="With --as-of: the run (default: each "
                                            "pool's newest).")] = None,
    order: Annotated[str, typer.Option("--order", metavar="points|trueskill", help="points: bots with complete "
                                       "duplicate blocks by their points a game above the field, the rest below by "
                                       "rating; trueskill: every bot by rating = mu - 3*sigma.")] = "points",
    db: DbOption = Path("arena.db"),
) -> None:
    """The ranked table of every pool (or one), at any time, even while a run is going.

    A pool is a ruleset's content and a player count: shown as NAME/Np, or NAME@DIGEST/Np where one name has
    several contents (a ruleset file edited in place). JSON and CSV hold every column, whether or not --wide."""
    from arena.stats import ORDERS, table

    if order not in ORDERS:
        _fail(f"unknown --order {order!r}: give one of {', '.join(ORDERS)}")
    if json_out and csv_out:
        _fail("give one of --json or --csv, not both")
    if run is not None and not as_of:
        _fail("--run needs --as-of N: the table after the first N planned games of that run")
    if cross and csv_out:
        _fail("--cross has no CSV form: use --cross --json")
    if players is not None and not ruleset:
        _fail("--players needs --ruleset: a pool is a ruleset and a player count (e.g. --ruleset iowa --players 4)")
    st = _open_existing(db)
    stored = _stored_pools(st)
    pools = _choose_pools(st, db, ruleset, players) if ruleset else stored
    if not pools:
        _no_pool(st, db, ruleset, players)
    labels = {p.key: p.label(stored) for p in pools}
    cuts, afters = _as_of(st, labels, as_of, run) if as_of else ({}, {})
    if json_out:
        from arena.stats import cross_table

        out = {}
        for k in labels:
            rows = table(st, k, all_versions=all_versions, as_of=cuts.get(k), order=order)
            out[labels[k]] = {"table": [r.to_dict() for r in rows]} | cross_table(st, k, rows, cuts.get(k)).to_dict() if cross \
                else [r.to_dict() for r in rows]
        typer.echo(json.dumps(out))
    elif csv_out:
        buf = io.StringIO()
        w = None
        for k, label in labels.items():
            for r in table(st, k, all_versions=all_versions, as_of=cuts.get(k), order=order):
                d = {"pool": label} | r.to_dict()
                if w is None:
                    w = csv.DictWriter(buf, fieldnames=list(d))
                    w.writeheader()
                w.writerow(d)
        typer.echo(buf.getvalue().rstrip("\n"))
    else:
        for k in labels:
            _print_table(st, k, wide, all_versions, cross, cuts.get(k), afters.get(k, ""), order)


def _as_of(st, labels: dict[str, str], games: int, run: int | None) -> tuple[dict[str, int], dict[str, str]]:
    """For ``table --as-of``: per pool, where its rating history stood after the first ``games`` planned games of
    ``run`` (or of the pool's newest run), and the title's note; exits 2 for a run or a count that does not fit."""
    cuts, afters = {}, {}
    for k, label in labels.items():
        runs = st.pool_runs(k)
        r = run if run is not None else max(runs, default=None)
        if r not in runs:
            _fail(f"--as-of: {'no run' if r is None else f'run {r} has no games'} in pool {label}"
                  f"{'; its runs: ' + ', '.join(map(str, runs)) if runs else ''}")
        planned = st.planned_count(r)
        if games > planned:
            _fail(f"--as-of {games}: run {r} has {planned} planned games; give N from 1 to {planned}")
        rated = st.rated_count(r, games)
        if rated < games:
            typer.echo(f"note: {rated} of the first {games} planned games of run {r} are rated (the others are not "
                       "played yet, or wait for an earlier game)", err=True)
        cuts[k] = st.as_of(r, games) or 0
        afters[k] = f" after the first {games} games of run {r}"
    return cuts, afters


@app.command("games")
def arena_games(
    ruleset: Annotated[str | None, typer.Option("--ruleset", "-r", help="Only this ruleset's games.")] = None,
    players: Annotated[int | None, typer.Option("--players", "-p", help="Only games of this many players.")] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Only games this bot sat in.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="How many of the latest games.")] = 20,
    json_out: Annotated[bool, typer.Option("--json", help="JSON: a list of games, newest first.")] = False,
    db: DbOption = Path("arena.db"),
) -> None:
    """The latest stored games, newest first: their ids (for `pepper arena replay`), seats and results."""
    from arena.ratings import Pool
    from arena.stats import label

    st = _open_existing(db)
    chosen = _choose_pools(st, db, ruleset, players) if ruleset else []
    stored, total = st.latest_games(ruleset=chosen[0].ruleset if chosen else ruleset, players=players, bot=bot,
                                    pools=[p.key for p in chosen] if chosen else None, limit=limit)
    pools, counts = _stored_pools(st), st.version_counts()
    games = [g.summary() for g in stored]
    for g, game in zip(games, stored):  # the winning bots, each with its winning seats
        g["pool"] = Pool.parse(g["pool"]).label(pools)
        g["_seats"] = ", ".join(label(s.bot, s.version, counts.get(s.bot, 1)) for s in game.seats)
        won: dict[str, list[int]] = {}
        for s in g["winners"]:
            won.setdefault(g["seats"][s], []).append(s)
        g["winner_bots"] = list(won)
        g["_won"] = ", ".join(f"{b} ({', '.join(map(str, ss))})" for b, ss in won.items()) or "-"
    if json_out:
        typer.echo(json.dumps([{k: v for k, v in g.items() if not k.startswith("_")} for g in games]))
        return
    filters = [f for f in (ruleset and f"ruleset {ruleset}", players and f"{players} players", bot and f"bot {bot}") if f]
    if not games:
        what = f" matching {', '.join(filters)}" if filters else ""
        typer.echo(f"no games{what} in {db}" + (f" (it holds {_id_range(st)})" if filters and st.game_ids()[0] else ""))
        return
    from rich.console import Console
    from rich.table import Table

    shown = f"the latest {len(games)} of {total}" if total > len(games) else f"all {total}"
    t = Table(title=f"Games in {db}{' (' + ', '.join(filters) + ')' if filters else ''}: {shown}, newest first",
              caption=f"`pepper arena replay ID{_db_flag(db)}` prints one deal by deal"
                      + ("; --limit N shows more" if total > len(games) else ""))
    for col in ("id", "run", "pool", "seats", "status", "scores by seat", "winners (seats)", "seconds"):
        t.add_column(col, justify="right" if col in ("id", "run", "seconds") else "left", overflow="fold")
    for g in games:
        t.add_row(str(g["id"]), "-" if g["run_id"] is None else str(g["run_id"]), g["pool"], g["_seats"],
                  g["status"], " ".join(map(str, g["scores"])), g["_won"], f"{g['duration']:.2f}")
    con = Console(highlight=False)
    if not con.is_terminal:
        con = Console(highlight=False, width=160)
    con.print(t)


@app.command("replay")
def arena_replay(game_id: int, db: DbOption = Path("arena.db"),
                 hands: Annotated[bool, typer.Option("--hands", help="Also print every hand as dealt.")] = False) -> None:
    """Print a stored game deal by deal (replayed from its record, and checked)."""
    from referee.rules import Game, RulesError
    from referee.rules.text import ended_early_line, game_lines, result_line

    st = _open_existing(db)
    g = st.game(game_id)
    record = st.record(game_id)
    if g is None or record is None:
        if not st.game_ids()[0]:
            _fail(f"no game {game_id}: {db} holds no games yet (run `pepper arena run` first)")
        _fail(f"no game {game_id} in {db}: it holds {_id_range(st)} (list them with `pepper arena games{_db_flag(db)}`)")
    from arena.stats import label
    from arena.store.browse import unplayed_twins

    if waiting := unplayed_twins(st, game_id):   # its seed and cards deal its twins, which are still to play
        _fail(f"game {game_id}'s cards and seed are withheld while its duplicate match is still being played ({waiting} "
              f"twin game{'s' if waiting > 1 else ''} with the same cards to go in run {g.run_id}); it replays once "
              "they are stored or the run finishes", 1)
    counts = st.version_counts()
    typer.echo(f"game {game_id}: {g.ruleset} {g.players}p seed {g.seed}; seats: " +
               ", ".join(f"{s.seat}={label(s.bot, s.version, counts.get(s.bot, 1))}" for s in g.seats) +
               f"; status {g.status}")
    try:
        game = Game.from_record(record)
    except RulesError as e:
        _fail(f"stored record of game {game_id} does not replay: {e}", 1)
    echo_lines(game_lines(game, hands))
    if game.outcome:
        typer.echo(result_line(game))
        return
    # Ended early (a forfeit, or aborted by the referee): say how, from what the arena stored.
    typer.echo(ended_early_line(game, g.status, [s.status for s in g.seats], g.bots,
                                [s.faults._asdict() for s in g.seats], g.winners, g.scores))


# ------------------------------------------------------------------ deal sets
deals_app = typer.Typer(no_args_is_help=True, help="Deal sets: the decks a run plays (`pepper arena run --deals FILE`).")
app.add_typer(deals_app, name="deals")


@deals_app.command("export")
def deals_export(
    run: Annotated[int, typer.Argument(metavar="RUN", help="The run's id (`pepper arena games` shows each game's run).")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Where to write it ('-': stdout).")],
    db: DbOption = Path("arena.db"),
) -> None:
    """Write the deals a run played (one line per match, in plan order) as a deal set that `pepper arena run
    --deals FILE` plays again, so that two tournaments can be compared on the same deals."""
    from arena.deals import DealSetError, export_run

    st = _open_existing(db)
    try:
        text = export_run(st, run)
    except DealSetError as e:
        _fail(str(e))
    finally:
        st.close()
    if str(output) == "-":
        typer.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as e:
        _fail(f"cannot write {output}: {e}", 1)
    typer.echo(f"{output}: {text.count(chr(10)) - 1} deals of run {run}")
