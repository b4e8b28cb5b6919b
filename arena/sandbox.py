"""``pepper arena run --sandbox docker``: each command bot in a container of its own (supervisor.docker_runtime,
docs/sandbox.md), reaching the referee through a Unix socket of its own and seeing only its own files.

A bot registered with an image (:func:`resolve_image`, by its id: the version it was registered as) runs its command
in that image, in its working directory. Any other command bot runs in the project's base
image (``make images``: Debian's Python 3 with the SDK; Node.js for a ``node`` command) with its files (those its
version's digest covers, :func:`arena.registry.default_files`) mounted read-only under /bot, its working
directory; ``{python}`` in its command is the image's python3. The sample bots get what they load from the
repository too: the rules engine (``referee/rules``), the Node.js bot the protocol's .proto files.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from pathlib import Path

from supervisor.docker_runtime import (
    DEFAULT_IMAGE,
    NODE_IMAGE,
    SOCKET_IN_CONTAINER,
    DockerRuntime,
    Limits,
    Mount,
    Sandbox,
    client,
    folder_prefix,
    owner_id,
    reap,
    start_watchdog,
)

from .errors import ArenaError
from .imagebuild import BUILD_PIDS, BUILD_TIME_S, build
from .registry import NODE_DIR, ROOT, BotFilesError, default_files
from .store import Bot

SANDBOX_PYTHON = "python3"   # {python} in a container
WORKDIR = "/bot"


def limits_of(bot: Bot) -> Limits:
    """A bot's sandbox limits: its registered ones over the defaults."""
    return Limits(**{**Limits().__dict__, **bot.limits})


def check_limits(limits: dict[str, float]) -> dict[str, float]:
    """Limits given at registration (None values dropped), ValueError naming what is wrong."""
    given = {k: v for k, v in limits.items() if v is not None}
    Limits(**{**Limits().__dict__, **given})
    return given


def resolve_image(name: str, image: str | None = None, dockerfile: str | None = None,
                  docker_client=None, build_time_s: float = BUILD_TIME_S, build_pids: int = BUILD_PIDS) -> tuple[str, str]:
    """The image a bot registers with: ``image`` (a local name or id) or one built from ``dockerfile`` (a
    Dockerfile, its directory the build context; or a directory with a Dockerfile), tagged ``pepper-bot-NAME``,
    within ``build_time_s`` and ``build_pids`` (:mod:`arena.imagebuild`). Returns (its id, sha256:..., which versions
    the bot; the command its Entrypoint and Cmd give). ArenaError says what went wrong."""
    import docker.errors

    from supervisor import StartError

    try:
        dc = docker_client or client()
    except StartError as e:
        raise ArenaError(f"--image/--dockerfile: {e.reason}") from None
    try:
        if dockerfile:
            path = Path(dockerfile)
            context, file = (path, "Dockerfile") if path.is_dir() else (path.parent, path.name)
            if not (context / file).is_file():
                raise ArenaError(f"--dockerfile {dockerfile}: no such file (give a Dockerfile or its directory)")
            img = dc.images.get(build(context, file, f"pepper-bot-{name.lower()}:latest", docker_client=dc,
                                      total_s=build_time_s, pids=build_pids))
        else:
            img = dc.images.get(image)
    except docker.errors.ImageNotFound:
        raise ArenaError(f"--image {image}: no such image in the local Docker Engine (build it, or give "
                         "--dockerfile PATH; `docker images` lists them)") from None
    except docker.errors.DockerException as e:
        raise ArenaError(f"docker: {e}") from None
    cfg = img.attrs.get("Config") or {}
    if volumes := sorted(cfg.get("Volumes") or {}):
        # Docker would give each container start a fresh anonymous volume on the host's disk, unbounded.
        raise ArenaError(f"{'--dockerfile ' + dockerfile if dockerfile else '--image ' + str(image)}: the image "
                         f"declares VOLUME {' '.join(volumes)}: a sandboxed bot gets no volume (its writable space "
                         "is /tmp); remove the VOLUME line from its Dockerfile (or from the image it starts FROM)")
    return img.id, shlex.join([*(cfg.get("Entrypoint") or []), *(cfg.get("Cmd") or [])])


