"""Bot versions on a real SQLite file: a registration is a version, ratings and seats belong to one, a bot's
changed files make a new one when a run starts, and crashes count among a version's faults."""

from __future__ import annotations

from pathlib import Path

from stored import record_rated

from arena import registry
from arena.ratings import Rating
from arena.stats import table
from arena.store import BotKind, Build, Faults, GameStatus, NewGame, Seat, SeatStatus, Store

POOL = "iowa@0214bacce8b0/4p"


def _game(versions: dict[str, int], run_id=None, idx=None) -> NewGame:
    seats = tuple(Seat(s, bot, SeatStatus.OK, Faults(), 10, s % 2 == 0, version=versions[bot])
                  for s, bot in enumerate(("a", "b", "a", "b")))
    return NewGame(run_id, idx, POOL, "iowa", 4, 1, GameStatus.COMPLETED, 0.1, seats, {})


def test_the_same_registration_is_the_same_version_and_another_is_a_new_one(tmp_path):
    st = Store(tmp_path / "a.db")
    assert st.add_bot("mine", "command", command="python bot.py", cwd="/x", files=["bot.py"], digest="d1").version == 1
    assert st.update_bot("mine", st.bot("mine").build) == (st.bot("mine"), False)
    st.remove_bot("mine")
    again = st.add_bot("mine", "command", command="python bot.py", cwd="/x", files=["bot.py"], digest="d1")
    assert again.version == 1  # the same build registered again: the same version, its rating and all
    for change in ({"command": "python other.py"}, {"cwd": "/y"}, {"env": {"K": "1"}}, {"processes": 2},
                   {"digest": "d2"}, {"deadline_ms": 500}, {"time_bank_ms": 0}):
        before = st.bot("mine").version
        b, new = st.update_bot("mine", Build(**(st.bot("mine").build.__dict__ | change)))
        assert new and b.version == before + 1, change
    st.remove_bot("mine")
    b = st.add_bot("mine", "remote")
    assert b.version == 9 and b.kind is BotKind.REMOTE and [v.version for v in st.versions("mine")] == list(range(1, 10))


def test_per_bot_time_controls_are_kept_on_the_version(tmp_path):
    st = Store(tmp_path / "a.db")
    st.add_bot("slow", "command", command="x", deadline_ms=5000, time_bank_ms=20_000)
    st.add_bot("plain", "command", command="x")
    assert (st.bot("slow").deadline_ms, st.bot("slow").time_bank_ms) == (5000, 20_000)
    assert (st.bot("plain").deadline_ms, st.bot("plain").time_bank_ms) == (None, None)  # the run's defaults


def test_each_version_is_rated_on_its_own_and_the_table_shows_the_newest(tmp_path):
    st = Store(tmp_path / "a.db")
    st.add_bot("a", "command", command="old")
    st.add_bot("b", "command", command="b")
    seen = []
    record_rated(st, _game({"a": 1, "b": 1}), lambda cur: seen.append(cur) or {"a": Rating(40, 2), "b": Rating(10, 2)})
    st.update_bot("a", Build(BotKind.COMMAND, "new"))
    record_rated(st, _game({"a": 2, "b": 1}), lambda cur: seen.append(cur) or {"a": Rating(20, 5), "b": Rating(12, 2)})
    assert seen == [{}, {"b": Rating(10, 2)}]  # version 2 of a starts unrated, b goes on
    assert st.ratings(POOL, {"a": 1}) == {"a": Rating(40, 2)} and st.ratings(POOL)["a"] == Rating(20, 5)
    assert st.rating_games(POOL, "a", 1) == st.rating_games(POOL, "a", 2) == 1 and st.rating_games(POOL, "b") == 2
    assert [g.seats[0].version for g in st.latest_games()[0]] == [2, 1]
    rows = table(st, POOL)
    assert [(r.label, r.version, r.games) for r in rows] == [("b", 1, 2), ("a v2", 2, 1)]
    every = table(st, POOL, all_versions=True)
    assert [(r.label, r.games) for r in every] == [("a v1", 1), ("b", 2), ("a v2", 1)]
    assert every[0].to_dict()["bot"] == "a" and every[0].to_dict()["version"] == 1 and "label" not in every[0].to_dict()


