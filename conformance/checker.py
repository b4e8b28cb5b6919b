"""The checker's run: a private referee, the bot under test, the checks wave by wave, the report.

It starts a private referee in this process (127.0.0.1, a free port),
registers the bot under test with a fresh token, launches COMMAND with
``PEPPER_REFEREE``, ``PEPPER_TOKEN`` and ``PEPPER_BOT_NAME`` in its
environment, and drives it through the checks:

* ``connect``: the bot connects and says a valid Hello;
* the game-playing checks of :mod:`conformance.checks` (every ruleset and
  player count, the edge cases, large batches, games back to back);
* ``protocol``: every answer named a request that was open;
* ``shutdown``: the bot exits on SIGTERM;
* ``policy``: the bot's own strategy chose every answer. An SDK never sends an
  illegal answer for a strategy that raised or chose something not legal: it
  plays a fallback and marks the answer as one (``Answer.fallback``, protocol
  1.2), which the other checks cannot see. The referee counts these per seat
  (``SeatResult.fallbacks`` and ``fallback_details``), so the check works the
  same for a bot in any language. A bot that never marks its fallbacks
  (protocol 1.1, or a strategy that catches its own errors) is caught by
  ``policy: no silent fallbacks`` instead, a game-playing check: bids where
  the first legal action is one no strategy would choose.

A check fails with a reason: ``crash`` (the process exited), ``timeout``,
``illegal action``, ``protocol error`` (malformed answers, answers to requests
that were not open, no valid Hello), ``connection lost``, ``policy error`` or
``error``. After a crash or a timeout the remaining checks are skipped
(``--keep-going`` runs them).
"""

from __future__ import annotations

import asyncio
import logging
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TextIO

from referee.wire import DEFAULT_DEADLINE_MS, DEFAULT_TIME_BANK_MS
from supervisor import STOP_GRACE_S, Runtime, StartError

from .checks import build_checks
from .house import HOUSE_NAME, HouseBot
from .launch import BotProcess, launch_hint, startup_hint
from .model import BOT, Check, Played, Status
from .private_referee import PrivateReferee
from .report import Summary, check_lines
from .verify import Tally, judge, replay

__all__ = ["CheckOptions", "Contained", "run_check"]


@dataclass(frozen=True)
class Contained:
    """How to check a bot inside a sandbox (a container with no network): the private referee then also listens on a
    Unix socket, binds the bot a socket of its own beside it, and the bot is started by ``runtime(that socket)``, with
    ``address`` as its PEPPER_REFEREE (the socket's path inside the container)."""

    runtime: Callable[[str], Runtime]
    address: str


@dataclass
class CheckOptions:
    name: str = "bot-under-test"
    deadline_ms: int = DEFAULT_DEADLINE_MS       # the referee's and the arena's defaults (one definition)
    time_bank_ms: int = DEFAULT_TIME_BANK_MS
    max_faults: int = 3
    connect_timeout: float = 30.0
    wave_timeout: float = 180.0
    only: list[str] = field(default_factory=list)
    report: str | None = None
    keep_going: bool = False
    verbose: bool = False
    out: TextIO | None = None   # default: stdout
    contained: Contained | None = None   # None: the bot is a process of this machine's, on 127.0.0.1


class Fatal(Enum):
    """What makes the later checks pointless (unless --keep-going)."""

    CRASH = "crash"
    TIMEOUT = "timeout"
    PROTOCOL = "protocol"


