# The compiled clock (setup.py): TimeBank and RequestClock as extension types, so that the per-decision
# charge and expiry are C calls from connections and games. enforcement.py stays the only source.

cdef class TimeBank:
    cdef public double ms


cdef class RequestClock:
    cdef public object deadline_ms
    cdef public TimeBank bank

    cpdef double expires(self, double start)
    cpdef bint charge(self, double spent_ms)
    cpdef time_out(self)