class BotSandbox:
    """The containers of one run: a Docker client, the referee's socket (in a directory of its own, mode 0700),
    and per bot a :class:`~supervisor.docker_runtime.DockerRuntime`. Reaps what killed runs left behind.

    Each bot reaches the referee through a socket of its own (``RegisterBotRequest.own_socket``), which the referee
    binds beside its socket at registration: only that bot's containers see it, so the referee's per-peer limits
    count each bot apart, and a Hello on it can name that bot only. The referee's own socket is mounted nowhere."""

    def __init__(self, docker_client=None):
        from supervisor import StartError

        try:
            self.client = docker_client or client()
        except StartError as e:
            raise ArenaError(f"--sandbox docker: {e.reason}") from None
        self.reaped = reap(self.client)
        start_watchdog()   # removes this run's containers and folders if it dies
        self._dir = tempfile.mkdtemp(prefix=os.path.basename(folder_prefix(owner_id())))
        self.socket = os.path.join(self._dir, "referee.sock")
        self.sockets: dict[str, str] = {}   # bot -> its own socket (on the host), as the referee bound it
        # What a bot's processes are given (arena.processes.BotProcesses): the referee's address as seen in the
        # container (its socket, mounted there), and what {python} in its command stands for.
        self.address = f"unix:{SOCKET_IN_CONTAINER}"
        self.python = SANDBOX_PYTHON

    def register(self, request, answer, referee: str) -> None:
        """Note the socket the referee at ``referee`` bound for the bot of ``request`` (a RegisterBotRequest that
        asked for one) in ``answer``; ArenaError when it bound none (a referee older than protocol 1.8)."""
        if not request.own_socket:
            return
        if not answer.unix_socket:
            raise ArenaError(f"the referee at {referee} does not give a bot a socket of its own "
                             "(RegisterBotRequest.own_socket, protocol 1.8), which --sandbox docker needs: run a newer "
                             "referee")
        self.sockets[request.name] = answer.unix_socket

    def image(self, bot: Bot) -> str:
        if bot.image:
            return bot.image
        argv = shlex.split(bot.command or "")
        return NODE_IMAGE if argv and os.path.basename(argv[0]) == "node" else DEFAULT_IMAGE

    def mounts(self, bot: Bot) -> tuple[Mount, ...]:
        """The host paths a bot without an image of its own sees (read-only, each container a copy of its own): its
        files, under /bot. A file that is (or lies through) a link to outside the bot's folder is refused: the
        sandbox shows a bot nothing of the host but its folder."""
        if bot.image or not bot.cwd:
            return ()
        try:
            files = bot.files if bot.files is not None else tuple(default_files(bot.command or "", bot.cwd))
        except BotFilesError as e:
            raise ArenaError(f"bot {bot.name!r}: {e}") from None
        out = []
        home = Path(bot.cwd).resolve()
        for name in files:
            src = Path(bot.cwd, name).resolve()
            if not src.exists():
                continue   # its command will say what is missing
            if not src.is_relative_to(home):
                raise ArenaError(f"bot {bot.name!r}: its file {name} is {src}, outside its folder {home} (a link?): "
                                 "the sandbox shows a bot its own folder only; copy the file into the folder and "
                                 f"`pepper bot update {bot.name} --files ...`")
            rel = src.relative_to(home)
            out.append(Mount(str(src), WORKDIR if str(rel) == "." else f"{WORKDIR}/{rel.as_posix()}"))
        # What the sample bots load from the repository besides their files: the rules engine (Python), the
        # protocol's .proto files (Node.js, from <repo>/proto: /bot/lib/../../../proto is /proto).
        if bot.sample and Path(bot.cwd).resolve() == ROOT:
            out.append(Mount(str(ROOT / "referee" / "rules"), f"{WORKDIR}/referee/rules"))
        if bot.sample and Path(bot.cwd).resolve() == NODE_DIR.resolve():
            out.append(Mount(str(ROOT / "proto"), "/proto"))
        return tuple(out)

    def runtime(self, bot: Bot, identity: str | None = None) -> DockerRuntime:
        """The runtime of ``bot``'s containers that connect as ``identity`` (its name on the referee: the bot's own,
        or one rotation's, arena.twins): its image, limits and files, and that identity's own socket
        (:meth:`register`)."""
        identity = identity or bot.name
        if identity not in self.sockets:
            raise ArenaError(f"bot {identity!r} has no socket of its own at the referee: register it with "
                             "RegisterBotRequest.own_socket before starting its containers")
        return self.runtime_at(bot, self.sockets[identity])

    def runtime_at(self, bot: Bot, socket: str) -> DockerRuntime:
        """The runtime of ``bot``'s containers that reach a referee through ``socket`` (a Unix socket on the host, bound
        for this bot alone): what :meth:`runtime` gives for a registered identity, and what the conformance checker
        starts a bot with in the sandbox."""
        sb = Sandbox(image=self.image(bot), limits=limits_of(bot), mounts=self.mounts(bot),
                     workdir=None if bot.image else WORKDIR,   # an image's own working directory
                     socket=socket, labels={"pepper.bot": bot.name})
        return DockerRuntime(sb, self.client, reap_first=False)

    def close(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)
