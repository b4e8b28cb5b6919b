"""`pepper bot run TARGET`: the forms a TARGET takes (a file, a module, a sample bot's name)."""

from __future__ import annotations

import sys
import textwrap

import pytest
from pepper_bot.target import TargetError

from pepper_cli.bot import load_target


def test_load_target_forms(tmp_path, monkeypatch):
    f = tmp_path / "my_first_bot.py"
    f.write_text(textwrap.dedent("""
        from pepper_bot import Bot
        from helper_mod import pick

        class MyBot(Bot):
            def decide(self, view):
                return pick(view)

        class Other:
            pass
    """))
    (tmp_path / "helper_mod.py").write_text("def pick(view):\n    return view['legal_actions'][0]\n")
    assert type(load_target(f"{f}:MyBot")).__name__ == "MyBot"
    assert type(load_target(str(f))).__name__ == "MyBot"          # the one Bot subclass
    (tmp_path / "pkg_bots").mkdir()
    (tmp_path / "pkg_bots" / "__init__.py").write_text("")
    (tmp_path / "pkg_bots" / "fn.py").write_text("def decide(view):\n    return view['legal_actions'][-1]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    fn = load_target("pkg_bots.fn")
    assert fn({"legal_actions": ["a", "b"]}) == "b"
    assert type(load_target("sample_bots.random_bot:RandomBot")).__name__ == "RandomBot"
    assert type(load_target("montecarlo")).__name__ == "MonteCarloBot"
    with pytest.raises(TargetError, match="no such file"):
        load_target("nope/missing.py:X")
    with pytest.raises(TargetError, match="no module named"):
        load_target("no_such_module_xyz:Bot")
    with pytest.raises(TargetError, match="has no 'Nope'"):
        load_target(f"{f}:Nope")


