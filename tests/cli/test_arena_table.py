"""`pepper arena table` as a real subprocess over a real SQLite file: the compact table fits the width it is
given, --wide shows every column, fallbacks are counted as faults in every output, and field % is the score
against the field over complete duplicate blocks, whoever the schedule paired a bot with."""

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
from arena.schedule import plan
from arena.store import Faults, GameStatus, NewGame, Seat, SeatStatus, Store

LONG = "montecarlo-deep-search-v2"   # a long name: the compact table still has room for it
COMPACT = ("rank", "bot", "points", "rating", "games", "field %", "faults")
WIDE = ("rank", "bot", "points", "mu", "sigma", "mu-3sigma", "games", "field %", "field of", "win %", "avg points",
        "contracts made %", "timeouts", "illegal", "crashes", "fallbacks", "p50 ms", "p99 ms", "vs next")
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
    # field % "-": games outside any run form no duplicate block
    # points and field % "-": games outside any run form no duplicate block, so TrueSkill orders the table
    assert _row(out, "1", "heuristic", "-", "24.59", "1", "-", "0"), out
    assert _row(out, "~2", LONG, "-", "24.50", "1", "-", "0"), out  # 92% likely below: not significant
    assert _row(out, "3", "raising", "-", "1.75", "2", "-", "18"), out  # 4 timeouts + 14 fallbacks
    assert "ranked by rating = mu - 3*sigma" in out, out
    assert _row(out, *COMPACT) and "avg points" not in out and "win %" not in out


def test_the_caption_explains_a_tied_rank_whatever_its_number(db):
    out = pepper(db=db, columns="80").stdout
    assert re.search(r"^ *~N: not significantly below the bot above \(95%\) *$", out, re.M), out
    assert "~2:" not in out and "field %: mean score against each other bot" in out


def test_a_narrow_width_is_honoured_and_the_numbers_stay_whole(db):
    out = pepper(db=db, columns="64").stdout
    assert max(map(len, out.splitlines())) <= 64, out
    for rank, rating in (("1", "24.59"), ("~2", "24.50"), ("3", "1.75")):
        assert re.search(rf"^ *{rank} +\S+ +- +{re.escape(rating)} ", out, re.M), out


def test_wide_shows_every_column(db):
    out = pepper("--wide", db=db).stdout  # into a pipe without COLUMNS: as wide as it needs, nothing wraps
    assert _row(out, *WIDE), out
    assert _row(out, "3", "raising", "-", "12.25", "3.50", "1.75", "2", "-", "0/2", "0.0", "20.0", "50.0", "4", "0", "0", "14",
                "1.50", "9.00"), out
    narrow = pepper("--wide", db=db, columns="120").stdout  # COLUMNS is honoured: the wide table wraps to it
    assert max(map(len, narrow.splitlines())) <= 120 and re.search(r"^rank +bot ", narrow, re.M), narrow


def test_json_and_csv_keep_every_field_with_the_fallbacks(db):
    rows = {r["bot"]: r for r in json.loads(pepper("--json", db=db).stdout)["iowa/4p"]}
    assert rows["raising"]["fallbacks"] == 14 and rows["raising"]["timeouts"] == 4
    assert rows["heuristic"]["fallbacks"] == rows[LONG]["fallbacks"] == 0
    assert {"mu", "sigma", "conservative", "avg_points", "contracts_made_pct", "illegal", "crashes", "latency_p50_ms",
            "latency_p99_ms"} <= set(rows["raising"])
    table = list(csv.DictReader(io.StringIO(pepper("--csv", db=db).stdout)))
    assert [(r["pool"], r["bot"], r["fallbacks"]) for r in table] == [
        ("iowa/4p", "heuristic", "0"), ("iowa/4p", LONG, "0"), ("iowa/4p", "raising", "14")]


# ----------------------------------------------------------------------------- field %
MIRRORED = (0, 1, 0, 1)   # iowa, 4 players: seats 0 and 2 against 1 and 3


def _store_run(st: Store, key: str, matches: list[tuple[list[list[str]], list[str | None]]],
               ratings: dict[str, Rating]) -> None:
    """One run of ``matches`` in pool iowa/4p: each the seats of its games (a block) and, per game, the bot whose
    team won it (None: the game is not stored yet, its block incomplete)."""
    planned = [(m, "iowa", 4, m, seats) for m, (games, _) in enumerate(matches) for seats in games]
    run, _ = st.find_or_create_run({"run": key}, planned)
    idx = 0
    for games, winners in matches:
        for seats, winner in zip(games, winners):
            if winner is not None:
                won = [MIRRORED[s] == MIRRORED[seats.index(winner)] for s in range(4)]
                rows = tuple(Seat(s, bot, SeatStatus.OK, Faults(), 32 if won[s] else 20, won[s], decisions=30)
                             for s, bot in enumerate(seats))
                # Stored, then rated: the arena's two steps (its group writer, then rating in plan order).
                assert st.record_group([NewGame(run, idx, "iowa/4p", "iowa", 4, idx, GameStatus.COMPLETED, 1.0, rows,
                                                {"deals": []}, MIRRORED)]) == [True]
                [gid] = st.latest_game_ids(limit=1)
                st.rate_games([st.game(gid)], lambda g, cur, seats=seats: {b: ratings[b] for b in seats})
            idx += 1


