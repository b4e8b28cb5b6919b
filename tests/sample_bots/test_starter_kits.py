"""The Go and C++ starter kits (sample_bots/go, sample_bots/cpp): built with their own Makefiles, their strategy's
unit tests, `pepper bot check`, and a small arena with both of them and the Python sample bots.

A kit whose toolchain is missing (`make -C <kit> missing` says what) is skipped with that note, except under
CI=true, where .ci/run installs both toolchains and a missing one fails the test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("starter-kits")

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "kits"       # where `make kits` builds them
KITS = {"go": BUILD / "go" / "pepper-go-bot", "cpp": BUILD / "cpp" / "pepper-cpp-bot"}
SLACK = ("--deadline-ms", "10000", "--time-bank-ms", "30000")  # a busy test machine must not fail the bot


def make(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def built() -> dict[str, Path]:
    """Each kit built (a no-op after `make kits`) and its unit tests passed; a kit that cannot be built here is
    left out, and the tests that need it skip (or fail under CI)."""
    kits = {}
    for kit, binary in KITS.items():
        why = make("-C", f"sample_bots/{kit}", "missing").stdout.strip()
        if why:
            continue
        for target in ("all", "test"):
            r = make("-C", f"sample_bots/{kit}", f"BUILD={BUILD / kit}", target)
            assert r.returncode == 0, f"make -C sample_bots/{kit} {target} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        assert binary.is_file() and os.access(binary, os.X_OK), binary
        kits[kit] = binary
    return kits


def need(built: dict[str, Path], kit: str) -> Path:
    if kit not in built:
        why = make("-C", f"sample_bots/{kit}", "missing").stdout.strip()
        if os.environ.get("CI") == "true":
            pytest.fail(f"the {kit} starter kit cannot be built in CI: {why}", pytrace=False)
        pytest.skip(f"the {kit} starter kit's toolchain is missing: {why}")
    return built[kit]


@pytest.mark.parametrize("kit", list(KITS))
def test_kit_passes_the_conformance_checker(built, kit, tmp_path):
    bot = need(built, kit)
    report = tmp_path / "check.json"
    r = subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "check", "--report", str(report), *SLACK, "--",
                        str(bot)], cwd=ROOT, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, f"the checker failed ({r.returncode}):\n{r.stdout[-5000:]}\n{r.stderr[-3000:]}"
    rep = json.loads(report.read_text())
    assert rep["passed"] and all(c["status"] == "pass" for c in rep["checks"]), r.stdout[-3000:]
    assert "23 checks: 23 passed, 0 failed" in r.stdout, r.stdout[-3000:]


def test_kits_play_in_an_arena(built, tmp_path):
    """Both kits registered as command bots and ranked in a short iowa pool with the Python sample bots."""
    bots = {kit: need(built, kit) for kit in KITS}
    db = tmp_path / "arena.db"
    (tmp_path / "short.toml").write_text('name = "short"\nextends = "iowa"\ndeal_cap = 1\ntarget_score = 32\n')

    def pepper(*args: str) -> subprocess.CompletedProcess:
        r = subprocess.run([sys.executable, "-m", "pepper_cli", *args, "--db", str(db)], cwd=tmp_path,
                           capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
                           env=os.environ | {"NO_COLOR": "1"})
        assert r.returncode == 0, f"pepper {' '.join(args)}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        return r

    for kit, binary in bots.items():
        pepper("bot", "register", kit, "--command", str(binary), "--cwd", str(binary.parent))
    pepper("arena", "run", "--ruleset", str(tmp_path / "short.toml"), "--bots", "go,cpp,heuristic,random",
           "--games", "8", "--seed", "1", "--quiet")
    table = {r["bot"]: r for r in json.loads(pepper("arena", "table", "--json").stdout)["short/4p"]}
    assert set(table) == {"go", "cpp", "heuristic", "random"}, table
    for kit in KITS:
        row = table[kit]
        assert row["games"] > 0, row
        assert (row["timeouts"], row["illegal"], row["crashes"], row["fallbacks"]) == (0, 0, 0, 0), row


def test_make_skips_a_kit_whose_toolchain_is_missing(tmp_path):
    """`make kits` notes the kit it cannot build, in one line, and still succeeds; `missing` names Debian's trap
    (Go protobuf 1.3 next to protoc-gen-go 1.28)."""
    r = make("kits", "GOCODE=/nonexistent")
    assert r.returncode == 0, r.stdout + r.stderr
    notes = [ln for ln in r.stdout.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith("note: sample_bots/go not built: missing "), r.stdout
    assert "/nonexistent/google.golang.org/grpc" in notes[0] and "apt-get install golang-go" in notes[0], notes
    if all(shutil.which(t) for t in ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")):
        fake = tmp_path / "gocode"   # gRPC, and a github.com/golang/protobuf without 1.4's registry.go
        (fake / "google.golang.org" / "grpc").mkdir(parents=True, exist_ok=True)
        (fake / "github.com" / "golang" / "protobuf" / "proto").mkdir(parents=True, exist_ok=True)
        out = make("-C", "sample_bots/go", "missing", f"GOCODE={fake}").stdout
        assert out.startswith("Go protobuf 1.3 is installed") and "golang-github-golang-protobuf-1-5-dev" in out, out

