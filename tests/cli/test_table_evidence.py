"""What the table takes its ties and head-to-head figures from, in real runs (real referee, bot processes, SQLite):
the blocks as of ``--as-of``, and never a mixed line-up's blocks, where partners share a result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from arena_cli_run import pepper

pytestmark = pytest.mark.xdist_group("arena")


def _json(tmp_path, *args: str) -> dict:
    out = pepper(tmp_path, "table", "--json", *args)
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)["short/4p"]


def test_as_of_cuts_the_ties_and_the_cross_table_where_it_cuts_the_ratings(tmp_path):
    r = pepper(tmp_path, "run", "--ruleset", "short.toml", "--bots", "heuristic,random", "--games", "16", "--planned",
               "--quiet", "--seed", "5")
    assert r.returncode == 0, r.stdout + r.stderr
    whole = _json(tmp_path, "--cross")
    early = _json(tmp_path, "--cross", "--as-of", "4", "--run", "1")
    assert [p["blocks"] for p in whole["head_to_head"]] == [8]
    assert [p["blocks"] for p in early["head_to_head"]] == [2]   # the first 4 planned games: 2 blocks, not all 8
    assert early["table"][0]["next_basis"] == "trueskill"        # too few blocks for a test
    # The wide text table with the cross-table says the same.
    text = pepper(tmp_path, "table", "--wide", "--cross", "--as-of", "4", "--run", "1")
    assert text.returncode == 0 and "too few" in text.stdout, text.stdout + text.stderr


def test_a_mixed_line_up_separates_by_trueskill_not_by_blocks_its_partners_share(tmp_path):
    reg = subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "register", "half", "--command",
                          "{python} -m sample_bots heuristic --mix 0.5", "--cwd", str(Path(__file__).parents[2]),
                          "--db", str(tmp_path / "arena.db")], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert reg.returncode == 0, reg.stdout + reg.stderr
    r = pepper(tmp_path, "run", "--ruleset", "short.toml", "--bots", "heuristic,random,half", "--games", "72",
               "--planned", "--lineup", "mixed", "--quiet", "--seed", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    rows = _json(tmp_path, "--cross")
    assert [row["next_basis"] for row in rows["table"][:-1]] == ["trueskill", "trueskill"], rows["table"]
    assert rows["head_to_head"] == []   # no block where each bot was its team alone
