"""Every death of a bot's process is a crash, however the looks fall: real processes under a real Supervisor."""

from __future__ import annotations

import os
import signal
import time

from arena.processes import BotProcesses
from arena.store import Bot, BotKind


def test_a_process_restarted_before_the_arena_looked_is_still_a_crash(tmp_path):
    """A first death has no restart delay: a process that died just after the arena's last look was restarted by the
    supervisor's next check, and its death was never counted (a crash on a shard went unrecorded under load)."""
    bot = Bot("sleepy", BotKind.COMMAND, "{python} -c 'import time; time.sleep(60)'", str(tmp_path), {}, 1, "", False)
    p = BotProcesses(bot, "127.0.0.1:1", "token", tmp_path, {})
    try:
        assert p.notice_crashes() == []
        sup = p.sups[0]
        first = sup.handles[0]
        os.kill(first.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sup.check() == 1 and sup.handles[0] is not first   # restarted before the arena looked again
        crashes = p.notice_crashes()
        assert [c.exit_code for c in crashes] == [-9], crashes
        assert p.notice_crashes() == [] and len(p.crashes) == 1   # counted once
    finally:
        p.stop()