class Checker:
    def __init__(self, command: list[str], opts: CheckOptions):
        self.command, self.o = command, opts
        self.out = opts.out or sys.stdout
        self.fatal: Fatal | None = None   # later waves are skipped
        self.first_timeout = ""           # where the bot first timed out ("game G seat S, deal D"), once it has
        self.stall = ""                   # why the checker stopped waiting for the bot, once it has
        self.protocol_counts = Counter()
        self.tally = Tally()
        self.log_records: list[str] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="pepper-check-"))
        self.bot = BotProcess(command, self.tmp / "bot.log", echo=self.say if opts.verbose else None)
        self.referee = PrivateReferee(opts.deadline_ms, opts.time_bank_ms, opts.max_faults,
                                      unix_socket=str(self.tmp / "referee.sock") if opts.contained else None)
        self.house: HouseBot | None = None
        self.passed = False

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def crash(self) -> str | None:
        """Why the bot's process is gone, or None while it runs."""
        return self.bot.crash_reason() if self.bot.exited() else None

    # -- games ------------------------------------------------------------------
    async def run_check_games(self, c: Check, stop: asyncio.Event) -> None:
        t0 = time.monotonic()
        for rnd in c.rounds:
            if stop.is_set():
                break
            for gs in rnd:
                self.house.scripts[gs.game_id] = {s: x for s, x in enumerate(gs.seats) if x != BOT}
            seats = [[self.o.name if x == BOT else HOUSE_NAME for x in gs.seats] for gs in rnd]
            errors = [e for e in await asyncio.gather(*(self.referee.create(gs, s) for gs, s in zip(rnd, seats))) if e]
            if errors:
                await self.bot.reap(1.0)  # a bot that just crashed: collect its exit code first
                c.done(Status.FAIL, self.crash() or f"connection lost: the referee could not start a game: {errors[0]}")
                break
            await self.wait_games({gs.game_id for gs in rnd}, stop)
            for gs in rnd:
                p = Played(gs, await self.referee.result(gs.game_id))
                if p.status != "running":
                    replay(p)
                c.played.append(p)
        c.seconds = time.monotonic() - t0

    async def wait_games(self, want: set[str], stop: asyncio.Event) -> None:
        """Until these games end.

        One timeout of the bot is that check's failure, not the end of the others: the bot may have been slow
        once and answer everything after it. Only a bot that answers nothing in its games for a deadline plus
        a time bank (and 2 s) after a timeout is stalled: then (unless --keep-going) every check of the wave
        stops waiting and later waves are skipped, each saying so."""
        from pepper_proto.v1 import game_pb2

        end = time.monotonic() + self.o.wave_timeout
        stall_s = (self.o.deadline_ms + self.o.time_bank_ms) / 1000 + 2.0
        answered, progress_at = -1, time.monotonic()
        while time.monotonic() < end and not stop.is_set():
            running, n = False, 0
            for g in await self.referee.games():
                if g.game_id not in want:
                    continue
                running |= g.status == game_pb2.GAME_STATUS_RUNNING
                bots = {s.seat for s in g.seats if s.bot_name == self.o.name}
                n += sum(s.decisions for s in g.seats if s.seat in bots)
                late = next((f for f in g.faults if f.kind == game_pb2.FAULT_KIND_TIMEOUT and f.seat in bots), None)
                if late is not None and not self.first_timeout:
                    self.first_timeout = f"game {g.game_id} seat {late.seat}, deal {late.deal}"
            if not running:
                return
            now = time.monotonic()
            if n != answered:
                answered, progress_at = n, now
            elif self.first_timeout and not self.o.keep_going and now - progress_at > stall_s:
                self.stall = (f"the bot answered nothing for {now - progress_at:.0f} s after its timeout in "
                              f"{self.first_timeout}")
                self.fatal = self.fatal or Fatal.TIMEOUT
                stop.set()
            if self.bot.exited():   # the referee forfeits the lost connection's games: keep polling until they end
                self.fatal = self.fatal or Fatal.CRASH
            await asyncio.sleep(0.05)

    async def run_wave(self, checks: list[Check]) -> None:
        from pepper_proto.v1 import game_pb2

        stop = asyncio.Event()
        await asyncio.gather(*(self.run_check_games(c, stop) for c in checks))
        played = [p for c in checks for p in c.played]
        if any(f.kind == game_pb2.FAULT_KIND_DISCONNECT for p in played for f in p.result.faults):
            # The referee saw the stream drop; give a crashing bot a moment to be reaped so
            # the verdict says "crash" (with its exit code) rather than "connection lost".
            await self.bot.reap(1.0)
        self.referee.unknown_answers(self.o.name, self.protocol_counts)
        crash = self.crash()
        for c in checks:
            if c.status != Status.FAIL:
                for p in c.played:
                    self.tally.add(p)
            if judge(c, crash, stalled=self.stall):
                self.fatal = self.fatal or Fatal.CRASH

    # -- the checks that are not games -------------------------------------------
    async def check_connect(self) -> Check:
        c = Check("connect", [], what="the bot starts and connects with a valid Hello")
        t0 = time.monotonic()
        while time.monotonic() - t0 < self.o.connect_timeout:
            if await self.referee.connections(self.o.name):
                return c.done(Status.PASS, f"connected after {time.monotonic() - t0:.1f} s")
            if self.bot.exited():
                self.bot.drain()
                hint = startup_hint(self.bot.tail(40), self.bot.exit_code)
                return c.done(Status.FAIL, f"{self.bot.crash_reason()} before connecting{hint}")
            await asyncio.sleep(0.05)
        return c.done(Status.FAIL, f"protocol error: no valid connection within {self.o.connect_timeout:.0f} s (the bot must "
                                   f"connect to $PEPPER_REFEREE and send a Hello with $PEPPER_BOT_NAME, $PEPPER_TOKEN and "
                                   f"protocol version 1.x)")

    def check_protocol(self) -> Check:
        c = Check("protocol: answers name open requests", [], wave=3,
                  what="no answers to request ids that were never sent, already answered, or of another game")
        if unknown := sum(self.protocol_counts.values()):
            return c.done(Status.FAIL, f"protocol error: {unknown} answers named requests that were not open on the connection")
        return c.done(Status.PASS, f"{self.tally.decisions} answers, all to open requests")

    async def check_shutdown(self) -> Check:
        c = Check("shutdown", [], wave=3, what="the bot exits when sent SIGTERM")
        if self.bot.exited():
            return c.done(Status.FAIL, self.bot.crash_reason() + " before the end of the checks")
        t0 = time.monotonic()
        if await self.bot.terminate(STOP_GRACE_S):
            return c.done(Status.PASS, f"exited {time.monotonic() - t0:.1f} s after SIGTERM (code {self.bot.exit_code})")
        return c.done(Status.FAIL, f"the bot was still running {STOP_GRACE_S:.0f} s after SIGTERM (the arena kills it then)")

    def check_policy(self) -> Check:
        """Did the bot's SDK answer for its strategy? The referee counted the answers marked as fallbacks."""
        c = Check("policy: decide() chose every answer", [], wave=3,
                  what="the bot's strategy (decide()) never raised or chose a non-legal action, which its SDK replaces "
                       "by a fallback and marks as one (Answer.fallback)")
        t = self.tally
        if not t.fallbacks:
            return c.done(Status.PASS, "the referee counted no fallback answers: the bot marked none (Answer.fallback); "
                                       "'policy: no silent fallbacks' looks for unmarked ones")
        first = ": first, {}: {}".format(*t.fallback_details[0]) if t.fallback_details else ""
        return c.done(Status.FAIL, f"policy error: the strategy failed {t.fallbacks} times (it raised or chose a non-legal "
                                   f"action; its SDK played a fallback instead){first}")

    # -- main -------------------------------------------------------------------
    async def main(self) -> int:
        ref_log = logging.getLogger("referee")
        saved = (ref_log.level, ref_log.propagate, list(ref_log.handlers))
        ref_log.handlers, ref_log.propagate = [_ListHandler(self.log_records)], False
        ref_log.setLevel(logging.WARNING)
        try:
            return await self._main()
        finally:
            ref_log.setLevel(saved[0])
            ref_log.propagate, ref_log.handlers = saved[1], saved[2]

    async def _main(self) -> int:
        import grpc

        o = self.o
        await self.referee.start()
        try:
            try:
                bot_token, own_socket = await self.referee.register(o.name, own_socket=o.contained is not None)
            except grpc.aio.AioRpcError as e:
                self.say(f"error: cannot register the bot as {o.name!r}: {e.details()}")
                return 2
            address = self.referee.address
            if o.contained is not None:
                self.bot.runtime, address = o.contained.runtime(own_socket), o.contained.address
            self.house = HouseBot(self.referee.address, (await self.referee.register(HOUSE_NAME))[0])
            await self.house.start()
            self.say(f"pepper bot check: {shlex.join(self.command)}")
            self.say(f"private referee on {self.referee.address}; the bot is {o.name!r} (deadline {o.deadline_ms} ms, "
                     f"time bank {o.time_bank_ms} ms, a seat forfeits on its fault number {o.max_faults + 1})")
            try:
                await self.bot.start({"PEPPER_REFEREE": address, "PEPPER_TOKEN": bot_token,
                                      "PEPPER_BOT_NAME": o.name})
            except StartError as e:
                self.say(f"error: cannot start {shlex.join(self.command)}: {e.reason}{launch_hint(self.command, e.error)}")
                return 2
            t0 = time.monotonic()
            done = [await self.check_connect()]
            self.show(done[0])
            connected = done[0].status == Status.PASS
            if not connected:
                self.fatal = Fatal.CRASH if self.bot.exited() else Fatal.PROTOCOL
            checks = [c for c in build_checks() if not o.only or any(s.lower() in c.name.lower() for s in o.only)]
            for wave in sorted({c.wave for c in checks}):
                batch = [c for c in checks if c.wave == wave]
                if self.fatal and not o.keep_going:
                    for c in batch:
                        why = f" ({self.stall})" if self.fatal == Fatal.TIMEOUT and self.stall else ""
                        c.done(Status.SKIP, f"not run after the earlier {self.fatal.value}{why}")
                else:
                    await self.run_wave(batch)
                for c in batch:
                    self.show(c)
                done += batch
            for c in (self.check_protocol(), await self.check_shutdown(), self.check_policy()):
                if c.name != "shutdown" and not connected:
                    c.done(Status.SKIP, "the bot never connected")
                self.show(c)
                done.append(c)
            self.bot.drain()
            warnings = []
            if self.house.error or any("internal error" in r for r in self.log_records):
                warnings = self.log_records[:3] + [self.house.error or ""]
            summary = Summary(self.command, done, self.tally, time.monotonic() - t0, self.bot.log, self.bot.tail(), warnings)
            for line in summary.lines():
                self.say(line)
            if o.report:
                summary.write(o.report)
            self.passed = not summary.failed
            return 0 if self.passed else 1
        finally:
            await self.cleanup()

    def show(self, c: Check) -> None:
        for line in check_lines(c, self.o.verbose):
            self.say(line)

    async def cleanup(self) -> None:
        await self.bot.stop()
        if self.house is not None:
            await self.house.close()
        await self.referee.close()
        if self.passed:   # keep the bot's log only when something failed
            shutil.rmtree(self.tmp, ignore_errors=True)


class _ListHandler(logging.Handler):
    def __init__(self, sink: list):
        super().__init__(logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


def run_check(command: list[str], opts: CheckOptions | None = None) -> int:
    """Run the conformance checks against ``command`` (the bot's argv). Returns the exit code (0 pass, 1 fail, 2 usage)."""
    opts = opts or CheckOptions()
    if not command:
        print("error: give the bot's command after --, e.g. pepper bot check -- python mybot.py", file=sys.stderr)
        return 2
    try:
        return asyncio.run(Checker(command, opts).main())
    except KeyboardInterrupt:
        return 130
