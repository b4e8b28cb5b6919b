"""Arena core on a real SQLite file: plans, duplicate deals, exactly-once results, TrueSkill pools."""

import sqlite3
from collections import Counter

import pytest
from stored import record_rated

from arena import registry, schedule
from arena.planners import ADAPTIVE_ROUND_GAMES
from arena.ratings import Rater, Rating, pool_name, ranks_from_result
from arena.schedule import lineup_key, lineups, plan, rotations
from arena.stats import table as stats_table
from arena.store import Faults, GameStatus, NewGame, Seat, SeatStatus, Store, StoreError
from arena.tournament import Arena, RunConfig
from referee.rules import Game

BOTS = ["random", "heuristic", "montecarlo"]


def test_mirrored_round_robin_covers_every_pair_once():
    ups = lineups(BOTS, "iowa", 4)
    pairs = {frozenset((s[0], s[1])) for s in ups}
    assert len(ups) == 3 and pairs == {frozenset(p) for p in [("random", "heuristic"), ("random", "montecarlo"), ("heuristic", "montecarlo")]}
    for s in ups:
        assert s[0] == s[2] and s[1] == s[3] and s[0] != s[1]


def test_mixed_partnerships_never_put_a_bot_on_both_teams():
    for players in (4, 6, 8):
        for seats in lineups(BOTS + ["node"], "bid-euchre", players, "mixed"):
            team0 = {seats[s] for s in range(0, players, 2)}
            team1 = {seats[s] for s in range(1, players, 2)}
            assert not team0 & team1
            assert len(team0) > 1 or len(team1) > 1


def test_free_for_all_fills_seats_when_bots_are_fewer_than_seats():
    ups = lineups(BOTS, "five-handed", 5)
    assert len(ups) == 3 and all(len(u) == 5 and set(u) == set(BOTS) for u in ups)


def test_duplicate_matches_share_the_deck_and_rotate_the_seats():
    p = plan(BOTS, "iowa", 4, 12, seed=9)
    by_match = {}
    for m, _rs, _n, seed, seats in p:
        by_match.setdefault(m, []).append((seed, seats))
    for games in by_match.values():
        assert len(games) == 2 and games[0][0] == games[1][0]
        assert games[0][1][0] == games[1][1][1]  # the teams swapped seats
    # The decks really repeat: the same seed deals the same cards to the same seats.
    (s1, _), (s2, _) = by_match[0]
    g1, g2 = Game("iowa", 4, seed=s1), Game("iowa", 4, seed=s2)
    assert g1.hands == g2.hands and g1.dealer == g2.dealer
    assert rotations(["a", "b", "c"], False) == [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]]


def test_plan_is_a_pure_function_of_the_config():
    assert plan(BOTS, "pepper-30", 3, 10, seed=4) == plan(BOTS, "pepper-30", 3, 10, seed=4)
    assert plan(BOTS, "pepper-30", 3, 10, seed=4) != plan(BOTS, "pepper-30", 3, 10, seed=5)


def _games_per_bot(p) -> Counter:
    return Counter(b for *_, seats in p for b in set(seats))


def test_partial_rounds_share_games_evenly_among_the_bots():
    """Line-ups are taken least-played bots first, not alphabetically: a run that stops part-way through a
    round robin does not favour the first bots (once 30 games against 12 for the rest)."""
    six = ["random", "heuristic", "montecarlo", "node", "twin", "zeta"]
    for seed in range(10):
        counts = _games_per_bot(plan(six, "pepper-30", 3, 30, seed=seed))  # 10 of the 20 line-ups, 3 games each
        assert set(counts) == set(six) and max(counts.values()) - min(counts.values()) <= 3, counts  # one match
        assert set(_games_per_bot(plan(BOTS + ["node"], "iowa", 4, 1000, seed=seed)).values()) == {500}
    # At any point of a run the bots are at most two matches apart, and equal after each whole round.
    for bots, rs, n, mode in ((six, "iowa", 4, "mirrored"), (six[:5], "bid-euchre", 6, "mixed"),
                              (six, "five-handed", 5, "mirrored"), (six[:4], "pepper-30", 2, "mirrored")):
        ups = lineups(bots, rs, n, mode)
        p = plan(bots, rs, n, 1, seed=3, mode=mode)
        per_match = len(p)
        p = plan(bots, rs, n, 2 * len(ups) * per_match, seed=3, mode=mode)
        matches = [seats for k, (*_, seats) in enumerate(p) if k % per_match == 0]
        assert sorted(matches[:len(ups)]) == sorted(ups)  # each line-up once a round (its first rotation)
        counts = Counter(dict.fromkeys(bots, 0))
        for k, seats in enumerate(matches, 1):
            counts.update(set(seats))
            assert max(counts.values()) - min(counts.values()) <= (0 if k % len(ups) == 0 else 2), (rs, n, k, counts)