def test_crashes_count_once_among_the_faults_of_their_version(tmp_path):
    st = Store(tmp_path / "a.db")
    run, _ = st.find_or_create_run({"k": 1}, [])
    record_rated(st, _game({"a": 1, "b": 1}, run, 0), lambda cur: {"a": Rating(), "b": Rating()})
    assert st.record_crash(run, POOL, "a", 1, 137, games_replayed=40) == 1
    st.record_crash(run, POOL, "a", 1, None, games_replayed=0)
    st.record_crash(run, "pepper-30/2p", "a", 1, 1, games_replayed=3)  # another pool's
    rows = {r.bot: r for r in table(st, POOL)}
    assert rows["a"].crashes == 2 and rows["a"].faults == 2 and rows["b"].crashes == 0


def _tree(root: Path) -> None:
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("x = 1\n")
    (root / "pkg" / "__pycache__" / "m.pyc").write_bytes(b"\0")
    (root / "bot.py").write_text("print(1)\n")
    (root / "conf.json").write_text("{}")


def test_a_bots_files_by_default_and_their_digest(tmp_path):
    _tree(tmp_path)
    cwd = str(tmp_path)
    assert registry.default_files("python bot.py --config conf.json --depth 3", cwd) == ["bot.py", "conf.json"]
    assert registry.default_files("{python} -m pkg.main fast", cwd) == ["pkg"]
    assert registry.default_files("node .", cwd) == ["."]
    assert registry.default_files(f"python {tmp_path.parent}/elsewhere.py ../x", cwd) == []
    assert registry.default_files(registry.SAMPLE_BOTS["random"][0], str(registry.ROOT)) == ["sample_bots"]
    digest = registry.files_digest(["pkg", "bot.py"], cwd)
    assert len(digest) == 64 and registry.files_digest([], cwd) == ""
    (tmp_path / "pkg" / "__pycache__" / "m.pyc").write_bytes(b"\1")  # skipped: no change
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "dep.js").write_text("1")
    assert registry.files_digest(["pkg", "bot.py"], cwd) == digest
    assert registry.files_digest(["."], cwd) == registry.files_digest(["."], cwd)
    (tmp_path / "pkg" / "__init__.py").write_text("x = 2\n")
    assert registry.files_digest(["pkg", "bot.py"], cwd) != digest
    (tmp_path / "bot.py").unlink()
    assert registry.files_digest(["pkg", "bot.py"], cwd) != registry.files_digest(["pkg"], cwd)


def test_a_run_plays_changed_files_as_a_new_version_and_says_so(tmp_path):
    _tree(tmp_path)
    st = Store(tmp_path / "a.db")
    files = registry.default_files("python bot.py", str(tmp_path))
    st.add_bot("mine", "command", command="python bot.py", cwd=str(tmp_path), files=files,
               digest=registry.files_digest(files, str(tmp_path)))
    st.add_bot("old", "command", command="{python} -m pkg", cwd=str(tmp_path))  # as migrated: files unrecorded
    st.db.execute("UPDATE bot_versions SET files_json = NULL, digest = NULL WHERE bot = 'old'")
    notes: list[str] = []
    same = registry.current_versions(st, st.bots(), notes.append)
    assert [(b.name, b.version) for b in same] == [("mine", 1), ("old", 1)] and notes == []
    assert st.bot("old").files == ("pkg",) and st.bot("old").digest  # recorded now, still version 1
    (tmp_path / "bot.py").write_text("print(2)\n")
    now = registry.current_versions(st, st.bots(), notes.append)
    assert [(b.name, b.version) for b in now] == [("mine", 2), ("old", 1)]
    assert notes == ["bot mine: its files changed since version 1 was registered; this run plays them as version 2"]
    assert registry.current_versions(st, st.bots(), notes.append) == now and len(notes) == 1
