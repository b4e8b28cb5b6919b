"""Uploaded bots, from a folder to a version: built and checked in the sandbox, one upload at a time, on a thread of
``pepper ladder serve`` (a build or a check takes seconds to minutes; the scheduler's loop goes on meanwhile).

For each upload the ladder state has not finished (the oldest first, so one a stopped service was working on is
done again from the start: nothing is lost):

1. **build**: a Dockerfile is built by the sandbox's builder (:func:`arena.sandbox.resolve_image`: no network,
   bounded time, memory and processes); a manifest's command runs in the project's base image with the folder
   under /bot;
2. **check**: the conformance checker (:mod:`conformance`) drives the bot, in its container, through every
   ruleset and edge case; its report is kept for the author's page;
3. **enter**: only a bot that passed becomes a version (:func:`ladder.entries.enter_build`), which the scheduler
   starts in the sandbox and schedules once it connects.
"""

from __future__ import annotations

import io
import logging
import shlex
import threading

from arena.errors import ArenaError
from arena.registry import expand, files_digest
from arena.sandbox import SANDBOX_PYTHON, BotSandbox, resolve_image
from arena.store import Bot, BotKind, Build, Store
from conformance import CheckOptions, Contained, run_check

from .config import LadderConfig, LadderDir
from .entries import enter_build
from .errors import LadderError
from .state import LadderState, Upload, UploadStatus
from .uploads import read_manifest

log = logging.getLogger("ladder.builds")

IDLE_S = 1.0   # how often the builder looks for a new upload when it has none


class Builder:
    """Builds, checks and enters the ladder's uploads on a thread of its own (:meth:`start`, :meth:`stop`)."""

    def __init__(self, d: LadderDir, cfg: LadderConfig, sandbox: BotSandbox):
        self.dir, self.cfg, self.sandbox = d, cfg, sandbox
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ladder-builds", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """A new upload is waiting (the submission API says so; else it is seen within IDLE_S)."""
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop looking for uploads; one being checked is left (the next service does it again)."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)

    def _run(self) -> None:
        state = LadderState(self.dir.ladder_db, self.dir.hashing_key())
        store = Store(self.dir.arena_db)
        try:
            while not self._stop.is_set():
                u = state.next_upload()
                if u is None:
                    self._wake.wait(IDLE_S)
                    self._wake.clear()
                    continue
                try:
                    self.process(state, store, u)
                except Exception as e:   # noqa: BLE001 - one upload's failure is its report; the builder goes on
                    if self._stop.is_set():
                        return   # the service stopped under it: the next one does it again
                    log.exception("upload failed", extra={"upload": u.id, "bot": u.bot})
                    state.set_upload(u.id, UploadStatus.FAILED, f"the ladder could not check it: {e}")
        finally:
            store.close()
            state.close()

    def process(self, state: LadderState, store: Store, u: Upload) -> None:
        """Build, check and (when it passes) enter upload ``u``; its status and report in the ladder state."""
        folder = self.dir.uploads / str(u.id)
        log.info("upload", extra={"upload": u.id, "bot": u.bot, "author": u.author})
        try:
            manifest = read_manifest(folder)
        except LadderError as e:
            state.set_upload(u.id, UploadStatus.FAILED, str(e))
            return
        image, command = None, manifest.command
        if manifest.dockerfile:
            state.set_upload(u.id, UploadStatus.BUILDING, "building its Dockerfile")
            try:
                image, command = resolve_image(f"{u.bot}-{u.id}", dockerfile=str(folder), docker_client=self.sandbox.client)
            except ArenaError as e:
                state.set_upload(u.id, UploadStatus.FAILED, f"the build failed: {e}")
                return
            if not command:
                state.set_upload(u.id, UploadStatus.FAILED, "its image has no ENTRYPOINT or CMD: say in the Dockerfile "
                                 "how the bot starts")
                return
        state.set_upload(u.id, UploadStatus.CHECKING, "running the conformance checker in the sandbox")
        # Its files are its whole folder (one mount, /bot), and the folder's digest its version's.
        build = Build(BotKind.COMMAND, command, None if image else str(folder), {}, manifest.processes,
                      None if image else (".",), image or files_digest(["."], str(folder)), image=image)
        passed, report = self.check(u.bot, build)
        if self._stop.is_set():
            # The service stopped during the check (its sandbox too): the verdict is not the bot's. The upload stays
            # as it is, and the next service checks it again.
            return
        if not passed:
            state.set_upload(u.id, UploadStatus.FAILED, "the conformance checker failed it: see its report", report)
            log.info("upload failed its check", extra={"upload": u.id, "bot": u.bot})
            return
        version, new = enter_build(store, u.bot, build)
        detail = f"version {version}" if new else f"the same bot as version {version}: no new version"
        state.set_upload(u.id, UploadStatus.ENTERED, detail, report, version)
        log.info("upload entered", extra={"upload": u.id, "bot": u.bot, "version": version, "new": new})

    def check(self, name: str, build: Build) -> tuple[bool, str]:
        """Run the conformance checker on ``build`` in the sandbox: (passed, its report as text)."""
        bot = Bot(name, build.kind, build.command, build.cwd, {}, build.processes, "", False, files=build.files,
                  image=build.image)
        out = io.StringIO()
        opts = CheckOptions(name=name, deadline_ms=self.cfg.deadline_ms, time_bank_ms=self.cfg.time_bank_ms, out=out,
                            contained=Contained(runtime=lambda socket: self.sandbox.runtime_at(bot, socket),
                                                address=self.sandbox.address))
        try:
            command = shlex.split(expand(build.command or "", SANDBOX_PYTHON))
        except ValueError as e:
            return False, f"its command cannot be read ({e})"
        code = run_check(command, opts)
        return code == 0, out.getvalue()


__all__ = ["Builder"]
