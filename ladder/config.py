"""A ladder folder: its configuration (``ladder.toml``, which an organizer edits), its stores and its secrets.

::

    DIR/ladder.toml     the configuration (:class:`LadderConfig`), read when ``pepper ladder serve`` starts
    DIR/arena.db        the arena's results store: what ``pepper arena table --db`` and ``pepper web --db`` read
    DIR/ladder.db       the ladder's own state: authors, their hashed keys, who owns which bot, paused and retired
    DIR/secrets/        the key that hashes author keys (mode 0600, in a 0700 folder)
    DIR/logs/           the referee's log and the service's structured log; logs/bots/ the uploaded bots' output
    DIR/uploads/ID/     an uploaded bot's folder, as unpacked (the version it became runs from it)
    DIR/serve.json      where a running service listens (written once it is ready, removed when it stops)
"""

from __future__ import annotations

import os
import secrets
import shutil
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from referee.defaults import DEFAULT_DEADLINE_MS, DEFAULT_TIME_BANK_MS
from referee.rules import BUILTIN_RULESETS, RulesetError, get_ruleset

from .errors import NotALadder

CONFIG = "ladder.toml"


@dataclass
class LadderConfig:
    """What ``ladder.toml`` says; every key has a default, and an unknown key is an error (a typo would be ignored)."""

    name: str = "ladder"
    ruleset: str = "iowa"             # a built-in name, or a ruleset file inside the ladder folder
    players: int | None = None        # None: the ruleset's default
    seed: int = 1                     # the decks: each game's deck seed derives from it and the game's index
    max_in_flight: int = 16           # games in flight at once, over every bot
    max_per_bot: int = 8              # games in flight at once with one bot in them
    deadline_ms: int = DEFAULT_DEADLINE_MS
    time_bank_ms: int = DEFAULT_TIME_BANK_MS
    drain_seconds: float = 30.0       # SIGTERM: how long games in flight get to finish (the rest are replayed later)
    entries_per_hour: int = 30        # entries (new bots and new versions) one author may make in an hour
    uploads: bool = True              # take uploaded bots (built, checked and run in the Docker sandbox)
    upload_max_mb: int = 16           # the largest upload (the archive), MiB
    referee_address: str = "127.0.0.1:50051"
    web_address: str = "127.0.0.1:8000"
    allowed_hosts: list[str] = field(default_factory=list)   # host names the web app answers to, besides its own
    tls_cert: str = ""                # PEM certificate and key for the referee and the web app (both or neither)
    tls_key: str = ""
    tls_name: str = "localhost"       # a name the certificate holds: the service's own control connection checks it

    @classmethod
    def parse(cls, text: str, where: str) -> LadderConfig:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise NotALadder(f"{where}: not valid TOML ({e}); fix the file") from None
        known = {f.name for f in fields(cls)}
        if unknown := sorted(set(data) - known):
            raise NotALadder(f"{where}: unknown key(s) {', '.join(unknown)}; the keys are {', '.join(sorted(known))}")
        cfg = cls(**data)
        if bool(cfg.tls_cert) != bool(cfg.tls_key):
            raise NotALadder(f"{where}: TLS needs both tls_cert and tls_key (PEM files), or neither")
        return cfg

    def dump(self) -> str:
        """The configuration as ``ladder.toml`` (with a line on each key), which :meth:`parse` reads back."""
        def value(v) -> str:
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, str):
                return f'"{v}"'
            if isinstance(v, list):
                return "[" + ", ".join(value(x) for x in v) + "]"
            return str(v)

        lines = ["# A Pepper ladder (docs/ladder.md). Edit, then restart `pepper ladder serve`.", ""]
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None:
                lines.append(f"# {f.name} = (the ruleset's default)")
            else:
                lines.append(f"{f.name} = {value(v)}")
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LadderDir:
    """The paths of a ladder folder."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / CONFIG

    @property
    def arena_db(self) -> Path:
        return self.root / "arena.db"

    @property
    def ladder_db(self) -> Path:
        return self.root / "ladder.db"

    @property
    def secrets(self) -> Path:
        return self.root / "secrets"

    @property
    def key_secret(self) -> Path:
        return self.secrets / "author-keys.key"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def uploads(self) -> Path:
        return self.root / "uploads"

    @property
    def bot_logs(self) -> Path:
        return self.logs / "bots"

    def bot_log(self, bot: str) -> Path:
        """An uploaded bot's output (the name arena.processes.BotProcesses gives it in ``bot_logs``)."""
        return self.bot_logs / f"bot-{bot}.log"

    @property
    def serve_json(self) -> Path:
        return self.root / "serve.json"

    @property
    def lock(self) -> Path:
        return self.root / "serve.lock"

    def load(self) -> LadderConfig:
        if not self.config.is_file():
            raise NotALadder(f"{self.root}: not a ladder folder (no {CONFIG}); make one with `pepper ladder init {self.root}`")
        cfg = LadderConfig.parse(self.config.read_text(encoding="utf-8"), str(self.config))
        if cfg.ruleset not in BUILTIN_RULESETS:
            cfg.ruleset = str(self.root / cfg.ruleset)
        for key in ("tls_cert", "tls_key"):   # relative to the folder
            if value := getattr(cfg, key):
                setattr(cfg, key, str(self.root / value))
                if not Path(getattr(cfg, key)).is_file():
                    raise NotALadder(f"{self.config}: {key} {value!r}: no such file")
        return cfg

    def hashing_key(self) -> bytes:
        try:
            return bytes.fromhex(self.key_secret.read_text(encoding="ascii").strip())
        except (OSError, ValueError) as e:
            raise NotALadder(f"{self.key_secret}: cannot read the ladder's key secret ({e}); it is made by "
                             "`pepper ladder init`") from None


def init(root: Path, ruleset: str = "iowa", players: int | None = None, **settings) -> LadderDir:
    """Make the ladder folder ``root``: its configuration (``ruleset`` a built-in name or a ruleset file, copied
    in), its stores and its secret. An existing ladder is left as it is (NotALadder says so)."""
    d = LadderDir(root)
    if d.config.exists():
        raise NotALadder(f"{root}: a ladder is there already ({d.config}); edit that file instead")
    cfg = LadderConfig(players=players, seed=secrets.randbits(31), **settings)
    try:
        rs = get_ruleset(ruleset)
        if players is not None:
            rs.table(players)
    except RulesetError as e:
        raise NotALadder(str(e)) from None
    root.mkdir(parents=True, exist_ok=True)
    if ruleset in BUILTIN_RULESETS:
        cfg.ruleset = ruleset
    else:
        shutil.copyfile(ruleset, root / "ruleset.toml")
        cfg.ruleset = "ruleset.toml"
    d.secrets.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(d.key_secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(secrets.token_hex(32) + "\n")
    d.logs.mkdir(exist_ok=True)
    d.config.write_text(cfg.dump(), encoding="utf-8")
    return d


__all__ = ["CONFIG", "LadderConfig", "LadderDir", "init"]
