"""docs/tutorial.md, run as written: its shell blocks in order, in a fresh folder, with the project's venv on PATH.

The tutorial's conventions (an HTML comment on the line before a fenced block):

- a `sh`, `bash` or `console` block is run (in a `console` block, the lines after `$ `);
- `<!-- tutorial: skip ... -->` marks a block that is not run (the clone and `make install`, done already);
- `<!-- tutorial: file NAME -->` marks a block whose text is written to the file NAME before the next block runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
BLOCK = re.compile(r"(?:<!--\s*tutorial:\s*(?P<mark>[^>]*?)\s*-->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
SHELLS = {"sh", "bash", "console"}


def steps(text: str) -> list[tuple[str, str]]:
    """The tutorial's steps in order: ("file", NAME + "\\n" + text) or ("run", shell text)."""
    out: list[tuple[str, str]] = []
    for m in BLOCK.finditer(text):
        mark, lang, body = (m["mark"] or "").strip(), m["lang"], m["body"]
        if mark.startswith("skip"):
            continue
        if mark.startswith("file"):
            name = mark.split(None, 1)[1].strip()
            out.append(("file", f"{name}\n{body}"))
        elif mark:
            raise ValueError(f"docs/tutorial.md: unknown marker <!-- tutorial: {mark} -->: use 'skip' or 'file NAME'")
        elif lang == "console":
            out.append(("run", "\n".join(ln[2:] for ln in body.splitlines() if ln.startswith("$ "))))
        elif lang in SHELLS:
            out.append(("run", body))
    return out


def test_steps_follow_the_markers():
    text = ("<!-- tutorial: skip -->\n```sh\nmake install\n```\n"
            "<!-- tutorial: file a.py -->\n```python\nprint(1)\n```\n"
            "```python\nnot run\n```\n```console\n$ echo hi\nhi\n```\n```sh\ntrue\n```\n")
    assert steps(text) == [("file", "a.py\nprint(1)\n"), ("run", "echo hi"), ("run", "true\n")]
    with pytest.raises(ValueError, match="unknown marker"):
        steps("<!-- tutorial: flie a.py -->\n```python\n```\n")


def _bot_name(runs: list[str]) -> str:
    names = [m[1] for body in runs for m in re.finditer(r"pepper bot register (\S+)", body)]
    assert len(names) == 1, f"the tutorial should register one bot, found {names}"
    return names[0]


def test_the_tutorial_runs_as_written(tmp_path):
    todo = steps(TUTORIAL.read_text())
    runs = [body for kind, body in todo if kind == "run"]
    assert any("pepper arena run" in body for body in runs) and "pepper arena table" in runs[-1]
    bot = _bot_name(runs)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PEPPER_")}
    env |= {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "100"}
    out = ""
    for kind, body in todo:
        if kind == "file":
            name, text = body.split("\n", 1)
            (tmp_path / name).write_text(text)
            continue
        r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=tmp_path, env=env | {"PWD": str(tmp_path)},
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, f"tutorial step failed (exit {r.returncode}):\n{body}\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
        out = r.stdout
    table = out.split("rank  bot", 1)
    assert len(table) == 2, f"the last step printed no ranked table:\n{out}"
    assert re.search(rf"^\s*~?\d+\s+{re.escape(bot)}\s", table[1], re.M), f"{bot} is not on the table:\n{out}"
