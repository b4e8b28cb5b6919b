"""The rule families: one module each, one :class:`~.base.Rules` per family (see :mod:`.base` for the hooks).

A new family is a new module here with its ``RULES``, an entry in :data:`FAMILIES`, a built-in ruleset in
:mod:`referee.rules.rulesets`, golden tests (``tests/rules/test_golden_<family>.py``) and a section in
docs/rules.md.
"""

from __future__ import annotations

from .base import Family, Layout, Rules
from .bid_euchre import RULES as BID_EUCHRE
from .five_handed import RULES as FIVE_HANDED
from .iowa import RULES as IOWA
from .pepper30 import RULES as PEPPER_30

__all__ = ["Family", "Layout", "Rules", "FAMILIES", "rules_of"]

#: Family -> its rules.
FAMILIES: dict[Family, Rules] = {r.family: r for r in (IOWA, BID_EUCHRE, PEPPER_30, FIVE_HANDED)}


def rules_of(family: str) -> Rules:
    """The rules of a family, by its :class:`Family` or its name (``"iowa"``)."""
    return FAMILIES[Family(family)]