def test_ranks_put_winners_first_and_share_ties():
    assert ranks_from_result([10, 30, 30], [False, True, True]) == [1, 0, 0]
    assert ranks_from_result([5, 7, 6], [False, False, False]) == [2, 0, 1]


def test_trueskill_moves_winner_up_and_handles_a_bot_in_several_seats():
    r = Rater()
    new = r.rate({}, [["a"], ["b"]], [0, 1])
    assert new["a"].mu > 25 > new["b"].mu and new["a"].sigma < 25 / 3
    ffa = r.rate({}, [["a"], ["b"], ["a"]], [0, 1, 2])  # 'a' in two seats, first and last
    assert set(ffa) == {"a", "b"}
    assert r.quality({}, [["a"], ["b"]]) > r.quality({"a": Rating(40, 1)}, [["a"], ["b"]])
    assert pool_name("iowa", 4) == "iowa/4p"


NO_FAULTS = (Faults(),) * 4


def _game(run_id, idx, *, status=GameStatus.COMPLETED, scores=(42, 10, 42, 10), winners=(0, 2), faults=NO_FAULTS,
          record=None) -> NewGame:
    seats = tuple(Seat(s, bot, SeatStatus.OK, faults[s], scores[s], s in winners, 1, 1)
                  for s, bot in enumerate(["a", "b", "a", "b"]))
    return NewGame(run_id, idx, "iowa/4p", "iowa", 4, 1, status, 0.1, seats, record or {"format": "pepper-game/1"})


def _rated(ratings: dict[str, Rating]):
    return lambda current: ratings


def test_store_counts_a_game_once_and_resumes_the_same_run(tmp_path):
    db = tmp_path / "arena.db"
    st = Store(db)
    cfg = {"ruleset": "iowa", "players": 4, "games": 4, "seed": 1}
    p = plan(["a", "b"], "iowa", 4, 4, seed=1)
    run, resumed = st.find_or_create_run(cfg, p)
    assert not resumed and len(st.pending(run)) == 4
    record_rated(st, _game(run, 0), _rated({"a": Rating(27, 7), "b": Rating(23, 7)}))
    assert st.record_group([_game(run, 0)]) == [False]   # stored already: dropped, not counted twice
    st.close()
    st = Store(db)  # a new process: same command, same run, one game done
    run2, resumed = st.find_or_create_run(cfg, p)
    assert (run2, resumed) == (run, True)
    assert [x.idx for x in st.pending(run)] == [1, 2, 3]
    assert st.ratings("iowa/4p") == {"a": Rating(27, 7), "b": Rating(23, 7)}
    assert st.rating_games("iowa/4p", "a") == 1
    # A resumed run's progress starts from the games and the faults it stored before.
    record_rated(st, _game(run, 1, faults=(Faults(timeout=2), Faults(), Faults(illegal=1), Faults())),
                   _rated({"a": Rating(28, 6), "b": Rating(22, 6)}))
    assert st.run_faults(run) == 3 and st.game_ids(run).count == 2


def test_store_bots_persist_and_names_are_unique(tmp_path):
    st = Store(tmp_path / "a.db")
    st.add_bot("mine", "command", command="python bot.py", env={"X": "1"})
    with pytest.raises(StoreError, match="already registered"):
        st.add_bot("mine", "remote")
    st.close()
    st = Store(tmp_path / "a.db")
    b = st.bot("mine")
    assert b.command == "python bot.py" and b.env == {"X": "1"} and len(bytes.fromhex(b.token_sha256)) == 32
    assert st.remove_bot("mine") and st.bot("mine") is None


