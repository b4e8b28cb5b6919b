"""``python -m supervisor.watchdog OWNER``: wait for the process OWNER ("PID:STARTTIME", :func:`owner_id`) to end,
however it ends (``kill -9`` included), then remove its sandbox containers (and their anonymous volumes) and
its folders, and exit. :func:`supervisor.docker_runtime.start_watchdog` starts one per owner process; a container
of a dead owner would otherwise run on (a bot that ignores its closed socket spins) until the next run.
"""

from __future__ import annotations

import os
import select
import sys
import time

from .docker_runtime import client, owner_alive, reap

POLL_S = 0.5   # where pidfd_open is missing (Linux < 5.3): how often to look


def wait_for_end(owner: str) -> None:
    pid = int(owner.partition(":")[0])
    try:
        fd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        fd = None
    if fd is not None and owner_alive(owner):   # the pid still names the owner once the fd is held
        select.select([fd], [], [])               # readable when the process exits
        os.close(fd)
        return
    while owner_alive(owner):
        time.sleep(POLL_S)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].partition(":")[0].isdigit():
        print("usage: python -m supervisor.watchdog PID:STARTTIME", file=sys.stderr)
        return 2
    owner = argv[0]
    docker_client = client()   # connected (and the docker package imported) before it is needed: the removal is prompt
    wait_for_end(owner)
    reap(docker_client, owner=owner)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
