# The compiled encoder (setup.py): GameEncoder as an extension type whose per-game caches sit in C slots, and C
# calls for the varint helpers. codec.py stays the only source; this file only declares types.

cimport cython


cpdef bytes _varint(n)
cpdef bytes _uv(Py_ssize_t n)
cpdef bytes _ld(bytes key, bytes body)


cdef class GameEncoder:
    cdef public object game
    cdef public str game_id
    cdef public bytes gid_field, tail_b
    cdef public tuple head
    cdef Py_ssize_t _deal, _tricks_n
    cdef bytes _deal_b, _bids_b, _tricks_b, _contract_b, _sitting_out_b, _tricks_won_b, _scores_b
    cdef list _bids, _tricks_won, _scores
    cdef object _contract, _sitting_out

    cpdef bytes view(self, Py_ssize_t seat)
    cpdef bytes request_frame(self, Py_ssize_t seat, request_id, kind, legal, deadline_ms, time_bank_ms)
    cpdef bytes event_frame(self, index, tuple e, seat=*)
