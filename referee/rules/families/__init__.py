"""The rule families: one module each, one :class:`~.base.Rules` per family (see :mod:`.base` for the hooks).

:data:`FAMILY_MODULES` is the registry: each module named there defines ``RULES`` and is imported and registered
here, and setup.py compiles each of them (with :mod:`.base`), reading the tuple without importing the package.
A family outside this package (a test's, say) joins with :func:`register`.

Adding a built-in family:

1. ``families/<module>.py``: a :class:`~.base.Rules` subclass (or a subclass of the family it varies) that sets
   ``family`` and overrides the hooks where its rules differ, and ``RULES = <its class>()``.
2. What its hooks keep between calls within a deal: a :class:`~.base.DealState` subclass (``__slots__``, every
   field set in ``__init__``; a variant of a family that has one extends that one), returned by its
   ``deal_state`` hook; the hooks reach it as ``g.family_state``. The hooks change the game only through its
   family interface (``Game.log_event``, ``tell``, ``ask``, ``ask_next``, ``ask_discards``, ``start_play``,
   ``watch_plays``, ``set_partner_card``, ``set_partner``), never its underscored attributes.
3. Its name in :class:`~.base.Family`, and the module in :data:`FAMILY_MODULES` (which also compiles it).
4. A built-in ruleset naming it in :data:`referee.rules.rulesets.BUILTIN_RULESETS`.
5. Golden tests (``tests/rules/test_golden_<family>.py``) and a section in docs/rules.md; then ``make compiled``.

tests/rules/test_add_a_family.py follows steps 1, 2 and 4 with a toy family registered by :func:`register`.
"""

from __future__ import annotations

from importlib import import_module

from .base import DealState, Family, Layout, Rules

__all__ = ["Family", "Layout", "Rules", "DealState", "FAMILIES", "FAMILY_MODULES", "register", "rules_of"]

#: The family modules of this package, each defining ``RULES``: the built-in families, in this order. A literal
#: tuple of names: setup.py reads it (ast.literal_eval) to compile each module.
FAMILY_MODULES = ("iowa", "bid_euchre", "pepper30", "five_handed")

#: Family name -> its rules (the built-ins keyed by their :class:`Family`, which equals its name).
FAMILIES: dict[Family | str, Rules] = {}


def register(rules: Rules) -> Rules:
    """Add a family's rules under ``rules.family``, its name as rulesets give it; returns ``rules``.

    A :class:`~referee.rules.rulesets.Ruleset` naming that family then runs on these rules. Registering a
    name twice is a ValueError: remove the first (``del FAMILIES[name]``) to replace it.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"register() takes a Rules instance, got {type(rules).__name__}")
    name = getattr(rules, "family", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{type(rules).__name__}.family must name the family (a Family or a non-empty string)")
    if name in FAMILIES:
        raise ValueError(f"the family {name!r} is already registered ({type(FAMILIES[name]).__name__})")
    FAMILIES[name] = rules
    return rules


for _module in FAMILY_MODULES:
    register(import_module(f"{__name__}.{_module}").RULES)


def rules_of(family: str) -> Rules:
    """The rules of a registered family, by its :class:`Family` or its name (``"iowa"``)."""
    try:
        return FAMILIES[family]
    except KeyError:
        raise ValueError(f"{family!r} is not a registered family (registered: {', '.join(FAMILIES)})") from None
