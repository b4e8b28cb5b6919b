"""The arena's results database: :class:`Store` (every SQL statement of the arena), its typed rows and its
numbered migrations."""

from .migrations import LATEST as SCHEMA_VERSION
from .rows import (
    BlockRow,
    Bot,
    BotKind,
    BotTotals,
    BotVersion,
    Build,
    Faults,
    GameIds,
    GameStatus,
    NewGame,
    PlannedGame,
    Seat,
    SeatStatus,
    StoredGame,
    new_token,
    token_sha256,
)
from .store import Plan, Store, StoreError

__all__ = ["SCHEMA_VERSION", "BlockRow", "Bot", "BotKind", "BotTotals", "BotVersion", "Build", "Faults", "GameIds", "GameStatus", "NewGame", "Plan",
           "PlannedGame", "Seat", "SeatStatus", "Store", "StoreError", "StoredGame",
           "new_token", "token_sha256"]
