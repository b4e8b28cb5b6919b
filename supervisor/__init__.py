"""Process supervision: start processes through a :class:`Runtime`, restart them with per-slot backoff, and
never leave one behind when the parent dies.

:class:`LocalRuntime` runs local subprocesses (the standard library only); :mod:`supervisor.docker_runtime`'s
``DockerRuntime`` runs each in a Docker container with limits (the ``docker`` package, imported only there). Used by the arena (the referee and the bots) and by the
conformance checker (the bot under test).
"""

from .environment import inherited_env
from .restart import STOP_GRACE_S, Supervisor, stop_all
from .runtime import Handle, LocalRuntime, LogFollower, ProcessSpec, Runtime, StartError

__all__ = ["STOP_GRACE_S", "Handle", "LocalRuntime", "LogFollower", "ProcessSpec", "Runtime", "StartError", "Supervisor", "inherited_env",
           "stop_all"]