def _mirrored(a: str, b: str, *winners: str | None) -> tuple[list[list[str]], list[str | None]]:
    """A mirrored match of ``a`` and ``b``: two games, the teams swapping seats."""
    return [[a, b, a, b], [b, a, b, a]], list(winners)


SCHEDULED = {"padded": Rating(30, 2), "tested": Rating(28, 2), "weak": Rating(15, 2)}


@pytest.fixture(scope="module")
def scheduled(tmp_path_factory) -> Path:
    """A schedule that fed ``padded`` the weak bot: six blocks against ``weak``, all won; two against ``tested``
    (scores 1/2, 0), an incomplete one (one game of two stored, won); ``tested`` has two blocks against ``weak``
    (scores 1, 1/2). A mixed line-up's block, ``padded`` and ``weak`` partners against ``tested`` alone, won by
    ``padded``'s team every game, is left out of field %: partners share their results."""
    path = tmp_path_factory.mktemp("scheduled") / "arena.db"
    st = Store(path)
    mixed = [["padded", "tested", "weak", "tested"], ["tested", "padded", "tested", "weak"],
             ["weak", "tested", "padded", "tested"], ["tested", "weak", "tested", "padded"]]
    _store_run(st, "scheduled", [*[_mirrored("padded", "weak", "padded", "padded")] * 6,
                                 _mirrored("padded", "tested", "padded", "tested"),
                                 _mirrored("padded", "tested", "tested", "tested"),
                                 _mirrored("tested", "weak", "tested", "tested"),
                                 _mirrored("tested", "weak", "tested", "weak"),
                                 _mirrored("padded", "tested", "padded", None),
                                 (mixed, ["padded"] * 4)], SCHEDULED)
    st.close()
    return path


def test_field_pct_is_the_score_against_each_opponent_once_and_not_the_schedules_win_pct(scheduled):
    # By hand. Win %: padded 18 of 21 games (12 against weak, 1 + 0 in the two blocks against tested, 1 in the
    # incomplete one, 4 in the mixed block), tested 6 of 13, weak 5 of 20 (1 against tested, 4 in the mixed block).
    # Field %, over complete blocks with each side its team alone: padded mean(weak 1, tested (1/2 + 0)/2) = 62.5;
    # tested mean(padded (1/2 + 1)/2, weak (1 + 1/2)/2) = 75; weak mean(padded 0, tested (0 + 1/2)/2) = 12.5.
    rows = {r["bot"]: r for r in json.loads(pepper("--json", db=scheduled).stdout)["iowa/4p"]}
    assert {b: round(r["win_pct"], 2) for b, r in rows.items()} == {"padded": 85.71, "tested": 46.15, "weak": 25.0}
    assert {b: r["field_pct"] for b, r in rows.items()} == {"padded": 62.5, "tested": 75.0, "weak": 12.5}
    assert {(r["field_opponents"], r["field_size"]) for r in rows.values()} == {(2, 2)}
    # Points a game (arena.points, by hand): the margins are 12 a game, so padded has +144 over 12 games against
    # weak and -24 over 4 against tested, tested +24 over 4 against weak; the normal equations with the prior of
    # 2 games give padded 3.086, tested 3.429, weak -6.514. The table follows them, not TrueSkill (padded 30, tested 28).
    out = pepper(db=scheduled, columns="80").stdout
    assert "ranked by points a game above the field" in out, out
    assert _row(out, "1", "tested", "+3.4", "22.00", "13", "75.0", "0"), out
    # Two blocks of padded against tested are too few for a test: their ratings separate them, not significantly.
    assert _row(out, "~2", "padded", "+3.1", "24.00", "21", "62.5", "0"), out
    # Six blocks, all won by padded: the sign-flip test's 2 * 2^-6 is significant.
    assert _row(out, "3", "weak", "-6.5", "9.00", "20", "12.5", "0"), out
    wide = pepper("--wide", db=scheduled).stdout  # win % stays beside it
    assert re.search(r"^ *~2 +padded +\+3\.1 +30\.00 +2\.00 +24\.00 +21 +62\.5 +2/2 +85\.7 ", wide, re.M), wide
    rows = json.loads(pepper("--json", db=scheduled).stdout)["iowa/4p"]
    assert [(r["bot"], round(r["points"], 3)) for r in rows] == [("tested", 3.429), ("padded", 3.086), ("weak", -6.514)]
    # --order trueskill: the table before the points rating, the points still shown.
    old = pepper("--order", "trueskill", db=scheduled, columns="80").stdout
    assert "ranked by rating = mu - 3*sigma" in old and _row(old, "1", "padded", "+3.1", "24.00", "21",
                                                               "62.5", "0"), old
    table = {r["bot"]: r for r in csv.DictReader(io.StringIO(pepper("--csv", db=scheduled).stdout))}
    assert (table["tested"]["field_pct"], table["tested"]["win_pct"][:5]) == ("75.0", "46.15")


