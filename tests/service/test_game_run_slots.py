"""GameRun's attribute list is written three times: ``__slots__`` and ``__init__`` in games.py, and the C slots of
games.pxd (the compiled build: an attribute not declared there cannot be set). They must agree."""

from __future__ import annotations

import ast
from pathlib import Path

from referee.rules import Game
from referee.service import games
from referee.service.config import Policy

SERVICE = Path(__file__).resolve().parents[2] / "referee" / "service"


def _game_run_class() -> ast.ClassDef:
    tree = ast.parse((SERVICE / "games.py").read_text())
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GameRun")


def _slots(cls: ast.ClassDef) -> list[str]:
    node = next(n for n in cls.body if isinstance(n, ast.Assign) and n.targets[0].id == "__slots__")
    return list(ast.literal_eval(node.value))


def _assigned_in_init(cls: ast.ClassDef) -> list[str]:
    init = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    names = []
    for node in ast.walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    names.append(t.attr)
    return names


def _declared_in_pxd() -> list[str]:
    names, inside = [], False
    for line in (SERVICE / "games.pxd").read_text().splitlines():
        if line.startswith("cdef class "):
            inside = line.startswith("cdef class GameRun")
        elif inside and line and not line[0].isspace():
            inside = False
        words = line.split(None, 3)
        if inside and words[:2] == ["cdef", "public"]:
            names += [n.strip() for n in words[3].split(",")]
    return names


def test_game_run_slots_init_and_pxd_agree():
    cls = _game_run_class()
    slots, assigned, declared = _slots(cls), _assigned_in_init(cls), _declared_in_pxd()
    assert len(set(slots)) == len(slots), "a name listed twice in __slots__"
    assert len(set(declared)) == len(declared), "a name declared twice in games.pxd"
    assert sorted(set(assigned)) == sorted(slots), "__init__ must assign every slot, and nothing else"
    assert sorted(declared) == sorted(slots), "games.pxd must declare every slot of GameRun, and nothing else"


def test_a_game_run_has_every_declared_attribute():
    # The build that is loaded (compiled or PEPPER_PURE=1): each name is a real attribute of a new GameRun.
    run = games.GameRun("g", Game("iowa", seed=1), [], Policy(), 1, lambda: 1, lambda run: None)
    for name in _declared_in_pxd():
        assert hasattr(run, name), name
