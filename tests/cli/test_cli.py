"""The `pepper` command line, run as a real subprocess (the installed console script)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.rules import BUILTIN_RULESETS, Game

_SCRIPT = Path(sys.executable).with_name("pepper")
PEPPER = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "pepper_cli"]
ENV = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]
JSON_KEYS = {"games": int, "deals": int, "actions": int, "seconds": float, "deals_per_second": float}


def pepper(*args, cmd=PEPPER) -> subprocess.CompletedProcess:
    return subprocess.run([*cmd, *map(str, args)], capture_output=True, text=True, timeout=300, env=ENV)


def ok(*args) -> str:
    r = pepper(*args)
    assert r.returncode == 0, f"pepper {' '.join(map(str, args))} exited {r.returncode}: {r.stderr}"
    return r.stdout


def refused(*args, code: int = 2) -> str:
    """Run a command that must fail with ``code`` and a short message; return stderr."""
    r = pepper(*args)
    assert r.returncode == code, f"expected exit {code}, got {r.returncode}; stdout {r.stdout!r} stderr {r.stderr!r}"
    assert "Traceback" not in r.stderr + r.stdout
    assert r.stderr.startswith("error: ")
    return r.stderr


def row(*cells) -> re.Pattern:
    """A table row holding these cells in order, whatever the box characters."""
    return re.compile(r"\W+".join(re.escape(str(c)) for c in cells) + r"\W")


# ----------------------------------------------------------------- help
def test_help_lists_every_command():
    out = ok("--help")
    for command in ("rules", "simulate", "play", "replay"):
        assert re.search(rf"\b{command}\b", out), command
    rules_help = ok("rules", "--help")
    assert "list" in rules_help and "show" in rules_help


def test_module_entry_point_runs():
    r = pepper("rules", "list", cmd=[sys.executable, "-m", "pepper_cli"])
    assert r.returncode == 0 and "five-handed" in r.stdout


# ---------------------------------------------------------------- rules
def test_rules_list_has_every_ruleset():
    out = ok("rules", "list")
    for rs in BUILTIN_RULESETS.values():
        assert row(rs.name, ", ".join(map(str, rs.player_counts)), rs.target_score).search(out), rs.name


@pytest.mark.parametrize("name", list(BUILTIN_RULESETS))
def test_rules_show_resolves_every_player_count(name):
    rs = BUILTIN_RULESETS[name]
    out = ok("rules", "show", name)
    assert row("target_score", rs.target_score).search(out)
    assert row("deal_cap", rs.deal_cap).search(out)
    assert row("pass_out", rs.pass_out).search(out)
    for n in rs.player_counts:
        t = rs.table(n)
        assert f"{n} players: {len(t.deck)}-card deck" in out
        assert f"{t.hand_size} cards each" in out
    # The ladder of the last player count shown, row by row.
    for lv in rs.table(rs.player_counts[-1]).ladder:
        points = "per trick" if lv.points is None else f"+/-{lv.points}"
        assert row(lv.name, lv.tricks, points, "yes" if lv.alone else "no").search(out), lv


def test_rules_show_specifics():
    five = ok("rules", "show", "five-handed")
    assert "widow of 3" in five and row("moon-shot", 9, "+/-18", "yes").search(five)
    assert "dead hand of 8" in ok("rules", "show", "pepper-30")
    assert "bids name their strain" in ok("rules", "show", "bid-euchre")
    assert "team 0 = seats 0, 2" in ok("rules", "show", "iowa")


def test_rules_show_a_ruleset_file(tmp_path):
    f = tmp_path / "short.toml"
    f.write_text('extends = "iowa"\ntarget_score = 21\npass_out = "dealer-must-bid"\nmax_bid = 5\n')
    out = ok("rules", "show", f)
    assert row("name", "short").search(out) and row("extends", "iowa").search(out)
    assert row("target_score", 21).search(out) and row("pass_out", "dealer-must-bid").search(out)
    assert row("5", 5, "per trick", "no").search(out) and not row("6", 6, "per trick", "no").search(out)


# -------------------------------------------------------------- simulate
@pytest.mark.parametrize("name,players", CASES)
def test_simulate_json_for_every_ruleset_and_player_count(name, players):
    out = ok("simulate", "--ruleset", name, "--players", players, "--games", 2, "--seed", 11, "--json")
    data = json.loads(out)  # exactly one JSON object, nothing else
    assert isinstance(data, dict) and set(data) == set(JSON_KEYS)
    for key, typ in JSON_KEYS.items():
        assert type(data[key]) is typ, (key, data[key])
    assert data["games"] == 2
    assert 2 <= data["deals"] <= 2 * BUILTIN_RULESETS[name].deal_cap
    assert data["actions"] > data["deals"]
    assert data["seconds"] > 0
    assert data["deals_per_second"] == pytest.approx(data["deals"] / data["seconds"], rel=0.01)


def test_simulate_is_reproducible_from_its_seed():
    def run(seed):
        d = json.loads(ok("simulate", "-r", "five-handed", "-g", 3, "-s", seed, "--json"))
        return d["deals"], d["actions"]

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_simulate_text_output():
    out = ok("simulate", "--ruleset", "pepper-30", "--games", 3, "--seed", 1)
    assert out.startswith("pepper-30, 4 players, seed 1")  # default player count: 4 when allowed
    assert re.search(r"^games\s+3$", out, re.M)
    assert re.search(r"^deals\s+\d+ \(\d+ thrown in\)$", out, re.M)
    assert re.search(r"^deals per second\s+\d+$", out, re.M)
    assert "2 players" in ok("simulate", "--ruleset", "pepper-30", "--players", 2, "--games", 1)


def test_simulate_rules_file_overrides_ruleset(tmp_path):
    f = tmp_path / "quick.toml"
    f.write_text('extends = "pepper-30"\nplayer_counts = [3]\ndeal_cap = 4\n')
    data = json.loads(ok("simulate", "--ruleset", "iowa", "--rules-file", f, "--games", 5, "--json"))
    assert data["games"] == 5 and 5 <= data["deals"] <= 20  # the file's deal cap, not iowa's
    assert ok("simulate", "--ruleset", "iowa", "--rules-file", f, "--games", 1).startswith("quick, 3 players")


def test_simulate_saves_records_that_replay(tmp_path):
    out = tmp_path / "records"
    data = json.loads(ok("simulate", "-r", "bid-euchre", "-p", 6, "-g", 3, "-s", 9, "--json", "--save-records", out))
    files = sorted(out.glob("game-*.json"))
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json", "game-0003.json"]
    records = [json.loads(f.read_text()) for f in files]
    assert sum(len(r["deals"]) for r in records) == data["deals"]
    assert sum(len(r["actions"]) for r in records) == data["actions"]
    assert "Result:" in ok("replay", files[0])


# ------------------------------------------------------------ play/replay
@pytest.fixture(scope="module")
def record_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rec") / "game.json"
    out = ok("play", "--ruleset", "iowa", "--seed", 3, "--out", path)
    assert "record written to" in out
    return path


def test_play_writes_a_complete_record(record_file):
    rec = json.loads(record_file.read_text())
    assert rec["format"] == "pepper-game/1" and rec["ruleset"] == "iowa" and rec["seed"] == 3
    g = Game.from_record(rec)  # the engine accepts it
    assert g.is_over and rec["outcome"]["deals"] == len(rec["deals"])
    again = json.loads(ok("play", "--ruleset", "iowa", "--seed", 3, "--out", "-"))
    assert again == rec  # same seed, same game


def test_replay_prints_the_game_deal_by_deal(record_file):
    rec = json.loads(record_file.read_text())
    out = ok("replay", record_file)
    assert len(re.findall(r"^Deal \d+, dealer seat \d$", out, re.M)) == len(rec["deals"])
    first = rec["deals"][0]
    assert f"Deal 1, dealer seat {first['dealer']}" in out
    if first["contract"]:
        c = first["contract"]
        assert f"contract: seat {c['bidder']} bid {c['bid']} in {c['trump']}" in out
    assert re.search(r"^  trick 1: (\d:\w+ ?)+ -> seat \d$", out, re.M)
    scores = rec["outcome"]["scores"]
    assert f"final scores: team 0 {scores[0]}, team 1 {scores[1]} (matches the record)" in out
    assert out.rstrip().splitlines()[-1].startswith("Result: ")


@pytest.mark.parametrize("name,players", [("five-handed", 5), ("pepper-30", 2), ("bid-euchre", 8)])
def test_replay_other_rulesets(tmp_path, name, players):
    path = tmp_path / "g.json"
    ok("play", "-r", name, "-p", players, "-s", 2, "-o", path)
    out = ok("replay", path, "--hands")
    assert out.count("  hand of seat 0: ") == len(json.loads(path.read_text())["deals"])
    assert "matches the record" in out


def _seat_and_phase_at(rec: dict, index: int) -> tuple[int, str]:
    g = Game(rec["ruleset"], rec["players"], seed=rec["seed"])
    for a in rec["actions"][:index]:
        g.apply(a)
    return g.to_act, str(g.phase)


def test_replay_of_a_tampered_record_names_the_illegal_action(record_file, tmp_path):
    rec = json.loads(record_file.read_text())
    acts = rec["actions"]
    # The first play of the game replaced by the next seat's card, which the player does not hold.
    i = next(k for k, a in enumerate(acts) if a.startswith("play"))
    acts[i] = acts[i + 1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    seat, phase = _seat_and_phase_at(rec, i)
    err = refused("replay", bad, code=1)
    assert f"illegal action at index {i} ('{acts[i]}') by seat {seat} in phase {phase}" in err
    assert phase == "play"


def test_replay_of_a_malformed_action(record_file, tmp_path):
    rec = json.loads(record_file.read_text())
    rec["actions"][2] = "jump 3"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    seat, phase = _seat_and_phase_at(rec, 2)
    err = refused("replay", bad, code=1)
    assert f"invalid action at index 2 ('jump 3') by seat {seat} in phase {phase}" in err


def test_replay_detects_a_wrong_recorded_outcome(record_file, tmp_path):
    rec = json.loads(record_file.read_text())
    rec["outcome"]["scores"] = [s + 1 for s in rec["outcome"]["scores"]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    assert "diverges" in refused("replay", bad, code=1)


def test_replay_of_an_unfinished_record(record_file, tmp_path):
    rec = json.loads(record_file.read_text())
    del rec["outcome"], rec["deals"]
    rec["actions"] = rec["actions"][:10]
    part = tmp_path / "part.json"
    part.write_text(json.dumps(rec))
    out = ok("replay", part)
    assert "Unfinished: 10 actions replayed" in out and "Result:" not in out


@pytest.mark.parametrize("extra", ["", "max_bid = 5\n"])  # unset max_bid is recorded as null
def test_replay_of_a_ruleset_file_game(tmp_path, extra):
    f = tmp_path / "to21.toml"
    f.write_text('extends = "iowa"\ntarget_score = 21\n' + extra)
    path = tmp_path / "g.json"
    ok("play", "--rules-file", f, "--seed", 4, "--out", path)
    assert json.loads(path.read_text())["ruleset_params"]["target_score"] == 21
    assert "matches the record" in ok("replay", path)


# ------------------------------------------------------------- bad input
def test_replay_bad_files(tmp_path):
    assert refused("replay", tmp_path / "missing.json") == f"error: no such file: {tmp_path / 'missing.json'}\n"
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": ')
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    for path, expected in ((broken, "is not valid JSON"), (other, "not a game record")):
        err = refused("replay", path)
        assert expected in err and err.count("\n") == 1


@pytest.mark.parametrize("args", [
    ("rules", "show", "nope"),
    ("simulate", "--ruleset", "nope", "--games", 1),
    ("play", "--ruleset", "nope"),
])
def test_unknown_ruleset(args):
    err = refused(*args)
    assert "unknown ruleset 'nope'" in err and "iowa, bid-euchre, pepper-30, five-handed" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("text,expected", [
    ('extends = "iowa"\ntarget_score = 0\n', "key 'target_score'"),
    ('extends = "iowa"\ncolour = "red"\n', "key 'colour': unknown key"),
    ('extends = "euchre"\n', "key 'extends'"),
    ('extends = [\n', "is not valid TOML"),
])
def test_bad_ruleset_file(tmp_path, text, expected):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    for args in (("rules", "show", f), ("simulate", "--rules-file", f, "--games", 1)):
        err = refused(*args)
        assert expected in err and str(f) in err and err.count("\n") == 1


def test_missing_ruleset_file(tmp_path):
    assert "ruleset file not found" in refused("simulate", "--rules-file", tmp_path / "none.toml")


@pytest.mark.parametrize("name,players,allowed", [("iowa", 3, "4"), ("pepper-30", 5, "2, 3, 4"), ("five-handed", 4, "5")])
def test_bad_player_count(name, players, allowed):
    err = refused("simulate", "--ruleset", name, "--players", players, "--games", 1)
    assert f"not played by {players} players (allowed: {allowed})" in err


def test_bad_games_count_is_a_usage_error():
    r = pepper("simulate", "--games", 0)
    assert r.returncode == 2 and "--games" in r.stderr and "Traceback" not in r.stderr