def test_a_mixed_line_up_pool_has_no_field_pct_and_a_partial_field_is_marked(tmp_path):
    """The scheduler's mixed line-ups: every block seats two bots as partners, so none counts; one mirrored block
    of a and b then gives each a score against one of its two opponents (marked *), and c none (-)."""
    matches: dict[int, list[list[str]]] = {}
    for m, _, _, _, seats in plan(["a", "b", "c"], "iowa", 4, 12, seed=5, mode="mixed"):
        matches.setdefault(m, []).append(seats)
    assert all(len(games) == 4 for games in matches.values()) and len(matches) == 3
    ratings = {"a": Rating(30, 2), "b": Rating(20, 2), "c": Rating(10, 2)}
    st = Store(tmp_path / "arena.db")
    _store_run(st, "mixed", [(games, [games[0][0]] * 4) for games in matches.values()], ratings)
    st.close()
    rows = {r["bot"]: r for r in json.loads(pepper("--json", db=tmp_path / "arena.db").stdout)["iowa/4p"]}
    assert {b: (r["field_pct"], r["field_opponents"], r["field_size"]) for b, r in rows.items()} == {
        b: (None, 0, 2) for b in "abc"}
    st = Store(tmp_path / "arena.db")
    _store_run(st, "mirrored", [_mirrored("a", "b", "a", "b")], ratings)  # one win each: 1/2
    st.close()
    out = pepper(db=tmp_path / "arena.db", columns="80").stdout
    for bot, games, field in (("a", "14", "50.0*"), ("b", "14", "50.0*"), ("c", "12", "-")):  # rank ~N or N
        assert re.search(rf"^ *~?\d +{bot} +\S+ +[\d.]+ +{games} +{re.escape(field)} +0 *$", out, re.M), out
    # a and b, level on their one block, have points; c, with none, comes below them whatever its rating.
    assert [r["bot"] for r in json.loads(pepper("--json", db=tmp_path / "arena.db").stdout)["iowa/4p"]][2] == "c"



def _far_and_near(path: Path, far: str) -> Path:
    """Blocks of ``far`` (registered as a ``far`` bot: remote or command) against ``near``, and of ``near`` against
    ``home`` (command bots)."""
    from arena.store import BotKind

    st = Store(path)
    for name, kind in (("far", far), ("near", "command"), ("home", "command")):
        st.add_bot(name, BotKind(kind), command=None if kind == "remote" else "{python} bot.py", cwd=str(path.parent))
    ratings = {"far": Rating(30, 1), "near": Rating(25, 1), "home": Rating(10, 1)}
    _store_run(st, "remote", [*[_mirrored("far", "near", "far", "far"), _mirrored("far", "near", "far", "near")] * 3,
                              _mirrored("near", "home", "near", "near"), _mirrored("near", "home", "near", "home")],
               ratings)
    st.close()
    return path


def test_figures_that_rest_on_a_remote_bots_duplicate_blocks_are_marked_and_explained(tmp_path):
    """``far`` is a remote bot (its processes are its owner's: it may play a block's second game knowing the deck),
    ``near`` and ``home`` are command bots. near's field % rests on its blocks against far, and so does the
    ``vs next`` between far and near (six blocks, enough to test): both are marked †. home played near only: its
    figures are not."""
    path = _far_and_near(tmp_path / "arena.db", "remote")
    rows = {r["bot"]: r for r in json.loads(pepper("--json", db=path).stdout)["iowa/4p"]}
    assert {b: (r["field_remote"], r["next_remote"]) for b, r in rows.items()} == {
        "far": (True, True), "near": (True, False), "home": (False, False)}
    out = pepper(db=path, columns="80").stdout
    assert _row(out, "1", "far", "+4.8", "27.00", "12", "75.0*†", "0"), out   # * : far never played home
    assert _row(out, "~2", "near", "-0.5", "22.00", "16", "50.0†", "0"), out
    assert _row(out, "3", "home", "-4.3", "7.00", "4", "25.0*", "0"), out   # two blocks: TrueSkill
    assert "†: rests on a remote bot's duplicate blocks (docs/remote-bots.md)" in " ".join(out.split()), out
    wide = pepper("--wide", db=path).stdout
    assert re.search(r"^ *1 +far .* 75\.0\*† .* \d+%†( ~)? *$", wide, re.M), wide
    assert re.search(r"^ *~2 +near .* 50\.0† .* \d+%( ~)? *$", wide, re.M), wide
    # The same games with far a command bot: neither the mark nor its caption.
    plain = pepper(db=_far_and_near(tmp_path / "plain.db", "command"), columns="80").stdout
    assert _row(plain, "1", "far", "+4.8", "27.00", "12", "75.0*", "0"), plain
    assert "†" not in plain and "remote" not in plain, plain
