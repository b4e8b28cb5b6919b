"""The process supervisor with real subprocesses: restart backoff per slot, dying with the parent, log tails."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from supervisor import LocalRuntime, LogFollower, ProcessSpec, StartError, Supervisor


def _spec(tmp_path: Path, code: str, *args: str, name: str = "test") -> ProcessSpec:
    return ProcessSpec(name, (sys.executable, "-c", code, *args), tmp_path / f"{name}.log", cwd=str(tmp_path),
                       env=dict(os.environ))


def test_a_process_that_keeps_dying_is_restarted_with_a_growing_delay(tmp_path):
    sup = Supervisor(_spec(tmp_path, "raise SystemExit(1)"))
    try:
        delays = []
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            sup.handles[0].wait(5)
            if sup.check():
                delays.append(sup.delay(sup.quick_deaths(0)))
            time.sleep(0.01)
        assert 2 <= sup.restarts <= 5, sup.restarts  # 0, 0.25, 0.5 s ... not a hot loop
        assert delays == sorted(delays) and delays[-1] >= 0.5
        # A process that ran for a while before dying (a crash mid-game) is restarted at once.
        sup.handles[0].wait(5)
        sup._started[0] -= Supervisor.STABLE_S
        sup._due[0] = None
        assert sup.check() == 1
    finally:
        sup.stop()


def test_one_slot_that_dies_on_start_backs_off_while_the_others_live(tmp_path):
    """Per-slot backoff: a spare slot that cannot start is not respawned on every check."""
    lock = tmp_path / "lock"
    sup = Supervisor(_spec(tmp_path, "import os,sys,time; os.mkdir(sys.argv[1]); time.sleep(30)", str(lock)), slots=2)
    try:
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            sup.check()
            time.sleep(0.01)
        # The second slot's last respawn may still be starting (slow under load): let it reach its mkdir and die.
        settle = time.monotonic() + 20
        while sum(h.poll() is None for h in sup.handles) > 1 and time.monotonic() < settle:
            time.sleep(0.05)
        alive = [h for h in sup.handles if h.poll() is None]
        assert len(alive) == 1                     # the first process holds the lock; the second cannot start
        assert 2 <= sup.restarts <= 5, sup.restarts
        assert sup.exit_codes().count(None) == 1
    finally:
        sup.stop()
    assert sup.all_dead()


def test_delay_doubles_up_to_a_cap():
    assert [Supervisor.delay(n) for n in (1, 2, 3, 4, 10)] == [0.0, 0.25, 0.5, 1.0, Supervisor.MAX_DELAY_S]


def test_the_log_tail_shows_the_last_lines_of_stdout_and_stderr(tmp_path):
    code = "import sys\nfor i in range(20): print(f'line {i}', flush=True)\nprint('oops: it failed', file=sys.stderr)"
    h = LocalRuntime().start(_spec(tmp_path, code))
    assert h.wait(10) == 0
    assert h.log_tail(3).splitlines() == ["line 18", "line 19", "oops: it failed"]


def test_stdout_can_be_read_by_the_parent(tmp_path):
    h = LocalRuntime().start(ProcessSpec("talker", (sys.executable, "-c", "print('listening on 127.0.0.1:5')"),
                                         tmp_path / "t.log", env=dict(os.environ), stdout_pipe=True))
    assert h.readline().strip() == "listening on 127.0.0.1:5"
    assert h.wait(10) == 0


def test_a_log_can_be_followed_while_the_process_writes_it(tmp_path):
    """LogFollower: the new complete lines at each look, never blocking; an unfinished line once the writer is gone."""
    log = tmp_path / "f.log"
    log.write_text("from an earlier run\n")
    follower = LogFollower(log)
    assert follower.lines() == []                               # only what is written from now on
    code = ("import sys, time\n"
            "print('one', flush=True); print('two', file=sys.stderr, flush=True)\n"
            "time.sleep(float(sys.argv[1]))\n"
            "print('three\\r'); sys.stdout.write('no newline')")
    h = LocalRuntime().start(ProcessSpec("writer", (sys.executable, "-c", code, "0.5"), log, env=dict(os.environ)))
    seen: list[str] = []
    deadline = time.monotonic() + 10
    while len(seen) < 2 and time.monotonic() < deadline:
        seen += follower.lines()
        time.sleep(0.02)
    assert seen == ["one", "two"] and h.poll() is None          # read while the process runs
    assert h.wait(10) == 0
    assert follower.lines() == ["three"]                        # the unfinished line waits for its end ...
    assert follower.lines(last=True) == ["no newline"]          # ... or for the writer to be gone
    assert follower.lines(last=True) == []
    assert LogFollower(tmp_path / "missing.log").lines(last=True) == []


def test_stop_kills_what_ignores_sigterm(tmp_path):
    code = "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)"
    sup = Supervisor(_spec(tmp_path, code))
    deadline = time.monotonic() + 10
    while "up" not in sup.log_tail() and time.monotonic() < deadline:
        time.sleep(0.02)
    t0 = time.monotonic()
    sup.stop(grace_s=0.3)
    assert sup.all_dead() and time.monotonic() - t0 < 5
    assert sup.exit_codes() == [-9]


def test_a_command_that_cannot_start_is_named_with_the_reason(tmp_path):
    with pytest.raises(StartError, match=r"cannot start bot 'x' with command 'no-such-program-here --flag': .*No such file") as e:
        Supervisor(ProcessSpec.command("bot 'x'", "no-such-program-here --flag", tmp_path / "x.log", env=dict(os.environ)))
    assert "No such file" in e.value.reason and isinstance(e.value.error, FileNotFoundError)   # for hints on the fix
    with pytest.raises(StartError, match="the command is empty"):
        ProcessSpec.command("bot 'y'", "  ", tmp_path / "y.log")
    with pytest.raises(StartError, match="No closing quotation"):
        ProcessSpec.command("bot 'z'", "python 'unclosed", tmp_path / "z.log")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"   # a zombie waiting for its reaper is dead
    except FileNotFoundError:
        return False


def test_children_die_with_their_parent_even_when_it_is_killed(tmp_path):
    """A parent killed with SIGKILL cannot stop its children; Linux does (PR_SET_PDEATHSIG)."""
    parent_code = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from supervisor import ProcessSpec, Supervisor\n"
        "spec = ProcessSpec('sleeper', (sys.executable, '-c', 'import time; time.sleep(60)'), Path(sys.argv[1]),"
        " env=dict(os.environ))\n"
        "sup = Supervisor(spec, slots=2)\n"
        "print(' '.join(str(h.pid) for h in sup.handles), flush=True)\n"
        "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", parent_code, str(tmp_path / "s.log")], stdout=subprocess.PIPE, text=True)
    try:
        children = [int(p) for p in parent.stdout.readline().split()]
        assert len(children) == 2 and all(_alive(p) for p in children)
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in children), children
    finally:
        parent.kill()


def test_a_secret_reaches_the_process_on_a_pipe_never_in_its_environment(tmp_path):
    """ProcessSpec.secrets: the process reads the value from the pipe NAME_FD names; its environment, which any
    process of the same user reads in /proc/PID/environ, never holds it, and the pipe is empty once read."""
    code = ("import os, sys, time; fd = int(os.environ['PEPPER_TOKEN_FD']); "
            "env = open('/proc/self/environ', 'rb').read(); "
            "print(os.read(fd, 100).decode(), b'sekrit-token' in env, 'PEPPER_TOKEN' in os.environ, flush=True); "
            "time.sleep(30)")
    h = LocalRuntime().start(ProcessSpec("reader", (sys.executable, "-c", code), tmp_path / "reader.log",
                                         env=dict(os.environ), stdout_pipe=True,
                                         secrets={"PEPPER_TOKEN": b"sekrit-token"}))
    try:
        assert h.readline().split() == ["sekrit-token", "False", "False"]
        # Another process of the same user finds it in neither the environment nor the (drained) pipe.
        fd = (Path(f"/proc/{h.pid}/environ").read_bytes().split(b"PEPPER_TOKEN_FD=")[1].split(b"\0")[0]).decode()
        assert b"sekrit-token" not in Path(f"/proc/{h.pid}/environ").read_bytes()
        with open(f"/proc/{h.pid}/fd/{fd}", "rb", buffering=0) as pipe:
            os.set_blocking(pipe.fileno(), False)
            assert pipe.read(100) in (None, b"")
    finally:
        h.kill()
        h.wait(10)
