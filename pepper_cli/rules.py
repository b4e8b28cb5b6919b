"""``pepper rules list`` and ``pepper rules show NAME|FILE.toml``."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import load_ruleset

app = typer.Typer(no_args_is_help=True, help="List the rulesets or show one in full.")


def _console():
    from rich.console import Console

    return Console(highlight=False)


@app.command("list")
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


@app.command("show")
def rules_show(
    name: Annotated[str, typer.Argument(help="A built-in ruleset name, or the path of a .toml ruleset file.")],
) -> None:
    """All parameters of one ruleset and, per player count, its resolved table and bid ladder."""
    from rich.table import Table as RichTable

    from referee.rules import BID_NAMES
    from referee.rules.cards import RANK_SYMBOLS

    rs = load_ruleset(name)
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
