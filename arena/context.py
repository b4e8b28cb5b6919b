"""What the parts of one run share (:class:`RunContext`): its configuration, store, ruleset, table and pool, and what
the run settles as it opens (its deal set, its bots' versions), and the run's plan as far as it has been read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from referee.rules import Ruleset

from . import deals
from .config import RunConfig
from .store import PlannedGame, Store


@dataclass(eq=False)
class RunContext:
    cfg: RunConfig
    store: Store
    rs: Ruleset = field(init=False)
    players: int = field(init=False)
    pool: str = field(init=False)                      # by the ruleset's content, not its name
    deals: list[deals.Deal] | None = None              # --deals: the deal set the matches are dealt from
    versions: dict[str, int] | None = None             # bot -> its version this run plays (None: each bot's newest)
    _plan_rows: list[PlannedGame] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rs = self.cfg.ruleset_obj()
        self.players = self.cfg.resolved_players()
        self.pool = self.cfg.pool().key
        self.table = self.rs.table(self.players)
        params = self.cfg.ruleset_params()
        # How CreateGame names the ruleset: a built-in by name, a ruleset file by its keys.
        self.ruleset_source = {"ruleset": self.rs.name} if params is None else {"ruleset_json": json.dumps(params)}

    def version(self, bot: str) -> int:
        """The version of ``bot`` this run plays."""
        return (self.versions or {}).get(bot, 1)

    def deal_seeds(self) -> list[int | None] | None:
        return [d.seed for d in self.deals] if self.deals else None

    def planned(self, run_id: int) -> list[PlannedGame]:
        """The run's plan so far, in plan order: the store's rows read only from where they were last read (each
        adaptive round adds a few; reading the whole plan at every round made planning grow with the run)."""
        self._plan_rows.extend(self.store.planned(run_id, start=len(self._plan_rows)))
        return self._plan_rows


__all__ = ["RunContext"]
