"""Pepper Arena: the tournament runner (bots, runs, ratings, results)."""

import os as _os

# The arena starts bot and referee processes (fork + exec) while gRPC is busy; gRPC's fork
# handlers only log a warning per fork then. We never use gRPC in a forked child, so turn them off.
_os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
