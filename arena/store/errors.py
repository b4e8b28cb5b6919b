"""The store's one error."""


class StoreError(Exception):
    """The results database cannot be used; the message says why and what to do."""
