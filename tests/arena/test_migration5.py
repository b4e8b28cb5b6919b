"""Migration 5 on the schema-1 fixture (written by the first release): the duplicate blocks of its runs are filled
in from the stored games, and agree with the games' seats; a game recorded afterwards adds to its block."""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from stored import record_rated

from arena.store import SCHEMA_VERSION, Faults, GameStatus, NewGame, Seat, SeatStatus, Store

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_a_schema1_database_gets_its_blocks(tmp_path):
    db = tmp_path / "arena.db"
    shutil.copy(FIXTURES / "arena-schema1.db", db)
    st = Store(db)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 5
    pools = {p.split("@")[0] + "/" + p.rsplit("/", 1)[1]: p for p in st.pools()}
    iowa = st.blocks(pools["iowa/4p"])
    # 24 games of mirrored iowa: 12 matches of 2 games, each with its pair of bots in both orders, all complete.
    assert len(iowa) == 24 and all(b.complete and b.games == b.planned == 2 for b in iowa)
    by_block = defaultdict(dict)
    for b in iowa:
        by_block[b.match][b.bot, b.opponent] = b
    for match, sides in by_block.items():
        (x, y), = {tuple(sorted(k)) for k in sides}
        assert sides[x, y].score + sides[y, x].score == 2 and sides[x, y].margin == -sides[y, x].margin
        # The score is the games the side's team won, from the stored seats.
        won = st.db.execute("SELECT COUNT(DISTINCT s.game_id) FROM game_seats s JOIN planned_games p "
                            "ON p.run_id = 1 AND p.match = ? JOIN games g ON g.run_id = 1 AND g.idx = p.idx "
                            "WHERE s.game_id = g.id AND s.bot = ? AND s.won", (match, x)).fetchone()[0]
        assert sides[x, y].score == won and sides[x, y].score_sq == won
    # pepper-30 with 3 players: 3 matches of 3 games (every bot in every seat); each pair met in every game.
    p30 = st.blocks(pools["pepper-30/3p"])
    assert len(p30) == 3 * 6 and all(b.games == b.planned == 3 for b in p30)
    assert all(0 <= b.score <= 3 for b in p30)
    # bid-euchre with 6 players: partnerships of 3 seats; 6 games of 2 bots, 3 blocks.
    assert len(st.blocks(pools["bid-euchre/6p"])) == 3 * 2
    st.close()


def test_a_recorded_game_adds_to_its_block(tmp_path):
    st = Store(tmp_path / "arena.db")
    run_id, _ = st.find_or_create_run({"k": 1}, [(0, "iowa", 4, 7, ["a", "b", "a", "b"]), (0, "iowa", 4, 7, ["b", "a", "b", "a"])])

    def game(idx: int, seats: list[str], won_team: int, scores: tuple[int, int]) -> NewGame:
        rows = tuple(Seat(s, bot, SeatStatus.OK, Faults(), scores[s % 2], s % 2 == won_team) for s, bot in enumerate(seats))
        return NewGame(run_id, idx, "iowa@x/4p", "iowa", 4, 7, GameStatus.COMPLETED, 1.0, rows, {}, team_of=(0, 1, 0, 1))

    record_rated(st, game(0, ["a", "b", "a", "b"], 0, (32, 10)), lambda r: {})
    [half] = [b for b in st.blocks("iowa@x/4p") if b.bot == "a"]
    assert (half.games, half.planned, half.complete, half.score, half.margin) == (1, 2, False, 1.0, 22.0)
    record_rated(st, game(1, ["b", "a", "b", "a"], 0, (32, 28)), lambda r: {})   # b, on team 0 now, wins by 4
    [a] = [b for b in st.blocks("iowa@x/4p") if b.bot == "a"]
    assert (a.games, a.complete, a.score, a.margin, a.margin_sq) == (2, True, 1.0, 18.0, 22 ** 2 + 4 ** 2)
    assert st.blocks("iowa@x/4p", run_id=run_id + 1) == []
    st.close()


def test_the_ranked_table_says_how_sure_each_step_down_is(tmp_path):
    """Three blocks where a wins two outright and splits one: x = 1, 1, 1/2. A z-test would call that significant
    (Phi(2) = 97.7%); three blocks are too few for any test (six at least: arena.evidence.MIN_BLOCKS), so TrueSkill
    decides, as with one block."""
    from arena.ratings import Rating
    from arena.stats import table

    st = Store(tmp_path / "arena.db")
    plan = [(m, "iowa", 4, m, seats) for m in range(3) for seats in (["a", "b", "a", "b"], ["b", "a", "b", "a"])]
    run_id, _ = st.find_or_create_run({"k": 2}, plan)
    winners = {0: "a", 1: "a", 2: "a", 3: "a", 4: "a", 5: "b"}     # game index -> the winning bot
    ratings = {"a": Rating(30, 2), "b": Rating(29, 2)}              # TrueSkill alone: 64%, not significant
    for idx, (_, _, _, _, seats) in enumerate(plan):
        rows = tuple(Seat(s, bot, SeatStatus.OK, Faults(), 32 if bot == winners[idx] else 20, bot == winners[idx])
                     for s, bot in enumerate(seats))
        record_rated(st, NewGame(run_id, idx, "iowa@x/4p", "iowa", 4, idx // 2, GameStatus.COMPLETED, 1.0, rows, {},
                               team_of=(0, 1, 0, 1)), lambda r: ratings)
        if idx == 1:   # one complete block: too few to say, TrueSkill's figure
            first = table(st, "iowa@x/4p")[0]
            assert first.next_basis == "trueskill" and first.next_los == pytest.approx(0.638, abs=1e-3)
            assert not first.next_significant and table(st, "iowa@x/4p")[1].tied_above
    a, b = table(st, "iowa@x/4p")
    assert (a.bot, a.next_basis, b.next_los) == ("a", "trueskill", None)
    assert a.next_los == pytest.approx(0.638, abs=1e-3) and not a.next_significant and b.tied_above
    st.close()
