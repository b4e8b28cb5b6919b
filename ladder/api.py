"""The ladder's web app: the results pages and API of :mod:`web` over the ladder's arena store, with the submission
API under ``/api/ladder`` and ``/metrics`` (Prometheus text) beside them.

An author's requests carry their key in an ``Authorization: Bearer KEY`` header (never in a URL, so never in an
access log or a browser's history). Each request opens the stores on its own connections (FastAPI runs these
functions in its thread pool).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Body, FastAPI, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from arena.store import BotKind, token_sha256
from web.app import HERE as WEB_HERE
from web.app import LOCAL_HOSTS, create_app

from . import entries
from .admin import stores
from .config import LadderDir
from .errors import LadderError, NotFound
from .logs import log_tail
from .scheduler import Gauges
from .state import UploadStatus
from .uploads import unpack

HERE = Path(__file__).parent
MAX_BODY_BYTES = 64 << 10
WEB_TEMPLATES = WEB_HERE / "templates"

# The author's key, as ``Authorization: Bearer KEY`` (module-level: FastAPI resolves the handlers' annotations here).
Auth = Annotated[str | None, Header(description="Bearer KEY: the author key `pepper ladder invite` printed")]


class Unavailable(LadderError):
    status = 503


@dataclass
class Intake:
    """What the submission API needs of the running service: why it cannot take uploads ("" when it can), how to
    tell its builder that one is waiting, and whether its referee knows a bot's token (by its digest) yet, after a
    nudge to look."""

    refused: str = "this ladder's server is not running its builder"
    wake: Callable[[], None] = lambda: None
    knows: Callable[[str, str], bool] = lambda bot, digest: True
    nudge: Callable[[], None] = lambda: None


REGISTER_WAIT_S = 5.0   # how long entering a remote bot waits for the referee to know its token


def _key(authorization: str | None) -> str | None:
    scheme, _, key = (authorization or "").partition(" ")
    return key.strip() if scheme.lower() == "bearer" else None


def router(d: LadderDir, gauges: Gauges | None = None, intake: Intake | None = None) -> APIRouter:
    """The submission API and ``/metrics`` of the ladder in ``d`` (``gauges``: the running scheduler's; ``intake``:
    its builder's)."""
    api = APIRouter()
    per_hour = d.load().entries_per_hour
    intake = intake or Intake()

    @api.post("/api/ladder/bots", status_code=201)
    def enter(name: Annotated[str, Body()], kind: Annotated[str, Body()] = "remote", authorization: Auth = None) -> dict:
        """Enter a bot (a new one, or a new version of the author's own): its version and token (shown this once)."""
        with stores(d) as (state, store):
            author = state.author_of_key(_key(authorization), "enter")
            if kind != "remote":
                raise LadderError(f"kind {kind!r}: this ladder takes remote bots (kind \"remote\")")
            e = entries.enter_remote(state, store, author, name, per_hour)
        # The token is answered once the referee knows it: a bot started the moment it is printed is not refused.
        intake.nudge()
        deadline = time.monotonic() + REGISTER_WAIT_S
        while not intake.knows(e.bot, token_sha256(e.token)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return {"bot": e.bot, "version": e.version, "token": e.token, "author": author}

    @api.post("/api/ladder/bots/{name}/uploads", status_code=202)
    async def upload(name: str, request: Request, authorization: Auth = None) -> dict:
        """Upload a bot's folder (the body: a .tar.gz or .zip of it, with its pepper-bot.toml or Dockerfile). It is
        built and checked in the sandbox, then entered if it passes: follow ``/api/ladder/uploads/ID``."""
        data = await request.body()   # its size is bounded before it is read (body_limit below)
        return await run_in_threadpool(_take_upload, name, data, authorization)

    def _take_upload(name: str, data: bytes, authorization: str | None) -> dict:
        with stores(d) as (state, _):
            author = state.author_of_key(_key(authorization), "upload")
            if intake.refused:
                raise Unavailable(intake.refused)
            if not data:
                raise LadderError("the upload is empty: send the bot's folder as a .tar.gz or .zip file")
            upload_id = entries.accept_upload(state, author, name, per_hour)
            folder = d.uploads / str(upload_id)
            try:
                shutil.rmtree(folder, ignore_errors=True)   # a folder a killed service left half unpacked
                unpack(data, folder)
            except LadderError as e:
                state.set_upload(upload_id, UploadStatus.FAILED, str(e))
                raise
            u = state.upload(upload_id)
        intake.wake()
        return u.public()

    @api.get("/api/ladder/uploads/{upload_id}")
    def upload_status(upload_id: int, authorization: Auth = None) -> dict:
        """One of the author's uploads: its status, why, the checker's report, and the version it became."""
        with stores(d) as (state, _):
            author = state.author_of_key(_key(authorization), "upload status")
            u = state.upload(upload_id)
            if u is None or u.author != author:   # another author's upload is not even said to exist
                raise NotFound(f"you have no upload {upload_id}")
        return u.public(report=True)

    @api.get("/api/ladder/me/bots/{name}/log", response_class=PlainTextResponse)
    def bot_log(name: str, authorization: Auth = None) -> str:
        """The end of one of the author's uploaded bots' output (what its processes wrote)."""
        with stores(d) as (state, _):
            author = state.author_of_key(_key(authorization), "log")
            state.owned(author, name, "log")
        return log_tail(d.bot_log(name))

    @api.post("/api/ladder/bots/{name}/retire")
    def retire(name: str, authorization: Auth = None) -> dict:
        """Retire one of the author's bots for good."""
        with stores(d) as (state, _):
            author = state.author_of_key(_key(authorization), "retire")
            entries.retire(state, author, name)
        return {"bot": name, "status": "retired"}

    @api.get("/api/ladder/me")
    def me(authorization: Auth = None) -> dict:
        """The author's bots: status and versions."""
        with stores(d) as (state, store):
            author = state.author_of_key(_key(authorization), "me")
            bots = []
            for e in state.entries(author):
                bot = store.bot(e.bot)
                kind = "none yet" if bot is None else "remote" if bot.kind is BotKind.REMOTE else "uploaded"
                bots.append({"bot": e.bot, "status": str(e.status), "kind": kind,
                             "versions": [v.version for v in store.versions(e.bot)]})
            uploads = [u.public(report=True) for u in state.uploads(author, limit=20)]
        return {"author": author, "bots": bots, "uploads": uploads, "uploads_refused": intake.refused}

    @api.get("/api/ladder/status")
    def status() -> dict:
        """The ladder's bots (who enters them, their standing) and what is playing now."""
        with stores(d) as (state, _):
            bots = [{"bot": e.bot, "author": e.author, "status": str(e.status)} for e in state.entries()]
            paused = state.paused
        g = gauges or Gauges()
        for b in bots:
            b["available"] = b["bot"] in g.available
        return {"paused": paused, "bots": bots, "in_flight": g.in_flight, "connected": g.connected, "games": g.games}

    @api.get("/api/ladder/authors/{author}")
    def author(author: str) -> dict:
        """An author's public page: their bots, each with its standing and versions (each version's ratings are
        on ``/api/bots/NAME``)."""
        with stores(d) as (state, store):
            if author not in {a.name for a in state.authors()}:
                raise NotFound(f"no author named {author!r} on this ladder")
            bots = [{"bot": e.bot, "status": str(e.status), "versions": [v.version for v in store.versions(e.bot)]}
                    for e in state.entries(author)]
        return {"author": author, "bots": bots}

    @api.get("/metrics", response_class=PlainTextResponse)
    def metrics() -> str:
        """Prometheus text format (version 0.0.4)."""
        return metrics_text(gauges or Gauges())

    return api


def metrics_text(g: Gauges, now: float | None = None) -> str:
    """The gauges as Prometheus text: one HELP and TYPE line for each family, then its samples."""
    def family(name: str, kind: str, help_: str, samples: list[tuple[str, float]]) -> list[str]:
        return [f"# HELP {name} {help_}", f"# TYPE {name} {kind}", *(f"{name}{labels} {value:g}" for labels, value in samples)]

    lines = [
        *family("pepper_ladder_games_total", "counter", "Games stored by this service.", [("", g.games)]),
        *family("pepper_ladder_games_per_second", "gauge", "Games stored per second over the last minute.",
                [("", g.rate(now or time.monotonic()))]),
        *family("pepper_ladder_games_in_flight", "gauge", "Games being played now.", [("", g.in_flight)]),
        *family("pepper_ladder_bots_connected", "gauge", "Active bots with the connections a game needs.",
                [("", g.connected)]),
        *family("pepper_ladder_bots_entered", "gauge", "Active bots entered.", [("", g.entered)]),
        *family("pepper_ladder_games_pending", "gauge", "Planned games waiting for their bots.", [("", g.pending)]),
        *family("pepper_ladder_faults_total", "counter", "Faults over the seats of the games stored, by kind.",
                [(f'{{kind="{k}"}}', g.faults[k]) for k in ("illegal", "malformed", "timeout", "disconnect")]),
    ]
    return "\n".join(lines) + "\n"


def create_ladder_app(d: LadderDir, gauges: Gauges | None = None,
                      allowed_hosts: Sequence[str] = LOCAL_HOSTS, intake: Intake | None = None) -> FastAPI:
    """The web app over the ladder's arena store, with the ladder's pages, the submission API and ``/metrics``."""
    app = create_app(d.arena_db, allowed_hosts=allowed_hosts)
    app.include_router(router(d, gauges, intake))
    upload_max = d.load().upload_max_mb << 20
    app.mount("/ladder-static", StaticFiles(directory=HERE / "static"), name="ladder-static")
    # The ladder's pages extend the web app's layout (base.html): both template folders, the ladder's first.
    pages = Jinja2Templates(directory=[HERE / "templates", WEB_TEMPLATES])

    def page(request: Request, template: str, **context) -> HTMLResponse:
        return pages.TemplateResponse(request, template, {"db": str(d.arena_db), "db_name": d.arena_db.name, **context})

    @app.get("/ladder", response_class=HTMLResponse)
    def ladder_page(request: Request):
        return page(request, "ladder.html")

    @app.get("/ladder/me", response_class=HTMLResponse)
    def my_page(request: Request):
        return page(request, "author.html")

    @app.get("/ladder/authors/{author}", response_class=HTMLResponse)
    def author_page(request: Request, author: str):
        return page(request, "public_author.html", author=author)

    @app.middleware("http")
    async def body_limit(request: Request, call_next):
        """The submission API reads small JSON bodies, and uploads up to ``upload_max_mb``: a chunked body (no
        length), or one over its limit, is refused before it is read."""
        path = request.url.path
        if path.startswith("/api/ladder/") and request.method in ("POST", "PUT", "PATCH"):
            limit = upload_max if path.endswith("/uploads") else MAX_BODY_BYTES
            length = request.headers.get("content-length")
            if length is None and "transfer-encoding" in request.headers:
                return JSONResponse({"detail": "send the body with a Content-Length"}, status_code=411)
            if length is not None and (not length.isdigit() or int(length) > limit):
                what = f"{limit >> 20} MiB, the ladder's upload_max_mb" if limit > MAX_BODY_BYTES else f"{limit} bytes"
                return JSONResponse({"detail": f"the body is over {what}"}, status_code=413)
        return await call_next(request)

    @app.exception_handler(LadderError)
    def ladder_error(request: Request, e: LadderError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=e.status)

    return app


__all__ = ["Intake", "create_ladder_app", "metrics_text", "router"]
