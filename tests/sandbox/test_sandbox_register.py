"""`pepper bot register NAME --dockerfile PATH` (and --image): the image's id is recorded and versions the bot;
`pepper arena run --sandbox docker` runs it in that image under its registered limits; without the sandbox the
run says what to add. The `pepper` CLI, a real Docker Engine, a real SQLite file."""

from __future__ import annotations

import glob
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store import Store
from supervisor.docker_runtime import OWNER_LABEL, folder_prefix, owner_id

HERE = Path(__file__).resolve().parent
SHORT = 'name = "iowa-short"\nextends = "iowa"\ndeal_cap = 1\n'
pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]


def pepper(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=db.parent, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=os.environ | {"COLUMNS": "200"})


def said(out: subprocess.CompletedProcess) -> str:
    return " ".join((out.stdout + out.stderr).split())


def test_a_bot_registered_with_a_dockerfile_runs_in_its_image_and_its_image_versions_it(tmp_path, docker_client, bot_dockerfile):
    ctx = bot_dockerfile("boxed")
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "arena.db"
    out = pepper("bot", "register", "boxed", "--dockerfile", str(ctx), "--memory-mb", "128", "--pids", "32", db=db)
    assert out.returncode == 0, out.stderr
    image_id = docker_client.images.get("pepper-bot-boxed:latest").id
    st = Store(str(db))
    b = st.bot("boxed")
    st.close()
    assert (b.image, b.digest, b.command, b.cwd) == (image_id, image_id, "python3 bot.py", None)
    assert b.limits == {"memory_mb": 128, "pids": 32}
    assert f"registered boxed (version 1, image {image_id[:19]}): python3 bot.py" in said(out)

    args = ("arena", "run", "--ruleset", "short.toml", "--bots", "random,boxed", "--games", "4", "--seed", "2", "--quiet")
    plain = pepper(*args, db=db)
    assert plain.returncode == 2 and "bot(s) boxed run in their Docker image: add --sandbox docker" in said(plain), said(plain)
    boxed = pepper(*args, "--sandbox", "docker", db=db)
    assert boxed.returncode == 0, said(boxed)
    assert "4/4 games in" in boxed.stdout and "(0 faults)" in boxed.stdout, boxed.stdout
    log = (tmp_path / "arena-logs" / "bot-boxed.log").read_text()
    assert re.search(r"connected to unix:/run/pepper/referee\.sock as (_r\d\.)?boxed", log) and "exited with code 0" in log, log

    # Another image is another version; the same image again is the same version.
    (ctx / "bot.py").write_text((ctx / "bot.py").read_text() + "\n# changed\n")
    assert pepper("bot", "remove", "boxed", db=db).returncode == 0
    again = pepper("bot", "register", "boxed", "--dockerfile", str(ctx / "Dockerfile"), db=db)
    assert again.returncode == 0 and "(version 2, image" in said(again), said(again)
    assert pepper("bot", "remove", "boxed", db=db).returncode == 0
    same = pepper("bot", "register", "boxed", "--image", "pepper-bot-boxed:latest", db=db)
    assert same.returncode == 0 and "(version 2, image" in said(same), said(same)

    missing = pepper("bot", "register", "nope", "--image", "pepper-no-such-image:1", db=db)
    assert missing.returncode != 0 and "no such image in the local Docker Engine" in said(missing), said(missing)


def test_the_containers_and_folders_of_a_killed_arena_go_with_it(tmp_path, docker_client):
    (tmp_path / "short.toml").write_text(SHORT)
    db = tmp_path / "arena.db"
    args = ["arena", "run", "--ruleset", "short.toml", "--bots", "random,heuristic", "--games", "4000", "--sandbox",
            "docker", "--db", str(db), "--progress-every", "0.2"]   # far more than it can play before the kill
    p = subprocess.Popen([sys.executable, "-m", "pepper_cli", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    try:
        owner = owner_id(p.pid)
        label = {"label": f"{OWNER_LABEL}={owner}"}
        line = p.stdout.readline()
        while line and "games" not in line:       # a note first, if any
            line = p.stdout.readline()
        assert "games" in line, line               # the first progress line: its bots are playing
        assert len(docker_client.containers.list(all=True, filters=label, sparse=True)) >= 2
        assert glob.glob(folder_prefix(owner) + "*")
    finally:
        p.send_signal(signal.SIGKILL)              # no cleanup of its own: its watchdog's work
    assert p.wait() == -signal.SIGKILL, "the run ended (and cleaned up) before it was killed"
    deadline = time.monotonic() + 10
    while (docker_client.containers.list(all=True, filters=label, sparse=True) or glob.glob(folder_prefix(owner) + "*")) \
            and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not docker_client.containers.list(all=True, filters=label, sparse=True), \
        _killed_run_report(p, tmp_path, docker_client)
    assert not glob.glob(folder_prefix(owner) + "*")


def _killed_run_report(p, tmp_path, docker_client) -> str:
    from supervisor.docker_runtime import LABEL

    others = [(c.short_id, (c.attrs.get("Labels") or {}).get(OWNER_LABEL), c.attrs.get("State"))
              for c in docker_client.containers.list(all=True, filters={"label": LABEL}, sparse=True)]
    logs = {f.name: f.read_text()[-2000:] for f in sorted((tmp_path / "arena-logs").glob("*.log"))}
    return f"arena output: {p.stdout.read()[-2000:]!r}\nsandbox containers now: {others}\nlogs: {logs}"
