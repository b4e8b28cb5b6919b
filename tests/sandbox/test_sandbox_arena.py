"""`pepper arena run --sandbox docker` with a real Docker Engine: the sample bots play a tournament in containers,
and hostile bots each fail safely, with the expected fault, while the other games go on."""

from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path

import needs
import pytest

from arena.crashes import MAX_CRASHES
from arena.registry import ensure_sample_bots
from arena.store import BotKind, Store
from arena.tournament import RunConfig, run
from supervisor.docker_runtime import OWNER_LABEL, owner_id

HERE = Path(__file__).resolve().parent
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'   # one deal a game: a quick run
pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def setup(tmp_path: Path, hostile: dict[str, dict[str, str]], limits: dict | None = None) -> tuple[Path, Store]:
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "arena.db"
    st = Store(str(db))
    ensure_sample_bots(st, note=lambda m: None)
    for name, env in hostile.items():
        st.add_bot(name, BotKind.COMMAND, command="{python} hostile_bot.py", cwd=str(HERE), env=env,
                   files=["hostile_bot.py"], limits=(limits or {}).get(name))
    st.close()
    return db, st


def play(tmp_path: Path, db: Path, bots: str, games: int, notes: list[str] | None = None, **kw):
    cfg = RunConfig(ruleset=str(tmp_path / "short.toml"), games=games, seed=3, bots=bots.split(","), db=str(db),
                    log_dir=str(tmp_path / "logs"), sandbox="docker", **kw)
    return run(cfg, notify=(notes.append if notes is not None else lambda m: None))


def log(tmp_path: Path, bot: str) -> str:
    return (tmp_path / "logs" / f"bot-{bot}.log").read_text()


def query(db: Path, sql: str, *args):
    with sqlite3.connect(db) as c:
        return c.execute(sql, args).fetchall()


def test_sandboxed_sample_bots_and_snooping_bots_play_without_faults_and_see_nothing(tmp_path, docker_client):
    port = free_port()
    db, _ = setup(tmp_path, {
        "tcp": {"PEPPER_HOSTILE": "tcp", "PEPPER_HOSTILE_TCP": f"127.0.0.1:{port},[::1]:{port}"},
        "snoop": {"PEPPER_HOSTILE": "snoop", "PEPPER_HOSTILE_DB": str(tmp_path / "arena.db")},
        "write": {"PEPPER_HOSTILE": "write"},
    })
    run_id, prog = play(tmp_path, db, "random,heuristic,tcp,snoop,write", 20, listen=f"127.0.0.1:{port}")
    assert (prog.done, prog.total, prog.faults, prog.withdrawn) == (20, 20, 0, []), prog
    played = {b for (b,) in query(db, "SELECT DISTINCT bot FROM game_seats")}
    assert played == {"random", "heuristic", "tcp", "snoop", "write"}
    # The referee's TCP port on the host's loopback is out of reach (the container's loopback is its own).
    tcp = log(tmp_path, "tcp")
    assert f"tcp 127.0.0.1:{port} -> blocked" in tcp and f"tcp [::1]:{port} -> blocked" in tcp and "CONNECTED" not in tcp, tcp
    # Only its own process, whose environment has its own token and nothing of the arena's; no arena database.
    snoop = log(tmp_path, "snoop")
    assert "pids seen: 1\n" in snoop, snoop
    environ = next(line for line in snoop.splitlines() if line.startswith("hostile: environ of 1:"))
    assert "PEPPER_TOKEN" in environ and "PEPPER_CONTROL_TOKEN" not in environ, environ
    assert f"read {tmp_path / 'arena.db'} -> blocked: FileNotFoundError" in snoop, snoop
    # Nothing written but its tmpfs.
    write = log(tmp_path, "write")
    for path in ("/hostile", "/bot/hostile", "/etc/passwd", "/run/pepper/hostile"):
        assert f"write {path} -> blocked" in write, write
    assert "write /tmp/hostile -> WRITTEN" in write, write
    # Every container is gone after the run.
    assert not docker_client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner_id()}"}, sparse=True)



def test_a_bot_over_its_memory_is_oom_killed_one_that_exits_crashes_and_the_others_play_on(tmp_path, docker_client):
    db, _ = setup(tmp_path, {"memory": {"PEPPER_HOSTILE": "memory"}, "exit": {"PEPPER_HOSTILE": "exit"}},
                  limits={"memory": {"memory_mb": 128}})
    # One set of processes per bot (--twins shared): with one per rotation of a block (arena.twins) a bot that
    # crashes on every deck crashes in each rotation, and goes past its crashes' limit before its games' forfeits
    # stand.
    notes: list[str] = []
    run_id, prog = play(tmp_path, db, "random,memory,exit", 6, notes, deadline_ms=500, twins="shared")
    # Both crash on their first decision, and again after each restart (their games replayed from the start), and
    # the run goes on to its end. How many games each crash takes down depends on how the games' starts fall (on a
    # busy machine one at a time), so a bot may pass its MAX_CRASHES and be withdrawn: then only its games are left
    # unplayed, and it was withdrawn for crashing.
    assert prog.stopped is None and prog.crashes >= 2, prog
    assert set(prog.withdrawn) <= {"memory", "exit"}, prog.withdrawn
    unplayed = query(db, "SELECT seats_json FROM planned_games WHERE run_id = ? AND idx NOT IN "
                     "(SELECT idx FROM games WHERE run_id = ?)", run_id, run_id)
    assert prog.done + len(unplayed) == 6, (prog, unplayed)
    assert all(set(prog.withdrawn) & set(json.loads(seats)) for (seats,) in unplayed), (prog.withdrawn, unplayed)
    for bot in prog.withdrawn:
        assert any(n.startswith(f"bot {bot!r} crashed ") and f"more than the {MAX_CRASHES} a bot may" in n
                   for n in notes), notes
    # Over its memory: OOM-killed (exit code 137), said in its log; exiting: its exit code.
    crashes = dict(query(db, "SELECT bot, GROUP_CONCAT(DISTINCT exit_code) FROM crashes GROUP BY bot"))
    assert crashes == {"memory": "137", "exit": "3"}, crashes
    assert "OOM killed: over its memory limit of 128 MiB" in log(tmp_path, "memory")
    assert "exited with code 3" in log(tmp_path, "exit")
    assert not docker_client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner_id()}"}, sparse=True)


def test_a_sandboxed_tournament_of_every_sample_bot(tmp_path, docker_client):
    needs.require("node")   # CI installs Node.js and the bot's packages (make node-bot): it must run there
    db, _ = setup(tmp_path, {})
    run_id, prog = play(tmp_path, db, "random,heuristic,montecarlo,node", 12, bot_env={"PEPPER_MC_BUDGET_MS": "1"})
    assert (prog.done, prog.faults, prog.crashes) == (12, 0, 0), prog
    assert {b for (b,) in query(db, "SELECT DISTINCT bot FROM game_seats")} == {"random", "heuristic", "montecarlo", "node"}
    for bot in ("random", "heuristic", "montecarlo", "node"):
        assert "pepper sandbox: container" in log(tmp_path, bot) and "exited with code 0" in log(tmp_path, bot)
    assert not docker_client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner_id()}"}, sparse=True)
