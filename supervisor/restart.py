"""Keeping processes up: :class:`Supervisor` runs a number of slots of one spec and restarts the ones that
die, with a backoff of its own per slot."""

from __future__ import annotations

import subprocess
import time

from .runtime import Handle, LocalRuntime, ProcessSpec, Runtime

# A bot has this long to exit after SIGTERM before it (and its process group) is killed, in the arena and in
# `pepper bot check` alike (docs/protocol.md, "The bot process").
STOP_GRACE_S = 10.0


class Supervisor:
    """``slots`` processes of one spec, restarted when they die.

    Each slot keeps its own count of quick deaths: a process that ran for a while (STABLE_S) before
    dying is restarted at once (a program that crashes now and then); each death soon after a start
    doubles that slot's delay (0.25 s up to 8 s), so a process that dies on start is not respawned in a
    hot loop, whatever the other slots do. :meth:`check` never blocks: call it now and then.
    """

    MAX_DELAY_S = 8.0
    STABLE_S = 10.0

    def __init__(self, spec: ProcessSpec, slots: int = 1, runtime: Runtime | None = None):
        self.spec = spec
        self.runtime = runtime or LocalRuntime()
        self.restarts = 0
        now = time.monotonic()
        self._started = [now] * slots               # per slot: when its process was started
        self._quick = [0] * slots                   # per slot: deaths in a row soon after a start
        self._due: list[float | None] = [None] * slots   # per slot: when to restart it (None: alive, or not yet seen dead)
        self.handles: list[Handle] = []
        # (slot, handle) of each dead process check() replaced, until its owner takes them (take_ended): a process
        # that died just after the owner last polled it is restarted at once (a first death has no delay), and its
        # death would otherwise never be seen.
        self._ended: list[tuple[int, Handle]] = []
        try:
            for _ in range(slots):
                self.handles.append(self.runtime.start(spec))
        except BaseException:
            self.stop()
            raise

    @classmethod
    def delay(cls, quick_deaths: int) -> float:
        """The wait before restarting a slot whose process died ``quick_deaths`` times in a row soon after starting."""
        return 0.0 if quick_deaths <= 1 else min(cls.MAX_DELAY_S, 0.25 * 2 ** (quick_deaths - 2))

    def check(self) -> int:
        """Restart the dead processes whose delay is over; returns how many were restarted."""
        n = 0
        now = time.monotonic()
        for i, h in enumerate(self.handles):
            if h.poll() is None:
                continue
            if self._due[i] is None:
                self._quick[i] = 1 if now - self._started[i] >= self.STABLE_S else self._quick[i] + 1
                self._due[i] = now + self.delay(self._quick[i])
            if now >= self._due[i]:
                self._ended.append((i, h))
                self.handles[i] = self.runtime.start(self.spec)
                self._started[i], self._due[i] = now, None
                self.restarts += 1
                n += 1
        return n

    def take_ended(self) -> list[tuple[int, Handle]]:
        """The (slot, handle) of each dead process replaced since the last call, oldest first."""
        ended, self._ended = self._ended, []
        return ended

    def quick_deaths(self, slot: int) -> int:
        return self._quick[slot]

    def all_dead(self) -> bool:
        return all(h.poll() is not None for h in self.handles)

    def exit_codes(self) -> list[int | None]:
        return [h.poll() for h in self.handles]

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """SIGTERM every process, then SIGKILL the ones still running after ``grace_s``."""
        stop_all([self], grace_s)

    def log_tail(self, lines: int = 5) -> str:
        return self.handles[0].log_tail(lines) if self.handles else ""


def stop_all(supervisors: list[Supervisor], grace_s: float = STOP_GRACE_S) -> None:
    """Stop the processes of several supervisors within one grace period: SIGTERM to all of them first, then
    SIGKILL to the ones still running after ``grace_s``."""
    handles = [h for sup in supervisors for h in sup.handles]
    for h in handles:
        if h.poll() is None:
            h.terminate()
    deadline = time.monotonic() + grace_s
    for h in handles:
        try:
            h.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            h.kill()
            h.wait()
