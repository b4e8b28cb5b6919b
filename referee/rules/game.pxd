# The compiled Game (setup.py): an extension type whose per-decision state sits in C slots, the rest in its
# __dict__ as before. game.py stays the only source; this file only declares. Keep the names in step with
# game.py's _SLOTS (copy() and pickling take them).

cdef class Game:
    cdef dict __dict__
    cdef public object phase, to_act, outcome, rules, table, contract
    cdef public list hands, history, _log, _next, _trick_seats, _trick_cards, _tricks, tricks_won
    cdef public object _legal, _leader
    cdef public tuple _legal_of, _apply_of, _play_events
    cdef public int _n_active, _trump
    cdef public bint _partner_open
