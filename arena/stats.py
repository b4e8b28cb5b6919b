"""The ranked results table, computed from stored games and ratings.

A row is one version of a bot (by default each bot's newest version with games
in the pool; ``all_versions`` for every one) and holds every figure: the points rating (points a game above the
field, from the margins of its complete duplicate blocks: :mod:`arena.points`), the TrueSkill rating (mu, sigma, and
mu - 3 sigma, the conservative rating), games, field % (below), win %, average points
per game, contracts made %, faults by kind (timeouts, illegal actions, crashes:
lost connections in its games plus the crashes of its processes the arena
recorded, strategy fallbacks) and decision latency p50 and p99. A bot's points in a game
are its seat's (team's) final score, averaged over its seats; average points
count completed games only (a forfeited or aborted game stops early, and its
scores would pull every average towards 0). A fallback is an answer the bot's
SDK played in place of what its strategy gave (an exception, an illegal or
unreadable action): legal on the wire, so the referee sees no illegal move,
but a fault of the bot all the same. Latency: the referee reports p50/p99 per
seat per game; the table shows the median of the per-game p50s and the 99th
percentile of the per-game p99s (an upper-leaning estimate, not a pooled p99).
The aggregates are SQL over the store's per-seat rows (:meth:`Store.totals`).

Ties from differences: each row says how likely the bot is stronger than the next one down
(``next_los``), from their head-to-head duplicate blocks where they have at least
:data:`arena.evidence.MIN_BLOCKS` complete ones in which each was its team alone (the headline of
:func:`arena.evidence.head_to_head`: Student's t test of the block margins, or the sign-flip test of the block
scores where the margins do not vary), else from their TrueSkill ratings (Phi((mu1 - mu2) / sqrt(sigma1^2 + sigma2^2))),
and whether that difference is significant at 95% (two-sided). Where the blocks say, significantly, that
the bot below is the stronger, the order is contradicted and the row below is marked ``^N``. A mixed
line-up's blocks never count here (partners share a result): its pools separate by TrueSkill.
:func:`cross_table` gives the head-to-head statistics of every pair. ``as_of`` cuts the blocks as it cuts
the ratings: only blocks whose every game was rated by then.

Field %: a bot's score against the field, each opponent weighted equally, from complete duplicate blocks
(:func:`field_scores`). For each other row of the table it has complete blocks against, its head-to-head score over
them (the cross-table's score: the mean over blocks of its mean score per game, a win 1, a draw 1/2); then the
mean of those scores, each opponent once. Win % counts games, so it measures whom the schedule put a bot against
as much as its strength (an adaptive schedule gives the pairs it cannot yet tell apart more games); field % does
not. Only blocks where each of the two bots was its team alone count: at a mixed line-up's table a bot's result
is its team's, which its partner shares (partners are never compared, so a bot with no result against another
bot of its block was that bot's partner), and such blocks are left out. A bot with none is shown ``-``; a bot
with blocks against only some of the field is marked ``*`` (``field of`` in the wide table says how many).

Remote bots: the arena plays the games of a block on processes apart for the bots it launches (:mod:`arena.twins`),
but a remote bot's processes are its owner's, and one that remembers a block's first game knows every hand in the
next. A field % or a ``vs next`` that rests on duplicate blocks with a remote bot on either side is marked ``†``
(:data:`REMOTE_CAPTION`).

The order (:func:`rank`): the rows with a points rating by it, highest first, then the rest by the conservative
rating; ``order="trueskill"`` sorts every row by the conservative rating. The points rating separates a ladder of
known order in half to two thirds of the games TrueSkill needs on the same schedules (docs/ranking.md); TrueSkill orders
a pool of mixed line-ups, whose blocks compare teams, not bots.

Two layouts show the rows: :data:`COMPACT` (fits 80 columns: rank, marked
``~N`` when not significantly below the row above, bot, points, rating,
games, field %, all faults together) and :data:`WIDE` (every figure,
win % beside field %, and ``vs next``: the likelihood of being stronger than the next bot).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from .evidence import LEVEL, Block, HeadToHead, Side, head_to_head, phi, pooled_correlation
from .points import points_ratings, table_order
from .ratings import Rating
from .store import BlockRow, Store


@dataclass
class Row:
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    games: int
    win_pct: float
    avg_points: float | None
    contracts_made_pct: float | None
    timeouts: int
    illegal: int
    crashes: int
    fallbacks: int
    latency_p50_ms: float | None
    latency_p99_ms: float | None
    version: int = 1
    label: str = ""     # how the table names it: "mybot", or "mybot v3" for a bot with several versions
    field_pct: float | None = None         # score against the field, from complete duplicate blocks (None: no block)
    field_opponents: int = 0               # the other rows it has such blocks against: how much of the field that is
    field_size: int = 0                    # the other rows of its table
    next_los: float | None = None          # P(stronger than the next row's bot); None for the last row
    next_significant: bool | None = None   # that difference is significant at 95%
    next_basis: str | None = None          # "blocks" (their head-to-head duplicate blocks) or "trueskill"
    tied_above: bool = False               # not significantly below the row above (the table shows rank ~N)
    beats_above: bool = False              # significantly stronger than the row above, head to head (rank ^N)
    field_remote: bool = False             # its field % rests on duplicate blocks with a remote bot (itself or not)
    next_remote: bool = False              # its next_los rests on blocks with a remote bot on either side
    points: float | None = None            # points a game above the field (arena.points; None: no complete block)

    @property
    def faults(self) -> int:
        """Every fault of the bot, of any kind."""
        return self.timeouts + self.illegal + self.crashes + self.fallbacks

    def to_dict(self) -> dict:
        """Every figure (JSON and CSV): the bot's name and its version apart, not the label."""
        return {k: v for k, v in asdict(self).items() if k not in ("label", "tied_above", "beats_above")}


