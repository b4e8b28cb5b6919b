"""The environment a launched bot inherits from the process that launches it: an allowlist.

A bot is someone else's code: nothing of the launcher's environment reaches it unless it is named here (not the
control token PEPPER_CONTROL_TOKEN, not a cloud key or a password of the user's shell). What a bot needs besides
is given explicitly: its own registered variables, the run's, and PEPPER_REFEREE, PEPPER_BOT_NAME (its token goes on
a pipe: ProcessSpec.secrets).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# What a program needs to run as it would from the user's shell: where programs are, who and where the user is
# (HOME: pip's user site-packages, npm's cache; a same-user process can read that directory anyway, so another
# HOME would protect nothing), the locale and time zone, where temporary files go.
PASSED = frozenset({"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR"})
# Every LC_* variable (locale), and the settings meant for bots: the bot SDK's (docs/writing-a-bot.md) and the
# sample bots' (PEPPER_MC_*).
PASSED_PREFIXES = ("LC_", "PEPPER_MC_")
PASSED_PEPPER = frozenset({"PEPPER_LOG_LEVEL", "PEPPER_KEEPALIVE_MS", "PEPPER_MAX_BATCH", "PEPPER_TLS_CA"})


def passed(name: str) -> bool:
    """Whether a launched bot inherits the variable ``name``."""
    return name in PASSED or name in PASSED_PEPPER or name.startswith(PASSED_PREFIXES)


def inherited_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allowlisted part of ``environ`` (this process's environment by default)."""
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if passed(k)}
