"""Deal sets: the decks a run plays, from a file, like a chess openings book.

``pepper arena run --deals FILE`` deals each match from a line of ``FILE``
(match ``m`` from line ``m mod K`` of the ``K`` deals), so that two
tournaments, of other bots or other versions, play the same cards;
``pepper arena deals export RUN -o FILE`` writes the deals a run played.

The file is text, one deal per line; ``#`` starts a comment, blank lines are
skipped::

    # pepper deal set
    seed 1834952                   # every deal of the match's games from this seed
    seed 77 | 9S 10S JS QS ...     # the first deal's deck given, later ones from seed 77
    9S 10S ... | AH KH ...         # two decks given; the first dealer and later deals from the run's seed

A line is ``seed N`` (N from 0 to 2**63 - 1: the seed of every shuffle and of
the first dealer, as the arena's own matches are dealt), a list of decks
separated by ``|``, or ``seed N |`` followed by decks. A deck is the cards in
dealing order in card notation (``9S``, ``10H`` or ``TH``, ``JD``, ``QC``,
``KS``, ``AH``), separated by spaces or commas: a complete deck of the run's
ruleset and player count (each card as many times as the deck holds it).
Decks given are dealt for the first deals of each game of the match, the
later deals are shuffled from the seed (the line's, else the run's seed for
that match). A deal replayed after a bot's crash is dealt a fresh deck, as
every replay is (docs/arena.md, "Crashes").
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from referee.rules import CARDS, Card, Game, Ruleset, get_ruleset, ruleset_from_dict

MAX_SEED = (1 << 63) - 1
HEADER = "# pepper deal set: one deal per line (seed N, decks in card notation separated by |); see docs/deal-sets.md"


class DealSetError(ValueError):
    """A deal set that cannot be played; the message names the file and line."""


class Deal(NamedTuple):
    """One line of a deal set: its seed (None: the run's seed for the match) and the decks of the first deals."""

    seed: int | None
    decks: tuple[tuple[str, ...], ...] = ()
    line: int = 0   # where it is in its file (1-based; 0: made, not read)

    def to_line(self) -> str:
        parts = ([f"seed {self.seed}"] if self.seed is not None else []) + [" ".join(d) for d in self.decks]
        return " | ".join(parts)


def parse(text: str, source: str = "<deals>") -> list[Deal]:
    """The deals of a deal set's text (DealSetError naming ``source`` and the line for anything malformed).
    The decks are checked as cards here, and as decks of a ruleset by :func:`check`."""
    deals = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{source} line {n}"
        parts = [p.strip() for p in line.split("|")]
        seed = None
        m = re.fullmatch(r"seed\s+(\S+)", parts[0], re.IGNORECASE)
        if m or parts[0].lower().startswith("seed"):
            if not m or not m[1].isdigit() or int(m[1]) > MAX_SEED:
                raise DealSetError(f"{where}: {parts[0]!r}: a seed is 'seed N' with N a whole number from 0 to "
                                   f"{MAX_SEED}")
            seed = int(m[1])
            parts = parts[1:]
        decks = []
        for k, part in enumerate(parts, 1):
            cards = part.replace(",", " ").split()
            if not cards:
                raise DealSetError(f"{where}: deck {k} is empty (decks are separated by '|'; a line is 'seed N', "
                                   "decks, or both)")
            for c in cards:
                try:
                    Card.parse(c)
                except ValueError as e:
                    raise DealSetError(f"{where}: deck {k}: {e}") from None
            decks.append(tuple(str(Card.parse(c)) for c in cards))
        deals.append(Deal(seed, tuple(decks), n))
    if not deals:
        raise DealSetError(f"{source}: no deals in it (one per line: 'seed N', or decks in card notation "
                           "separated by '|')")
    return deals


def check(deals: list[Deal], ruleset: str | Ruleset, players: int, source: str = "<deals>") -> None:
    """DealSetError unless every deck of ``deals`` is a complete deck of ``ruleset`` for ``players`` seats."""
    rs = ruleset if isinstance(ruleset, Ruleset) else get_ruleset(ruleset)
    want = Counter(int(c) for c in rs.table(players).deck)
    for d in deals:
        for k, deck in enumerate(d.decks, 1):
            have = Counter(int(Card.parse(c)) for c in deck)
            if have == want:
                continue
            missing = sorted((want - have).elements())
            extra = sorted((have - want).elements())
            what = "; ".join(x for x in (
                f"missing {' '.join(str(CARDS[c]) for c in missing)}" if missing else "",
                f"not in the deck or too many: {' '.join(str(CARDS[c]) for c in extra)}" if extra else "") if x)
            raise DealSetError(f"{source} line {d.line}: deck {k} has {len(deck)} cards and is not a complete "
                               f"{rs.name} deck for {players} players ({sum(want.values())} cards: "
                               f"{' '.join(str(CARDS[c]) for c in sorted(want.elements()))}): {what}")


def load(path: str | Path, ruleset: str | Ruleset, players: int) -> list[Deal]:
    """The deal set in the file ``path``, checked against ``ruleset`` and ``players`` (DealSetError)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise DealSetError(f"--deals {path}: cannot read it ({e})") from None
    deals = parse(text, str(path))
    check(deals, ruleset, players, str(path))
    return deals


def key(deals: list[Deal]) -> list:
    """What a run's key holds of its deal set: the deals themselves (a changed file is a new run), not the path."""
    return [[d.seed, [list(x) for x in d.decks]] for d in deals]


def for_match(deals: list[Deal] | None, match: int) -> Deal | None:
    """The deal of match ``match``: the deal set's lines in order, over again when the run has more matches."""
    return deals[match % len(deals)] if deals else None


def format_set(deals: list[Deal], notes: list[str] | None = None) -> str:
    """A deal set's text: the header, then one line per deal (with ``notes[i]`` as its comment)."""
    lines = [HEADER]
    for i, d in enumerate(deals):
        note = notes[i] if notes and notes[i] else ""
        lines.append(d.to_line() + (f"  # {note}" if note else ""))
    return "\n".join(lines) + "\n"


def first_deck(ruleset: Ruleset, players: int, deal: Deal) -> tuple[str, ...]:
    """The deck the first deal of ``deal``'s games is dealt (given, or shuffled from its seed)."""
    if deal.decks:
        return deal.decks[0]
    g = Game(ruleset, players, seed=deal.seed or 0)
    return tuple(str(CARDS[c]) for c in g.decks_dealt[0])


def export(planned: list[tuple[int, int]], run_deals: list[Deal] | None, ruleset: Ruleset, players: int) -> str:
    """The deal set of a run: one line per match of its plan (``planned``: (match, seed) of each match's first
    game, in plan order), its seed and the decks it was given (``run_deals``: the run's own deal set, if any),
    with the first deal's deck in a comment."""
    out = []
    for match, seed in planned:
        given = for_match(run_deals, match)
        out.append(Deal(seed, given.decks if given else ()))
    return format_set(out, [f"match {m}, first deal: {' '.join(first_deck(ruleset, players, d))}"
                            for (m, _), d in zip(planned, out)])


def export_run(store, run_id: int) -> str:
    """:func:`export` of run ``run_id`` of ``store`` (an :class:`arena.store.Store`); DealSetError for no such run."""
    config = store.run_config(run_id)
    if config is None:
        raise DealSetError(f"no run {run_id} in {store.path}")
    params = config.get("ruleset_params")
    rs = ruleset_from_dict(params, source=f"run {run_id}") if params else get_ruleset(config["ruleset"])
    first: dict[int, int] = {}
    for g in store.planned(run_id):
        first.setdefault(g.match, g.seed)
    given = [Deal(seed, tuple(tuple(d) for d in decks)) for seed, decks in config.get("deals") or ()]
    return export(sorted(first.items()), given or None, rs, config["players"])


__all__ = ["HEADER", "MAX_SEED", "Deal", "DealSetError", "check", "export", "first_deck", "for_match", "format_set",
           "export_run", "key", "load", "parse"]
