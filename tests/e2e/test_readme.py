"""README.md's "Your bot in four steps", as written: the bot from the page is checked, registered and ranked."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEPPER = [sys.executable, "-m", "pepper_cli"]


def _steps() -> tuple[str, list[str]]:
    """The README's Python bot and the shell lines of its step 2."""
    readme = (ROOT / "README.md").read_text()
    part = readme.split("## Your bot in four steps", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", part, re.S)[0]
    sh = re.findall(r"```sh\n(.*?)```", part, re.S)[0]
    return code, [ln.split("#", 1)[0].strip() for ln in sh.splitlines() if ln.strip()]


def test_the_readme_bot_is_checked_registered_and_ranked(tmp_path):
    code, lines = _steps()
    code = "\n".join(ln[3:] if ln.startswith("   ") else ln for ln in code.splitlines())   # the list's indent
    (tmp_path / "mybot.py").write_text(code)
    check, register = lines
    assert check.startswith(".venv/bin/pepper bot check -- ") and register.startswith(".venv/bin/pepper bot register ")
    env = os.environ | {"PEPPER_ARENA_DB": str(tmp_path / "arena.db"), "PWD": str(tmp_path)}
    # Step 2 as printed, run from the folder holding mybot.py (the project's .venv/bin stands for this interpreter).
    argv = [a.replace(".venv/bin/python", sys.executable).replace("$PWD", str(tmp_path))
            for a in shlex.split(check.replace('"$PWD"', "$PWD"))[1:]]
    cut = argv.index("--")
    argv[cut:cut] = ["--report", str(tmp_path / "check.json")]
    r = subprocess.run([*PEPPER, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert json.loads((tmp_path / "check.json").read_text())["passed"]
    argv = [a.replace("$PWD", str(tmp_path)) for a in shlex.split(register.replace('"$PWD"', "$PWD"))[1:]]
    r = subprocess.run([*PEPPER, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    # Step 3, small: the arena launches the registered command and ranks the bot.
    r = subprocess.run([*PEPPER, "arena", "run", "--games", "4", "--bots", "mybot,random", "--seed", "3"], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    r = subprocess.run([*PEPPER, "arena", "table", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    rows = rows.get("pools", rows) if isinstance(rows, dict) else rows
    assert "mybot" in json.dumps(rows) and "random" in json.dumps(rows), r.stdout[:2000]
