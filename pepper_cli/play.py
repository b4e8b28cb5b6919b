"""``pepper simulate``, ``pepper play`` and ``pepper replay``: the rules engine on its own, no referee.

    pepper simulate --ruleset iowa --games 1000 --seed 1 [--json] [--save-records DIR]
    pepper play --ruleset iowa --seed 7 --out game.json
    pepper replay game.json               check a game record and print it deal by deal

Exit codes: 0 success; 1 a replay that does not check out (an illegal action,
or an outcome that differs from the record); 2 bad input (unknown ruleset, bad
ruleset file, bad player count, unreadable record).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .common import EXIT_FAILED, echo_lines, fail, load_ruleset, new_game

if TYPE_CHECKING:
    from referee.rules import Game


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


RulesetOption = Annotated[str, typer.Option("--ruleset", "-r", help="Ruleset name (or a .toml ruleset file).")]
PlayersOption = Annotated[int | None, typer.Option("--players", "-p", help="Player count (default: 4 if allowed, else the ruleset's first).")]
RulesFileOption = Annotated[Path | None, typer.Option("--rules-file", help="A TOML ruleset file; overrides --ruleset.")]


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

    rs = load_ruleset(ruleset, rules_file)
    if save_records is not None:
        try:
            save_records.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"cannot create records directory {save_records}: {e.strerror or e}")
    deals = thrown_in = actions = 0
    seconds = 0.0
    wins: dict[int, int] = {}
    draws = capped = 0
    for k, game_seed in enumerate(game_seeds(seed, games), 1):
        t0 = time.perf_counter()
        g = play_random(new_game(rs, players, game_seed), game_seed)
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
    from referee.rules.text import side

    t = g.table
    typer.echo(f"{rs.name}, {g.players} players, seed {seed}: random legal actions")
    typer.echo(f"games             {games}")
    typer.echo(f"deals             {deals} ({thrown_in} thrown in)")
    typer.echo(f"actions           {actions}")
    typer.echo(f"seconds           {seconds:.3f}")
    typer.echo(f"deals per second  {rate:.0f}")
    ranked = sorted(range(t.teams), key=lambda i: -wins.get(i, 0))
    typer.echo("wins              " + ", ".join(f"{side(t, i)}: {wins.get(i, 0)}" for i in ranked)
               + f"; draws: {draws}; games ended by the deal cap: {capped}")
    if save_records is not None:
        typer.echo(f"records           {save_records}/game-0001.json ... game-{games:04d}.json")


# -------------------------------------------------------------------- play
def play(
    ruleset: RulesetOption = "iowa",
    players: PlayersOption = None,
    rules_file: RulesFileOption = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="The game's seed (deals and the random players' choices).")] = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the game record (JSON) here; '-' for stdout.")] = None,
) -> None:
    """Play one game with random legal actions; optionally write its record for `pepper replay`."""
    from referee.rules.text import outcome_line

    rs = load_ruleset(ruleset, rules_file)
    g = play_random(new_game(rs, players, seed), seed)
    if out is not None and str(out) == "-":
        typer.echo(g.to_json(indent=1))
        return
    typer.echo(f"{rs.name}, {g.players} players, seed {seed}: {len(g.history)} actions; {outcome_line(g)}")
    if out is not None:
        try:
            out.write_text(g.to_json(indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            fail(f"cannot write {out}: {e.strerror or e}")
        typer.echo(f"record written to {out}")


# ------------------------------------------------------------------ replay
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
        fail(f"no such file: {record}")
    except (OSError, UnicodeDecodeError) as e:
        fail(f"cannot read {record}: {getattr(e, 'strerror', None) or e}")
    except json.JSONDecodeError as e:
        fail(f"{record} is not valid JSON: {e}")
    try:
        g = Game.from_record(data)
    except ActionError as e:
        kind = "illegal" if isinstance(e, IllegalActionError) else "invalid"
        typer.echo(f"error: {record}: {kind} action at index {e.index} ({str(e.action)!r}) by seat {e.seat} "
                   f"in phase {e.phase}", err=True)
        typer.echo(f"  {e}", err=True)
        raise typer.Exit(EXIT_FAILED) from None
    except GameOverError as e:
        fail(f"{record}: action at index {getattr(e, 'index', '?')} comes after the end of the game", EXIT_FAILED)
    except ReplayMismatchError as e:
        fail(f"{record}: {e}", EXIT_FAILED)
    except (RecordError, RulesError) as e:
        fail(f"{record}: {e}")
    from referee.rules.text import game_lines, result_line, unfinished_line

    echo_lines(game_lines(g, hands))
    typer.echo(unfinished_line(g) if g.outcome is None else result_line(g, checked="outcome" in data))
