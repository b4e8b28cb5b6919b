"""The compiled rules engine, wire encoder and referee service path (setup.py): loaded when built, built from today's
sources, skipped by PEPPER_PURE=1.

A build that compiled every module writes referee/rules/_compiled_build.txt; from then on (and always in CI,
where `make install` must compile) the engine must import its extension modules, not fall back silently.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import subprocess
import sys
from pathlib import Path

import needs
import pytest

import referee.rules as rules
import referee.service as service
import referee.wire as wire

ROOT = Path(rules.__file__).resolve().parent.parent.parent
MARKER = ROOT / "referee" / "rules" / "_compiled_build.txt"
PURE = bool(os.environ.get("PEPPER_PURE"))


def _built() -> list[tuple[str, str]]:
    return [tuple(line.split()) for line in MARKER.read_text().splitlines() if line.strip()]


def _digest(module: str) -> str:
    h = hashlib.sha256()
    for suffix in (".py", ".pxd"):
        f = ROOT / (module.replace(".", "/") + suffix)
        if f.exists():
            h.update(f.read_bytes())
    return h.hexdigest()


@pytest.mark.skipif(PURE, reason="PEPPER_PURE=1 runs the .py sources on purpose (test_pure_flag checks that)")
def test_compiled_modules_load_when_built():
    if os.environ.get("CI") == "true":
        assert MARKER.exists(), "CI's `make install` did not compile the rules engine (see setup.py's notice)"
    if not MARKER.exists():
        assert not rules.COMPILED
        needs.require("compiled")
    built = _built()
    assert built, f"{MARKER} lists no module"
    for module, digest in built:
        m = importlib.import_module(module)
        assert not m.__file__.endswith(".py"), f"{module} was built but {m.__file__} was imported"
        assert digest == _digest(module), f"{module} was compiled from an older source: run `make install`"
    assert rules.COMPILED
    assert wire.COMPILED, "the wire encoder (referee.wire.codec) was not compiled with the engine"
    assert service.COMPILED, "the referee's per-decision path (referee.service.games) was not compiled with the engine"


def test_pure_flag_skips_the_extension_modules():
    code = ("import referee.rules as r, referee.rules.families.iowa as i, referee.rules.cards as c, referee.wire as w, "
            "referee.service as s, referee.service.connections, referee.service.enforcement; "
            "print(r.COMPILED, w.COMPILED, s.COMPILED, r.game.__file__, i.__file__, c.__file__, w.codec.__file__, "
            "w.convert.__file__, s.games.__file__, s.connections.__file__, s.enforcement.__file__)")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PEPPER_PURE": "1"}, cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[:3] == ["False", "False", "False"]
    assert all(f.endswith(".py") for f in out[3:]), out


def test_game_slots_match_the_pxd():
    # copy() and pickling take the compiled Game's C slots from machinery.DECLARED: a slot declared in game.pxd but
    # missing there would be silently dropped by copies (and a name listed but not declared is a typo).
    from referee.rules import game, machinery

    declared = []
    for line in (ROOT / "referee" / "rules" / "game.pxd").read_text().splitlines():
        words = line.split(None, 3)
        if words[:2] == ["cdef", "public"]:
            declared += [n.strip() for n in words[3].split(",")]
    assert sorted(declared) == sorted(machinery.DECLARED)
    assert machinery.slots_of(game.Game) == (() if PURE or not rules.COMPILED else machinery.DECLARED)
    g = game.Game("iowa", seed=3)
    for k in machinery.DECLARED:
        assert hasattr(g, k), f"Game has no {k} (declared in game.pxd)"


def _setup_modules() -> list[str]:
    """setup.py's COMPILED_MODULES, run without building anything."""
    import runpy

    import setuptools

    setup, argv = setuptools.setup, sys.argv
    setuptools.setup, sys.argv = (lambda **kw: None), ["setup.py"]
    try:
        return runpy.run_path(str(ROOT / "setup.py"))["COMPILED_MODULES"]
    finally:
        setuptools.setup, sys.argv = setup, argv


def test_every_registered_family_module_is_compiled():
    # setup.py compiles the families package's registry (FAMILY_MODULES); a family module left out of the build would
    # run as pure Python without a word. Every built-in family's rules must come from a module setup.py compiles
    # and, in a compiled build, from its extension module.
    from referee.rules.families import FAMILIES, FAMILY_MODULES, Family

    compiled = _setup_modules()
    modules = {type(r).__module__ for r in FAMILIES.values() if isinstance(r.family, Family)}
    assert modules == {f"referee.rules.families.{m}" for m in FAMILY_MODULES}
    for m in sorted(modules | {"referee.rules.families.base", "referee.rules.machinery", "referee.rules.game"}):
        assert m in compiled, f"setup.py does not compile {m}"
        if rules.COMPILED and not PURE:
            f = sys.modules[m].__file__
            assert not f.endswith(".py"), f"{m} is registered but imported from {f}, not its extension module"


def test_shuffle_draws_as_random_shuffle():
    # Game deals its decks with machinery.shuffle (compiled where built): the same seed must deal what Python's own
    # random.Random.shuffle deals, or every seeded game and record would change.
    import random

    from referee.rules.machinery import shuffle

    for seed in range(200):
        for size in (2, 3, 24, 25, 48):
            a, b = list(range(size)), list(range(size))
            r1, r2 = random.Random(seed), random.Random(seed)
            r1.shuffle(a)
            shuffle(r2, b)
            assert a == b and r1.random() == r2.random(), (seed, size)


def test_a_build_without_a_compiler_says_why_and_the_engine_reports_it(tmp_path):
    # A copy of what the build reads, built with a C compiler that does not exist: tools/build_engine.py must fail
    # (exit 1, so the Makefile writes no stamp and the next `make` tries again), say why in one line with the fix,
    # and leave the reason where referee.rules.why_pure() (pepper --version, pepper arena run) reads it.
    import shutil

    for part in ("referee", "tools"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("*.so", "*.c", "_compiled_build.*",
                                                                                     "__pycache__", "node_modules"))
    for f in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / f, tmp_path / f)
    env = {**os.environ, "CC": "/nonexistent/cc"}
    env.pop("PEPPER_PURE", None)
    built = subprocess.run([sys.executable, "tools/build_engine.py"], cwd=tmp_path, env=env, capture_output=True,
                           text=True)
    assert built.returncode == 1, built.stdout + built.stderr
    lines = built.stderr.strip().splitlines()
    assert len(lines) == 1 and "no C compiler" in lines[0] and "apt-get install gcc" in lines[0], built.stderr
    assert not (tmp_path / "referee" / "rules" / "_compiled_build.txt").exists()
    why = subprocess.run([sys.executable, "-c", "import referee.rules as r; print(r.COMPILED, r.why_pure())"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout
    assert why.startswith("False the build failed: no C compiler (/nonexistent/cc"), why
    assert "make compiled" in why


def test_version_names_the_engine_and_why_it_is_pure():
    code = "from pepper_cli.app import version_line; print(version_line())"
    pure = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PEPPER_PURE": "1"}, cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
    assert "rules engine pure Python: PEPPER_PURE=1 is set" in pure, pure
    if rules.COMPILED and not PURE:
        env = {k: v for k, v in os.environ.items() if k != "PEPPER_PURE"}
        built = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                               check=True).stdout
        assert "rules engine compiled)" in built, built
