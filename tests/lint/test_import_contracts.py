"""The import contracts `make lint` enforces (.importlinter, tools/import_contracts.py) catch what they promise: the
project's Python packages and its lint config are copied into a temporary folder, a probe module is planted there,
and the same lint-imports command the Makefile's lint target runs (with this venv) must fail naming the probe's
import. The unmodified copy passes."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / ".importlinter"


def _lint_imports_command() -> list[str]:
    """The Makefile lint target's lint-imports line, with this venv's bin for $(BIN)."""
    recipe = re.search(r"^lint:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe, "no lint target in the Makefile"
    [line] = [x.strip() for x in recipe.group(1).splitlines() if "lint-imports" in x]
    return line.replace("$(BIN)", str(Path(sys.executable).parent)).split()


def _root_packages() -> list[str]:
    cfg = configparser.ConfigParser()
    cfg.read(CONFIG)
    return cfg["importlinter"]["root_packages"].split()


def _copy_sources(src: Path, dst: Path) -> None:
    """The package's .py files alone (no build output, no node_modules, no other kits' files)."""
    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n in ("__pycache__", "node_modules", "build")
                or (Path(folder, n).is_file() and not n.endswith(".py"))]
    shutil.copytree(src, dst, ignore=ignore)


def _tree(tmp_path: Path) -> Path:
    """A copy of the root packages (the SDK's at the top too: the working directory comes first on lint-imports' path, ahead
    of the venv's editable install of the real ones), .importlinter and the contract type it names."""
    for pkg in _root_packages():
        src = next(p for p in (ROOT / pkg, ROOT / "sdk" / "python" / pkg) if p.is_dir())
        _copy_sources(src, tmp_path / pkg)
    shutil.copy(CONFIG, tmp_path / ".importlinter")
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "import_contracts.py", tmp_path / "tools")
    return tmp_path


def _lint(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(_lint_imports_command(), cwd=tree, capture_output=True, text=True, timeout=120)


def test_the_unmodified_copy_keeps_every_contract(tmp_path):
    out = _lint(_tree(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"Contracts: \d+ kept, 0 broken", out.stdout)


# (the file planted, what it says, the imports the output must name as "importer -> imported"). All are planted in
# one copy and checked by one run (each run takes seconds): every contract lists each of its illegal imports.
PROBES = {
    "rules-numpy": ("referee/rules/_probe_numpy.py", "import numpy\n", ["referee.rules._probe_numpy -> numpy"]),
    "rules-proto": ("referee/rules/_probe_proto.py", "import pepper_proto\n", ["referee.rules._probe_proto -> pepper_proto"]),
    "web-ray": ("web/_probe.py", "import ray\n", ["web._probe -> ray"]),
    "arena-ray": ("arena/_probe_ray.py", "import ray\n", ["arena._probe_ray -> ray"]),
    "arena-docker": ("arena/_probe_docker.py", "import docker\n", ["arena._probe_docker -> docker"]),
    "supervisor-docker": ("supervisor/_probe.py", "import docker\n", ["supervisor._probe -> docker"]),
    "arena-fastapi": ("arena/_probe_fastapi.py", "import fastapi\n", ["arena._probe_fastapi -> fastapi"]),
    "cli-starlette": ("pepper_cli/_probe.py", "import starlette\n", ["pepper_cli._probe -> starlette"]),
    "bots-service": ("sample_bots/_probe.py", "import referee.service\nimport supervisor\n",
                     ["sample_bots._probe -> referee.service", "sample_bots._probe -> supervisor"]),
    "sdk-rules": ("pepper_bot/_probe_rules.py", "import referee.rules\n", ["pepper_bot._probe_rules -> referee.rules"]),
    "sdk-typer": ("pepper_bot/_probe_typer.py", "import typer\n", ["pepper_bot._probe_typer -> typer"]),
    "proto-sdk": ("pepper_proto/_probe.py", "import pepper_bot\n", ["pepper_proto._probe -> pepper_bot"]),
    "migrations-live": ("arena/store/migrations.py", "\nfrom arena.ratings import Pool  # noqa\n",
                        ["arena.store.migrations -> arena.ratings"]),
    "frozen-live": ("arena/store/frozen.py", "\nimport referee.rules  # noqa\n",
                    ["arena.store.frozen -> referee.rules"]),
}


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> subprocess.CompletedProcess:
    """The copy with every probe planted (a new module, or a line added to an existing one), and its lint run."""
    tree = _tree(tmp_path_factory.mktemp("probed"))
    for path, text, _ in PROBES.values():
        with open(tree / path, "a") as f:
            f.write(text)
    return _lint(tree)


@pytest.mark.parametrize("probe", PROBES)
def test_a_planted_import_breaks_a_contract_naming_it(probed, probe):
    assert probed.returncode != 0, probed.stdout
    for link in PROBES[probe][2]:
        assert re.search(rf"^\s*-?\s*{re.escape(link)} \(l\.\d+", probed.stdout, re.M), (link, probed.stdout)
