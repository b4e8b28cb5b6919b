"""Rulesets are data.

A :class:`Ruleset` names a *family* (the game logic: ``iowa``, ``bid-euchre``,
``pepper-30``, ``five-handed``) plus the parameters the spec allows a ruleset
file to change. :meth:`Ruleset.table` resolves it for one player count into a
:class:`Table`: the concrete deck, hand size, teams and bid ladder the engine
runs on.

A ruleset file is TOML::

    extends = "iowa"          # a built-in ruleset (required)
    name = "iowa-to-32"       # optional; default: the file's stem
    target_score = 32
    deal_cap = 100            # the spec's "hand cap"
    pass_out = "dealer-must-bid"
    defenders_may_cede = false
    pepper_exchange = false
    min_bid = 2
    max_bid = 6
    specials = ["pepper"]
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .actions import BID_NAMES
from .errors import RulesetError
from .families import FAMILIES, Family

__all__ = ["Ruleset", "Table", "BidLevel", "Family", "BUILTIN_RULESETS", "get_ruleset", "load_ruleset_file", "ruleset_from_dict"]

PASS_OUT_CHOICES = ("throw-in", "dealer-must-bid")


@dataclass(frozen=True)
class BidLevel:
    """One rung of a bid ladder, resolved for a player count."""

    name: str           # "3", "pepper", ...: as written in actions
    index: int          # index into actions.BID_NAMES
    tricks: int         # tricks the contract needs
    special: bool       # a named bid (Pepper & co.) rather than a number
    alone: bool         # the bidder plays without partner(s)
    points: int | None  # fixed score won or lost; None: the family's numeric scoring

    @property
    def number(self) -> int | None:
        return None if self.special else int(self.name)


@dataclass(frozen=True)
class Table:
    """A ruleset resolved for one player count: what the engine runs on."""

    ruleset: Ruleset
    players: int
    deck: tuple[int, ...]          # ordered deck (card ids, copies repeated)
    hand_size: int                 # cards per seat = tricks per deal
    widow_size: int                # five-handed pool
    dead_hand: bool                # pepper-30 with 2 players
    team_of: tuple[int, ...]       # seat -> team
    teams: int
    ladder: tuple[BidLevel, ...]   # low to high
    bid_names_strain: bool         # bids name their strain (bid-euchre)
    has_copies: bool               # deck holds duplicate cards

    @property
    def family(self) -> Family:
        return self.ruleset.family

    def team_seats(self, team: int) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if self.team_of[s] == team)


@dataclass(frozen=True)
class Ruleset:
    """A named ruleset: a family and the parameters a ruleset file may change."""

    name: str
    family: Family | str                 # a registered family: a Family, or its name (converted)
    description: str
    player_counts: tuple[int, ...]
    target_score: int
    deal_cap: int = 200
    pass_out: str = "throw-in"
    defenders_may_cede: bool = False
    pepper_exchange: bool = False
    min_bid: int = 1
    max_bid: int | None = None           # None: the family default for the player count
    specials: tuple[str, ...] = ()
    source: str = "built-in"             # where it came from (a file path for files)
    extends: str | None = None
    _tables: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.family, Family):
            rules = FAMILIES.get(self.family) if isinstance(self.family, str) else None
            if rules is None:
                raise RulesetError(f"ruleset {self.name!r}: unknown family {self.family!r}",
                                   allowed=", ".join(FAMILIES))
            object.__setattr__(self, "family", rules.family)   # the Family of a built-in family

    @property
    def default_players(self) -> int:
        """The player count when none is given: 4 where the ruleset allows it, else its smallest."""
        return 4 if 4 in self.player_counts else self.player_counts[0]

    # -- resolution ---------------------------------------------------------
    def table(self, players: int) -> Table:
        """This ruleset for ``players`` seats (cached)."""
        t = self._tables.get(players)
        if t is None:
            if players not in self.player_counts:
                raise RulesetError(
                    f"ruleset {self.name!r} is not played by {players} players",
                    allowed=", ".join(map(str, self.player_counts)),
                )
            t = self._tables[players] = _resolve(self, players)
        return t

    def to_dict(self) -> dict:
        """The parameters, as a ruleset file would give them (for game records)."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if not f.name.startswith("_")}
        d["player_counts"] = list(self.player_counts)
        d["specials"] = list(self.specials)
        return d


