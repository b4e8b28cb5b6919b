"""Typed errors. Each names what was wrong, where, and what is allowed."""

from __future__ import annotations

__all__ = ["RulesError", "NotationError", "RulesetError", "ActionError", "InvalidActionError", "IllegalActionError", "GameOverError",
           "DealOverError", "DealInProgressError", "RecordError", "ReplayMismatchError"]


class RulesError(Exception):
    """Base class of every error the rules engine raises."""


class NotationError(RulesError, ValueError):
    """A card, strain or action written wrongly (``Card.parse("ZZ")``). Says what was expected."""

    def __init__(self, message: str, *, text: object = None):
        self.text = text
        super().__init__(message)


class RulesetError(RulesError, ValueError):
    """A ruleset name, file or parameter is not valid."""

    def __init__(self, message: str, *, key: str | None = None, allowed: str | None = None, source: str | None = None):
        self.key, self.allowed, self.source = key, allowed, source
        super().__init__(message + (f" (allowed: {allowed})" if allowed else ""))


class ActionError(RulesError, ValueError):
    """An action was refused. Names the phase, the seat and the action."""

    def __init__(self, message: str, *, phase, seat: int | None, action, legal=()):
        self.phase, self.seat, self.action, self.legal = phase, seat, action, tuple(legal)
        super().__init__(message)


class InvalidActionError(ActionError):
    """The action is malformed: not an action at all, or not of the kind asked for."""


class IllegalActionError(ActionError):
    """The action is well-formed but the rules forbid it here."""


class GameOverError(RulesError):
    """An action was applied to a game that is over."""


class DealOverError(RulesError):
    """An action was applied to a deal that is over and held for inspection (``Game(hold_finished_deal=True)``):
    ``Game.next_deal()`` deals the next one. ``deal`` is the held deal's number, ``action`` the action refused."""

    def __init__(self, message: str, *, deal: int, action=None):
        self.deal, self.action = deal, action
        super().__init__(message)


class DealInProgressError(RulesError):
    """``Game.next_deal()`` was called while a deal is being played (it follows a held deal only)."""

    def __init__(self, message: str, *, deal: int):
        self.deal = deal
        super().__init__(message)


class RecordError(RulesError, ValueError):
    """A game record is malformed: not a record, or missing or mistyped fields."""


class ReplayMismatchError(RulesError):
    """A record replayed legally but to a different outcome than it recorded."""
