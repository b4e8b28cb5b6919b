"""``pepper arena run --sandbox docker``: each command bot in a container of its own (supervisor.docker_runtime,
docs/sandbox.md), reaching the referee through its Unix socket and seeing only its own files.

A bot registered with an image runs its command in that image. Any other command bot runs in the project's base
image (``make images``: Debian's Python 3 with the SDK; Node.js for a ``node`` command) with its files (those its
version's digest covers, :func:`arena.registry.default_files`) mounted read-only under /bot, its working
directory; ``{python}`` in its command is the image's python3. The sample bots get the rules engine too
(``referee/rules``), which they import.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path

from supervisor.docker_runtime import DEFAULT_IMAGE, NODE_IMAGE, DockerRuntime, Limits, Mount, Sandbox, client, reap

from .errors import ArenaError
from .registry import ROOT, BotFilesError, default_files
from .store import Bot

SANDBOX_PYTHON = "python3"   # {python} in a container
WORKDIR = "/bot"


class BotSandbox:
    """The containers of one run: a Docker client, the referee's socket (in a directory of its own, mode 0700),
    and per bot a :class:`~supervisor.docker_runtime.DockerRuntime`. Reaps what killed runs left behind."""

    def __init__(self, limits: Limits | None = None, docker_client=None):
        from supervisor import StartError

        try:
            self.client = docker_client or client()
        except StartError as e:
            raise ArenaError(f"--sandbox docker: {e.reason}") from None
        self.limits = limits or Limits()
        self.reaped = reap(self.client)
        self._dir = tempfile.mkdtemp(prefix="pepper-sandbox-")
        self.socket = os.path.join(self._dir, "referee.sock")

    def image(self, bot: Bot) -> str:
        image = getattr(bot, "image", None)
        if image:
            return image
        argv = shlex.split(bot.command or "")
        return NODE_IMAGE if argv and os.path.basename(argv[0]) == "node" else DEFAULT_IMAGE

    def mounts(self, bot: Bot) -> tuple[Mount, ...]:
        """The host paths a bot without an image of its own sees (read-only): its files, under /bot."""
        if getattr(bot, "image", None) or not bot.cwd:
            return ()
        try:
            files = bot.files if bot.files is not None else tuple(default_files(bot.command or "", bot.cwd))
        except BotFilesError as e:
            raise ArenaError(f"bot {bot.name!r}: {e}") from None
        out = []
        for name in files:
            src = Path(bot.cwd, name).resolve()
            if not src.exists():
                continue   # its command will say what is missing
            rel = src.relative_to(Path(bot.cwd).resolve()) if src.is_relative_to(Path(bot.cwd).resolve()) else None
            target = WORKDIR if rel is None or str(rel) == "." else f"{WORKDIR}/{rel.as_posix()}"
            out.append(Mount(str(src), target if rel is not None else f"{WORKDIR}/{src.name}"))
        if bot.sample and Path(bot.cwd).resolve() == ROOT:
            out.append(Mount(str(ROOT / "referee" / "rules"), f"{WORKDIR}/referee/rules"))
        return tuple(out)

    def runtime(self, bot: Bot) -> DockerRuntime:
        sb = Sandbox(image=self.image(bot), limits=self.limits, mounts=self.mounts(bot), workdir=WORKDIR,
                     socket=self.socket, labels={"pepper.bot": bot.name})
        return DockerRuntime(sb, self.client, reap_first=False)

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)
