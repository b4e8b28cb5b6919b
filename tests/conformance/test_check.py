"""`pepper bot check`: passes for the sample bots, fails with the right reason for broken ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOTS_DIR = ROOT / "tests" / "sdk" / "bots"               # raw_bot.py: a bot without the SDK, broken on demand
MARKING_BOT = Path(__file__).resolve().parent / "bots" / "marking_bot.py"
SILENT_BOT = Path(__file__).resolve().parent / "bots" / "silent_bot.py"   # the heuristic bot, failing unmarked

PHASES = {"bid", "name-trump", "give-card", "discard", "cede", "play"}


# Generous time limits unless a test says otherwise: the sample bots must pass on a busy test machine too.
SLACK = ("--deadline-ms", "10000", "--time-bank-ms", "30000")


def run_check(tmp_path, *bot_cmd: str, extra: tuple[str, ...] = SLACK, timeout: float = 240) -> tuple[int, str, dict]:
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "pepper_cli", "bot", "check", "--report", str(report), *extra, "--", *bot_cmd]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    data = json.loads(report.read_text()) if report.exists() else {}
    return p.returncode, p.stdout + p.stderr, data


def checks_by_name(rep: dict) -> dict:
    return {c["name"]: c for c in rep["checks"]}


# A small SDK bot; the brief checks run only the iowa games (plus connect, protocol, shutdown and policy).
SDK_BOT = textwrap.dedent("""
    from pepper_bot import Bot, main

    class MyBot(Bot):
        def decide(self, view):
            {body}

    {tail}
