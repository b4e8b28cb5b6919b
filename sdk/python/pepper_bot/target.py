"""Load a bot named on a command line: ``FILE.py[:NAME]`` or ``MODULE[:NAME]``.

NAME is a :class:`~pepper_bot.Bot` subclass, any class or object with
``decide(view)``, or a function ``decide(view)``. Without ``:NAME`` the
module's one Bot subclass is used (or its one class with a ``decide`` method,
or its ``decide`` function).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path

from .bot import Bot

__all__ = ["TargetError", "load_target"]


class TargetError(Exception):
    """A TARGET that names no loadable bot; the message says what to give instead."""


def _load_module(spec: str):
    path = Path(spec)
    if spec.endswith(".py") or os.sep in spec or path.is_file():
        if not path.is_file():
            raise TargetError(f"no such file: {spec}")
        path = path.resolve()
        sys.path.insert(0, str(path.parent))   # the bot's own helper modules import as siblings
        mod_name = f"_pepper_bot_{path.stem}"
        s = importlib.util.spec_from_file_location(mod_name, path)
        if s is None or s.loader is None:
            raise TargetError(f"cannot load {spec} as a Python file")
        mod = importlib.util.module_from_spec(s)
        sys.modules[mod_name] = mod
        s.loader.exec_module(mod)
        return mod
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as e:
        if e.name and spec.startswith(e.name):
            raise TargetError(f"no module named {spec!r} (give a file path like mybot.py:MyBot, or a module on the path)") from None
        raise


def load_target(target: str):
    """The bot object a TARGET names (not yet wrapped: see :func:`pepper_bot.as_bot`)."""
    spec, _, attr = target.rpartition(":") if ":" in target and not Path(target).is_file() else (target, "", "")
    mod = _load_module(spec)
    if attr:
        try:
            obj = getattr(mod, attr)
        except AttributeError:
            raise TargetError(f"{spec} has no {attr!r}") from None
    else:
        own = [v for v in vars(mod).values() if inspect.isclass(v) and v.__module__ == mod.__name__]
        found = ([c for c in own if issubclass(c, Bot)] or [c for c in own if callable(getattr(c, "decide", None))])
        if len(found) == 1:
            obj = found[0]
        elif not found and callable(getattr(mod, "decide", None)):
            obj = mod.decide
        else:
            names = ", ".join(c.__name__ for c in found) or "none"
            raise TargetError(f"say which bot {spec} holds as {spec}:NAME (bot classes found: {names})")
    if inspect.isclass(obj):
        try:
            obj = obj()
        except TypeError as e:
            raise TargetError(f"cannot create {target}: {e} (a bot class must take no arguments)") from None
    return obj
