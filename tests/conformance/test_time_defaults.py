"""One set of default time controls: the referee's, the checker's and the arena's (and their CLI options) agree.

The checker's bank was 4 s and the arena's 10 s: a bot checked clean could time out in the arena.
"""

from __future__ import annotations

import inspect

from arena.config import RunConfig
from conformance.checker import CheckOptions
from pepper_cli.arena import arena_run
from pepper_cli.bot import check
from referee.service.config import Policy


def _defaults(fn) -> tuple[int, int]:
    params = inspect.signature(fn).parameters
    return params["deadline_ms"].default, params["time_bank_ms"].default


def test_the_checker_and_the_arena_play_by_the_referees_default_time_controls():
    referee = (Policy.deadline_ms, Policy.time_bank_ms)
    assert referee == (2000, 10_000)
    assert (CheckOptions.deadline_ms, CheckOptions.time_bank_ms) == referee
    assert (RunConfig.deadline_ms, RunConfig.time_bank_ms) == referee
    assert _defaults(check) == _defaults(arena_run) == referee
