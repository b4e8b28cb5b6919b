"""The conformance checker behind ``pepper bot check``: does a bot, in any language, play by the protocol?

    from conformance import CheckOptions, run_check
    exit_code = run_check(["python", "mybot.py"], CheckOptions(report="report.json"))

Modules: :mod:`~conformance.checks` (the checks that play games, one function
each), :mod:`~conformance.house` (the scripted bot that plays the other seats),
:mod:`~conformance.verify` (replaying what the bot was sent and answered, and
the verdicts), :mod:`~conformance.report`, :mod:`~conformance.launch` (the bot's
process, on :mod:`supervisor`), :mod:`~conformance.private_referee` and :mod:`~conformance.checker`
(the run).
"""

import os as _os

# The checker starts the bot (fork + exec) while gRPC is busy; gRPC's fork handlers only log a
# warning per fork then. No forked child uses gRPC, so turn them off (before grpc is imported).
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from .checker import CheckOptions, Contained, run_check  # noqa: E402

__all__ = ["CheckOptions", "Contained", "run_check"]
