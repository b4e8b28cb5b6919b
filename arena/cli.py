"""The ``pepper`` command line.

    pepper rules list                     the rulesets
    pepper rules show NAME|FILE.toml      one ruleset, resolved per player count
    pepper simulate --ruleset iowa --games 1000 --seed 1 [--json] [--save-records DIR]
    pepper play --ruleset iowa --seed 7 --out game.json
    pepper replay game.json               check a game record and print it deal by deal

The root :data:`app` is a Typer app with sub-apps; further groups (``referee``,
``bot``, ``arena``) are added with ``app.add_typer(group, name=...)``. Heavy
modules are imported inside the commands so ``pepper --help`` stays fast.

Exit codes: 0 success; 1 a replay that does not check out (an illegal action,
or an outcome that differs from the record); 2 bad input (unknown ruleset, bad
ruleset file, bad player count, unreadable record).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from referee.rules import Game, Ruleset, Table

EXIT_FAILED = 1
EXIT_USAGE = 2

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="Pepper Arena: rules engine tools, random-play simulation and game replay.",
)
rules_app = typer.Typer(no_args_is_help=True, help="List the rulesets or show one in full.")
app.add_typer(rules_app, name="rules")

# Groups owned by other layers: the referee's own CLI (imports nothing heavy until a command runs).
from referee.service.cli import app as referee_app  # noqa: E402

app.add_typer(referee_app, name="referee")

from .commands import arena_app, bot_app  # noqa: E402

app.add_typer(bot_app, name="bot")
app.add_typer(arena_app, name="arena")


# --------------------------------------------------------------- helpers
def _fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr, then exit (no traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _console():
    from rich.console import Console

    return Console(highlight=False)


def _load_ruleset(name: str, rules_file: Path | None = None) -> Ruleset:
    """A built-in ruleset by name, or a ruleset file (``rules_file`` wins; ``name`` may be a path)."""
    from referee.rules import BUILTIN_RULESETS, RulesetError, get_ruleset, load_ruleset_file

    try:
        if rules_file is not None:
            return load_ruleset_file(rules_file)
        if name not in BUILTIN_RULESETS and Path(name).is_file():
            return load_ruleset_file(name)
        return get_ruleset(name)
    except RulesetError as e:
        _fail(str(e))


def _new_game(rs: Ruleset, players: int | None, seed: int) -> Game:
    from referee.rules import Game, RulesetError

    try:
        return Game(rs, players, seed=seed)
    except RulesetError as e:  # a player count the ruleset does not allow
        _fail(str(e))


def play_random(game: Game, seed: int) -> Game:
    """Play ``game`` to its end with uniformly random legal actions drawn from ``seed``."""
    choice = random.Random(f"actions/{seed}").choice
    legal, apply = game.legal_action_ids, game.apply
    while game.outcome is None:
        apply(choice(legal()))
    return game


def game_seeds(seed: int, games: int) -> list[int]:
    """The per-game seeds of ``simulate --seed seed`` (game k's seed does not depend on ``games``)."""
    rng = random.Random(seed)
    return [rng.getrandbits(32) for _ in range(games)]


def _side(t: Table, team: int, seats: bool = True) -> str:
    """How to name a scoring side: a seat when everyone scores alone, else a team (and its seats)."""
    if t.teams == t.players:
        return f"seat {team}"
    return f"team {team} (seats {', '.join(map(str, t.team_seats(team)))})" if seats else f"team {team}"


def _scores(t: Table, values, sign: str = "") -> str:
    return ", ".join(f"{_side(t, i, seats=False)} {v:{sign}d}" for i, v in enumerate(values))


def _outcome_line(g: Game) -> str:
    o, t = g.outcome, g.table
    why = "target reached" if o.reason == "target" else "deal cap reached"
    who = "draw" if o.draw else " and ".join(_side(t, w) for w in o.winners) + (" win" if len(o.winners) > 1 else " wins")
    return f"{who} after {o.deals} deals ({why}); final scores: {_scores(t, o.scores)}"


# ------------------------------------------------------------------ rules
@rules_app.command("list")
def rules_list() -> None:
    """Table of the built-in rulesets."""
    from rich.table import Table as RichTable

    from referee.rules import BUILTIN_RULESETS

    table = RichTable(title="Rulesets")
    for col in ("name", "players", "target", "description"):
        table.add_column(col, overflow="fold")
    for rs in BUILTIN_RULESETS.values():
        table.add_row(rs.name, ", ".join(map(str, rs.player_counts)), str(rs.target_score), rs.description)
    _console().print(table)


@rules_app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="A built-in ruleset name, or the path of a .toml ruleset file.")],
) -> None:
    """All parameters of one ruleset and, per player count, its resolved table and bid ladder."""
    from rich.table import Table as RichTable

    from referee.rules import BID_NAMES
    from referee.rules.cards import RANK_SYMBOLS

    rs = _load_ruleset(name)
    con = _console()
    params = RichTable(title=f"Ruleset {rs.name}", show_header=False)
    params.add_column("parameter", style="bold")
    params.add_column("value", overflow="fold")
    shown = {
        "name": rs.name, "family": rs.family, "extends": rs.extends or "-", "source": rs.source,
        "description": rs.description, "player_counts": ", ".join(map(str, rs.player_counts)),
        "target_score": rs.target_score, "deal_cap": rs.deal_cap, "pass_out": rs.pass_out,
        "defenders_may_cede": rs.defenders_may_cede, "pepper_exchange": rs.pepper_exchange,
        "min_bid": rs.min_bid, "max_bid": "family default" if rs.max_bid is None else rs.max_bid,
        "specials": ", ".join(rs.specials) or "-",
    }
    for key, value in shown.items():
        params.add_row(key, str(value).lower() if isinstance(value, bool) else str(value))
    con.print(params, markup=False)
    for n in rs.player_counts:
        t = rs.table(n)
        ranks = sorted({c % 6 for c in t.deck})
        copies = len(t.deck) // len(set(t.deck))
        teams = ("each seat scores alone" if t.teams == n else
                 "; ".join(f"team {i} = seats {', '.join(map(str, t.team_seats(i)))}" for i in range(t.teams)))
        extras = []
        if t.widow_size:
            extras.append(f"widow of {t.widow_size}")
        if t.dead_hand:
            extras.append(f"dead hand of {t.hand_size}")
        con.print(
            f"\n[bold]{n} players[/bold]: {len(t.deck)}-card deck ({RANK_SYMBOLS[ranks[0]]}-{RANK_SYMBOLS[ranks[-1]]}, "
            f"{copies} {'copy' if copies == 1 else 'copies'} of each card), {t.hand_size} cards each"
            + "".join(f", {x}" for x in extras)
            + f"; {teams}; bids {'name' if t.bid_names_strain else 'do not name'} their strain"
        )
        ladder = RichTable(title="bid ladder, low to high")
        for col in ("bid", "tricks", "points", "alone"):
            ladder.add_column(col)
        for lv in t.ladder:
            points = "per trick" if lv.points is None else f"+/-{lv.points}"
            ladder.add_row(BID_NAMES[lv.index], str(lv.tricks), points, "yes" if lv.alone else "no")
        con.print(ladder)


