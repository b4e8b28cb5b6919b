"""The store's runs and their plans (a part of :class:`arena.store.Store`)."""

from __future__ import annotations

import json
import sqlite3
import time

from .rows import PlannedGame

Plan = list[tuple[int, str, int, int, list[str]]]  # (match, ruleset name, players, seed, seats): arena.schedule.plan


class RunTables:
    """A run found by its key, its plan stored first, then read in plan order."""

    db: sqlite3.Connection   # the Store's connection; ``tx`` its transactions (arena.store.store.Store)

    # -- runs and plans -------------------------------------------------------------------------------
    def find_or_create_run(self, config: dict, plan: Plan) -> tuple[int, bool]:
        """The run for ``config`` (created with its ``plan`` if new). Returns (run id, resumed)."""
        key = json.dumps(config, sort_keys=True)
        with self.tx():
            row = self.db.execute("SELECT id FROM runs WHERE key = ?", (key,)).fetchone()
            if row:
                return row[0], True
            cur = self.db.execute("INSERT INTO runs (key, config_json, created_at) VALUES (?, ?, ?)", (key, key, time.time()))
            self._insert_plan(cur.lastrowid, 0, plan)
            return cur.lastrowid, False

    def find_run(self, config: dict) -> int | None:
        """The id of the run for ``config`` (its key), or None: none is stored (nothing is created)."""
        row = self.db.execute("SELECT id FROM runs WHERE key = ?", (json.dumps(config, sort_keys=True),)).fetchone()
        return None if row is None else row[0]

    def run_config(self, run_id: int) -> dict | None:
        """The settings a run was created with (its key), or None for no such run."""
        row = self.db.execute("SELECT config_json FROM runs WHERE id = ?", (run_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def _insert_plan(self, run_id: int, start: int, plan: Plan) -> None:
        self.db.executemany(
            "INSERT INTO planned_games (run_id, idx, match, ruleset, players, seed, seats_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(run_id, start + i, m, rs, n, seed, json.dumps(seats)) for i, (m, rs, n, seed, seats) in enumerate(plan)])

    def append_plan(self, run_id: int, plan: Plan) -> None:
        """Adaptive runs plan as they go: add matches to the end of a run's plan."""
        with self.tx():
            self._insert_plan(run_id, self.planned_count(run_id), plan)

    def planned(self, run_id: int, start: int = 0) -> list[PlannedGame]:
        """Every planned game of a run, in plan order (from plan index ``start``: what an adaptive run has planned
        since it last looked, without reading the whole plan again)."""
        rows = self.db.execute("SELECT idx, match, ruleset, players, seed, seats_json FROM planned_games "
                               "WHERE run_id = ? AND idx >= ? ORDER BY idx", (run_id, start))
        return [PlannedGame(*r[:5], json.loads(r[5])) for r in rows]

    def pending(self, run_id: int) -> list[PlannedGame]:
        """Planned games of a run without a stored result."""
        rows = self.db.execute(
            "SELECT p.idx, p.match, p.ruleset, p.players, p.seed, p.seats_json FROM planned_games p "
            "LEFT JOIN games g ON g.run_id = p.run_id AND g.idx = p.idx WHERE p.run_id = ? AND g.id IS NULL ORDER BY p.idx",
            (run_id,))
        return [PlannedGame(*r[:5], json.loads(r[5])) for r in rows]

    def planned_count(self, run_id: int) -> int:
        return self.db.execute("SELECT COUNT(*) FROM planned_games WHERE run_id = ?", (run_id,)).fetchone()[0]

    def run_faults(self, run_id: int) -> int:
        """Faults (illegal, malformed, timeout, disconnect) over every seat of a run's stored games."""
        return self.db.execute(
            "SELECT COALESCE(SUM(illegal + malformed + timeout + disconnect), 0) FROM game_seats "
            "WHERE game_id IN (SELECT id FROM games WHERE run_id = ?)", (run_id,)).fetchone()[0]

    def run_table_faults(self, run_id: int) -> int:
        """A run's faults as the ranked table counts them (timeouts, illegal and malformed answers, fallbacks over
        every seat of its stored games, and its bots' crashes; not disconnects, which a crash brings)."""
        return self.db.execute(
            "SELECT (SELECT COALESCE(SUM(timeout + illegal + malformed + fallbacks), 0) FROM game_seats "
            "WHERE game_id IN (SELECT id FROM games WHERE run_id = :run)) + "
            "(SELECT COUNT(*) FROM crashes WHERE run_id = :run)", {"run": run_id}).fetchone()[0]

    def finish_run(self, run_id: int) -> None:
        with self.tx():
            self.db.execute("UPDATE runs SET finished_at = ? WHERE id = ?", (time.time(), run_id))

