"""`pepper arena table` as a real subprocess over a real SQLite file: the compact table fits the width it is
given, --wide shows every column, and fallbacks are counted as faults in every output."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.ratings import Rating
from arena.store import Faults, GameStatus, NewGame, Seat, SeatStatus, Store

LONG = "montecarlo-deep-search-v2"   # a long name: the compact table still has room for it
COMPACT = ("rank", "bot", "rating", "mu ± 3sigma", "games", "win %", "faults")
WIDE = ("rank", "bot", "mu", "sigma", "mu-3sigma", "games", "win %", "avg points", "contracts made %", "timeouts", "illegal",
        "crashes", "fallbacks", "p50 ms", "p99 ms", "vs next")
RATINGS = {"heuristic": Rating(36.98, 4.13), LONG: Rating(30.5, 2.0), "raising": Rating(12.25, 3.5)}


def pepper(*args, db: Path, columns: str | None = None) -> subprocess.CompletedProcess:
    """Output into a pipe (not a terminal), with ``COLUMNS`` set or not."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | {"NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    if columns is not None:
        env["COLUMNS"] = columns
    r = subprocess.run([sys.executable, "-m", "pepper_cli", "arena", "table", *args, "--db", str(db)], capture_output=True,
                       text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """Two iowa games of three bots; ``raising`` played 7 fallbacks and timed out twice in each, the others are clean."""
    path = tmp_path_factory.mktemp("table") / "arena.db"
    st = Store(path)
    for seats in (("heuristic", "raising", "heuristic", "raising"), (LONG, "raising", LONG, "raising")):
        rows = tuple(Seat(s, bot, SeatStatus.OK, Faults(timeout=s % 2), 10 * s, s % 2 == 0, 2, 1,
                          fallbacks=(3 + s // 3) if bot == "raising" else 0, decisions=30, latency_p50_ms=1.5,
                          latency_p99_ms=9.0)
                     for s, bot in enumerate(seats))
        st.record_group([NewGame(None, None, "iowa/4p", "iowa", 4, 1, GameStatus.COMPLETED, 1.0, rows, {"deals": []})])
        [gid] = st.latest_game_ids(limit=1)
        st.rate_games([st.game(gid)], lambda g, cur: {b: RATINGS[b] for b in g.bots})
    st.close()
    return path


def _row(out: str, *cells: str) -> re.Match | None:
    """A line holding these cells in this order, separated by spaces only."""
    return re.search(r"^ *" + r" +".join(map(re.escape, cells)) + r" *$", out, re.M)


@pytest.mark.parametrize("columns", ["80", None])
def test_the_compact_table_fits_80_columns_with_every_bot(db, columns):
    out = pepper(db=db, columns=columns).stdout
    assert max(map(len, out.splitlines())) <= 80, out
    assert _row(out, "1", "heuristic", "24.59", "36.98 ± 12.39", "1", "100.0", "0"), out
    assert _row(out, "~2", LONG, "24.50", "30.50 ± 6.00", "1", "100.0", "0"), out  # 92% likely below: not significant
    assert _row(out, "3", "raising", "1.75", "12.25 ± 10.50", "2", "0.0", "18"), out  # 4 timeouts + 14 fallbacks
    assert _row(out, *COMPACT) and "avg points" not in out


def test_a_narrow_width_is_honoured_and_the_numbers_stay_whole(db):
    out = pepper(db=db, columns="64").stdout
    assert max(map(len, out.splitlines())) <= 64, out
    for rank, rating in (("1", "24.59"), ("~2", "24.50"), ("3", "1.75")):
        assert re.search(rf"^ *{rank} +\S+ +{re.escape(rating)} ", out, re.M), out


def test_wide_shows_every_column(db):
    out = pepper("--wide", db=db).stdout  # into a pipe without COLUMNS: as wide as it needs, nothing wraps
    assert _row(out, *WIDE), out
    assert _row(out, "3", "raising", "12.25", "3.50", "1.75", "2", "0.0", "20.0", "50.0", "4", "0", "0", "14", "1.50",
                "9.00"), out
    narrow = pepper("--wide", db=db, columns="100").stdout  # COLUMNS is honoured: the wide table wraps to it
    assert max(map(len, narrow.splitlines())) <= 100 and re.search(r"^rank +bot +mu", narrow, re.M), narrow


def test_json_and_csv_keep_every_field_with_the_fallbacks(db):
    rows = {r["bot"]: r for r in json.loads(pepper("--json", db=db).stdout)["iowa/4p"]}
    assert rows["raising"]["fallbacks"] == 14 and rows["raising"]["timeouts"] == 4
    assert rows["heuristic"]["fallbacks"] == rows[LONG]["fallbacks"] == 0
    assert {"mu", "sigma", "conservative", "avg_points", "contracts_made_pct", "illegal", "crashes", "latency_p50_ms",
            "latency_p99_ms"} <= set(rows["raising"])
    table = list(csv.DictReader(io.StringIO(pepper("--csv", db=db).stdout)))
    assert [(r["pool"], r["bot"], r["fallbacks"]) for r in table] == [
        ("iowa/4p", "heuristic", "0"), ("iowa/4p", LONG, "0"), ("iowa/4p", "raising", "14")]
