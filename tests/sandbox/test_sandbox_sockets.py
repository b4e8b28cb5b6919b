"""Each sandboxed bot reaches the referee through a socket of its own (docs/sandbox.md): a bot opening Connect
streams that never say Hello, in a loop, from its container spends its own socket's allowance only. The honest
bots beside it reconnect at once. (That they play without a fault beside it, and that a Hello naming another bot
is refused on its socket, is test_sandbox_hostile_field's run, with the other hostile bots.)

Before: every container had the referee's one socket, one peer ("unix:") for the limits on streams that have not
said Hello, so the attacker held that peer's whole allowance and the others' reconnections were refused."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from pepper_proto.v1 import control_pb2
from test_sandbox_arena import log, setup

from arena.config import RunConfig
from arena.fleet import Fleet
from arena.store import Store
from supervisor.docker_runtime import OWNER_LABEL, owner_id

pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]
SILENT = {"silent": {"PEPPER_HOSTILE": "silent", "PEPPER_HOSTILE_AS": "random"}}
HONEST = ("random", "heuristic", "montecarlo")
# Two players, one deal a game: each bot takes one seat a game, so one process and one connection (with two, as in a
# partnership's mirrored line-up, the attacker's own second process would be locked out by its flood).
HEADS_UP = 'name = "pepper-30-short"\nextends = "pepper-30"\ndeal_cap = 1\n'


def config(tmp_path: Path, db: Path, games: int) -> RunConfig:
    (tmp_path / "heads-up.toml").write_text(HEADS_UP)
    return RunConfig(ruleset=str(tmp_path / "heads-up.toml"), players=2, games=games, seed=3, bots=["silent", *HONEST],
                     db=str(db), log_dir=str(tmp_path / "logs"), sandbox="docker", bot_env={"PEPPER_MC_BUDGET_MS": "1"})


def flooding(tmp_path: Path, timeout: float = 60.0) -> str:
    """The silent bot's log once its streams have been refused for a while (the attack holds its allowance)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log(tmp_path, "silent") if (tmp_path / "logs" / "bot-silent.log").exists() else ""
        if len(re.findall(r"silent streams: \d+ opened, ended \{.*'RESOURCE_EXHAUSTED'", text)) >= 2:
            return text
        time.sleep(0.2)
    raise AssertionError(f"the silent bot never flooded its socket:\n{text}")


def test_a_bot_flooding_its_socket_with_silent_streams_leaves_the_others_reconnection_alone(tmp_path, docker_client):
    db, _ = setup(tmp_path, SILENT)
    cfg = config(tmp_path, db, 1)
    st = Store(str(db))
    bots = [st.bot(n) for n in cfg.bots]
    st.close()

    async def reconnect_under_attack() -> dict[str, float]:
        fleet = Fleet(cfg, cfg.ruleset_obj(), cfg.resolved_players(), lambda m: None)
        try:
            await fleet.start(bots, 1)
            await asyncio.to_thread(flooding, tmp_path)
            # The honest bots' containers die; the fleet restarts them, and they must get back in.
            for name in HONEST:
                for c in docker_client.containers.list(filters={"label": [f"{OWNER_LABEL}={owner_id()}",
                                                                          f"pepper.bot={name}"]}):
                    c.kill()
            restarted, back = {}, {}   # when each bot's new container was started; how long it then took to connect
            t0 = time.monotonic()
            while len(back) < len(HONEST) and time.monotonic() - t0 < 90:
                fleet.tend_all()   # starts the new containers (slow on a loaded machine: not what is measured)
                now = time.monotonic()
                restarted |= {n: now for n in HONEST if fleet.procs[n].restarts and n not in restarted}
                listed = await fleet.shards[0].stub.ListBots(control_pb2.ListBotsRequest(), metadata=fleet.md)
                for b in listed.bots:   # each rotation's identity (arena.twins): _r0.NAME, _r1.NAME
                    name = b.name.split(".", 1)[1] if b.name.startswith("_r") else b.name
                    if name in restarted and b.connections and name not in back:
                        back[name] = time.monotonic() - restarted[name]
                await asyncio.sleep(0.1)
            return back
        finally:
            await fleet.stop()

    back = asyncio.run(reconnect_under_attack())
    # Each connected at its first try, once its process was up (a second or two): the attack refused none of them.
    assert set(back) == set(HONEST) and max(back.values()) < 10, (back, log(tmp_path, "random"))
    assert not [n for n in HONEST if "RESOURCE_EXHAUSTED" in log(tmp_path, n)], log(tmp_path, "random")
    assert not docker_client.containers.list(all=True, filters={"label": f"{OWNER_LABEL}={owner_id()}"}, sparse=True)
