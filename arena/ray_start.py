"""Joining a Ray cluster or starting one on this machine, for ``pepper arena run --ray`` (docs/cluster.md): a
failure is one line with its cause and what to do, and a failed start leaves no Ray process behind. Ray comes in
as an argument: :mod:`arena.distributed` is the only module that imports it."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

from .errors import ArenaError


def _processes() -> dict[int, int]:
    """Every process of this machine: pid -> parent pid (Linux's /proc)."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                out[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    return out


def _kill_started(before: set[int]) -> None:
    """Kill the descendants of this process that were not running in ``before``: what a failed start of Ray left
    (its GCS, raylet and their children), which ``ray.shutdown()`` does not know of when the start failed."""
    parent = _processes()
    mine = {os.getpid()}
    for _ in range(8):   # descendants, a generation at a time
        mine |= {pid for pid, ppid in parent.items() if ppid in mine}
    for pid in mine - before - {os.getpid()}:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _reachable(address: str) -> str | None:
    """Why nothing answers at ``HOST:PORT`` (None when something does): Ray itself would retry for minutes."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return None   # Ray's own forms (ray://..., a GCS address file): left to Ray
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as e:
        return e.strerror or type(e).__name__
    return None


def connect(ray, address: str, runtime_env: dict | None, *, cpus: int | None = None,
             object_store_mb: int | None = None) -> bool:
    """Join the cluster at ``address`` (``auto``: the one this machine belongs to; ``local``: start one here, of
    ``cpus`` and an object store of ``object_store_mb``, Ray's defaults when None). Returns whether this call
    started Ray (and so shuts it down). A failure is one ArenaError line with its cause and what to do; a failed
    start leaves no Ray process behind."""
    if ray.is_initialized():
        return False
    kw = {"runtime_env": runtime_env} if runtime_env else {}
    if address not in ("local", "auto") and (why := _reachable(address)):
        raise ArenaError(f"no Ray cluster answers at {address} ({why}): start its head there (`ray start --head`, "
                         "docs/cluster.md) or check the address; --ray local starts one on this machine")
    before = set(_processes())
    try:
        if address == "local":  # a new instance, even where a cluster runs on this machine (ray.init() would join it)
            ray.init(address="local", include_dashboard=False, log_to_driver=False, num_cpus=cpus,
                     object_store_memory=object_store_mb * 2**20 if object_store_mb else None, **kw)
        else:
            ray.init(address=address, log_to_driver=False, **kw)
    except Exception as e:  # noqa: BLE001 - Ray raises many kinds; each becomes one line
        cause = (str(e).strip().splitlines() or [type(e).__name__])[0]
        try:
            ray.shutdown()
        finally:
            _kill_started(before)
        what = ("a Ray instance could not start on this machine: see Ray's logs (session_latest/logs in its temp "
                "dir, /tmp/ray by default; a loaded machine: fewer --ray-cpus; a small /dev/shm: a smaller "
                "--ray-object-store; too few open files: ulimit -n 8192)"
                if address == "local" else
                f"could not join the Ray cluster at {address}: check that this machine's Ray version and "
                "RAY_AUTH_TOKEN match the cluster's (docs/cluster.md)")
        raise ArenaError(f"{what}; Ray said: {cause}") from None
    return True


__all__ = ["connect"]
