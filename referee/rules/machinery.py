"""The machinery beside :class:`~referee.rules.game.Game`'s rules: its state as data (the C slots of the compiled
build, copies, pickling), the shuffle, and the values every game shares (events, tricks, contracts, bid tables).

None of it decides anything about Pepper; it makes the compiled Game (setup.py, game.pxd) fast and small and lets
a game be copied and pickled whether compiled or not. machinery.pxd declares this module's compiled parts.
"""

from __future__ import annotations

import random
from dataclasses import fields
from types import MappingProxyType
from typing import TYPE_CHECKING

from . import actions as A
from .cards import CARDS
from .events import PUBLIC, Contract, DealResult, EventKind, shared
from .families.base import DealState

if TYPE_CHECKING:
    from .rulesets import Table

__all__ = ["DECLARED", "slots_of", "state_of", "restore", "copied", "shuffle", "untrack", "made", "contract", "small",
           "RESULT_FIELDS", "PAIRS", "HAND_EVENTS", "TRICK_EVENTS", "play_events", "bid_ids", "positive"]

# ------------------------------------------------------------------ the state as data

#: The attributes that game.pxd declares, for the compiled Game to keep in C slots rather than in its __dict__.
#: Keep in step with game.pxd (tests/rules/test_compiled_build.py compares the two).
DECLARED = ("ruleset", "rules", "table", "players", "seed", "target_score", "deal_cap", "_rng", "first_dealer",
            "start_scores", "outcome", "_family", "_rung_of", "dealer", "scores", "deals", "decks_dealt", "history", "_log",
            "_decks", "_legal_of", "_apply_of", "_bids_from", "_play_events", "hands", "widow", "dead_hand", "_bids",
            "_queue", "_private", "_next", "_trick_seats", "_trick_cards", "_tricks", "tricks_won", "phase",
            "to_act", "contract", "_level", "_high_bidder", "_leader", "_partner_card", "_partner", "_legal",
            "family_state", "_sitting_out", "_dealt_widow", "_high", "_trump", "_discards_left", "_n_active",
            "_deal_start", "_ceded", "_watch_plays", "hold_finished_deal", "_held", "_hand_size", "_has_copies",
            "_plays_follow_suit")

_SLOTS: dict[type, tuple[str, ...]] = {}


def slots_of(cls: type) -> tuple[str, ...]:
    """The attributes that copies and pickles read and write beside ``cls``'s instance ``__dict__``: compiled, every
    declared one (each is a descriptor on the class); uncompiled none, for every attribute is in ``__dict__``."""
    got = _SLOTS.get(cls)
    if got is None:
        got = _SLOTS[cls] = tuple(k for k in DECLARED if k in vars(cls))
    return got


def state_of(g) -> dict:
    """A game's state: its ``__dict__`` and, compiled, its C slots."""
    d = dict(vars(g))
    for k in slots_of(type(g)):
        d[k] = getattr(g, k)
    return d


def restore(g, state: dict) -> None:
    """Set a game's state from :func:`state_of`'s (a slot missing from ``state`` is left alone)."""
    slots = slots_of(type(g))
    vars(g).update({k: v for k, v in state.items() if k not in slots})
    for k in slots:
        if k in state:
            setattr(g, k, state[k])


def copied(v):
    """A copy of a piece of game state: lists and dicts (and those they hold) and a family's :class:`DealState`
    copied, everything else shared."""
    if type(v) is list:
        return [copied(x) for x in v] if v and type(v[0]) in (list, dict) else list(v)
    if type(v) is dict:
        return {k: copied(x) for k, x in v.items()}
    if isinstance(v, DealState):
        return v.copy()
    return v


def copied_rng(rng: random.Random) -> random.Random:
    r = random.Random()
    r.setstate(rng.getstate())
    return r


# ------------------------------------------------------------------ the shuffle

_BIT_LENGTH = [n.bit_length() for n in range(129)]   # a deck holds at most 48 cards


def shuffle(rng: random.Random, x: list) -> None:
    """``rng.shuffle(x)``, draw for draw (so the same seed deals the same decks), with the loop compiled
    (machinery.pxd) where random.shuffle's runs a Python call per card: Python 3.11's shuffle and _randbelow."""
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        bits = _BIT_LENGTH[n]
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        x[i], x[j] = x[j], x[i]


# ------------------------------------------------------------------ the C API, where compiled

#: ``untrack(t)``: compiled, the C API's ``PyObject_GC_UnTrack`` (machinery.pxd and game.pxd declare it), which
#: stops the cyclic GC visiting ``t``; in pure Python, nothing. For the tuples a game keeps by the thousand
#: (events, tricks): they hold ints, None, enum members and tuples of those, so can be in no reference cycle. (The
#: GC untracks a tuple of atoms itself, but not one holding an enum member, as every event does, and walked them
#: all at each collection.) Bound through globals(): Cython resolves the name to the C function and must see no
#: assignment.
globals()["_untrack"] = lambda t: None
untrack = globals()["_untrack"]

