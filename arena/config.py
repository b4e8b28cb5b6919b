"""What a run is: :class:`RunConfig`, its ruleset and player count resolved, and the key that resumes it."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from referee.defaults import DEFAULT_DEADLINE_MS, DEFAULT_TIME_BANK_MS
from referee.rules import BUILTIN_RULESETS, Ruleset, get_ruleset

from .ratings import DEFAULT_TAU, Pool


@dataclass
class RunConfig:
    ruleset: str = "iowa"
    players: int | None = None        # default: the ruleset's (Ruleset.default_players)
    games: int = 1000
    seed: int = 1
    lineup: str = "mirrored"          # mirrored | mixed
    duplicate: bool = True
    adaptive: bool = False
    # Adaptive runs: stop planning once every adjacent pair of the table is significantly apart (--games is the
    # cap). Not part of the run's key: a run stopped so resumes to its cap without it (its plan is the same).
    until_confident: bool = False
    bots: list[str] | None = None     # default: every registered bot
    concurrency: int | None = None   # games in flight; None: arena.tournament.default_concurrency
    referee: str | None = None        # use this referee instead of starting one
    # Referee processes the arena starts, the games spread over them (docs/arena.md, "Shards"); None:
    # arena.processes.default_shards. Not part of the run's key: where a game is played changes nothing of it.
    shards: int | None = None
    listen: str = "127.0.0.1:0"       # where the arena's own referee listens (remote bots connect here)
    control_token: str | None = None
    deadline_ms: int = DEFAULT_DEADLINE_MS      # the referee's and the checker's defaults (one definition)
    time_bank_ms: int = DEFAULT_TIME_BANK_MS
    db: str = "arena.db"
    log_dir: str = "arena-logs"
    bot_env: dict = field(default_factory=dict)  # extra env for every launched bot (e.g. MC budget)
    sandbox: str = "none"             # none | docker: every command bot in a container of its own (docs/sandbox.md)
    # apart | shared: the games of a duplicate block played by processes of their own (arena.twins), or by any of
    # the bot's processes (trusted bots). Not part of the run's key: which process plays a game changes nothing of it.
    twins: str = "apart"
    play_forced: bool = True          # forced moves are played by the referee, not asked (GamePolicy.play_forced)
    tau: float = DEFAULT_TAU          # TrueSkill dynamics (0: bots do not drift; see arena.ratings)
    deals: str | None = None          # a deal set file (arena.deals): the decks the matches are dealt
    # How long a bot may lack the connections a game needs before the run ends (it stays resumable): a
    # launched bot is restarted meanwhile; a remote bot's owner may need minutes to restart it.
    bot_down_s: float = 120.0
    remote_down_s: float = 600.0

    def ruleset_obj(self) -> Ruleset:
        """The ruleset: a built-in name or a .toml file (RulesetError names what is wrong)."""
        return get_ruleset(self.ruleset)

    def ruleset_params(self) -> dict | None:
        """A ruleset file's keys (its name filled in), as CreateGame's ruleset_json; None for a built-in."""
        if self.ruleset in BUILTIN_RULESETS:
            return None
        rs = self.ruleset_obj()  # validates the file
        data = tomllib.loads(Path(self.ruleset).read_text(encoding="utf-8"))
        data.setdefault("name", rs.name)
        return data

    def resolved_players(self) -> int:
        rs = self.ruleset_obj()
        if self.players is None:
            return rs.default_players
        rs.table(self.players)  # raises RulesetError naming the allowed counts
        return self.players

    def pool(self) -> Pool:
        """The rating pool the run's games go to: its ruleset's content and player count."""
        return Pool.of(self.ruleset_obj(), self.resolved_players())

    def run_key(self, bots: list[str]) -> dict:
        """What identifies a run: the same command (same key) resumes it; a ruleset file by its name and keys. A
        bot's new version resumes the run too (a fixed bot plays the games it was withdrawn from): each game is
        rated for the version that played it."""
        params = self.ruleset_params()
        key = {"ruleset": self.ruleset if params is None else params["name"], "players": self.resolved_players(),
               "games": self.games, "seed": self.seed, "lineup": self.lineup, "duplicate": self.duplicate,
               "adaptive": self.adaptive, "bots": sorted(bots)}
        return key if params is None else key | {"ruleset_params": params}
