"""deploy/cluster/compose.yaml started for real, as docs/cluster.md tells a user to: the cluster image built by
images/build-cluster.sh, a head and two worker nodes by Docker Compose with Ray's token authentication on, a bot
registered from the read-only /bots mount, and `pepper arena run --ray auto` run in the head. The one change is
tests/ray/compose.loopback.yaml: every node in the head's network namespace, so that the tests' traffic stays on
127.0.0.1 instead of the file's bridge network.

The image takes about 45 s to build (Ray's wheels, from pip's cache once `make install` has run) unless it is up to
date (.ci/run builds it before `make test`), the cluster about 15 s to start and the run about 10 s."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import needs
import pytest

pytestmark = pytest.mark.xdist_group("compose-cluster")

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "cluster" / "compose.yaml"
LOOPBACK = Path(__file__).with_name("compose.loopback.yaml")
# The tutorial's bot, shortened: the highest legal card, never a bid.
BOT = '''from pepper_bot import Bot, main

RANKS = ["9", "10", "J", "Q", "K", "A"]


class MyBot(Bot):
    name = "mybot"

    def decide(self, view: dict) -> str:
        legal = view["legal_actions"]
        if view["phase"] == "play":
            return max(legal, key=lambda a: RANKS.index(a.split()[1][:-1]))
        return "pass" if "pass" in legal else legal[0]


if __name__ == "__main__":
    main(MyBot())
'''


@pytest.fixture(scope="module")
def cluster_image(images) -> None:
    """pepper-cluster:latest as of this checkout (built unless up to date; ``images`` builds its base first)."""
    needs.require("compose")
    r = subprocess.run([str(ROOT / "images" / "build-cluster.sh"), sys.executable], cwd=ROOT, capture_output=True,
                       text=True, timeout=900)
    if r.returncode:
        pytest.fail(f"images/build-cluster.sh failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}",
                    pytrace=False)
    assert "pure Python" not in r.stderr, r.stderr   # the nodes' referees run the compiled engine


class Compose:
    """One Compose project of deploy/cluster/compose.yaml, copied with its secret and folders into ``where``."""

    def __init__(self, where: Path) -> None:
        self.dir = where
        shutil.copy(COMPOSE, where / "compose.yaml")
        (where / "bots").mkdir()
        (where / "arena").mkdir()
        token = where / "ray_token"
        token.write_text(os.urandom(24).hex() + "\n")
        token.chmod(0o600)
        self.base = ["docker", "compose", "-f", str(where / "compose.yaml"), "-f", str(LOOPBACK),
                     "-p", f"pepper-cluster-test-{os.getpid()}"]

    def __call__(self, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([*self.base, *args], capture_output=True, text=True, timeout=timeout)
        if check and r.returncode:
            raise AssertionError(f"docker compose {' '.join(args)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}\n"
                                 + self.logs())
        return r

    def head(self, *command: str, env: dict[str, str] | None = None, check: bool = True,
             timeout: float = 300) -> subprocess.CompletedProcess:
        flags = [f"--env={k}={v}" for k, v in (env or {}).items()]
        return self("exec", "-T", *flags, "head", *command, check=check, timeout=timeout)

    def logs(self) -> str:
        r = subprocess.run([*self.base, "logs", "--tail", "30"], capture_output=True, text=True, timeout=60)
        return r.stdout[-6000:]

    def wait_for_nodes(self, nodes: int, timeout: float = 90) -> None:
        """Until ``nodes`` Ray nodes are alive: one process in the head that asks Ray's GCS twice a second (a
        `ray status` a poll would cost a second of CPU each)."""
        wait = ("import ray, time\n"
                "ray.init(address='auto', logging_level='ERROR', log_to_driver=False)\n"
                f"end = time.monotonic() + {timeout}\n"
                f"while (n := sum(node['Alive'] for node in ray.nodes())) < {nodes} and time.monotonic() < end:\n"
                "    time.sleep(0.5)\n"
                "print(n)\n")
        deadline = time.monotonic() + timeout
        while True:   # ray.init fails until the head has written its address
            r = self.head("python3", "-c", wait, check=False, timeout=timeout + 60)
            if r.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert r.returncode == 0 and r.stdout.split()[-1:] == [str(nodes)], \
            f"{r.stdout}\n{r.stderr[-2000:]}\n{self.logs()}"


@pytest.fixture(scope="module")
def compose_cluster(cluster_image, tmp_path_factory):
    """The cluster, started once for the module's tests and removed after them, volumes and all."""
    compose = Compose(tmp_path_factory.mktemp("cluster"))
    try:
        compose("up", "--detach", "--scale", "worker=2")
        compose.wait_for_nodes(3)   # the head and both workers
        yield compose
    finally:
        compose("down", "--volumes", "--timeout", "5", "--remove-orphans", check=False, timeout=120)


def test_the_compose_cluster_plays_a_tournament_on_its_workers_with_a_bot_from_the_bots_mount(compose_cluster):
    c = compose_cluster
    (c.dir / "bots" / "mybot").mkdir()
    (c.dir / "bots" / "mybot" / "mybot.py").write_text(BOT)
    c.head("pepper", "bot", "register", "mybot", "--command", "python3 mybot.py", "--cwd", "/bots/mybot",
           "--db", "/arena/arena.db")

    run = c.head("pepper", "arena", "run", "--ray", "auto", "--db", "/arena/arena.db", "--log-dir", "/arena/logs",
                 "--games", "12", "--bots", "mybot,random,heuristic", "--seed", "7")
    out = run.stdout + run.stderr
    # The head has no CPUs for matches: the two workers' are what the driver sees and uses.
    assert "Ray cluster: 2 node(s) with CPUs (1, 1; 2 in all)" in out, out
    assert "12/12 games" in out and "(0 faults)" in out, out
    assert "pure Python" not in out, out

    # The database is on the head's volume, where the host reads it: every game stored once.
    with sqlite3.connect(c.dir / "arena" / "arena.db") as db:
        assert db.execute("SELECT count(*) FROM games").fetchone() == (12,)
    table = json.loads(c.head("pepper", "arena", "table", "--db", "/arena/arena.db", "--json").stdout)
    rows = {row["bot"]: row for pool in table.values() for row in pool}
    assert set(rows) == {"mybot", "random", "heuristic"} and all(r["games"] > 0 for r in rows.values()), rows

    # Each match's log says on which Ray node it ran: both workers took matches.
    nodes = {line.split("(Ray node ", 1)[1].split(")", 1)[0]
             for log in (c.dir / "arena" / "logs").glob("match-*/match.log")
             for line in log.read_text().splitlines() if "started on" in line}
    assert len(nodes) == 2, nodes


def test_the_compose_cluster_refuses_a_client_without_its_token(compose_cluster):
    ok = compose_cluster.head("ray", "status")
    assert "2.0 CPU" in ok.stdout, ok.stdout     # the token from the secret file: the workers' CPUs, not the head's
    wrong = compose_cluster.head("ray", "status", check=False, timeout=120,
                                 env={"RAY_AUTH_TOKEN_PATH": "/dev/null", "RAY_AUTH_TOKEN": "not-the-token"})
    assert wrong.returncode != 0 and "InvalidAuthToken" in wrong.stdout + wrong.stderr, wrong.stdout + wrong.stderr