#: family name -> its special bids, low to high (what a ruleset file's ``specials`` may name).
FAMILY_SPECIALS = {f: r.specials for f, r in FAMILIES.items()}


def _resolve(rs: Ruleset, n: int) -> Table:
    rules = FAMILIES[rs.family]
    lay = rules.layout(n)
    hand = lay.hand_size
    max_bid = rs.max_bid if rs.max_bid is not None else rules.default_max_bid(hand)
    if not (1 <= rs.min_bid <= max_bid <= hand):
        raise RulesetError(
            f"{rs.source}: key 'min_bid/max_bid': ruleset {rs.name!r}: bids {rs.min_bid}..{max_bid} "
            f"do not fit {hand} tricks with {n} players",
            key="min_bid/max_bid", allowed=f"1 <= min_bid <= max_bid <= {hand}", source=rs.source,
        )
    ladder = [BidLevel(str(k), BID_NAMES.index(str(k)), k, False, False, None) for k in range(rs.min_bid, max_bid + 1)]
    ladder += [BidLevel(s, BID_NAMES.index(s), *_fields(rules.special_level(s, hand))) for s in rs.specials]
    return Table(
        ruleset=rs, players=n, deck=lay.deck, hand_size=hand, widow_size=lay.widow_size, dead_hand=lay.dead_hand,
        team_of=lay.team_of, teams=max(lay.team_of) + 1, ladder=tuple(ladder),
        bid_names_strain=rules.bid_names_strain, has_copies=rules.has_copies,
    )


def _fields(level: tuple[int, bool, int | None]) -> tuple[int, bool, bool, int | None]:
    tricks, alone, points = level
    return tricks, True, alone, points


BUILTIN_RULESETS: dict[str, Ruleset] = {
    r.name: r
    for r in (
        Ruleset(
            name="iowa", family=Family.IOWA, player_counts=(4,), target_score=42,
            defenders_may_cede=True, pepper_exchange=True, specials=("pepper",),
            description="Iowa Pepper: 4 players in partnerships, 24 cards, one bidding circuit, "
                        "Pepper with exchange, defenders may cede; game to 42.",
        ),
        Ruleset(
            name="bid-euchre", family=Family.BID_EUCHRE, player_counts=(4, 6, 8), target_score=50,
            pepper_exchange=True, specials=("pepper", "double-pepper"),
            description="Bid Euchre Pepper: 4, 6 or 8 players in two teams, J-A decks (one set per "
                        "two players), bids name their strain, Pepper and Double Pepper; game to 50.",
        ),
        Ruleset(
            name="pepper-30", family=Family.PEPPER_30, player_counts=(2, 3, 4), target_score=30,
            specials=("small-pepper", "big-pepper"),
            description="Pepper to 30: 2, 3 or 4 players, 24 cards, an elimination auction, Small "
                        "and Big Pepper, a dead hand with 2 players; game to 30.",
        ),
        Ruleset(
            name="five-handed", family=Family.FIVE_HANDED, player_counts=(5,), target_score=51,
            specials=("pepper", "moon-shot"), min_bid=3,
            description="Five-handed Pepper: 5 players scoring alone, three J-A decks, a 3-card "
                        "widow, the partner called by card, Pepper and Moon Shot; the bidder wins at 51.",
        ),
    )
}


def get_ruleset(name: str) -> Ruleset:
    """A built-in ruleset by name, or a ruleset file if ``name`` is a path to a ``.toml``."""
    if name in BUILTIN_RULESETS:
        return BUILTIN_RULESETS[name]
    if name.endswith(".toml"):
        return load_ruleset_file(name)
    raise RulesetError(f"unknown ruleset {name!r}", allowed=", ".join(BUILTIN_RULESETS) + " (or a .toml ruleset file)")


# -- ruleset files ----------------------------------------------------------

_FILE_KEYS = {
    "extends": "the name of a built-in ruleset",
    "name": "a string",
    "description": "a string",
    "target_score": "an integer from 1 to 10000",
    "deal_cap": "an integer from 1 to 100000",
    "pass_out": "one of " + ", ".join(f'"{p}"' for p in PASS_OUT_CHOICES),
    "defenders_may_cede": "true or false (iowa family only)",
    "pepper_exchange": "true or false (iowa and bid-euchre families only)",
    "min_bid": "an integer >= 1",
    "max_bid": "an integer <= the tricks per deal",
    "specials": "a list drawn from the family's special bids, low to high",
    "player_counts": "a list drawn from the family's player counts",
}


