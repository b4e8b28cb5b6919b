"""Enforcement: what a fault leads to, what the public may see of it, and how long a seat may think.

Pure (no protobuf, no asyncio): the game runs (:mod:`.games`) ask here and apply
the answer. tests/service/test_enforcement.py checks it in milliseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from referee.rules.status import SeatStatus

if TYPE_CHECKING:
    from .config import Policy


class FaultKind(StrEnum):
    """What a seat did wrong. The values are the protocol's words (``FAULT_KIND_<NAME>``)."""

    ILLEGAL = "illegal"          # a well-formed answer naming an action that is not legal
    MALFORMED = "malformed"      # an answer that names no action, or one out of range
    TIMEOUT = "timeout"          # no answer within the deadline plus the seat's time bank
    DISCONNECT = "disconnect"    # the connection serving the seat was lost


class Verdict(StrEnum):
    """What a fault leads to (a game's failure policy; the protocol's ``FAILURE_POLICY_<NAME>``)."""

    FALLBACK = "fallback"        # the referee plays the first legal action and the game goes on
    FORFEIT = "forfeit"          # the seat's team loses the game
    ABORT = "abort"              # the game ends without a result


@dataclass(frozen=True)
class Ruling:
    """The verdict on one fault, and why when it is harsher than the policy for that kind."""

    verdict: Verdict
    seat_status: SeatStatus
    note: str = ""               # " (more than N faults)" when max_faults turned a fallback into a forfeit


def rule(policy: Policy, kind: FaultKind, seat_faults: int) -> Ruling:
    """The ruling on a fault of ``kind``; ``seat_faults``: the seat's faults in this game, this one included.

    A fallback beyond ``policy.max_faults`` becomes a forfeit: a bot that keeps failing
    must not be auto-played through a whole game.
    """
    verdict = policy.for_fault(kind)
    note = ""
    if verdict is Verdict.FALLBACK and policy.max_faults and seat_faults > policy.max_faults:
        verdict, note = Verdict.FORFEIT, f" (more than {policy.max_faults} faults)"
    if verdict is Verdict.FALLBACK:
        status = SeatStatus.DISCONNECTED if kind is FaultKind.DISCONNECT else SeatStatus.FAULTED
    else:
        status = SeatStatus.FORFEITED if verdict is Verdict.FORFEIT else SeatStatus.ABORTED
    return Ruling(verdict, status, note)


QUOTE_CHARS = 200          # the most of a bot's own text that a fault or a fallback detail quotes
DETAIL_CHARS = 1_000       # the most characters of one fault's detail (a quote, the legal actions, the ruling)
MAX_ACTION_CHARS = 64      # a longer answer text is malformed unread: the longest action is 20 ("bid double-pepper NT")


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, marked with its full length: what a bot sent is kept bounded."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text)} characters]"


def public_detail(kind: FaultKind, detail: str) -> str:
    """A fault's detail as shown while the game runs.

    An illegal or malformed answer's detail lists the legal actions, which are
    the seat's cards: withheld until the game is over. A timeout's or a
    disconnect's detail shows nothing of the deal.
    """
    if kind in (FaultKind.TIMEOUT, FaultKind.DISCONNECT):
        return detail
    return f"{kind} answer (the answer and the legal actions are shown once the game is over)"


def public_fallback(action: str) -> str:
    """The fallback action as shown while the game runs: a card given or discarded face down is withheld."""
    if action.startswith(("give ", "discard ")) and action != "give none":
        return ""
    return action


class TimeBank:
    """A seat's reserve for the game, in ms: drawn when a decision overruns its deadline."""

    __slots__ = ("ms",)

    def __init__(self, ms: float):
        self.ms = float(ms)

    @property
    def left_ms(self) -> int:
        """What is left, as the protocol shows it (never negative)."""
        return int(self.ms) if self.ms > 0.0 else 0


class RequestClock:
    """One decision request's time limits: its deadline and its seat's time bank.

    When the clock runs is the connection's business (:class:`.connections.Connection`: one request at a time,
    from when the bot could start on it); this says when a request started at a given time expires, and
    charges the time the bot spent on it.
    """

    __slots__ = ("deadline_ms", "bank")

    def __init__(self, deadline_ms: int, bank: TimeBank):
        self.deadline_ms = deadline_ms
        self.bank = bank

    def expires(self, start: float) -> float:
        """When the request times out if the bot could start on it at ``start`` (seconds, the loop's clock):
        after its deadline plus what is left of the bank."""
        bank = self.bank.ms
        return start + (self.deadline_ms + (bank if bank > 0.0 else 0.0)) / 1000.0

    def charge(self, spent_ms: float) -> bool:
        """The bot spent ``spent_ms`` on this decision: an overrun of the deadline is drawn from the bank.
        False when it took longer than the deadline plus the bank: a timeout (see :meth:`time_out`)."""
        over = spent_ms - self.deadline_ms
        if over <= 0.0:
            return True
        bank = self.bank
        if over > bank.ms:
            return False
        bank.ms -= over
        return True

    def time_out(self) -> None:
        """No answer in time: the bank is spent."""
        self.bank.ms = 0.0


def shared_ms(start: float, now: float, answers: int) -> float:
    """The time charged to each of ``answers`` answers that arrived together at ``now``, the bot having been
    able to start on the first of them at ``start`` (seconds): they share it equally, in ms."""
    return (now - start) * 1000.0 / answers
