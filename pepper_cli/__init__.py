"""The ``pepper`` command line: :mod:`pepper_cli.app` builds it from one module per command group."""

import os as _os

# Its commands start bot and referee processes (fork + exec) while gRPC is busy; gRPC's fork handlers
# only log a warning per fork then. No forked child uses gRPC, so turn them off before grpc is imported.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