def test_store_rejects_a_file_that_is_not_a_database(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("hello, this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not an arena database"):
        Store(bad)


def test_store_reports_a_full_disk_clearly(tmp_path):
    st = Store(tmp_path / "a.db")
    run, _ = st.find_or_create_run({"x": 1}, plan(["a", "b"], "iowa", 4, 2, seed=1))
    st.db.execute(f"PRAGMA max_page_count = {st.db.execute('PRAGMA page_count').fetchone()[0]}")
    big = _game(run, 0, record={"format": "pepper-game/1", "pad": "x" * 200_000})
    with pytest.raises(StoreError, match="disk is full.*resume"):
        record_rated(st, big, _rated({"a": Rating()}))
    assert st.pending(run) and st.ratings("iowa/4p") == {}  # nothing half-written
    assert isinstance(st.db, sqlite3.Connection)


def test_without_duplicate_deals_the_seats_still_rotate():
    p = plan(["a", "b"], "iowa", 4, 4, seed=1, duplicate=False)
    assert [seats[0] for *_, seats in p] == ["a", "b", "a", "b"]
    ffa = plan(BOTS, "pepper-30", 3, 3, seed=1, duplicate=False)
    assert sorted(seats[0] for *_, seats in ffa) == sorted(BOTS)
    # An adaptive run's later rounds carry on from the rotations already played.
    key = lineup_key(["a", "b", "a", "b"], True)
    assert plan(["a", "b"], "iowa", 4, 1, seed=1, duplicate=False, played=Counter({key: 1}))[0][4][0] == "b"


def test_adaptive_rounds_are_small_and_favour_informative_lineups(tmp_path):
    """A round is a few games whatever --concurrency says, shared by score: a weak bot's foregone line-ups get
    fewer matches, as far as keeping every bot's matches even allows (their floor keeps them from none)."""
    st = Store(tmp_path / "a.db")
    for name in ("weak", "strong", "twin"):
        st.add_bot(name, "command", command="x")
    cfg = RunConfig(games=1000, adaptive=True, bots=["weak", "strong", "twin"], concurrency=2048, db=str(tmp_path / "a.db"))
    arena = Arena(cfg, st)
    run, _ = st.find_or_create_run(cfg.run_key(cfg.bots), arena.planner.begin(cfg.bots))

    def next_round() -> int:  # the matches of the round, stored
        more = arena.planner.next_round(run)
        st.append_plan(run, more)
        return len({m for m, *_ in more})

    first = next_round()
    assert first * 2 <= ADAPTIVE_ROUND_GAMES and st.planned_count(run) == first * 2
    firsts = [tuple(sorted(set(s))) for m, s in {g.match: g.seats for g in st.pending(run)}.items()]
    assert len(set(firsts)) == 3 and max(map(firsts.count, firsts)) - min(map(firsts.count, firsts)) <= 1  # equal ratings
    seeded = {"weak": Rating(8.0, 1.5), "strong": Rating(33.0, 1.2), "twin": Rating(32.5, 1.2)}
    with st.tx():   # the pool as 40 games of ratings would leave it
        st.db.executemany("INSERT OR REPLACE INTO ratings (pool, bot, version, mu, sigma, games) VALUES (?, ?, 1, ?, ?, 40)",
                          [(arena.pool, b, r.mu, r.sigma) for b, r in seeded.items()])
    next_round()
    later = [tuple(sorted(set(s))) for m, s in {g.match: g.seats for g in st.planned(run) if g.match >= first}.items()]
    # The close pair gets the most; weak still plays, as every bot keeps about as many matches as the others.
    assert later.count(("strong", "twin")) > max(later.count(("strong", "weak")), later.count(("twin", "weak")))
    for _ in range(4):  # more rounds on the same ratings: the foregone line-ups come up to their floor
        next_round()
    every = [tuple(sorted(set(s))) for m, s in {g.match: g.seats for g in st.planned(run)}.items()]
    floor = int(schedule.ADAPTIVE_FLOOR * len(every) / 3)
    assert floor >= 2 and every.count(("strong", "weak")) >= floor and every.count(("twin", "weak")) >= floor


def test_average_points_count_completed_games_only(tmp_path):
    st = Store(tmp_path / "a.db")
    record_rated(st, _game(None, None), _rated({"a": Rating(27, 7), "b": Rating(23, 7)}))
    record_rated(st, _game(None, None, status=GameStatus.FORFEITED, scores=(0, 0, 0, 0), winners=(1, 3)),
                   _rated({"a": Rating(26, 6), "b": Rating(24, 6)}))
    rows = {r.bot: r for r in stats_table(st, "iowa/4p")}
    assert rows["a"].games == rows["b"].games == 2
    assert rows["a"].avg_points == 42 and rows["b"].avg_points == 10


def test_node_bot_needs_its_installed_packages(tmp_path, monkeypatch):
    monkeypatch.setattr(registry.shutil, "which", lambda name: "/usr/bin/node")
    (tmp_path / "package.json").write_text('{"dependencies": {"@grpc/grpc-js": "1.14.7"}}')
    assert "make node-bot" in registry.node_missing(tmp_path)
    dep = tmp_path / "node_modules" / "@grpc" / "grpc-js"
    dep.mkdir(parents=True)
    (dep / "package.json").write_text("{}")
    assert registry.node_missing(tmp_path) is None
    monkeypatch.setattr(registry.shutil, "which", lambda name: None)
    assert "node is not installed" in registry.node_missing(tmp_path)
    # The arena's first use of a database notes why the Node bot was skipped, once, and registers the rest.
    monkeypatch.setattr(registry, "NODE_DIR", tmp_path / "nowhere")
    notes = []
    st = Store(tmp_path / "a.db")
    registry.ensure_sample_bots(st, note=notes.append)
    assert len(notes) == 1 and "not registered" in notes[0] and {b.name for b in st.bots()} == {"random", "heuristic", "montecarlo"}


def test_the_arena_plays_by_the_referees_default_time_limits():
    """A run's deadline and time bank default to the referee's own (the arena cannot import the service: checked here)."""
    from referee.service.config import Policy

    assert (RunConfig.deadline_ms, RunConfig.time_bank_ms) == (Policy.deadline_ms, Policy.time_bank_ms)
