"""What released migrations 3 and 5 computed with, frozen: never edit this file.

A migration's result must not change when the live code does, so the migrations (:mod:`arena.store.migrations`)
read only their own code, this file and the database. This is the rules as those migrations saw them: the
built-in rulesets, what a ruleset file could say, each family's seats, how a pool key and a ruleset's digest were
written (:class:`arena.ratings.Pool`, :func:`arena.ratings.ruleset_digest`) and a game's pairwise results
(:func:`arena.evidence.game_pairs`). The live code may change any of them; a later migration that needs the new
behaviour freezes its own copy beside this one. Like the migrations, it imports the standard library only
(`.importlinter` says so).
"""

from __future__ import annotations

import hashlib
import json
from typing import NamedTuple


class Seats(NamedTuple):
    """A family at one player count: tricks per deal, the highest number bid by default, seat -> team."""

    hand: int
    default_max_bid: int
    team_of: tuple[int, ...]


class FamilyRules(NamedTuple):
    may_cede: bool                 # defenders_may_cede may be true
    may_exchange: bool             # pepper_exchange may be true
    specials: tuple[str, ...]      # its special bids, low to high
    seats: dict[int, Seats]        # per player count


FAMILIES = {
    "iowa": FamilyRules(True, True, ("pepper",), {4: Seats(6, 6, (0, 1, 0, 1))}),
    "bid-euchre": FamilyRules(False, True, ("pepper", "double-pepper"), {
        4: Seats(8, 8, (0, 1, 0, 1)), 6: Seats(8, 8, (0, 1, 0, 1, 0, 1)), 8: Seats(8, 8, (0, 1, 0, 1, 0, 1, 0, 1))}),
    "pepper-30": FamilyRules(False, False, ("small-pepper", "big-pepper"), {
        2: Seats(8, 7, (0, 1)), 3: Seats(8, 7, (0, 1, 2)), 4: Seats(6, 5, (0, 1, 0, 1))}),
    "five-handed": FamilyRules(False, False, ("pepper", "moon-shot"), {5: Seats(9, 9, (0, 1, 2, 3, 4))}),
}

#: A ruleset's rules (its fields but its name and prose), at their defaults.
DEFAULTS = {"deal_cap": 200, "pass_out": "throw-in", "defenders_may_cede": False, "pepper_exchange": False,
            "min_bid": 1, "max_bid": None, "specials": ()}

#: The built-in rulesets' rules, in full.
BUILTIN_RULESETS = {
    "iowa": {**DEFAULTS, "family": "iowa", "player_counts": (4,), "target_score": 42,
             "defenders_may_cede": True, "pepper_exchange": True, "specials": ("pepper",)},
    "bid-euchre": {**DEFAULTS, "family": "bid-euchre", "player_counts": (4, 6, 8), "target_score": 50,
                   "pepper_exchange": True, "specials": ("pepper", "double-pepper")},
    "pepper-30": {**DEFAULTS, "family": "pepper-30", "player_counts": (2, 3, 4), "target_score": 30,
                  "specials": ("small-pepper", "big-pepper")},
    "five-handed": {**DEFAULTS, "family": "five-handed", "player_counts": (5,), "target_score": 51,
                    "specials": ("pepper", "moon-shot"), "min_bid": 3},
}

PASS_OUT_CHOICES = ("throw-in", "dealer-must-bid")
FILE_KEYS = ("extends", "name", "description", "target_score", "deal_cap", "pass_out", "defenders_may_cede",
             "pepper_exchange", "min_bid", "max_bid", "specials", "player_counts")