class Column(NamedTuple):
    """A column of a printed table: its header, and its cell for a row."""

    header: str
    cell: Callable[[Row], str]
    left: bool = False   # text, aligned left; numbers are aligned right


def _num(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


_RANK = Column("rank", lambda r: f"^{r.rank}" if r.beats_above else f"~{r.rank}" if r.tied_above else str(r.rank))
_BOT = Column("bot", lambda r: r.label, left=True)
_GAMES = Column("games", lambda r: str(r.games))
_WIN = Column("win %", lambda r: _num(r.win_pct))
_FIELD = Column("field %", lambda r: _num(r.field_pct) + ("*" if r.field_pct is not None
                                                             and r.field_opponents < r.field_size else "")
                + ("†" if r.field_remote else ""))


def _vs_next(r: Row) -> str:
    if r.next_los is None:
        return ""
    mark = " ~" if not r.next_significant else " ^" if r.next_los < 0.5 else ""
    return f"{100 * r.next_los:.0f}%" + ("†" if r.next_remote else "") + mark


_NEXT = Column("vs next", _vs_next)
_POINTS = Column("points", lambda r: "-" if r.points is None else f"{r.points:+.1f}")
#: What the points column is (arena.points); short enough for the compact table.
POINTS_CAPTION = "points: points a game above the field, from duplicate blocks' margins"
NEXT_CAPTION = "~N: not significantly below the bot above (95%)"
#: Added below NEXT_CAPTION when a row is so marked.
BEATS_CAPTION = "^N: beats the bot above head to head (95%)"
#: Short enough for the compact table's width (about 60 columns): the docs and --wide say the rest.
FIELD_CAPTION = "field %: mean score against each other bot, duplicate blocks"
#: Shown under a table with a row marked ``†`` (:func:`remote_marked`).
REMOTE_CAPTION = "†: rests on a remote bot's duplicate blocks (docs/remote-bots.md)"

COMPACT = (_RANK, _BOT, _POINTS,
           Column("rating", lambda r: _num(r.conservative, 2)),
           _GAMES, _FIELD,
           Column("faults", lambda r: str(r.faults)))

WIDE = (_RANK, _BOT, _POINTS,
        Column("mu", lambda r: _num(r.mu, 2)),
        Column("sigma", lambda r: _num(r.sigma, 2)),
        Column("mu-3sigma", lambda r: _num(r.conservative, 2)),
        _GAMES, _FIELD,
        Column("field of", lambda r: f"{r.field_opponents}/{r.field_size}"), _WIN,
        Column("avg points", lambda r: _num(r.avg_points)),
        Column("contracts made %", lambda r: _num(r.contracts_made_pct)),
        Column("timeouts", lambda r: str(r.timeouts)),
        Column("illegal", lambda r: str(r.illegal)),
        Column("crashes", lambda r: str(r.crashes)),
        Column("fallbacks", lambda r: str(r.fallbacks)),
        Column("p50 ms", lambda r: _num(r.latency_p50_ms, 2)),
        Column("p99 ms", lambda r: _num(r.latency_p99_ms, 2)), _NEXT)


def label(bot: str, version: int, versions: int) -> str:
    """A version's name in a table: the bot's alone while it has one version, else with the version."""
    return bot if versions <= 1 else f"{bot} v{version}"


def table(store: Store, pool: str, *, all_versions: bool = False, as_of: int | None = None,
          pairs: dict[tuple[Side, Side], HeadToHead] | None = None, order: str = "points") -> list[Row]:
    """The ranked rows of ``pool`` (a key): each bot's newest version with games there, or every version;
    ``as_of``: as they stood at that point of the rating history (:meth:`Store.as_of`); ``pairs``: the pool's
    :func:`head_to_heads`, if the caller has them (a cross-table wants them too); ``order``: :data:`ORDERS`."""
    totals = store.totals(pool, as_of)
    if not all_versions:
        newest = {t.bot: t.version for t in totals}  # ordered by bot, then version
        totals = [t for t in totals if t.version == newest[t.bot]]
    counts = store.version_counts()
    rows = [Row(0, t.bot, t.mu, t.sigma, Rating(t.mu, t.sigma).conservative, t.games, 100.0 * t.wins / t.games,
                t.points / t.completed if t.completed else None,
                100.0 * t.contracts_made / t.contracts_bid if t.contracts_bid else None,
                t.timeouts, t.illegal, t.crashes, t.fallbacks, t.latency_p50_ms, t.latency_p99_ms, t.version,
                label(t.bot, t.version, counts.get(t.bot, 1)))
            for t in totals]
    solo = blocks_by_pair(store, pool, solo=True, as_of=as_of)
    rank(rows, solo, order)
    remote = store.remote_versions()
    field_scores(rows, solo, remote)
    separate(rows, head_to_heads(store, pool, blocks=solo) if pairs is None else pairs, remote)
    return rows


#: How a table may be ordered: by the points rating where a bot has complete duplicate blocks (then by TrueSkill),
#: or by TrueSkill's conservative rating alone.
ORDERS = ("points", "trueskill")


def rank(rows: list[Row], solo: dict[tuple[Side, Side], list[Block]], order: str = "points") -> None:
    """Sort ``rows`` into the table's order and number them: each row's points rating (:mod:`arena.points`) from
    ``solo`` (:func:`blocks_by_pair` with ``solo``: complete blocks, each side its team alone), the rows with one
    by it, then the rest by TrueSkill (:func:`arena.points.table_order`); ``order="trueskill"``: by TrueSkill
    alone, the points still shown."""
    if order not in ORDERS:
        raise ValueError(f"unknown table order {order!r}: expected one of {', '.join(ORDERS)}")
    ratings = block_points(solo)
    for r in rows:
        r.points = ratings.get((r.bot, r.version))
    by_side = {(r.bot, r.version): r for r in rows}
    points = {s: r.points for s, r in by_side.items() if r.points is not None} if order == "points" else {}
    rows[:] = [by_side[s] for s in table_order(by_side, {s: r.conservative for s, r in by_side.items()}, points)]
    for i, row in enumerate(rows, 1):
        row.rank = i


def block_points(blocks: dict) -> dict:
    """The points rating (:func:`arena.points.points_ratings`) of each side of ``blocks`` (ordered pair of sides ->
    their complete blocks, each its team alone: :func:`blocks_by_pair` with ``solo``)."""
    return points_ratings((a, b, sum(x.games for x in bl), sum(x.margin for x in bl)) for (a, b), bl in blocks.items())


def ordered_by(rows: Iterable[Row], order: str = "points") -> str:
    """What a table of ``rows`` is ordered by, in a few words (its title says it)."""
    if order == "points" and any(r.points is not None for r in rows):
        return "points a game above the field" + ("" if all(r.points is not None for r in rows)
                                                   else ", then rating for bots without duplicate blocks")
    return "rating = mu - 3*sigma"


def separate(rows: list[Row], pairs: dict[tuple[Side, Side], HeadToHead], remote: set[Side] = frozenset()) -> None:
    """Each row's ``next_*`` figures against the row below (from their head-to-head statistics in ``pairs``, else
    their ratings: :func:`separation`), and the row below's marks: tied with it, or beating it head to head;
    ``next_remote`` where the blocks are with a bot of ``remote`` (remote bots' sides)."""
    for row, below in zip(rows, rows[1:]):
        h = pairs.get(((row.bot, row.version), (below.bot, below.version)))
        row.next_los, row.next_significant, row.next_basis = separation(Rating(row.mu, row.sigma),
                                                                        Rating(below.mu, below.sigma), h)
        row.next_remote = row.next_basis == "blocks" and bool({(row.bot, row.version), (below.bot, below.version)} & remote)
        below.tied_above = not row.next_significant
        # Only the blocks can say the bot below beats this one head to head (the caption's claim).
        below.beats_above = row.next_basis == "blocks" and row.next_significant and row.next_los < 0.5


def remote_marked(rows: Iterable[Row]) -> bool:
    """Whether a figure of ``rows`` rests on a remote bot's duplicate blocks (marked ``†``: :data:`REMOTE_CAPTION`)."""
    return any(r.field_remote or r.next_remote for r in rows)


def separation(upper: Rating, lower: Rating, h: HeadToHead | None,
               level: float = LEVEL) -> tuple[float, bool, str]:
    """How likely the bot rated ``upper`` is stronger than the one rated ``lower`` just below it, whether that
    difference (either way) is significant at two-sided ``level``, and on what basis: their head-to-head blocks
    ``h`` (at least :data:`MIN_BLOCKS`; its headline, the margin's test where the margins vary), else their
    ratings."""
    if h is not None and not h.too_few and math.isfinite(h.los):
        return h.los, h.significant_at(level), "blocks"
    spread = math.sqrt(upper.sigma ** 2 + lower.sigma ** 2)
    los = phi((upper.mu - lower.mu) / spread) if spread > 0 else 0.5
    return los, not level / 2 <= los <= 1 - level / 2, "trueskill"


def blocks_by_pair(store: Store, pool: str, *, solo: bool = False,
                   as_of: int | None = None) -> dict[tuple[Side, Side], list[Block]]:
    """The complete blocks of ``pool`` per ordered pair of sides (each side's own view of them); ``solo``: only
    those where neither side shared its team with another side (:func:`partnered`); ``as_of``: only those whose
    every game was rated by that point of the rating history (:meth:`Store.as_of`)."""
    rows = store.blocks(pool, as_of=as_of)
    out: dict[tuple[Side, Side], list[Block]] = {}
    for b in solo_rows(rows) if solo else rows:
        if b.complete:
            out.setdefault(((b.bot, b.version), (b.opponent, b.opponent_version)), []).append(
                Block(b.games, b.score, b.score_sq, b.margin, b.margin_sq))
    return out


def solo_rows(rows: list[BlockRow]) -> list[BlockRow]:
    """The block rows of ``rows`` in which neither side shared its team with another side (:func:`partnered`)."""
    shared = partnered(rows)
    return [b for b in rows if not {(b.run_id, b.match, (b.bot, b.version)),
                                    (b.run_id, b.match, (b.opponent, b.opponent_version))} & shared]


def partnered(rows: Iterable[BlockRow]) -> set[tuple[int, int, Side]]:
    """(run, match, side) for every side of a block that shared its team with another side (a mixed line-up).

    A block's teams keep their members through every seat rotation, and partners are never compared
    (:func:`arena.evidence.game_pairs`): a side partnered another exactly when the block has results of both
    against others but none between them."""
    sides: dict[tuple[int, int], set[Side]] = {}
    opposed: set[tuple[int, int, Side, Side]] = set()
    for b in rows:
        a, o = (b.bot, b.version), (b.opponent, b.opponent_version)
        sides.setdefault((b.run_id, b.match), set()).update((a, o))
        opposed.add((b.run_id, b.match, a, o))
    return {(run, match, a) for (run, match), members in sides.items() for a in members
            if any(o != a and (run, match, a, o) not in opposed for o in members)}


def field_scores(rows: list[Row], blocks: dict[tuple[Side, Side], list[Block]], remote: set[Side] = frozenset()) -> None:
    """Each row's score against the field (``field_pct``, the module's "field %"): over ``blocks`` (complete, each
    side its team alone: :func:`blocks_by_pair` with ``solo``), its head-to-head score against each other row it
    has blocks against, and the mean of those, each opponent once; None without any. ``remote``: the sides that are
    remote bots (``field_remote``: a row's score rests on blocks with one of them)."""
    sides = [(r.bot, r.version) for r in rows]
    for row, me in zip(rows, sides):
        against = [o for o in sides if o != me and (me, o) in blocks]
        scores = [head_to_head(me[0], o[0], blocks[me, o]).score for o in against]
        row.field_pct = 100.0 * sum(scores) / len(scores) if scores else None
        row.field_opponents, row.field_size = len(scores), len(sides) - 1
        row.field_remote = bool(against) and bool({me, *against} & remote)


def head_to_heads(store: Store, pool: str, *, blocks: dict[tuple[Side, Side], list[Block]] | None = None,
                  as_of: int | None = None) -> dict[tuple[Side, Side], HeadToHead]:
    """The head-to-head statistics of every ordered pair of sides with complete blocks in ``pool`` in which each
    side was its team alone (or over ``blocks``, from :func:`blocks_by_pair`)."""
    counts = store.version_counts()
    name = lambda s: label(s[0], s[1], counts.get(s[0], 1))  # noqa: E731
    if blocks is None:
        blocks = blocks_by_pair(store, pool, solo=True, as_of=as_of)
    return {(a, b): head_to_head(name(a), name(b), bl) for (a, b), bl in blocks.items()}


@dataclass
class CrossTable:
    """The head-to-head statistics between the rows of a ranked table, and what the blocks saved."""

    rows: list[Row]
    pairs: dict[tuple[int, int], HeadToHead] = field(default_factory=dict)   # (i, j) row indexes -> i against j
    pooled: dict = field(default_factory=dict)                               # evidence.pooled_correlation

    def to_dict(self) -> dict:
        """JSON: every pair once (the higher-ranked side first), and the pool's block correlation."""
        out = []
        for (i, j), h in sorted(self.pairs.items()):
            if i < j:
                out.append({"bot": self.rows[i].bot, "version": self.rows[i].version, "opponent": self.rows[j].bot,
                            "opponent_version": self.rows[j].version} | h.to_dict())
        return {"head_to_head": out, "blocks": self.pooled}


def cross_table(store: Store, pool: str, rows: list[Row], as_of: int | None = None,
                pairs: dict[tuple[Side, Side], HeadToHead] | None = None) -> CrossTable:
    """The cross-table of ``rows`` (a ranked table of ``pool``, as of ``as_of`` as the rows were); ``pairs`` as for
    :func:`table`."""
    pairs = head_to_heads(store, pool, as_of=as_of) if pairs is None else pairs
    index = {(r.bot, r.version): i for i, r in enumerate(rows)}
    cells = {(index[a], index[b]): h for (a, b), h in pairs.items() if a in index and b in index}
    return CrossTable(rows, cells, pooled_correlation(h for (i, j), h in cells.items() if i < j))


__all__ = ["BEATS_CAPTION", "COMPACT", "FIELD_CAPTION", "NEXT_CAPTION", "ORDERS", "POINTS_CAPTION", "REMOTE_CAPTION",
           "WIDE", "Column", "CrossTable", "Row", "block_points", "blocks_by_pair", "cross_table", "field_scores", "head_to_heads",
           "label", "ordered_by", "partnered", "rank", "remote_marked", "separate", "separation", "solo_rows", "table"]
