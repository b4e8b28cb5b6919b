"""docs/bots-in-any-language.md: each language's protoc command, taken from the page and run as printed (in a
temporary folder holding proto/), writes the files the page names; the Go code compiles and the Python code
imports. A command whose generator is not installed is skipped, except Go and C++ under CI=true (.ci/run
installs them)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "bots-in-any-language.md"

# language -> files its command must write (relative to the folder it runs in)
EXPECTED = {
    "Go": ["gen/go/pepperarena.dev/pepper/v1/bot.pb.go", "gen/go/pepperarena.dev/pepper/v1/bot_grpc.pb.go",
           "gen/go/pepperarena.dev/pepper/v1/game.pb.go", "gen/go/pepperarena.dev/pepper/v1/control_grpc.pb.go"],
    "C++": ["gen/cpp/pepper/v1/bot.pb.cc", "gen/cpp/pepper/v1/bot.grpc.pb.h", "gen/cpp/pepper/v1/game.pb.h"],
    "Java": ["gen/java/dev/pepperarena/pepper/v1/BotServiceGrpc.java", "gen/java/dev/pepperarena/pepper/v1/SeatView.java",
             "gen/java/dev/pepperarena/pepper/v1/GameProto.java"],
    "Python": ["gen/python/pepper/v1/bot_pb2.py", "gen/python/pepper/v1/bot_pb2_grpc.py", "gen/python/pepper/v1/game_pb2.pyi"],
    "C#": ["gen/csharp/Bot.cs", "gen/csharp/Game.cs", "gen/csharp/Control.cs"],
    "PHP": ["gen/php/PepperArena/Pepper/V1/BotServiceClient.php", "gen/php/PepperArena/Pepper/V1/SeatView.php",
            "gen/php/GPBMetadata/Pepper/V1/Game.php"],
    "Ruby": ["gen/ruby/pepper/v1/bot_pb.rb", "gen/ruby/pepper/v1/bot_services_pb.rb", "gen/ruby/pepper/v1/game_pb.rb"],
    "Objective-C": ["gen/objc/pepper/v1/Bot.pbobjc.h", "gen/objc/pepper/v1/Game.pbobjc.m"],
}
CI_REQUIRED = {"Go", "C++"}   # .ci/run installs their toolchains


def doc_commands() -> dict[str, str]:
    """language -> the command of its section ("### Go (ran)" then a ```sh block), comments dropped."""
    found = {}
    for lang, block in re.findall(r"^### (.+?) \((?:ran|generated)\)\n.*?```sh\n(.*?)```", DOC.read_text(), re.S | re.M):
        lines = [ln for ln in block.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        found[lang] = "\n".join(lines)
    return found


COMMANDS = doc_commands()


def test_the_page_has_a_command_for_every_language():
    assert set(COMMANDS) == set(EXPECTED), sorted(COMMANDS)


# Output flags served by protoc itself, or by a plugin the command names with --plugin.
BUILT_IN = {"cpp", "java", "python", "pyi", "csharp", "php", "ruby", "objc", "grpc", "grpc_python", "grpc-java"}


def tools_of(command: str) -> list[str]:
    """What a command runs: protoc (not for `python -m grpc_tools.protoc`), protoc-gen-NAME for a --NAME_out
    protoc does not serve itself, and every $(command -v TOOL)."""
    tools = ["protoc"] if re.search(r"(^|&& )protoc ", command) else []
    tools += [f"protoc-gen-{name}" for name in re.findall(r"--([a-z_-]+)_out=", command) if name not in BUILT_IN]
    return tools + re.findall(r"\$\(command -v ([\w-]+)\)", command)


@pytest.mark.parametrize("lang", list(EXPECTED))
def test_the_command_runs_as_printed(lang, tmp_path):
    command = COMMANDS[lang]
    missing = [t for t in tools_of(command) if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI") == "true" and lang in CI_REQUIRED:
            pytest.fail(f"{lang}: {', '.join(missing)} not installed in CI (see .ci/run)", pytrace=False)
        pytest.skip(f"{lang}: {', '.join(missing)} not installed")
    (tmp_path / "proto").symlink_to(ROOT / "proto")
    if command.startswith("mkdir -p gen/python && python "):     # the page's `python`: this interpreter
        command = command.replace(" python ", f" {shlex.quote(sys.executable)} ", 1)
    r = subprocess.run(["bash", "-c", "set -e\n" + command], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{lang}: {command}\n{r.stdout}\n{r.stderr}"
    absent = [f for f in EXPECTED[lang] if not (tmp_path / f).is_file()]
    assert not absent, (absent, sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "gen").rglob("*"))[:40])
    if lang == "Go":    # the generated package compiles, in GOPATH mode against Debian's Go packages
        (tmp_path / "gopath").mkdir()
        (tmp_path / "gopath" / "src").symlink_to(tmp_path / "gen" / "go")
        env = os.environ | {"GO111MODULE": "off", "GOPATH": f"{tmp_path / 'gopath'}:/usr/share/gocode", "GOFLAGS": "",
                            "GOPROXY": "off"}
        b = subprocess.run(["go", "build", "pepperarena.dev/pepper/v1"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
        assert b.returncode == 0, b.stderr
    if lang == "Python":
        i = subprocess.run([sys.executable, "-c", "from pepper.v1 import bot_pb2, bot_pb2_grpc\n"
                            "print(bot_pb2.Hello(bot_name='x').bot_name, bot_pb2_grpc.BotServiceStub.__name__)"],
                           cwd=tmp_path / "gen" / "python", capture_output=True, text=True, timeout=60)
        assert i.stdout.split() == ["x", "BotServiceStub"], i.stderr
