# The compiled game run (setup.py): GameRun as an extension type whose state sits in C slots, and the
# per-decision path (answer -> _apply -> advance -> _push_events -> Connection.push) as C calls. games.py stays
# the only source. The game stays untyped (bench/referee_floor.py serves replays in its place); the encoder is a
# GameEncoder (its request_frame and event_frame C calls; the floor's replaying encoder is a subclass).

cimport cython

from referee.service.connections cimport Connection, Pending
from referee.wire.codec cimport GameEncoder


cdef class GameRun:
    cdef public object id, game, seats, policy, seed, next_rid, on_finished, _routes, status, reason, started
    cdef public object ended, faults, pending, times, actors, spectators
    cdef public object winners, winning_seats, _done, final
    cdef public GameEncoder enc
    cdef public Py_ssize_t cursor, decisions, seq
    cdef public double _ms
    cdef public bint _play_forced

    cpdef tuple routes(self)
    @cython.locals(p=Pending, conn=Connection, seat=Py_ssize_t)
    cpdef advance(self)
    @cython.locals(start=Py_ssize_t, end=Py_ssize_t, i=Py_ssize_t, private=bint, conn=Connection, enc=GameEncoder)
    cpdef _push_events(self)
    cpdef answer(self, Pending p, ans, double spent_ms)
    cpdef _apply(self, action)


@cython.locals(p=Pending, run=GameRun, i=Py_ssize_t)
cpdef apply_answers(Connection conn, list taken, double spent_ms)
