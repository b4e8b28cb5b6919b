"""The hostile bots of the sandbox's tests in one `--sandbox docker` run beside the honest sample bots: the honest
bots finish it without a fault and without a crash, whatever the others do (reach the network, snoop, write,
flood their socket with streams that never say Hello, remember their twins: a block's games are played by
containers apart, so the one that remembers never meets a deal it played; spin, or fork-bomb: stuck, their
containers are killed and restarted, and withdrawn once they have crashed too often). The two that crash by
themselves (over their memory, or exiting) have their run beside honest bots in test_sandbox_arena.py."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from test_sandbox_arena import free_port, log, query, setup

from arena.store import BotKind, Store
from arena.tournament import RunConfig, run
from supervisor.docker_runtime import OWNER_LABEL, owner_id

pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]
HONEST = ("random", "heuristic")
ARENA_TESTS = Path(__file__).resolve().parents[1] / "arena"
HEADS_UP = 'name = "pepper-30-short"\nextends = "pepper-30"\ndeal_cap = 1\n'   # one seat a game: one process each


def test_hostile_bots_beside_honest_ones_in_one_run_leave_the_honest_without_a_fault(tmp_path, docker_client):
    port = free_port()
    hostile = {
        "tcp": {"PEPPER_HOSTILE": "tcp", "PEPPER_HOSTILE_TCP": f"127.0.0.1:{port},[::1]:{port}"},
        "snoop": {"PEPPER_HOSTILE": "snoop", "PEPPER_HOSTILE_DB": str(tmp_path / "arena.db")},
        "write": {"PEPPER_HOSTILE": "write"},
        "silent": {"PEPPER_HOSTILE": "silent", "PEPPER_HOSTILE_AS": "random"},
        "spin": {"PEPPER_HOSTILE": "spin"},
        "fork": {"PEPPER_HOSTILE": "fork"},
    }
    db, _ = setup(tmp_path, hostile, limits={"fork": {"pids": 32}})
    st = Store(str(db))   # and a bot that remembers every game, to recognize a block's twin
    st.add_bot("twin", BotKind.COMMAND, command="{python} memory_bot.py", cwd=str(ARENA_TESTS), files=["memory_bot.py"])
    st.close()
    (tmp_path / "heads-up.toml").write_text(HEADS_UP)
    bots = [*HONEST, *hostile, "twin"]
    games = len(bots) * (len(bots) - 1)   # a block of two games for every pair: each honest bot meets every other
    cfg = RunConfig(ruleset=str(tmp_path / "heads-up.toml"), players=2, games=games, seed=5, bots=bots, db=str(db),
                    log_dir=str(tmp_path / "logs"), sandbox="docker", listen=f"127.0.0.1:{port}",
                    deadline_ms=1000, time_bank_ms=3000)   # the stuck bots' games: a few seconds, not 12 s
    t0 = time.monotonic()
    _, prog = run(cfg, notify=lambda m: None)
    took = time.monotonic() - t0
    honest = query(db, "SELECT bot, COUNT(*), SUM(illegal + malformed + timeout + disconnect) FROM game_seats "
                       "WHERE bot IN ('random', 'heuristic') GROUP BY bot ORDER BY bot")
    met = {o for (o,) in query(db, "SELECT DISTINCT b.bot FROM game_seats a JOIN game_seats b USING (game_id) "
                                   "WHERE a.bot = 'random' AND b.bot != 'random'")}
    # The honest bots: no fault in any game, no crash; they met every hostile bot still entered when they were paired.
    assert [(b, f) for b, _, f in honest] == [("heuristic", 0), ("random", 0)], (honest, prog)
    assert not query(db, "SELECT bot FROM crashes WHERE bot IN ('random', 'heuristic')")
    assert {"tcp", "snoop", "write", "silent", "heuristic"} <= met, met
    # The hostile bots got nothing: no route out, nothing read or written, spinning and forking timed out, the
    # flooder refused on its own socket.
    assert "CONNECTED" not in log(tmp_path, "tcp") and "pids seen: 1\n" in log(tmp_path, "snoop")
    assert "write /etc/passwd -> blocked" in log(tmp_path, "write")
    crashes = dict(query(db, "SELECT bot, GROUP_CONCAT(DISTINCT exit_code) FROM crashes GROUP BY bot"))
    assert set(crashes) <= set(hostile), crashes
    # Spinning and forking: stuck after a timeout, their containers killed (137: SIGKILL) and restarted, within
    # their CPU and process limits (the fork bomb's Python may also die by itself against the limit).
    assert crashes["spin"] == "137" and "137" in crashes["fork"].split(","), crashes
    for bot in ("spin", "fork"):
        assert query(db, "SELECT SUM(timeout) FROM game_seats WHERE bot = ?", bot)[0][0] > 0
    assert "hostile: fork bomb" in log(tmp_path, "fork") and "hostile: spinning" in log(tmp_path, "spin")
    silent = log(tmp_path, "silent")   # refused on its own socket, where it cannot say Hello as another bot either
    assert re.search(r"ended \{.*'RESOURCE_EXHAUSTED'", silent), silent
    assert re.search(r"hello as random -> PERMISSION_DENIED this Unix socket is bot '(_r\d\.)?silent''s own", silent), \
        silent
    twin = log(tmp_path, "twin")
    assert "memory: new deal" in twin and "memory: twin of a remembered game" not in twin, twin
    assert not docker_client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner_id()}"}, sparse=True)
    print(f"{prog.done}/{prog.total} games in {took:.0f} s; withdrawn: {prog.withdrawn}")
