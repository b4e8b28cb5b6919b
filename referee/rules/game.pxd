# The compiled Game (setup.py): an extension type whose state sits in C slots rather than in an instance dict
# (faster to read and write, and smaller). game.py stays the only source; this file only declares its
# attributes. An attribute not declared here still works (it goes to __dict__); copy() and pickling take both
# (machinery.py's DECLARED lists the names declared here).

cimport cython

# The play rule and the trick's winner as C calls (game.py imports the same functions from .cards).
from referee.rules.cards cimport legal_plays, trick_winner_index


cdef class Game:
    cdef dict __dict__
    # the game
    cdef public int _hand_size
    cdef public bint _has_copies, _plays_follow_suit
    cdef public object ruleset, rules, table, players, seed, target_score, deal_cap, _rng, first_dealer
    cdef public object start_scores, outcome, _family, _rung_of, dealer
    cdef public list scores, deals, decks_dealt, history, _log, _decks
    cdef public tuple _legal_of, _apply_of, _bids_from, _play_events
    # the deal (Game._new_deal)
    cdef public list hands, widow, dead_hand, _bids, _queue, _private, _next
    cdef public list _trick_seats, _trick_cards, _tricks, tricks_won
    cdef public object phase, to_act, contract, _level, _high_bidder, _leader, _partner_card, _partner, _legal
    cdef public object family_state
    cdef public tuple _sitting_out, _dealt_widow
    cdef public int _high, _trump, _discards_left, _n_active, _deal_start
    cdef public bint _ceded, _watch_plays, _held
    cdef public bint hold_finished_deal

    # The steps of a deal, called from each other: cpdef makes those calls C calls (still Python methods).
    cpdef _start_deal(self)
    cpdef _new_deal(self, hands, widow, dead_hand)
    cpdef _enter(self, phase, seat)
    cpdef _end_auction(self)
    cpdef _throw_in(self)
    cpdef _set_trump(self, bidder, lv, strain)
    cpdef start_play(self)
    cpdef _score_deal(self)
    cpdef _finish_deal(self, contract, ceded, made, pts)
    cpdef follow_suit(self)
    cpdef _apply_play(self, card)


# game.py's _untrack (machinery.untrack: nothing in pure Python) is the C API function (the tuples it is given hold no cycle).
cdef extern from "Python.h":
    void _untrack "PyObject_GC_UnTrack"(object op)