# ---------------------------------------------------------------- simulate
RulesetOption = Annotated[str, typer.Option("--ruleset", "-r", help="Ruleset name (or a .toml ruleset file).")]
PlayersOption = Annotated[int | None, typer.Option("--players", "-p", help="Player count (default: 4 if allowed, else the ruleset's first).")]
RulesFileOption = Annotated[Path | None, typer.Option("--rules-file", help="A TOML ruleset file; overrides --ruleset.")]


@app.command()
def simulate(
    ruleset: RulesetOption = "iowa",
    players: PlayersOption = None,
    rules_file: RulesFileOption = None,
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="Number of games.")] = 100,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Master seed; each game's seed is drawn from it.")] = 0,
    json_out: Annotated[bool, typer.Option("--json", help="Print exactly one JSON object instead of text.")] = False,
    save_records: Annotated[Path | None, typer.Option("--save-records", file_okay=False, help="Write each game's record to DIR/game-NNNN.json.")] = None,
) -> None:
    """Play GAMES games with uniformly random legal actions and report the speed."""
    import time

    rs = _load_ruleset(ruleset, rules_file)
    if save_records is not None:
        try:
            save_records.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            _fail(f"cannot create records directory {save_records}: {e.strerror or e}")
    deals = thrown_in = actions = 0
    seconds = 0.0
    wins: dict[int, int] = {}
    draws = capped = 0
    for k, game_seed in enumerate(game_seeds(seed, games), 1):
        t0 = time.perf_counter()
        g = play_random(_new_game(rs, players, game_seed), game_seed)
        seconds += time.perf_counter() - t0
        deals += len(g.deals)
        thrown_in += sum(d.thrown_in for d in g.deals)
        actions += len(g.history)
        o = g.outcome
        draws += o.draw
        capped += o.reason == "deal-cap"
        for w in o.winners:
            wins[w] = wins.get(w, 0) + 1
        if save_records is not None:
            (save_records / f"game-{k:04d}.json").write_text(g.to_json(indent=1) + "\n", encoding="utf-8")
    rate = deals / seconds if seconds > 0 else 0.0
    if json_out:
        typer.echo(json.dumps({"games": games, "deals": deals, "actions": actions, "seconds": round(seconds, 6),
                               "deals_per_second": round(rate, 1)}))
        return
    t = g.table
    typer.echo(f"{rs.name}, {g.players} players, seed {seed}: random legal actions")
    typer.echo(f"games             {games}")
    typer.echo(f"deals             {deals} ({thrown_in} thrown in)")
    typer.echo(f"actions           {actions}")
    typer.echo(f"seconds           {seconds:.3f}")
    typer.echo(f"deals per second  {rate:.0f}")
    ranked = sorted(range(t.teams), key=lambda i: -wins.get(i, 0))
    typer.echo("wins              " + ", ".join(f"{_side(t, i)}: {wins.get(i, 0)}" for i in ranked)
               + f"; draws: {draws}; games ended by the deal cap: {capped}")
    if save_records is not None:
        typer.echo(f"records           {save_records}/game-0001.json ... game-{games:04d}.json")


