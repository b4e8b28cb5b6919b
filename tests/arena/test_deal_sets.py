"""Deal sets: `pepper arena run --deals FILE` deals each match from a line of FILE, and `pepper
arena deals export RUN` writes the deals a run played, so that two tournaments play the same cards. The `pepper`
CLI, a real referee, real bot subprocesses, a real SQLite file."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena import deals
from referee.rules import CARDS, Game, get_ruleset

SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = pytest.mark.xdist_group("arena")
IOWA = get_ruleset("iowa")


def pepper(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


def played(db: Path, run_id: int) -> list[tuple[int, int, dict]]:
    """(match, seed, record) of each stored game of a run, in plan order."""
    import json
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT p.match, g.seed, r.record_json FROM games g JOIN planned_games p ON p.run_id = g.run_id "
                         "AND p.idx = g.idx JOIN game_records r ON r.game_id = g.id WHERE g.run_id = ? ORDER BY g.idx",
                         (run_id,)).fetchall()
    return [(m, s, json.loads(r)) for m, s, r in rows]


def test_a_deal_set_parses_and_bad_lines_are_named():
    deck = deals.first_deck(IOWA, 4, deals.Deal(5))
    text = f"# a book\n\nseed 5\nseed 7 | {' '.join(deck)}  # with a comment\n{', '.join(deck).replace('10', 'T')}\n"
    got = deals.parse(text, "book.txt")
    assert got == [deals.Deal(5, (), 3), deals.Deal(7, (deck,), 4), deals.Deal(None, (deck,), 5)]
    deals.check(got, IOWA, 4, "book.txt")
    assert deals.parse(deals.format_set(got), "again") == [d._replace(line=i) for i, d in enumerate(got, 2)]
    bad = {
        "seed 5\nseed x\n": "book.txt line 2: 'seed x': a seed is 'seed N' with N a whole number",
        "seed 5 | 9S ZZ\n": "book.txt line 1: deck 1: not a card: 'ZZ'",
        "seed 1 |\n": "book.txt line 1: deck 1 is empty",
        "# nothing\n": "book.txt: no deals in it",
        f"seed 1 | {' '.join(deck[:-1])} 9S\n": "book.txt line 1: deck 1 has 24 cards and is not a complete iowa deck "
                                               "for 4 players",
    }
    for text, says in bad.items():
        with pytest.raises(deals.DealSetError) as e:
            deals.check(deals.parse(text, "book.txt"), IOWA, 4, "book.txt")
        assert says in str(e.value), str(e.value)
    with pytest.raises(deals.DealSetError, match=f"missing {deck[-1]}; not in the deck or too many: 9S"):
        deals.check(deals.parse(f"{' '.join(deck[:-1])} 9S", "b"), IOWA, 4, "b")


def test_two_runs_on_one_deal_set_play_the_same_cards(tmp_path):
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text(SHORT)
    first = pepper(db, "arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic", "--games", "8",
                   "--seed", "3", "--quiet")
    assert first.returncode == 0, first.stdout + first.stderr
    out = pepper(db, "arena", "deals", "export", "1", "-o", str(tmp_path / "book.txt"))
    assert out.returncode == 0 and "book.txt: 4 deals of run 1" in out.stdout, out.stdout + out.stderr
    book = (tmp_path / "book.txt").read_text()
    assert book.startswith(deals.HEADER) and book.count("\nseed ") == 4 and "first deal: " in book
    # Another run, another seed, on the book: each match is dealt as the first run's was.
    second = pepper(db, "arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic", "--games", "8",
                    "--seed", "99", "--deals", str(tmp_path / "book.txt"), "--quiet")
    assert second.returncode == 0, second.stdout + second.stderr
    a, b = played(db, 1), played(db, 2)
    assert [(m, s) for m, s, _ in a] == [(m, s) for m, s, _ in b] and len({s for _, s, _ in a}) == 4

    # Decks given: the first deal of every game of the match is that deck, and the record replays it.
    deck = list(reversed(deals.first_deck(IOWA, 4, deals.Deal(1))))
    (tmp_path / "decks.txt").write_text(f"seed 42 | {' '.join(deck)}\n{' '.join(deck)}\n")
    third = pepper(db, "arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic", "--games", "8",
                   "--seed", "5", "--deals", str(tmp_path / "decks.txt"), "--quiet")
    assert third.returncode == 0, third.stdout + third.stderr
    games = played(db, 3)
    assert [m for m, _, _ in games] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [s for m, s, _ in games if m % 2 == 0] == [42] * 4          # lines 1 and 1 again (the book cycles)
    for _, _, record in games:
        g = Game.from_record(record)
        assert [str(CARDS[c]) for c in g.decks_dealt[0]] == deck and record["decks"] == [deck]
    exported = pepper(db, "arena", "deals", "export", "3", "-o", "-")
    lines = [ln for ln in exported.stdout.splitlines() if not ln.startswith("#")]
    assert lines[0].startswith(f"seed 42 | {' '.join(deck)}  # match 0, first deal: {' '.join(deck)}"), lines


def test_a_bad_deal_set_stops_the_run_before_it_starts(tmp_path):
    db = tmp_path / "arena.db"
    (tmp_path / "book.txt").write_text("seed 1\nseed 2 | 9S 10S JS\n")
    out = pepper(db, "arena", "run", "--bots", "random,heuristic", "--games", "4", "--deals",
                 str(tmp_path / "book.txt"), "--quiet")
    assert out.returncode == 2, out.stdout + out.stderr
    assert f"{tmp_path / 'book.txt'} line 2: deck 1 has 3 cards and is not a complete iowa deck for 4 players" in \
        " ".join(out.stderr.split())
    for args, says in ((["--deals", str(tmp_path / "none.txt")], "cannot read it"),):
        out = pepper(db, "arena", "run", "--bots", "random,heuristic", "--games", "4", *args, "--quiet")
        assert out.returncode == 2 and says in out.stderr, out.stderr
    out = pepper(db, "arena", "deals", "export", "7", "-o", str(tmp_path / "x.txt"))
    assert out.returncode == 2 and "no run 7 in" in out.stderr, out.stderr
