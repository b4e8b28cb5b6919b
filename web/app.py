"""The web server: the JSON API under ``/api`` and the pages that use it (docs/web.md lists both).

Every request opens the store read-only (one SQLite connection per request: sqlite3 connections stay in
their thread, and FastAPI runs plain functions in a thread pool), so the server never writes the database
and reads each game as the arena committed it. ``/api/events`` is a server-sent event stream that says
``change`` whenever the store gains a game, a rating, a crash or a finished run, which the leaderboard, the games
list and the matches follow live: one watcher reads the store's change mark for every open stream, and the pools,
leaderboards, matches and charts are computed once per mark (web.live).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path as FilePath
from typing import Annotated

from fastapi import Body, FastAPI, HTTPException, Path, Query, Request
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.middleware.trustedhost import TrustedHostMiddleware
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from fastapi_offline import FastAPIOffline

from arena.store import Store, StoreError
from arena.store import browse as queries

from . import data
from .charts import MAX_WIDTH, MIN_WIDTH, WIDTH, history_svg, sprt_svg
from .live import ChangeFeed, MarkCache
from .seat import HumanSeat

HERE = FilePath(__file__).parent
POLL_SECONDS = 0.5   # how often the event stream looks at the store
#: The host names a request may be addressed to by default: this machine's own (see create_app).
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
#: Ids are SQLite integers: a larger number names nothing (and would not fit a query).
MAX_ID = 2 ** 63 - 1
GameId = Annotated[int, Path(ge=0, le=MAX_ID, description="a game id")]
Number = Annotated[int | None, Query(ge=0, le=MAX_ID)]


def create_app(db: str | FilePath, *, poll: float = POLL_SECONDS, seat: HumanSeat | None = None,
               play_token: str | None = None, allowed_hosts: Sequence[str] = LOCAL_HOSTS) -> FastAPI:
    """The ASGI app over the results database ``db`` (which must exist: it is only read). With ``seat``, the play
    page and its API (``/play``, ``/api/seat``) too, each request holding ``play_token``.

    Requests must be addressed (their Host header) to one of ``allowed_hosts``: a page of another site cannot read
    the API by pointing its own host name at this server (DNS rebinding)."""
    db = FilePath(db)
    Store(db, read_only=True).close()   # fail now, with the store's own message, not on the first request
    # The API's docs page (Swagger UI) from the files fastapi-offline installs: nothing from a CDN.
    app = FastAPIOffline(title="Pepper Arena", docs_url="/api/docs", redoc_url=None, openapi_url="/api/openapi.json",
                         static_url="/static-api-docs")
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))
    app.add_middleware(GZipMiddleware, minimum_size=2048)   # a long game's replay is megabytes of repetitive JSON
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    pages = Jinja2Templates(directory=HERE / "templates")
    changes, cache = ChangeFeed(db, poll), MarkCache()
    app.state.cache = cache

    @contextmanager
    def store() -> Iterator[Store]:
        try:
            st = Store(db, read_only=True)
        except StoreError as e:
            raise HTTPException(503, str(e)) from None
        try:
            yield st
        except data.NotFound as e:
            raise HTTPException(404, str(e)) from None
        except data.Withheld as e:
            raise HTTPException(403, str(e)) from None
        except ValueError as e:
            raise HTTPException(400, str(e)) from None
        finally:
            st.close()

    # -- the JSON API ---------------------------------------------------------------------------------
    @app.get("/api/pools")
    def api_pools() -> list[dict]:
        """The rated pools, each with its key, label and newest game."""
        with store() as st:
            return cache.get(tuple(queries.change_mark(st)), "pools", lambda: data.pools(st))

    @app.get("/api/leaderboard")
    def api_leaderboard(pool: str | None = None, all_versions: bool = False) -> dict:
        """A pool's ranked table (the pool played last when none is given)."""
        with store() as st:
            return cache.get(tuple(queries.change_mark(st)), ("leaderboard", pool, all_versions),
                             lambda: data.leaderboard(st, pool, all_versions=all_versions))

    @app.get("/api/history")
    def api_history(pool: str, bot: str, version: Annotated[int, Query(ge=0, le=MAX_ID)] = 1) -> list[dict]:
        """A bot version's rating after each of its rated games in a pool."""
        with store() as st:
            return data.history(st, pool, bot, version)

    @app.get("/api/bots")
    def api_bots() -> list[dict]:
        with store() as st:
            return data.bots(st)

    @app.get("/api/bots/{name}")
    def api_bot(name: str) -> dict:
        with store() as st:
            return data.bot(st, name)

    @app.get("/api/games")
    def api_games(pool: str | None = None, bot: str | None = None, version: Number = None, run: Number = None,
                  status: str | None = None, limit: Annotated[int, Query(ge=1, le=500)] = 50,
                  before: Number = None) -> dict:
        """Games newest first, filtered, with their duplicate twins."""
        with store() as st:
            return data.games(st, pool=pool or None, bot=bot or None, version=version, run=run, status=status or None,
                              limit=limit, before=before)

    @app.get("/api/games/{game_id}")
    def api_game(game_id: GameId) -> dict:
        with store() as st:
            return data.game(st, game_id)

    @app.get("/api/games/{game_id}/replay")
    def api_replay(game_id: GameId, seat: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None) -> dict:
        """The replay's frames: every seat's cards, or (``seat``) exactly what that seat knew."""
        with store() as st:
            return data.replay(st, game_id, seat)

    @app.get("/api/matches")
    def api_matches() -> list[dict]:
        """Every match (`pepper arena match`), newest first: its bots, test, verdict and estimate."""
        with store() as st:
            return cache.get(tuple(queries.change_mark(st)), "matches", lambda: data.matches(st))

    @app.get("/api/matches/{run_id}")
    def api_match(run_id: Annotated[int, Path(ge=0, le=MAX_ID, description="the match's run id")]) -> dict:
        """One match: its SPRT's bounds and verdict, the LLR after each block fed to it, and the estimate."""
        with store() as st:
            return cache.get(tuple(queries.change_mark(st)), ("match", run_id), lambda: data.match(st, run_id))

    @app.get("/api/events")
    async def api_events(request: Request) -> StreamingResponse:
        """Server-sent events: ``change`` with the newest game id whenever the store's change mark moves."""
        async def stream():
            changes.follow()
            try:
                last = None
                while not await request.is_disconnected():
                    mark = await changes.wait(last, poll)
                    if mark is not None and mark != last:
                        last = mark
                        yield f"event: change\ndata: {json.dumps({'game': mark[0], 'crash': mark[1]})}\n\n"
            finally:
                changes.leave()
        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    @app.get("/charts/history.svg")
    def chart_history(pool: str, bot: str | None = None, version: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
                      all_versions: bool = False,
                      width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH, description="in pixels")] = WIDTH,
                      ) -> Response:
        """The rating histories of a pool on one scale (SVG): every bot's newest version (or ``all_versions``), or
        ``bot``'s versions (only ``version``), each mu with its 3-sigma band, drawn ``width`` pixels wide."""
        with store() as st:
            svg = cache.get(tuple(queries.change_mark(st)), ("history.svg", pool, bot, version, all_versions, width),
                            lambda: history_svg(data.histories(st, pool, bot=bot, version=version,
                                                               all_versions=all_versions), width))
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    @app.get("/charts/matches/{run_id}/sprt.svg")
    def chart_sprt(run_id: Annotated[int, Path(ge=0, le=MAX_ID)],
                   width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH, description="in pixels")] = WIDTH) -> Response:
        """A match's LLR after each block between its SPRT's bounds (SVG), drawn ``width`` pixels wide."""
        with store() as st:
            svg = cache.get(tuple(queries.change_mark(st)), ("sprt.svg", run_id, width),
                            lambda: sprt_svg(data.match(st, run_id), width))
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    # -- the pages: a template each, filled in by its script from the API ------------------------------
    def page(request: Request, template: str, **context) -> HTMLResponse:
        return pages.TemplateResponse(request, template, {"db": str(db), "db_name": db.name, **context})

    @app.get("/", response_class=HTMLResponse)
    def leaderboard_page(request: Request):
        return page(request, "leaderboard.html")

    @app.get("/games", response_class=HTMLResponse)
    def games_page(request: Request):
        return page(request, "games.html")

    @app.get("/games/{game_id}", response_class=HTMLResponse)
    def replay_page(request: Request, game_id: GameId):
        return page(request, "replay.html", game_id=game_id)

    @app.get("/matches", response_class=HTMLResponse)
    def matches_page(request: Request):
        return page(request, "matches.html")

    @app.get("/matches/{run_id}", response_class=HTMLResponse)
    def match_page(request: Request, run_id: Annotated[int, Path(ge=0, le=MAX_ID)]):
        return page(request, "match.html", run_id=run_id)

    @app.get("/bots/{name}", response_class=HTMLResponse)
    def bot_page(request: Request, name: str):
        return page(request, "bot.html", name=name)

    # -- a person's seat (pepper web --seat): behind the play token --------------------------------------
    def holder(token: str) -> HumanSeat:
        if seat is None or play_token is None:
            raise HTTPException(404, "no seat is played from this server: start it with pepper web --seat NAME")
        if not secrets.compare_digest(token.encode(), play_token.encode()):
            raise HTTPException(403, "wrong or missing play token: open the address `pepper web --seat` printed")
        return seat

    @app.get("/api/seat")
    def api_seat(token: str = "") -> dict:
        """The seat's pending decision (its view: its own cards only, legal actions, seconds left) or latest view."""
        return holder(token).state()

    @app.post("/api/seat/answer")
    def api_seat_answer(token: str = "", action: str = Body(...), request_id: int | str = Body(...)) -> dict:
        """Answer the pending decision ``request_id`` with ``action`` (one of its legal actions)."""
        try:
            holder(token).answer(action, str(request_id))
        except ValueError as e:
            raise HTTPException(409, str(e)) from None
        return {"ok": True}

    @app.get("/play", response_class=HTMLResponse)
    def play_page(request: Request, token: str = ""):
        holder(token)
        return page(request, "play.html", name=seat.name)

    return app
