# The compiled cards module (setup.py): C types for the hot functions' locals; cards.py stays the only source.

cimport cython


@cython.locals(table=list, best=cython.Py_ssize_t, best_rank=cython.long, r=cython.long, i=cython.Py_ssize_t)
cpdef trick_winner_index(cards, trump)

@cython.locals(eff=list, led=cython.long, c=cython.long, legal=list)
cpdef legal_plays(hand, led_card, trump)
