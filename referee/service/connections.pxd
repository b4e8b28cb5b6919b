# The compiled connection (setup.py): Pending and Connection as extension types whose per-decision state sits in
# C slots, and their per-decision methods as C calls from games and referee. connections.py stays the only source.

cimport cython

from referee.service.enforcement cimport RequestClock


cdef class ClosedIds:
    cdef object _ids
    cdef bytearray _why
    cdef Py_ssize_t _next

    cpdef add(self, rid, why)


cdef class Pending(RequestClock):
    cdef public object rid, run, seat, legal, item
    cdef public bint cancelled


cdef class Connection:
    cdef dict __dict__
    cdef public object id, bot_name, on_expired, idle, outbox, _sent, wake, close_reason, _timer
    cdef public Py_ssize_t max_batch, max_batch_bytes, unknown, stale
    cdef public dict in_flight
    cdef public set seats
    cdef public ClosedIds closed_ids
    cdef public double start, _timer_at, timed_out_at
    cdef public bint rush, closed, ready, live_events

    cpdef push(self, frame)
    cpdef push_event(self, frame)
    cpdef push_request(self, Pending p)
    cdef _append(self, frame)
    cdef _ready(self)
    @cython.locals(n=Py_ssize_t, cap=Py_ssize_t, room=Py_ssize_t, size=Py_ssize_t, k=Py_ssize_t)
    cpdef take_batch(self, double now)
    @cython.locals(p=Pending)
    cpdef list take_answers(self, answers, refuse)
    cpdef Pending head(self)
    @cython.locals(head=Pending, p=Pending, at=double, start=double)
    cpdef expire(self, double now)
    cpdef _expire(self, Pending p)
    cpdef double charge(self, double now, Py_ssize_t answers)
    @cython.locals(start=double)
    cpdef next_expiry(self)
    cpdef rearm(self)
    cpdef _arm(self, double when)
