"""Adaptive rounds planned on lagged ratings: each round is chosen on the ratings after all but the
last adaptive_lag planned games (64, growing with the run past 128), so the arena keeps that many games in flight while
it plans, and the plan is the same whatever order the games finish in. Real SQLite, synthetic results (no referee)."""

import random

import pytest
from stored import record_rated

from arena.planners import ADAPTIVE_LAG_GAMES, ADAPTIVE_LAG_MAX, ADAPTIVE_ROUND_GAMES, adaptive_lag, adaptive_round
from arena.schedule import ADAPTIVE_SLACK
from arena.store import Faults, GameStatus, NewGame, Seat, SeatStatus, Store
from arena.tournament import Arena, RunConfig

BOTS = ["strong", "twin", "weak"]


def _result(arena: Arena, run_id: int, idx: int, seed: int, seats: list[str]) -> NewGame:
    """A made-up result that depends on the game only: weak loses; strong and twin by the deck's parity."""
    beats = {"weak": 0, "strong": 2 + seed % 2, "twin": 3 - seed % 2}
    top = max(beats[seats[0]], beats[seats[1]])
    won = [beats[b] == top for b in seats]
    out = tuple(Seat(s, b, SeatStatus.OK, Faults(), 42 if won[s] else 10, won[s]) for s, b in enumerate(seats))
    return NewGame(run_id, idx, arena.ctx.pool, arena.ctx.rs.name, 4, seed, GameStatus.COMPLETED, 0.1, out,
                   {"format": "pepper-game/1"}, team_of=(0, 1, 0, 1))


def _arena(tmp_path, name: str) -> tuple[Arena, Store, int]:
    st = Store(tmp_path / f"{name}.db")
    for b in BOTS:
        st.add_bot(b, "command", command="x")
    cfg = RunConfig(games=1000, adaptive=True, bots=BOTS, seed=5, db=str(tmp_path / f"{name}.db"))
    arena = Arena(cfg, st)
    arena.planner.begin(BOTS)
    run_id, _ = st.find_or_create_run(cfg.run_key(BOTS), [])
    return arena, st, run_id


def _play_rounds(arena: Arena, st: Store, run_id: int, games: int, finish) -> list[tuple[int, list[str]]]:
    """Plan rounds until ``games`` are planned, as the arena does: before each, store the games ``finish`` picks among those planned
    (at least every game before the basis, the arena waits for those), then rate in plan order."""
    stored: set[int] = set()
    while len(planned := st.planned(run_id)) < games:
        basis = arena.planner.basis(len(arena.ctx.planned(run_id)))
        assert basis == max(0, len(planned) - adaptive_lag(len(planned)))
        for g in finish([g for g in planned if g.idx not in stored], basis):
            record_rated(st, _result(arena, run_id, g.idx, g.seed, g.seats), lambda current: {})
            stored.add(g.idx)
        arena.sink.rate(run_id)
        st.append_plan(run_id, arena.planner.next_round(run_id))
    return [(g.seed, g.seats) for g in st.planned(run_id)]


def test_the_lag_and_the_rounds_grow_with_the_run_to_a_bound():
    assert [adaptive_lag(n) for n in (0, 100, 128, 300, 512, 5000)] == [64, 64, 64, 150, 256, 256]
    assert [adaptive_round(n) for n in (0, 128, 300, 5000)] == [8, 8, 18, 32]
    assert ADAPTIVE_LAG_GAMES == adaptive_lag(0) and ADAPTIVE_LAG_MAX == adaptive_lag(10**6)


@pytest.mark.parametrize("games", [128, 420])
def test_rounds_are_the_same_whatever_has_finished_beyond_the_lag(tmp_path, games):
    """One arena stores every planned game before each round (nothing in flight), the other only those before the basis,
    in a shuffled order: the same rounds. Once the lag is passed the ratings steer them (strong-twin, the close pair, gets
    the most matches), so the comparison is not of two round robins; every bot keeps about as many matches as the others
    (priority to the under-played: here, weak)."""
    a, sa, ra = _arena(tmp_path, "all")
    every = _play_rounds(a, sa, ra, games, lambda pending, basis: pending)
    b, sb, rb = _arena(tmp_path, "lagged")
    rng = random.Random(1)

    def lagged(pending, basis):
        due = [g for g in pending if g.idx < basis]
        return rng.sample(due, len(due))

    assert _play_rounds(b, sb, rb, games, lagged) == every
    pairs = ["-".join(sorted(set(seats))) for _, seats in every[::2]]
    early, late = pairs[:(ADAPTIVE_LAG_GAMES + ADAPTIVE_ROUND_GAMES) // 2], pairs[(ADAPTIVE_LAG_GAMES + ADAPTIVE_ROUND_GAMES) // 2:]
    assert max(map(early.count, early)) - min(map(early.count, early)) <= 1, early   # no ratings yet: in turn
    assert late.count("strong-twin") > max(late.count("strong-weak"), late.count("twin-weak")), late
    per_bot = [sum(b in p for p in pairs) for b in BOTS]
    assert max(per_bot) - min(per_bot) <= ADAPTIVE_SLACK + 1, per_bot
