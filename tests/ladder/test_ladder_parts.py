"""The ladder's parts on their own, on real files: the configuration's round trip and its errors, author keys
(shown once, stored as an HMAC, revocable), ownership, and the planner's draw."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.config import RunConfig
from arena.context import RunContext
from arena.ratings import Rating
from arena.store import Store
from ladder import config
from ladder.errors import Forbidden, NotALadder, Unauthorized
from ladder.planner import LadderPlanner
from ladder.state import LadderState


def test_the_configuration_reads_back_what_it_writes_and_names_an_unknown_key(tmp_path):
    d = config.init(tmp_path / "l", "bid-euchre", 6, max_in_flight=3)
    cfg = d.load()
    assert (cfg.ruleset, cfg.players, cfg.max_in_flight) == ("bid-euchre", 6, 3)
    assert config.LadderConfig.parse(cfg.dump(), "x") == cfg
    with pytest.raises(NotALadder, match="unknown key.*max_inflight"):
        config.LadderConfig.parse("max_inflight = 3\n", "ladder.toml")
    with pytest.raises(NotALadder, match="both tls_cert and tls_key"):
        config.LadderConfig.parse('tls_cert = "a.pem"\n', "ladder.toml")
    with pytest.raises(NotALadder, match="a ladder is there already"):
        config.init(tmp_path / "l")
    with pytest.raises(NotALadder, match="player"):
        config.init(tmp_path / "m", "iowa", 5)
    assert oct(d.key_secret.stat().st_mode & 0o777) == "0o600"


def test_a_key_is_stored_as_an_hmac_and_can_be_replaced_or_revoked(tmp_path):
    d = config.init(tmp_path / "l")
    st = LadderState(d.ladder_db, d.hashing_key())
    key = st.invite("alice")
    assert st.author_of_key(key) == "alice"
    stored = st.db.execute("SELECT key_id, key_hmac FROM authors").fetchall()
    assert key not in repr(stored) and key.split(".")[1] not in repr(stored)
    for wrong in (None, "", key + "x", key.split(".")[0] + ".x", "x." + key.split(".")[1]):
        with pytest.raises(Unauthorized):
            st.author_of_key(wrong)
    new = st.invite("alice")
    with pytest.raises(Unauthorized):
        st.author_of_key(key)
    st.revoke("alice")
    with pytest.raises(Unauthorized, match="revoked"):
        st.author_of_key(new)
    # Another ladder's secret makes another HMAC: a copied ladder.db alone admits no one.
    other = LadderState(d.ladder_db, b"another secret")
    with pytest.raises(Unauthorized):
        other.author_of_key(st.invite("bob"))
    assert st.refusals() == 8


def test_a_bot_is_its_first_authors(tmp_path):
    d = config.init(tmp_path / "l")
    st = LadderState(d.ladder_db, d.hashing_key())
    assert st.claim("alice", "abot", "enter") is True
    assert st.claim("alice", "abot", "enter") is False
    with pytest.raises(Forbidden):
        st.claim("bob", "abot", "enter")
    with pytest.raises(Forbidden):
        st.owned("bob", "abot", "retire")
    assert st.refusals() == 2 and st.entry("abot").author == "alice"


def test_the_planner_draws_a_new_version_far_more_often_and_opponents_near_it(tmp_path):
    ctx = RunContext(RunConfig(ruleset="pepper-30", players=3, db=str(tmp_path / "a.db")), Store(tmp_path / "a.db"))
    p = LadderPlanner(ctx, max_per_bot=8, rng=random.Random(1))
    settled = {f"b{i}": Rating(10.0 + 3 * i, 1.5) for i in range(6)}
    ratings = settled | {"new": Rating(25.0, 25 / 3)}
    games = [p.draw(sorted(ratings), ratings) for _ in range(600)]
    assert all(len(set(g)) == 3 for g in games)
    played = Counter(b for g in games for b in g)
    assert played["new"] > 2 * max(played[b] for b in settled)
    # Among settled bots alone, b0 (mean 10) meets b1 (13) far more often than b5 (25).
    games = [p.draw(sorted(settled), settled) for _ in range(600)]
    with_b0 = Counter(b for g in games if "b0" in g for b in g)
    assert with_b0["b1"] > 3 * with_b0["b5"]


def test_the_planner_seats_a_partnership_by_team_and_spares_a_busy_bot(tmp_path):
    ctx = RunContext(RunConfig(ruleset="iowa", db=str(tmp_path / "a.db")), Store(tmp_path / "a.db"))
    ctx.versions = {}
    run_id, _ = ctx.store.find_or_create_run({"ladder": "t"}, [])
    p = LadderPlanner(ctx, max_per_bot=1, rng=random.Random(2))
    assert p.connections_needed() == 2 and p.next_round(run_id) == []
    for n in ("a", "b", "c"):
        p.add_entrant(n)
    [(idx, ruleset, players, _seed, seats)] = p.next_round(run_id)
    assert (idx, ruleset, players) == (0, "iowa", 4) and seats[0] == seats[2] != seats[1] == seats[3]
    p.busy.update({"a": 1, "b": 1})
    assert p.next_round(run_id) == []


def test_an_author_enters_at_most_so_many_bots_or_versions_an_hour(tmp_path):
    from ladder.entries import enter_remote
    from ladder.errors import TooMany

    d = config.init(tmp_path / "l")
    st, store = LadderState(d.ladder_db, d.hashing_key()), Store(d.arena_db)
    assert [enter_remote(st, store, "alice", n, per_hour=3).version for n in ("a", "a", "b")] == [1, 2, 1]
    with pytest.raises(TooMany, match="3 bots or versions in the last hour"):
        enter_remote(st, store, "alice", "c", per_hour=3)
    assert st.entry("c") is None and store.bot("c") is None   # refused whole: no claim left behind
    assert enter_remote(st, store, "bob", "c", per_hour=3).version == 1


def test_a_ladder_database_made_before_uploads_takes_them_when_opened(tmp_path):
    import sqlite3

    from ladder.state import SCHEMA, UploadStatus

    before = SCHEMA[:SCHEMA.index("CREATE TABLE IF NOT EXISTS uploads")]   # the schema without the uploads table
    with sqlite3.connect(tmp_path / "ladder.db") as db:
        db.executescript(before)
        db.execute("INSERT INTO authors VALUES ('alice', 'k', 'h', 0, NULL)")
    state = LadderState(tmp_path / "ladder.db", b"secret")
    try:
        first = state.add_upload("alice", "abot")
        assert state.next_upload().id == first and state.upload(first).status is UploadStatus.QUEUED
        state.set_upload(first, UploadStatus.ENTERED, "version 1", "report", 1)
        assert state.next_upload() is None and [u.version for u in state.uploads("alice")] == [1]
    finally:
        state.close()
