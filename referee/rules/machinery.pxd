# The compiled machinery (setup.py): the shuffle's loop and the frozen-dataclass builder in C; machinery.py stays
# the only source.

cimport cython


@cython.locals(i=int, n=int, bits=int, j=int)
cpdef shuffle(rng, list x)

@cython.locals(i=cython.Py_ssize_t, n=cython.Py_ssize_t)
cpdef made(cls, tuple names, tuple values, tuple more)

# machinery.py's _set_slot (object.__setattr__ in pure Python) is the C API function.
cdef extern from "Python.h":
    int _set_slot "PyObject_GenericSetAttr"(object obj, object name, object value) except -1

# machinery.py's _untrack (nothing in pure Python) is the C API function (the objects it is given hold no cycle).
cdef extern from "Python.h":
    void _untrack "PyObject_GC_UnTrack"(object op)
