"""The standing ladder (docs/ladder.md): a folder (:mod:`ladder.config`: its TOML configuration, its stores and
secrets), the authors and their keys (:mod:`ladder.state`), entering bots (:mod:`ladder.entries`), the continuous
scheduler (:mod:`ladder.planner`, :mod:`ladder.scheduler`), the submission API mounted on the web app
(:mod:`ladder.api`), and the service that runs them all until stopped (:mod:`ladder.service`).

It stands on the arena (the results store, the referee process, the planner and sink seams) and the web app; the
arena store in the ladder folder stays the one ``pepper arena table --db`` and ``pepper web --db`` read.
"""