#: ``_set_slot(obj, name, value)``: ``object.__setattr__``, past a frozen dataclass's refusing ``__setattr__``.
#: Compiled, the C API's ``PyObject_GenericSetAttr`` (machinery.pxd declares it): no Python call, no argument tuple.
#: Bound through globals(): Cython resolves the name to the C function and must see no definition of it here.
globals()["_set_slot"] = object.__setattr__


def _field_names(cls) -> tuple:
    """A frozen slots dataclass's field names, in field order (see :func:`made`)."""
    return tuple(f.name for f in fields(cls))


def made(cls, names: tuple, values: tuple, more: tuple):
    """``cls(*values, *more)`` for a frozen slots dataclass given every field, without its Python ``__init__``
    (which sets each field through ``object.__setattr__`` in interpreted code: a Contract cost ~0.5 us, a
    DealResult ~1 us). The same value: every slot set once, in field order. Untracked by the GC: a Contract or
    DealResult holds ints, strings, enum members, tuples, a Contract and the game's log, which never holds it."""
    obj = object.__new__(cls)
    n = len(values)
    for i in range(n):
        _set_slot(obj, names[i], values[i])  # noqa: F821 (bound through globals())
    for i in range(len(more)):
        _set_slot(obj, names[n + i], more[i])  # noqa: F821 (bound through globals())
    _untrack(obj)  # noqa: F821 (bound through globals())
    return obj


# ------------------------------------------------------------------ values every game shares

_shared = shared   # events.shared: one tuple per distinct small event, shared by every game's log
E_HAND, E_TRICK, E_PLAY = EventKind.HAND, EventKind.TRICK, EventKind.PLAY

#: The HAND entry of each seat (its data: how far back its deal's DEAL entry is), shared by every game.
HAND_EVENTS = tuple([_shared(e, e) for e in [(E_HAND, s, s + 1, s) for s in range(8)]])

#: The TRICK entry of each winner and distance back to the lead (below 16; further ones through events.shared).
TRICK_EVENTS = tuple([tuple([_shared(e, e) for e in [(E_TRICK, w, back, PUBLIC) for back in range(16)]]) for w in range(8)])

#: PAIRS[seat][card]: the (seat, card) play of a trick, shared by every trick of every game (an int pair).
PAIRS = tuple(tuple((s, c) for c in range(len(CARDS))) for s in range(8))

_PLAY_EVENTS: dict[int, tuple] = {}


def play_events(players: int) -> tuple[tuple[tuple, ...], ...]:
    """The PLAY event of each (seat, card), shared by every game at a table of ``players`` (events.SHARED_EVENTS)."""
    got = _PLAY_EVENTS.get(players)
    if got is None:
        got = _PLAY_EVENTS[players] = tuple(tuple(_shared(e := (E_PLAY, s, c, PUBLIC), e) for c in range(len(CARDS)))
                                            for s in range(players))
    return got


_CONTRACT_FIELDS = _field_names(Contract)
#: DealResult's fields, in order, for :func:`made`.
RESULT_FIELDS = _field_names(DealResult)

#: One Contract per distinct (bidder, bid, trump, alone, tricks needed), shared by every game's deals (a bounded set).
_CONTRACTS: dict[tuple, Contract] = {}


def contract(values: tuple) -> Contract:
    """The Contract of ``values`` (its fields, in order), shared."""
    c = _CONTRACTS.get(values)
    if c is None:
        c = _CONTRACTS[values] = made(Contract, _CONTRACT_FIELDS, values, ())
    return c


#: ``small(t, t)``: ``t``, or an equal tuple already kept: a deal's tricks won per seat and points per team (ints
#: bounded by the table and the ladder), shared by every game's results.
small = {}.setdefault


def _bid_tables(t: Table) -> tuple[tuple[tuple[list[int], list[int]], ...], MappingProxyType]:
    """((ids of every bid at or above each rung, the same after a pass), action id -> rung) of a table's ladder."""
    per_level = [[A.bid_action_id(lv.index, s) for s in range(5)] if t.bid_names_strain else [A.bid_action_id(lv.index, None)]
                 for lv in t.ladder]
    # Immutable containers, so that Game.copy() shares them (the lists inside are legal lists: never mutated).
    return (tuple((ids := sum(per_level[i:], []), [A.PASS] + ids) for i in range(len(per_level) + 1)),
            MappingProxyType({a: i for i, ids in enumerate(per_level) for a in ids}))


_BID_TABLES: dict[int, tuple] = {}


def bid_ids(t: Table) -> tuple[tuple[list[int], ...], MappingProxyType]:
    """A table's bid tables (:func:`_bid_tables`), shared by every game at it."""
    got = _BID_TABLES.get(id(t))
    if got is None or got[0] is not t:
        got = _BID_TABLES[id(t)] = (t, *_bid_tables(t))
    return got[1], got[2]


def positive(name: str, v) -> int:
    """``v``, a positive integer, or ValueError naming ``name``."""
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ValueError(f"{name} must be a positive integer, got {v!r}")
    return v