""")
QUICK = ("--only", "play iowa", *SLACK)


def write_bot(tmp_path, body: str = "return view['legal_actions'][-1]",
              tail: str = "if __name__ == '__main__':\n    main(MyBot())") -> str:
    f = tmp_path / "mybot.py"
    f.write_text(SDK_BOT.format(body=body, tail=tail))
    return str(f)


@pytest.mark.parametrize("kind", ["random", "heuristic", "montecarlo"])
def test_check_passes_for_the_sample_bots(tmp_path, kind):
    code, out, rep = run_check(tmp_path, sys.executable, "-m", "sample_bots", kind)
    assert code == 0, out
    assert rep["passed"] and all(c["status"] == "pass" for c in rep["checks"]), out
    names = {c["name"] for c in rep["checks"]}
    assert {"connect", "large batches", "game start and end", "shutdown", "iowa: Pepper exchange and sit-out",
            "five-handed: widow and called partner", "duplicate cards", "pepper-30: the dead hand"} <= names
    assert {f"play {r} {n}p" for r, n in [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
                                           ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4), ("five-handed", 5)]} <= names
    assert PHASES <= set(rep["coverage"]), rep["coverage"]   # the bot was asked every kind of decision
    assert checks_by_name(rep)["policy: decide() chose every answer"]["status"] == "pass"
    assert "24 checks: 24 passed, 0 failed" in out


def test_check_passes_for_a_bot_written_without_the_sdk(tmp_path):
    """It answers the first legal action every time: a strategy, which the silent-fallback probe lets pass (saying
    so), since nothing tells it from one that always fails."""
    code, out, rep = run_check(tmp_path, sys.executable, str(BOTS_DIR / "raw_bot.py"), "ok")
    assert code == 0, out
    probe = checks_by_name(rep)["policy: no silent fallbacks"]
    assert probe["notes"] == ["named trump 200 times holding no black card: S 200: always the first legal action, "
                              "which a strategy may choose; a silent fallback shows as spades now and then among "
                              "other suits"], probe


@pytest.mark.parametrize("rate,passed", [(0.3, False), (0.0, True)])
def test_a_strategy_that_falls_back_without_saying_so_fails_the_policy_probe(tmp_path, rate, passed):
    """The heuristic bot answering the first legal action itself on 30% of its decisions (unmarked, as a bot whose
    client never sets Answer.fallback): the referee counts no fallback, the probe fails it; at 0% it passes."""
    code, out, rep = run_check(tmp_path, sys.executable, str(SILENT_BOT), "--rate", str(rate),
                               extra=("--only", "policy", *SLACK), timeout=120)
    checks = checks_by_name(rep)
    assert rep["fallbacks"] == 0 and checks["policy: decide() chose every answer"]["status"] == "pass", out
    probe = checks["policy: no silent fallbacks"]
    assert (code, probe["status"]) == ((0, "pass") if passed else (1, "fail")), out
    if not passed:
        assert probe["reason"].startswith("policy error: the bot named spades, the first legal action, "), out
    else:
        assert probe["notes"] == [probe["notes"][0]] and " S " not in probe["notes"][0] + " ", probe["notes"]


@pytest.mark.parametrize("mode,reason,extra", [
    ("illegal", "illegal action: ", SLACK),
    ("crash", "crash: the bot exited with code 3", SLACK),
    ("hang", "timeout: ", ("--deadline-ms", "300", "--time-bank-ms", "300")),
])
def test_check_fails_broken_bots_with_the_right_reason(tmp_path, mode, reason, extra):
    code, out, rep = run_check(tmp_path, sys.executable, str(BOTS_DIR / "raw_bot.py"), mode, extra=extra, timeout=90)
    assert code == 1, out
    assert not rep["passed"]
    checks = {c["name"]: c for c in rep["checks"]}
    assert checks["connect"]["status"] == "pass"
    failed = [c for c in rep["checks"] if c["status"] == "fail"]
    assert failed and failed[0]["reason"].startswith(reason), failed[0]
    assert all(c["reason"].startswith(reason) for c in failed if c["name"] not in ("shutdown",)), failed
    assert f"FAIL  {failed[0]['name']}" in out
    if mode in ("crash", "hang"):
        assert checks["large batches"]["status"] == "skip"   # not run after a crash or a timeout
    if mode == "crash":
        assert "crashing on purpose" in out                   # the tail of the bot's output
    if mode == "hang":
        assert checks["shutdown"]["status"] == "pass"


def test_one_timeout_fails_its_check_only(tmp_path):
    # A bot slow once (decision 20 takes 1.7 s against 1 s + a 0.2 s bank; the requests waiting behind it
    # get 1.2 s more), then answering everything: the check with that game fails with the timeout, every
    # other check is judged on its games and the later waves run. Before, every other check of the wave
    # failed "did not finish (the bot stopped answering)" and the later waves were skipped.
    extra = ("--deadline-ms", "1000", "--time-bank-ms", "200")
    code, out, rep = run_check(tmp_path, sys.executable, str(BOTS_DIR / "raw_bot.py"), "slow-once", "--sleep", "1.7",
                               extra=extra, timeout=120)
    assert code == 1, out
    failed = [c for c in rep["checks"] if c["status"] == "fail"]
    assert failed and all(c["reason"].startswith("timeout: game ") for c in failed), out
    assert len(failed) <= 2, out   # the slow answer's check (another only if a loaded machine delayed a waiting answer)
    assert "did not finish" not in out, out
    checks = checks_by_name(rep)
    assert checks["large batches"]["status"] == "pass", out
    assert checks["game start and end"]["status"] == "pass", out


def test_check_reports_a_bot_that_never_connects(tmp_path):
    code, out, rep = run_check(tmp_path, sys.executable, "-c", "import time; time.sleep(60)", extra=("--connect-timeout", "2", *SLACK))
    assert code == 1
    assert rep["checks"][0]["name"] == "connect" and rep["checks"][0]["reason"].startswith("protocol error: no valid connection")


def test_verbose_shows_the_bots_output_which_its_log_keeps(tmp_path):
    bot = "import sys; print('hello from the bot'); print('oops on stderr', file=sys.stderr); sys.stdout.write('no newline')"
    code, out, rep = run_check(tmp_path, sys.executable, "-c", bot, extra=("-v", *QUICK), timeout=60)
    assert code == 1 and rep["checks"][0]["reason"].startswith("crash: the bot exited with code 0 before connecting"), out
    said = ["hello from the bot", "oops on stderr", "no newline"]
    assert all(line in out.splitlines() for line in said), out
    assert Path(rep["bot_log"]).read_text().splitlines() == ["hello from the bot", "oops on stderr", "no newline"]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"   # a zombie waiting for its reaper is dead
    except FileNotFoundError:
        return False


def test_the_bot_dies_with_the_checker_even_when_it_is_killed(tmp_path):
    """kill -9 of `pepper bot check` cannot stop its bot; the supervisor has Linux do it (no bot left behind)."""
    pid_file = tmp_path / "bot.pid"
    bot = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)"
    cmd = [sys.executable, "-m", "pepper_cli", "bot", "check", "--connect-timeout", "120", "--", sys.executable, "-c", bot,
           str(pid_file)]
    checker = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and checker.poll() is None, "the checker did not start the bot"
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        assert _alive(pid)
        checker.kill()
        checker.wait(10)
        deadline = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"the bot {pid} outlived its checker"
    finally:
        checker.kill()
        if pid_file.exists() and pid_file.read_text() and _alive(int(pid_file.read_text())):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_check_usage_errors(tmp_path):
    code, out, _ = run_check(tmp_path, "/no/such/bot-binary")
    assert code == 2 and "cannot start" in out


def test_the_guides_first_bot_passes_the_checker(tmp_path):
    """docs/writing-a-bot.md: the first bot, copied from the page into an empty folder, passes `pepper bot check`."""
    import re

    doc = (ROOT / "docs" / "writing-a-bot.md").read_text()
    code = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if b.startswith("# mybot.py"))
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "mybot.py").write_text(code)
    rc, out, rep = run_check(tmp_path, sys.executable, str(folder / "mybot.py"))
    assert rc == 0, out
    assert "## Node.js" in doc and "sample_bots/node/" in doc.split("## Node.js", 1)[1]


@pytest.mark.parametrize("body,kind,said", [
    ("raise KeyError('no such card')", "raised", "decide() raised KeyError('no such card')"),
    ("return 'play 7X'", "illegal", "decide() returned 'play 7X'"),
])
def test_check_fails_an_sdk_bot_whose_decide_always_fails(tmp_path, body, kind, said):
    """The SDK answers the first legal action for a broken decide(), marked as a fallback: the games pass, the
    policy check does not, and names what went wrong as the referee was told."""
    code, out, rep = run_check(tmp_path, sys.executable, write_bot(tmp_path, body), extra=QUICK, timeout=90)
    assert code == 1, out
    checks = checks_by_name(rep)
    assert checks["play iowa 4p"]["status"] == "pass" and checks["shutdown"]["status"] == "pass", out
    failed = [c for c in rep["checks"] if c["status"] == "fail"]
    assert [c["name"] for c in failed] == ["policy: decide() chose every answer"], out
    reason = failed[0]["reason"]
    n = int(reason.split("the strategy failed ")[1].split()[0])
    decisions = sum(rep["coverage"].values())
    assert n == rep["fallbacks"] == decisions > 0, (reason, rep["coverage"])
    assert "its SDK played a fallback instead" in reason and f"{kind}: {said}" in reason, reason
    assert 0 < len(rep["fallback_details"]) <= n and all(d.endswith(f"{kind}: {said}") for d in rep["fallback_details"])
    assert f"FAIL  {failed[0]['name']}" in out and f"the bot's output: {rep['bot_log']}" in out
    assert f"its fallbacks, as the referee counted them ({n} in all):" in out and f"{kind}: {said}" in out


def test_the_policy_check_reads_the_fallbacks_from_the_referee_whatever_the_bots_language(tmp_path):
    """A bot without the SDK that marks some answers as fallbacks, and logs nothing, fails the policy check."""
    code, out, rep = run_check(tmp_path, sys.executable, str(MARKING_BOT), extra=QUICK, timeout=90)
    assert code == 1, out
    failed = [c for c in rep["checks"] if c["status"] == "fail"]
    assert [c["name"] for c in failed] == ["policy: decide() chose every answer"], out
    assert rep["fallbacks"] == sum(rep["coverage"].values()) // 7, rep
    assert "raised: strategy.js threw TypeError: hand is undefined" in failed[0]["reason"], failed[0]["reason"]
    assert "raised: strategy.js threw TypeError: hand is undefined" in out


def test_check_expands_python_in_the_command(tmp_path):
    """`{python}` is the arena's interpreter, as in `pepper bot register --command` (also inside one quoted command)."""
    bot = write_bot(tmp_path)
    code, out, rep = run_check(tmp_path, "{python}", bot, extra=QUICK, timeout=90)
    assert code == 0, out
    assert rep["command"] == [sys.executable, bot] and f"pepper bot check: {sys.executable} " in out
    assert checks_by_name(rep)["policy: decide() chose every answer"]["status"] == "pass"
    code, out, rep = run_check(tmp_path, f"{{python}} {bot}", extra=("--only", "no such check", *SLACK), timeout=90)
    assert code == 0 and rep["command"] == [sys.executable, bot], out


def test_check_hints_why_a_bot_did_not_start(tmp_path):
    # Exit code 0 before connecting: the script never started the SDK.
    code, out, rep = run_check(tmp_path, sys.executable, write_bot(tmp_path, tail="x = MyBot()"), extra=QUICK, timeout=60)
    assert code == 1
    assert rep["checks"][0]["reason"] == ("crash: the bot exited with code 0 before connecting: does the script start "
                                          "the SDK (`main(MyBot())` under `if __name__ == '__main__':`)?"), out
    # Another Python (here: one that cannot see the project): the SDK's import fails.
    code, out, rep = run_check(tmp_path, sys.executable, "-I", "-S", write_bot(tmp_path), extra=QUICK, timeout=60)
    assert code == 1
    reason = rep["checks"][0]["reason"]
    assert "ModuleNotFoundError: No module named 'pepper_bot'" in reason, out
    assert "is this the project's Python? use {python} or .venv/bin/python" in reason, out
    # A .py file given as the command.
    code, out, _ = run_check(tmp_path, write_bot(tmp_path))
    assert code == 2 and "cannot start" in out and "pepper bot check -- {python} " in out, out
