"""The Go and C++ starter kits (sample_bots/go, sample_bots/cpp): built with their own Makefiles, their strategy's
unit tests, `pepper bot check`, reconnecting and draining against a real referee, and a small arena with both of
them and the Python sample bots.

A kit whose toolchain is missing (`make -C <kit> missing` says what) is skipped with that note, except under
CI=true, where .ci/run installs both toolchains and a missing one fails the test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import needs
import pytest
from test_node_bot import Referee, assert_node_seats_clean

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
            if r.returncode and "Permission denied" in r.stderr:
                # Once in CI the freshly linked strategy-test could not be executed at once (EACCES); not understood
                # yet. A second try of the same target says whether the kit itself is broken.
                time.sleep(2)
                r = make("-C", f"sample_bots/{kit}", f"BUILD={BUILD / kit}", target)
            assert r.returncode == 0, f"make -C sample_bots/{kit} {target} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        assert binary.is_file() and os.access(binary, os.X_OK), binary
        kits[kit] = binary
    return kits


def need(built: dict[str, Path], kit: str) -> Path:
    if kit not in built:
        needs.require(kit)
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
    assert re.search(r"\b(\d+) checks: \1 passed, 0 failed", r.stdout), r.stdout[-3000:]


class KitBot:
    """A kit's binary configured through the environment (as the arena launches it), logging to a file."""

    def __init__(self, binary: Path, tmp: Path, address: str, name: str, token: str):
        self.err_path = tmp / f"{name}-{time.monotonic_ns()}.stderr"
        env = {**os.environ, "PEPPER_REFEREE": address, "PEPPER_TOKEN": token, "PEPPER_BOT_NAME": name}
        with open(self.err_path, "w") as err:
            self.proc = subprocess.Popen([str(binary)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err)

    def stderr(self) -> str:
        return self.err_path.read_text()

    def wait(self, timeout: float = 10) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the bot did not exit within {timeout} s:\n{self.stderr()}") from None


@pytest.mark.parametrize("kit", list(KITS))
def test_kit_reconnects_then_exits_0_when_the_referee_drains(built, kit, tmp_path):
    """The stream drops (referee killed): the bot reconnects to the restarted referee and plays; when that referee
    drains (SIGTERM) the bot exits 0 instead of reconnecting. A wrong token exits 2."""
    binary = need(built, kit)
    ref = Referee(tmp_path, "127.0.0.1:0", "--shared-seats")
    bad = KitBot(binary, tmp_path, ref.address, "kit", "a-wrong-token")
    token = ref.register("kit", "kit-token")
    assert bad.wait() == 2 and "refused" in bad.stderr(), bad.stderr()
    bot = KitBot(binary, tmp_path, ref.address, "kit", token)
    try:
        ref.wait_connections("kit", 1, bot)
        address = ref.address
        ref.kill()
        time.sleep(0.5)
        assert bot.proc.poll() is None, f"the bot exited when the stream dropped:\n{bot.stderr()}"
        ref = Referee(tmp_path, address, "--shared-seats", "--bot", f"kit={token}")
        ref.wait_connections("kit", 1, bot, timeout=15)
        gid = ref.create(["kit"] * 4, "iowa", deal_cap=2, seed=4)
        assert_node_seats_clean(ref.wait_games([gid])[gid], {"kit"})
        ref.close()   # SIGTERM: the referee drains, then stops
        assert bot.wait() == 0, bot.stderr()
    finally:
        if bot.proc.poll() is None:
            bot.proc.send_signal(signal.SIGTERM)
            bot.wait()
        ref.close()
    log = bot.stderr()
    assert "reconnecting in" in log and log.count("connected as kit") == 2 and "the referee drained" in log, log


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



def test_make_kits_says_where_and_the_documented_registration_makes_each_rebuild_a_new_version(built, tmp_path):
    """`make kits` prints each binary's path; registered as docs/bots-in-any-language.md and the kit's README say,
    the binary is one of the version's files, so a rebuild that changes it is a new version."""
    import shlex

    from arena.registry import default_files, files_digest

    kits = {kit: need(built, kit) for kit in KITS}
    r = make("kits")
    assert r.returncode == 0, r.stdout + r.stderr
    for kit, binary in kits.items():
        assert f"built {binary.relative_to(ROOT)}" in r.stdout.splitlines(), r.stdout
        for doc in (ROOT / "docs" / "bots-in-any-language.md", ROOT / "sample_bots" / kit / "README.md"):
            text = doc.read_text().replace("\n", " ")
            m = re.search(rf'pepper bot register {kit} --command "\$PWD/([^"]+)" --cwd (\S+?)`?(?:\s|$)', text)
            if m is None and kit == "cpp" and doc.name == "bots-in-any-language.md":
                continue   # the guide shows the Go kit's commands only
            assert m, f"{doc}: no registration command for {kit}"
            command, cwd = str(ROOT / m[1]), str(ROOT / m[2])
            assert Path(command) == binary, (doc, command)
            files = default_files(shlex.quote(command), cwd)
            assert files, f"{doc}: the binary is not under --cwd {m[2]}: a rebuild would not be a new version"
            copy = tmp_path / kit / doc.name
            shutil.copytree(cwd, copy)
            before = files_digest(files, str(copy))
            with open(copy / files[0], "ab") as f:   # a rebuild that changes the binary
                f.write(b"\0")
            assert files_digest(files, str(copy)) != before


def test_the_guides_minimal_cpp_loop_builds_as_printed_and_exits_on_sigterm(built, tmp_path):
    """docs/bots-in-any-language.md, "The minimal loop": minimal.cc copied from the page, built with the page's
    command against the C++ kit's generated code, plays and exits 0 on SIGTERM (TryCancel ends its Read)."""
    need(built, "cpp")
    doc = (ROOT / "docs" / "bots-in-any-language.md").read_text()
    code = next(b for b in re.findall(r"```cpp\n(.*?)```", doc, re.S) if b.startswith("// minimal.cc"))
    build = next(b for b in re.findall(r"```sh\n(.*?)```", doc, re.S) if b.startswith("g++ ") and "minimal.cc" in b)
    (tmp_path / "minimal.cc").write_text(code)
    compile_cmd = build.split("\npepper bot check")[0].replace("build/kits/", f"{ROOT}/build/kits/")
    r = subprocess.run(["bash", "-c", compile_cmd], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    report = tmp_path / "check.json"
    r = subprocess.run([sys.executable, "-m", "pepper_cli", "bot", "check", "--report", str(report), *SLACK,
                        "--only", "play iowa 4p", "--only", "policy", "--", str(tmp_path / "minimal")],
                       cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:]
    checks = {c["name"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["shutdown"]["status"] == "pass" and "(code 0)" in checks["shutdown"]["reason"], checks["shutdown"]
