"""TrueSkill ratings, one pool per ruleset content and player count.

A pool is identified by the ruleset's content, not its name (:class:`Pool`):
editing a ruleset file without renaming it starts a new pool.

Partnerships are TrueSkill teams: a mirrored team (every seat the same bot)
is a team of one player, a mixed partnership a team of its distinct bots, each
weighted by the share of the team's seats it fills (TrueSkill's partial-play
weights). A team's performance is then the mean of its seats' skills, whatever
its make-up: a bot alone in both seats of a team plays like a mirrored team,
not like a one-player team against a two-player one (which the sum of skills,
TrueSkill's unweighted team, made it: every rating of a mixed run drifted
down). Rulesets played individually (pepper-30 with 2 or 3 players,
five-handed) are free-for-all, each seat an entry ranked by final score.

A bot may fill several seats of a free-for-all table when there are fewer
bots than seats. TrueSkill cannot rate one player twice in one match, so each
of its seats is rated as a stand-in copy and the bot's new rating is the mean
of its copies' (an approximation, documented in docs/arena.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import NamedTuple

import trueskill

from referee.rules import Ruleset

DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3
# TrueSkill's dynamics factor tau adds uncertainty before every game so that a
# player who learns can move; with it sigma never falls below a floor (about 0.8
# here) however many games are played. A bot is a fixed program whose skill does
# not drift, so the arena's default is 0: sigma keeps shrinking as games accrue
# and a real difference in strength shows as a clear gap. `--tau` restores drift.
DEFAULT_TAU = 0.0


def pool_name(ruleset: str, players: int) -> str:
    """A pool's label without its digest: what the table shows while one pool has that name."""
    return f"{ruleset}/{players}p"


# The fields that say what is not the game: its name (a pool's key holds it anyway) and prose.
_NOT_RULES = ("name", "description", "source", "extends")
DIGEST_SHOWN = 7   # hex digits of a pool's digest shown and accepted (`name@abc1234`); the key keeps 12


def ruleset_digest(rs: Ruleset) -> str:
    """The short sha256 of a resolved ruleset's rules: the canonical JSON of its fields but its name and prose.

    A field at its default is left out, so that a rule added later with a default that keeps the old game
    leaves every stored pool's digest (and so its ratings) as it was."""
    fields = {f.name: getattr(rs, f.name) for f in dataclasses.fields(rs)
              if not f.name.startswith("_") and f.name not in _NOT_RULES and getattr(rs, f.name) != f.default}
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


class Pool(NamedTuple):
    """A rating pool: a ruleset's content (its name, for people, and its digest) and a player count.

    Its :attr:`key`, ``name@digest/Np``, is what the store's ``pool`` columns hold. Pools stored before
    versions of the store knew digests have none (``name/Np``) until migrated; a pool whose ruleset could
    not be found then keeps an empty digest."""

    ruleset: str
    digest: str
    players: int

    @classmethod
    def of(cls, rs: Ruleset, players: int) -> Pool:
        return cls(rs.name, ruleset_digest(rs), players)

    @classmethod
    def parse(cls, key: str) -> Pool:
        """The pool of a stored key (a ruleset name may itself hold '@' or '/': the digest and count come last)."""
        head, _, players = key.rpartition("/")
        name, at, digest = head.rpartition("@")
        if not at or not all(c in "0123456789abcdef" for c in digest):
            name, digest = head, ""
        return cls(name, digest, int(players.removesuffix("p")))

    @property
    def key(self) -> str:
        return f"{self.ruleset}@{self.digest}/{self.players}p" if self.digest else pool_name(self.ruleset, self.players)

    @property
    def short(self) -> str:
        """``name@abc1234/Np``: the label where two pools share a name."""
        return f"{self.ruleset}@{self.digest[:DIGEST_SHOWN] or '?'}/{self.players}p"

    def label(self, pools: list[Pool] | None = None) -> str:
        """``name/Np``, or :attr:`short` when another of ``pools`` has the same ruleset name and other rules."""
        shared = any(p.ruleset == self.ruleset and p.digest != self.digest for p in pools or ())
        return self.short if shared else pool_name(self.ruleset, self.players)


@dataclass(frozen=True)
class Rating:
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: what the board sorts by."""
        return self.mu - 3 * self.sigma


def ranks_from_result(entry_scores: list[float], entry_won: list[bool]) -> list[int]:
    """TrueSkill ranks (0 best): winners first, then by score; equal scores share a rank."""
    keyed = [(0 if won else 1, -score) for won, score in zip(entry_won, entry_scores)]
    order = sorted(set(keyed))
    return [order.index(k) for k in keyed]


class Rater:
    def __init__(self, draw_probability: float = 0.02, tau: float = DEFAULT_TAU):
        self.env = trueskill.TrueSkill(mu=DEFAULT_MU, sigma=DEFAULT_SIGMA, tau=tau, draw_probability=draw_probability)

    def _r(self, r: Rating) -> trueskill.Rating:
        return self.env.create_rating(r.mu, r.sigma)

    def _groups(self, current: dict[str, Rating], entries: list[list[str]]) -> tuple[list[dict], dict]:
        """TrueSkill's rating groups of ``entries`` (a bot once per entry), and each bot's weight in its entry:
        the share of the entry's seats it fills (1 for a mirrored team or a seat of its own)."""
        groups, weights = [], {}
        for i, bots in enumerate(entries):
            groups.append({(i, b): self._r(current.get(b, Rating())) for b in dict.fromkeys(bots)})
            for b in dict.fromkeys(bots):
                weights[(i, (i, b))] = bots.count(b) / len(bots)
        return groups, weights

    def rate(self, current: dict[str, Rating], entries: list[list[str]], ranks: list[int]) -> dict[str, Rating]:
        """New ratings of every bot in ``entries`` (each entry: the bots of one team's seats, or one seat)."""
        groups, weights = self._groups(current, entries)
        rated = self.env.rate(groups, ranks=ranks, weights=weights)
        acc: dict[str, list[trueskill.Rating]] = {}
        for g in rated:
            for (_, b), r in g.items():
                acc.setdefault(b, []).append(r)
        return {b: Rating(sum(r.mu for r in rs) / len(rs), sum(r.sigma for r in rs) / len(rs)) for b, rs in acc.items()}

    def quality(self, current: dict[str, Rating], entries: list[list[str]]) -> float:
        """TrueSkill match quality (draw probability) of a line-up: high means evenly matched."""
        groups, weights = self._groups(current, entries)
        return self.env.quality(groups, weights=weights)