def file_rules(data: dict) -> dict | None:
    """The rules of a ruleset file's keys (a run's ``ruleset_params``), or None where the rules refused them."""
    if set(data) - set(FILE_KEYS):
        return None
    base_name = data.get("extends")
    if not isinstance(base_name, str) or base_name not in BUILTIN_RULESETS:
        return None
    rules = dict(BUILTIN_RULESETS[base_name])
    fam = FAMILIES[rules["family"]]
    for key in ("name", "description"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            return None
    for key, lo, hi in (("target_score", 1, 10_000), ("deal_cap", 1, 100_000), ("min_bid", 1, 13), ("max_bid", 1, 13)):
        if key in data:
            v = data[key]
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                return None
            rules[key] = v
    for key, allowed in (("defenders_may_cede", fam.may_cede), ("pepper_exchange", fam.may_exchange)):
        if key in data:
            v = data[key]
            if not isinstance(v, bool) or (v and not allowed):
                return None
            rules[key] = v
    if "pass_out" in data:
        if data["pass_out"] not in PASS_OUT_CHOICES:
            return None
        rules["pass_out"] = data["pass_out"]
    if "specials" in data:
        sp = data["specials"]
        if not isinstance(sp, list) or any(s not in fam.specials for s in sp) or len(set(sp)) != len(sp):
            return None
        rules["specials"] = tuple(s for s in fam.specials if s in sp)
    if "player_counts" in data:
        pc = data["player_counts"]
        if not isinstance(pc, list) or not pc or any(x not in rules["player_counts"] for x in pc):
            return None
        rules["player_counts"] = tuple(sorted(set(pc)))
    if data.get("name", base_name) in BUILTIN_RULESETS:
        return None
    for n in rules["player_counts"]:   # the bids must fit the tricks at every player count
        hand = fam.seats[n].hand
        max_bid = rules["max_bid"] if rules["max_bid"] is not None else fam.seats[n].default_max_bid
        if not 1 <= rules["min_bid"] <= max_bid <= hand:
            return None
    return rules


def rules_of(name: str, params: dict[str, dict]) -> dict | None:
    """A pool's ruleset's rules: the built-in of that name, else the file whose keys a run stored (``params``, per
    ruleset name), else None."""
    if name in BUILTIN_RULESETS:
        return BUILTIN_RULESETS[name]
    return file_rules(params[name]) if name in params else None


def ruleset_digest(rules: dict) -> str:
    """The short sha256 of the canonical JSON of a ruleset's rules, those at their default left out."""
    fields = {k: v for k, v in rules.items() if k not in DEFAULTS or v != DEFAULTS[k]}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]


def team_of(rules: dict, players: int) -> tuple[int, ...] | None:
    """Seat -> team for a ruleset at a player count, None where it is not played by that many."""
    if players not in rules["player_counts"]:
        return None
    return FAMILIES[rules["family"]].seats[players].team_of


class PoolKey(NamedTuple):
    """A stored pool key, ``name@digest/Np`` (``name/Np`` before pools had digests)."""

    ruleset: str
    digest: str
    players: int

    @classmethod
    def parse(cls, key: str) -> PoolKey:
        head, _, players = key.rpartition("/")
        name, at, digest = head.rpartition("@")
        if not at or not all(c in "0123456789abcdef" for c in digest):
            name, digest = head, ""
        return cls(name, digest, int(players.removesuffix("p")))

    @property
    def key(self) -> str:
        return f"{self.ruleset}@{self.digest}/{self.players}p" if self.digest else f"{self.ruleset}/{self.players}p"


class PairResult(NamedTuple):
    a: tuple[str, int]   # a side: (bot, version)
    b: tuple[str, int]
    score: float         # a's score against b: 1, 0.5 or 0 (a mean where a side has several seats)
    margin: float        # a's points minus b's


def game_pairs(sides: list[tuple[str, int]], scores: list[float], won: list[bool],
               team_of: tuple[int, ...]) -> list[PairResult]:
    """Every ordered pair of distinct sides of one game that sat on opposite teams, with the first side's score and
    margin against the second; all arguments are per seat."""
    seats: dict[tuple[str, int], list[int]] = {}
    for s, side in enumerate(sides):
        seats.setdefault(side, []).append(s)

    def ahead(x: int) -> tuple[bool, float]:
        return (bool(won[x]), scores[x])

    out = []
    for a, sa in seats.items():
        for b, sb in seats.items():
            if a == b:
                continue
            against = [(x, y) for x in sa for y in sb if team_of[x] != team_of[y]]
            if not against:
                continue  # partners only
            score = sum(1.0 if ahead(x) > ahead(y) else 0.5 if ahead(x) == ahead(y) else 0.0 for x, y in against)
            margin = sum(scores[x] - scores[y] for x, y in against)
            out.append(PairResult(a, b, score / len(against), margin / len(against)))
    return out
