"""Where a run stands (:class:`Progress`): games done and in flight, faults, crashes, rate and ETA."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

# How often the arena reports progress (Arena.on_progress) while no game finishes, so that rate and ETA move.
PROGRESS_TICK_S = 1.0


def _duration(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


@dataclass
class Progress:
    """Where a run stands; the arena updates it as each game finishes and calls ``on_progress`` then, and every
    PROGRESS_TICK_S meanwhile."""

    total: int
    done: int = 0                                       # stored games of the run, those of earlier sessions too
    faults: int = 0
    started: float = field(default_factory=time.monotonic)
    in_flight: int = 0
    most_in_flight: int = 0                             # the most games in flight at once in this session
    concurrency: int = 0                                # the games in flight the arena keeps (--concurrency)
    resumed: int = 0                                    # games stored before this session (a resumed run)
    replayed: int = 0                                   # games played again because a bot process crashed
    crashes: int = 0                                    # bot process crashes noticed in this session
    withdrawn: list[str] = field(default_factory=list)  # bots withdrawn from the run (see Fleet.withdraw)
    not_played: int = 0                                 # planned games left unplayed because a bot of theirs was withdrawn
    stopped: str | None = None                          # --until-confident: why the run stopped (AdaptivePlanner.stop_reason)
    flight_seconds: float = 0.0                         # the integral of in_flight over time (see mean_in_flight)
    _flight_first: float = 0.0                          # when the first game started
    _flight_since: float | None = None                  # when in_flight last changed

    def fly(self, delta: int, now: float | None = None) -> None:
        """``delta`` games more (or fewer) in flight, at ``now`` (time.monotonic())."""
        now = time.monotonic() if now is None else now
        if self._flight_since is None:
            self._flight_first = now
        else:
            self.flight_seconds += self.in_flight * (now - self._flight_since)
        self._flight_since = now
        self.in_flight += delta
        self.most_in_flight = max(self.most_in_flight, self.in_flight)

    def mean_in_flight(self, now: float | None = None) -> float:
        """The mean games in flight over time, from the first game's start to ``now``: an adaptive run keeps fewer
        than its most, as it waits for the games its next round is chosen on (a straggler among them holds it up)."""
        if self._flight_since is None:
            return 0.0
        now = time.monotonic() if now is None else now
        area = self.flight_seconds + self.in_flight * (now - self._flight_since)
        return area / max(1e-9, now - self._flight_first)

    def rate(self) -> float:
        """Games finished per second in this session."""
        return (self.done - self.resumed) / max(1e-6, time.monotonic() - self.started)

    def eta(self) -> str:
        """The time until every planned game is played at the rate so far ("1m12s"); "-" before the first game finishes."""
        rate = self.rate()
        return _duration((self.total - self.done) / rate) if rate > 0 else "-"

    def line(self, label: str) -> str:
        """One plain line: ``iowa/4p: 120/1000 games (12%), 12.3 games/s, ETA 1m12s, 3 faults, 40 in flight``."""
        pct = 100 * self.done // max(1, self.total)
        extra = f", {self.crashes} crashes ({self.replayed} games replayed)" if self.crashes else ""
        return (f"{label}: {self.done}/{self.total} games ({pct}%), {self.rate():.1f} games/s, "
                f"ETA {self.eta()}, {self.faults} faults{extra}, {self.in_flight} in flight")


__all__ = ["PROGRESS_TICK_S", "Progress"]
