"""`pepper arena run --adaptive --until-confident` as a real subprocess (real referee, bot processes, SQLite): it stops
once every adjacent pair of the table is significantly apart, says why, and the same command again plays nothing
more; with a cap too small to separate the bots it stops at the cap and says so."""

from __future__ import annotations

import re

import pytest
from arena_cli_run import games, pepper

pytestmark = pytest.mark.xdist_group("arena")
RUN = ("run", "--ruleset", "short.toml", "--bots", "heuristic,random", "--adaptive", "--until-confident", "--quiet")


def test_until_confident_stops_once_the_table_is_separated_and_resumes_to_the_same_stop(tmp_path):
    r = pepper(tmp_path, *RUN, "--games", "5000")
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^stopped: every adjacent pair of the table is significantly apart \(95% over the run.s up to \d+ looks: "
                  r"[\d.e-]+% each\) after the first (\d+) "
                  r"planned games \(heuristic > random\); the games planned after them are played too: (\d+) of the "
                  r"--games 5000 cap$", r.stdout, re.M)
    assert m, r.stdout
    basis, planned = int(m[1]), int(m[2])
    assert 0 < basis < planned < 5000 and games(tmp_path) == planned
    # The table agrees: heuristic first, and not tied with random.
    assert re.search(r"^ +1 +heuristic .*\n +2 +random ", r.stdout, re.M), r.stdout
    again = pepper(tmp_path, *RUN, "--games", "5000")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"after the first {basis} planned games" in again.stdout and games(tmp_path) == planned


def test_until_confident_stops_at_the_cap_and_needs_adaptive(tmp_path):
    r = pepper(tmp_path, *RUN, "--games", "24")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "stopped: reached the cap, --games 24, before every adjacent pair was significantly apart" in r.stdout
    assert games(tmp_path) == 24
    bad = pepper(tmp_path, "run", "--ruleset", "short.toml", "--bots", "heuristic,random", "--until-confident", "--planned")
    assert bad.returncode == 2 and "--until-confident stops between the rounds of an adaptive run: drop --planned" \
        in bad.stdout + bad.stderr
