"""What the JSON API returns, read from the store: plain dicts and lists, ready for ``json.dumps``.

Each function takes an open read-only :class:`~arena.store.Store`. The ranked rows come from
:func:`arena.stats.table` as they are, with the interval the table prints (mu - 3 sigma to mu + 3 sigma). A
match's SPRT trace is computed from its stored blocks as ``pepper arena match`` computes it (:mod:`arena.match`).
"""

from __future__ import annotations

import math

from arena.evidence import Block, head_to_head
from arena.ratings import Pool
from arena.sprt import BlockTest, Sprt
from arena.stats import cross_table, head_to_heads, label, table
from arena.store import Store, StoredGame
from arena.store import browse as queries
from referee.rules import RulesError

from .replay import frames


class NotFound(LookupError):
    """Nothing by that name or id; the message says what there is instead."""


class Withheld(PermissionError):
    """A game's cards are not shown yet: the message says why and until when."""


def pool_labels(store: Store) -> dict[str, str]:
    """Pool key -> the short label the CLI shows (``iowa/4p``, with the digest only where two pools share a name)."""
    keys = store.pools()
    parsed = [Pool.parse(k) for k in keys]
    return {k: p.label(parsed) for k, p in zip(keys, parsed)}


def pools(store: Store) -> list[dict]:
    labels = pool_labels(store)
    return [{"key": k, "label": labels[k], "ruleset": Pool.parse(k).ruleset, "players": Pool.parse(k).players,
             "newest_game": store.newest_game(k)} for k in store.pools()]


def _pool(store: Store, key: str | None) -> str:
    keys = store.pools()
    if key is None:
        if not keys:
            raise NotFound("no rated pool yet: run a tournament first (`pepper arena run`)")
        return max(keys, key=store.newest_game)   # the pool played most recently
    if key not in keys:
        labels = pool_labels(store)
        match = [k for k, lab in labels.items() if lab == key]
        if len(match) == 1:
            return match[0]
        raise NotFound(f"no pool {key!r}; the pools are: {', '.join(labels.values()) or 'none yet'}")
    return key


def _finite(x):
    """``x`` with every infinite or undefined float as None (JSON has neither)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def leaderboard(store: Store, pool: str | None = None, *, all_versions: bool = False) -> dict:
    """A pool's ranked rows (:func:`arena.stats.table`: with each row's likelihood of superiority over the next
    and whether it is tied with the row above or beats it head to head), each with its interval and faults by kind, and the cross-table of
    head-to-head statistics over their duplicate blocks (:func:`arena.stats.cross_table`)."""
    key = _pool(store, pool)
    pairs = head_to_heads(store, key)   # once, for both
    ranked = table(store, key, all_versions=all_versions, pairs=pairs)
    rows = []
    for r in ranked:
        d = r.to_dict()
        d.update(label=r.label, faults=r.faults, tied_above=r.tied_above, beats_above=r.beats_above,
                 low=r.mu - 3 * r.sigma, high=r.mu + 3 * r.sigma)
        rows.append(d)
    return _finite({"pool": key, "label": pool_labels(store)[key], "rows": rows, "newest_game": store.newest_game(key),
                    "cross_table": cross_table(store, key, ranked, pairs=pairs).to_dict()})


def history(store: Store, pool: str, bot: str, version: int = 1) -> list[dict]:
    """(game, mu, sigma, mu - 3 sigma) after each rated game of a bot's version in a pool, oldest first."""
    key = _pool(store, pool)
    return [{"game": gid, "mu": r.mu, "sigma": r.sigma, "conservative": r.mu - 3 * r.sigma}
            for gid, r in store.rating_history(key, bot, version)]


def histories(store: Store, pool: str, *, bot: str | None = None, version: int | None = None,
              all_versions: bool = False) -> dict:
    """Every rating history of a pool on one axis, for one chart: ``steps``, the pool's rated games in the order
    they were rated, and per bot version its ``points`` ``{step, game, mu, sigma}`` (step: the index in ``steps``).

    Which versions: ``bot``'s (only ``version``, if given), else every bot's newest, or every version
    (``all_versions``); strongest first by the last rating's mu - 3 sigma."""
    key = _pool(store, pool)
    rows = queries.pool_history(store, key)
    steps: dict[int, int] = {}
    points: dict[tuple[str, int], list[dict]] = {}
    for gid, b, v, mu, sigma in rows:
        step = steps.setdefault(gid, len(steps))
        points.setdefault((b, v), []).append({"step": step, "game": gid, "mu": mu, "sigma": sigma})
    sides = list(points)
    if bot is not None:
        sides = [s for s in sides if s[0] == bot and (version is None or s[1] == version)]
    elif not all_versions:
        newest = {b: v for b, v in sorted(sides)}
        sides = [s for s in sides if newest[s[0]] == s[1]]
    counts = store.version_counts()
    last = lambda s: points[s][-1]["mu"] - 3 * points[s][-1]["sigma"]  # noqa: E731
    return {"pool": key, "steps": list(steps),
            "series": [{"bot": b, "version": v, "label": label(b, v, counts.get(b, 1)), "points": points[b, v]}
                       for b, v in sorted(sides, key=last, reverse=True)]}