def load_ruleset_file(path: str | Path) -> Ruleset:
    """Load a TOML ruleset file. Errors name the file, the key and what is allowed."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RulesetError(f"ruleset file not found: {p}", source=str(p)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise RulesetError(f"cannot read ruleset file {p}: {e}", source=str(p)) from None
    except tomllib.TOMLDecodeError as e:
        raise RulesetError(f"ruleset file {p} is not valid TOML: {e}", source=str(p)) from None
    data.setdefault("name", p.stem)
    return ruleset_from_dict(data, source=str(p))


def ruleset_from_dict(data: dict, source: str = "<dict>") -> Ruleset:
    """Build a ruleset from file-style keys (``extends`` plus overrides), validated."""

    def bad(key: str, msg: str, allowed: str | None = None) -> RulesetError:
        return RulesetError(f"{source}: key {key!r}: {msg}", key=key, allowed=allowed or _FILE_KEYS.get(key), source=source)

    unknown = sorted(set(data) - set(_FILE_KEYS))
    if unknown:
        raise bad(unknown[0], "unknown key", "one of " + ", ".join(sorted(_FILE_KEYS)))
    base_name = data.get("extends")
    if not isinstance(base_name, str) or base_name not in BUILTIN_RULESETS:
        raise bad("extends", f"must name a built-in ruleset, got {base_name!r}", ", ".join(BUILTIN_RULESETS))
    base = BUILTIN_RULESETS[base_name]
    fam = base.family
    changes: dict = {"extends": base_name, "source": source}

    def want_int(key: str, lo: int, hi: int) -> None:
        if key in data:
            v = data[key]
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                raise bad(key, f"got {v!r}")
            changes[key] = v

    def want_bool(key: str, allowed: bool) -> None:
        if key in data:
            v = data[key]
            if not isinstance(v, bool):
                raise bad(key, f"got {v!r}")
            if v and not allowed:
                raise bad(key, f"the {fam} family has no such rule")
            changes[key] = v

    for key in ("name", "description"):
        if key in data:
            if not isinstance(data[key], str) or not data[key].strip():
                raise bad(key, f"got {data[key]!r}", "a non-empty string")
            changes[key] = data[key]
    want_int("target_score", 1, 10_000)
    want_int("deal_cap", 1, 100_000)
    want_int("min_bid", 1, 13)
    want_int("max_bid", 1, 13)
    want_bool("defenders_may_cede", FAMILIES[fam].may_cede)
    want_bool("pepper_exchange", FAMILIES[fam].may_exchange)
    if "pass_out" in data:
        if data["pass_out"] not in PASS_OUT_CHOICES:
            raise bad("pass_out", f"got {data['pass_out']!r}")
        changes["pass_out"] = data["pass_out"]
    if "specials" in data:
        sp = data["specials"]
        allowed = FAMILY_SPECIALS[fam]
        if not isinstance(sp, list) or any(s not in allowed for s in sp) or len(set(sp)) != len(sp):
            raise bad("specials", f"got {sp!r}", f"a list drawn from {list(allowed)}")
        changes["specials"] = tuple(s for s in allowed if s in sp)  # keep the ladder order
    if "player_counts" in data:
        pc = data["player_counts"]
        if not isinstance(pc, list) or not pc or any(x not in base.player_counts for x in pc):
            raise bad("player_counts", f"got {pc!r}", f"a non-empty list drawn from {list(base.player_counts)}")
        changes["player_counts"] = tuple(sorted(set(pc)))
    rs = dataclasses.replace(base, _tables={}, **changes)
    if rs.name in BUILTIN_RULESETS:
        raise bad("name", f"{rs.name!r} is a built-in ruleset; give the file its own name", "a new name")
    if "description" not in data:
        changed = ", ".join(f"{k} = {data[k]!r}" for k in _FILE_KEYS if k in data and k not in ("extends", "name"))
        rs = dataclasses.replace(rs, description=f"{base_name} with {changed or 'no changes'} (from {source})")
    for n in rs.player_counts:  # validate the ladder for every player count now, not mid-game
        rs.table(n)
    return rs
