"""``pepper web``: the results database in a browser (docs/web.md).

A read-only view of an arena's SQLite store: the live leaderboard per pool, bots and their versions, the
games with their duplicate twins, and a replay viewer for one game, all seats' cards or exactly one seat's.
Every page is a template plus a little JavaScript that reads the JSON API (:mod:`web.app`); the API reads
the store (:mod:`web.data`) and replays records on the rules engine (:mod:`web.replay`), which alone decides
what a seat may see.

    from web.app import create_app
    app = create_app("arena.db")       # an ASGI app: uvicorn.run(app, host="127.0.0.1", port=8000)
"""