def bots(store: Store) -> list[dict]:
    counts = store.version_counts()
    return [{"name": b.name, "kind": str(b.kind), "sample": b.sample, "version": b.version, "versions": counts.get(b.name, 1)}
            for b in store.bots()]


def bot(store: Store, name: str) -> dict:
    """A bot's versions (build, rating and games per pool), its faults by kind with example games, and its
    per-game decision times per pool. A bot's environment is not shown (it may hold what is meant for it alone)."""
    versions = store.versions(name)
    if not versions:
        raise NotFound(f"no bot {name!r}; the bots are: {', '.join(b.name for b in store.bots())}")
    labels = pool_labels(store)
    out = []
    for v in versions:
        b = v.build
        pools_of = []
        for key, (games, mu, sigma) in v.pools.items():
            totals = next((t for t in store.totals(key) if t.bot == name and t.version == v.version), None)
            pools_of.append({
                "pool": key, "label": labels.get(key, key), "games": games, "mu": mu, "sigma": sigma,
                "conservative": mu - 3 * sigma,
                "faults": None if totals is None else {"timeouts": totals.timeouts, "illegal": totals.illegal,
                                                       "crashes": totals.crashes, "fallbacks": totals.fallbacks},
                "latency_ms": queries.latencies(store, name, v.version, key),
            })
        out.append({
            "version": v.version, "created_at": v.created_at, "kind": str(b.kind), "command": b.command,
            "processes": b.processes, "digest": b.digest, "deadline_ms": b.deadline_ms, "time_bank_ms": b.time_bank_ms,
            "pools": pools_of,
            "fault_examples": [{"game": g, "seat": s, "status": st, "illegal": il, "malformed": ma, "timeout": to,
                                "disconnect": dc} for g, s, st, il, ma, to, dc in queries.faulted_games(store, name, v.version)],
        })
    return {"name": name, "versions": out}


def _summary(g: StoredGame, labels: dict[str, str], counts: dict[str, int], twins: list[int], withheld: bool) -> dict:
    # The seed deals every deal of the game's duplicate twins: withheld, like the replay, while they are to play.
    d = g.summary()
    d.update(seed=None if withheld else g.seed, seed_withheld=withheld, pool_label=labels.get(g.pool, g.pool),
             labels=[label(s.bot, s.version, counts.get(s.bot, 1)) for s in g.seats], twins=twins)
    return d


def games(store: Store, *, pool: str | None = None, bot: str | None = None, version: int | None = None,
          run: int | None = None, status: str | None = None, limit: int = 50, before: int | None = None) -> dict:
    """A page of games, newest first, with their duplicate twins; ``next_before`` pages on (None: the last page)."""
    f = queries.GameFilter([_pool(store, pool)] if pool else None, bot, version, run, status)
    found, total = queries.games(store, f, limit=limit, before=before)
    more, found = len(found) > limit, found[:limit]
    labels, counts = pool_labels(store), store.version_counts()
    ids = [g.id for g in found]
    tw, held = queries.twins(store, ids), queries.withheld(store, ids)
    return {"total": total, "games": [_summary(g, labels, counts, tw[g.id], g.id in held) for g in found],
            "next_before": found[-1].id if found and more else None,
            "runs": [{"id": i, "created_at": c, "finished_at": f_, "games": n} for i, c, f_, n in queries.runs(store)]}


def game(store: Store, game_id: int) -> dict:
    """One game: its summary, each seat's faults by kind and decision times, and its twins."""
    g = store.game(game_id)
    if g is None:
        ids = store.game_ids()
        raise NotFound(f"no game {game_id}" + (f"; the games are {ids.lowest} to {ids.highest}" if ids.count else ": no games yet"))
    d = _summary(g, pool_labels(store), store.version_counts(), queries.twins(store, [game_id])[game_id],
                 bool(queries.unplayed_twins(store, game_id)))
    d["seat_details"] = [{"seat": s.seat, "bot": s.bot, "version": s.version, "status": str(s.status),
                          "faults": s.faults._asdict(), "fallbacks": s.fallbacks, "decisions": s.decisions,
                          "latency_p50_ms": s.latency_p50_ms, "latency_p99_ms": s.latency_p99_ms, "score": s.score,
                          "won": s.won} for s in g.seats]
    return d


