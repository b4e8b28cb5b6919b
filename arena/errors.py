"""The arena's errors: each message says what was wrong and what to do."""


class ArenaError(Exception):
    """The arena cannot go on; the message says what was wrong and what to do."""


class UsageError(ArenaError):
    """The run as asked cannot be played (unknown bot, too few bots for the line-up): found before anything starts."""
