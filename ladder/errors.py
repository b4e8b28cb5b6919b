"""The ladder's typed errors: each says what was wrong and what to do; the API maps them to HTTP statuses."""

from __future__ import annotations


class LadderError(Exception):
    """Something the ladder cannot do; the message says why and what to do."""

    status = 400


class NotALadder(LadderError):
    """A folder that is not a ladder (no ladder.toml), or a configuration that does not parse."""


class Unauthorized(LadderError):
    """No author key, an unknown one, or a revoked one."""

    status = 401


class Forbidden(LadderError):
    """A key acting on another author's bot."""

    status = 403


class NotFound(LadderError):
    status = 404


class Conflict(LadderError):
    """The ladder is served already, or a name is taken."""

    status = 409


class TooMany(LadderError):
    """An author over a rate limit."""

    status = 429


__all__ = ["Conflict", "Forbidden", "LadderError", "NotALadder", "NotFound", "TooMany", "Unauthorized"]