def replay(store: Store, game_id: int, seat: int | None = None) -> dict:
    """The viewer's frames of one game (:func:`web.replay.frames`), every seat's view or only ``seat``'s."""
    g = store.game(game_id)
    record = store.record(game_id)
    if g is None or record is None:
        raise NotFound(f"no game {game_id}")
    if waiting := queries.unplayed_twins(store, game_id):
        # Its twins deal the same cards: whoever sees this game's hands would know theirs (a person at the table,
        # a remote bot's owner). Shown once the match is played out or the run is over.
        raise Withheld(f"game {game_id}'s cards are withheld while its duplicate match is still being played "
                       f"({waiting} twin game{'s' if waiting > 1 else ''} with the same cards to go in run {g.run_id}); "
                       "its replay opens once they are stored or the run finishes")
    counts = store.version_counts()
    try:
        out = frames(record, [label(s.bot, s.version, counts.get(s.bot, 1)) for s in g.seats], seat)
    except RulesError as e:
        raise ValueError(f"the stored record of game {game_id} does not replay: {e}") from None
    out.update(game=game_id, status=str(g.status), stored_scores=g.scores)
    return out


# -- matches (`pepper arena match`): runs whose key names the two bots and the test ------------------------------
def _match_of(store: Store, run_id: int, config: dict | None, finished_at: float | None, with_trace: bool) -> dict:
    """A match run's test replayed on its stored blocks: as :meth:`arena.match.SequentialPlanner.status` does, the
    complete blocks of A against B in plan order (stopping at the first one not complete), each fed to the SPRT
    until one reaches a bound; the estimate is over those blocks, and once decided, ``adjusted`` is the Elo
    corrected for the stop (:func:`arena.sprt.stop_adjusted`), as `pepper arena match` prints it."""
    m = config["match"]
    sprt = Sprt(m["elo0"], m["elo1"], m["alpha"], m["beta"])
    a, b = m["a"], m["b"]
    first = queries.games(store, queries.GameFilter(run=run_id), limit=1)[0]
    pool = first[0].pool if first else None
    played = store.game_ids(run_id).count
    rows = {r.match: r for r in (store.blocks(pool, run_id) if pool else []) if r.bot == a and r.opponent == b}
    seq, blocks, trace = BlockTest(sprt, m.get("statistic", "score")), [], []   # as the match reads its blocks
    while seq.verdict is None and (r := rows.get(len(blocks))) is not None and r.complete:
        blocks.append(Block(r.games, r.score, r.score_sq, r.margin, r.margin_sq))
        seq.feed(r, lambda m=r.match: store.block_records(run_id, m))
        trace.append({"block": len(blocks), "games": sum(k.games for k in blocks), "score": r.score / r.games,
                      "llr": seq.llr})
    h = head_to_head(a, b, blocks, seq.estimate_basis)
    state = seq.verdict or ("undecided" if finished_at is not None else "playing")
    out = {"run": run_id, "a": a, "b": b, "sprt": {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha,
                                                   "beta": sprt.beta, "lower": sprt.lower, "upper": sprt.upper},
           "pool": pool, "label": pool_labels(store).get(pool, pool) if pool else None,
           "max_games": config.get("games"), "played": played, "blocks": len(blocks),
           "games": sum(k.games for k in blocks), "llr": seq.llr, "verdict": seq.verdict, "state": state,
           "finished_at": finished_at, "estimate": None if h is None else h.to_dict(),
           "adjusted": None if (adj := seq.adjusted()) is None else adj._asdict()}
    if with_trace:
        out["trace"] = trace
    return _finite(out)


def matches(store: Store) -> list[dict]:
    """Every match of the store, newest first, with where its test stands (no trace)."""
    out = []
    for run_id, created, finished, _ in queries.runs(store):
        config = store.run_config(run_id)
        if config and "match" in config:
            out.append(_match_of(store, run_id, config, finished, False) | {"created_at": created})
    return out


def match(store: Store, run_id: int) -> dict:
    """One match: its test (bounds, verdict), the LLR after each block fed to it, and the estimate."""
    config = store.run_config(run_id)
    if config is None or "match" not in config:
        known = [m["run"] for m in matches(store)]
        raise NotFound(f"run {run_id} is not a match" + (f"; the matches are runs {', '.join(map(str, known))}"
                                                        if known else ": no match played yet (`pepper arena match A B`)"))
    created, finished = next((c, f) for i, c, f, _ in queries.runs(store) if i == run_id)
    return _match_of(store, run_id, config, finished, True) | {"created_at": created}