# -------------------------------------------------------------------- play
@app.command()
def play(
    ruleset: RulesetOption = "iowa",
    players: PlayersOption = None,
    rules_file: RulesFileOption = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="The game's seed (deals and the random players' choices).")] = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the game record (JSON) here; '-' for stdout.")] = None,
) -> None:
    """Play one game with random legal actions; optionally write its record for `pepper replay`."""
    rs = _load_ruleset(ruleset, rules_file)
    g = play_random(_new_game(rs, players, seed), seed)
    if out is not None and str(out) == "-":
        typer.echo(g.to_json(indent=1))
        return
    typer.echo(f"{rs.name}, {g.players} players, seed {seed}: {len(g.history)} actions; {_outcome_line(g)}")
    if out is not None:
        try:
            out.write_text(g.to_json(indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            _fail(f"cannot write {out}: {e.strerror or e}")
        typer.echo(f"record written to {out}")


# ------------------------------------------------------------------ replay
@app.command()
def replay(
    record: Annotated[Path, typer.Argument(help="A game record (JSON), as written by `pepper play --out`.")],
    hands: Annotated[bool, typer.Option("--hands", help="Also print every hand as dealt.")] = False,
) -> None:
    """Check a game record by replaying it, and print the game deal by deal."""
    from referee.rules import (
        ActionError,
        Game,
        GameOverError,
        IllegalActionError,
        RecordError,
        ReplayMismatchError,
        RulesError,
    )

    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        _fail(f"no such file: {record}")
    except (OSError, UnicodeDecodeError) as e:
        _fail(f"cannot read {record}: {getattr(e, 'strerror', None) or e}")
    except json.JSONDecodeError as e:
        _fail(f"{record} is not valid JSON: {e}")
    try:
        g = Game.from_record(data)
    except ActionError as e:
        kind = "illegal" if isinstance(e, IllegalActionError) else "invalid"
        typer.echo(f"error: {record}: {kind} action at index {e.index} ({str(e.action)!r}) by seat {e.seat} "
                   f"in phase {e.phase}", err=True)
        typer.echo(f"  {e}", err=True)
        raise typer.Exit(EXIT_FAILED) from None
    except GameOverError as e:
        _fail(f"{record}: action at index {getattr(e, 'index', '?')} comes after the end of the game", EXIT_FAILED)
    except ReplayMismatchError as e:
        _fail(f"{record}: {e}", EXIT_FAILED)
    except (RecordError, RulesError) as e:
        _fail(f"{record}: {e}")
    _print_game(g, hands)
    if g.outcome is None:
        typer.echo(f"Unfinished: {len(g.history)} actions replayed; deal {g.deal_number} awaits seat {g.to_act} ({g.phase})")
    else:
        checked = " (matches the record)" if "outcome" in data else ""
        typer.echo(f"Result: {_outcome_line(g)}{checked}")


def _print_game(g: Game, show_hands: bool) -> None:
    from referee.rules import ACTIONS, CARDS, Strain

    t, echo = g.table, typer.echo
    rs = g.ruleset
    echo(f"Game: {rs.name}, {g.players} players, seed {g.seed}, first dealer seat {g.first_dealer}, "
         f"{len(g.history)} actions. Tricks list seat:card in playing order.")
    if t.teams < t.players:
        echo("Teams: " + "; ".join(_side(t, i) for i in range(t.teams)))

    def cards(xs) -> str:
        return " ".join(str(CARDS[c]) for c in xs)

    bids: list[str] = []
    trick: list[str] = []
    tricks = 0
    for kind, seat, data, _visible in g.events:
        if bids and kind != "bid":
            echo("  bids: " + ", ".join(bids))
            bids = []
        if kind == "deal":
            tricks = 0
            echo(f"\nDeal {data}, dealer seat {seat}")
        elif kind == "hand" and show_hands:
            echo(f"  hand of seat {seat}: {cards(data)}")
        elif kind == "bid":
            bids.append(f"seat {seat} {ACTIONS[data]}")
        elif kind == "thrown_in":
            echo("  thrown in: everyone passed")
        elif kind == "contract":
            echo(f"  contract: seat {seat} bid {data[0]} in {Strain(data[1])}")
        elif kind == "widow":
            echo(f"  seat {seat} takes the widow: {cards(data)}")
        elif kind == "exchange":
            echo(f"  seat {seat} {'asks for an exchange' if data else 'plays as dealt'}")
        elif kind == "give" and data is False:
            echo(f"  seat {seat} gives no card")
        elif kind == "gave_card":
            echo(f"  seat {seat} gives {CARDS[data]}")
        elif kind == "discarded_card":
            echo(f"  seat {seat} discards {CARDS[data]}")
        elif kind == "cede":
            echo(f"  seat {seat} {'cedes' if data else 'plays'}")
        elif kind == "ceded":
            echo("  the defenders cede the deal")
        elif kind == "partner_card":
            echo("  partner card: " + ("none (nobody else holds a qualifying card)" if data is None else str(CARDS[data])))
        elif kind == "partner":
            echo(f"  seat {seat} plays {CARDS[data]} and is the partner")
        elif kind == "play":
            trick.append(f"{seat}:{CARDS[data]}")
        elif kind == "trick":
            tricks += 1
            echo(f"  trick {tricks}: {' '.join(trick)} -> seat {seat}")
            trick = []
        elif kind == "deal_end":
            if data.contract is not None and not data.ceded:
                echo("  tricks won: " + ", ".join(f"seat {s} {n}" for s, n in enumerate(data.tricks)))
            echo(f"  points: {_scores(t, data.points, '+')}; scores: {_scores(t, data.scores)}")
    if bids:
        echo("  bids: " + ", ".join(bids))
    if trick:
        echo(f"  trick {tricks + 1} so far: {' '.join(trick)}")


def main() -> None:
    """Console-script entry point (``pepper``)."""
    app()


if __name__ == "__main__":
    main()
