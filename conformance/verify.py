"""The verifier: what the bot was sent and answered, replayed from the referee's records, and each check's verdict.

A check passes only when its games ended as planned with no fault of the bot's
seats, and its own verifier finds in the replayed records that the situation
it forces really happened.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from referee.rules import EventKind

from .model import Check, Played, Status

# Problems by how much they say about the bot: the worst one names the check's failure.
CONNECTION, TIMEOUT, ILLEGAL, MALFORMED, ERROR, UNVERIFIED = range(6)
POLICY = "policy error: "   # a verifier's problem that names the bot's strategy, not the situation, keeps this reason


def replay(p: Played) -> None:
    """Fill ``p.steps`` (who decided what, in which phase), ``p.first_legal`` (the first legal action as the bot was
    sent it, at each step) and ``p.deals`` (per-deal facts) from the game's record."""
    from referee.rules import ACTIONS, CARDS, Game, Strain
    from referee.wire import legal_texts

    try:
        rec = json.loads(p.result.record_json)
        actions = rec.pop("actions", [])
        rec.pop("outcome", None)
        rec.pop("deals", None)
        rec["actions"] = []
        g = Game.from_record(rec, verify=False)
        for a in actions:
            p.steps.append((g.deal_number, g.to_act, str(g.phase), a))
            p.first_legal.append(legal_texts(g)[0])
            g.apply(a)
    except Exception as e:  # noqa: BLE001 - any broken record fails the check, with the reason
        p.replay_error = f"the record of game {p.result.game_id} does not replay: {e}"
        return
    if p.result.full_state_json:
        p.full_state = json.loads(p.result.full_state_json)
    deals: list[dict] = []
    d: dict = {}
    for e in g.events:
        k, s, data = e.kind, e.seat, e.data
        if k == EventKind.DEAL:
            d = {"number": data, "dealer": s, "bids": [], "gives": [], "discards": [], "cedes": [], "plays": Counter(),
                 "contract": None, "exchange": None, "ceded": False, "widow": None, "partner_card": "-", "partner": None,
                 "thrown_in": False, "tricks": []}
            deals.append(d)
        elif k == EventKind.BID:
            d["bids"].append((s, str(ACTIONS[data])))
        elif k == EventKind.CONTRACT:
            d["contract"] = (s, data[0], str(Strain(data[1])))
        elif k == EventKind.EXCHANGE:
            d["exchange"] = data
        elif k == EventKind.GIVE:
            d["gives"].append((s, data))
        elif k == EventKind.DISCARD:
            d["discards"].append(s)
        elif k == EventKind.CEDE:
            d["cedes"].append((s, data))
        elif k == EventKind.CEDED:
            d["ceded"] = True
        elif k == EventKind.WIDOW:
            d["widow"] = s
        elif k == EventKind.PARTNER_CARD:
            d["partner_card"] = None if data is None else str(CARDS[data])
        elif k == EventKind.PARTNER:
            d["partner"] = s
        elif k == EventKind.PLAY:
            d["plays"][s] += 1
        elif k == EventKind.TRICK:
            d["tricks"].append(data[1])
        elif k == EventKind.THROWN_IN:
            d["thrown_in"] = True
    p.deals = deals


def bot_steps(p: Played, phase: str | None = None, deal: int | None = None) -> list[tuple[int, int, str, str]]:
    """The decisions of the bot's seats (optionally of one phase, one deal)."""
    bots = set(p.spec.bot_seats)
    return [st for st in p.steps if st[1] in bots and (phase is None or st[2] == phase) and (deal is None or st[0] == deal)]


@dataclass
class Tally:
    """What the referee counted for the bot's seats over every game played."""

    decisions: int = 0
    coverage: Counter = field(default_factory=Counter)     # decisions by phase, fallbacks included
    fallbacks: int = 0                                      # answers the bot's SDK marked as fallbacks
    fallback_details: list[tuple[str, str]] = field(default_factory=list)   # (game and seat, what went wrong)

    def add(self, p: Played) -> None:
        bots = set(p.spec.bot_seats)
        for s in p.result.seats:
            if s.seat in bots:
                self.decisions += s.decisions
                self.fallbacks += s.fallbacks
                self.fallback_details += [(f"game {p.spec.game_id} seat {s.seat}", d) for d in s.fallback_details]
        for st in bot_steps(p):
            self.coverage[st[2]] += 1


def _fault_problems(p: Played, crash: str | None) -> list[tuple[int, str]]:
    from pepper_proto.v1 import game_pb2

    bots = set(p.spec.bot_seats)
    out = []
    for f in p.result.faults:
        if f.seat not in bots:
            continue
        where = f"game {p.spec.game_id} seat {f.seat}, deal {f.deal}"
        detail = f.detail if len(f.detail) <= 160 else f.detail[:157] + "..."
        if f.kind == game_pb2.FAULT_KIND_DISCONNECT:
            out.append((CONNECTION, crash or f"connection lost: {where}: {detail}"))
        elif f.kind == game_pb2.FAULT_KIND_TIMEOUT:
            out.append((TIMEOUT, f"timeout: {where}: {detail}"))
        elif f.kind == game_pb2.FAULT_KIND_ILLEGAL:
            out.append((ILLEGAL, f"illegal action: {where}: {detail}"))
        else:
            out.append((MALFORMED, f"protocol error: malformed answer: {where}: {detail}"))
    return out


def judge(c: Check, crash: str | None, stalled: str) -> bool:
    """Give ``c`` its verdict from its games. ``crash``: why the bot's process is gone (None while it runs);
    ``stalled``: why the checker stopped waiting for the bot ("" if it did not). Returns True when the check
    failed because the bot crashed."""
    if c.status == Status.FAIL:   # its games could not even be created
        return False
    worst: list[tuple[int, str]] = []
    for p in c.played:
        gid = p.spec.game_id
        faults = _fault_problems(p, crash)
        worst += faults
        if p.status == "running":
            worst.append((TIMEOUT if stalled else ERROR,
                          f"timeout: game {gid} did not finish" + (f" ({stalled})" if stalled else "")))
        elif not faults and p.status != p.spec.expect:
            worst.append((ERROR, f"error: game {gid} ended {p.status} ({p.result.reason})"))
        if p.replay_error:
            worst.append((ERROR, f"error: {p.replay_error}"))
    if not worst and c.played and c.verify is not None:
        try:
            problems, notes = c.verify(c.played)
        except Exception as e:  # noqa: BLE001 - a verifier bug must not hide the other checks
            problems, notes = [f"the checker could not verify its games: {e!r}"], []
        c.notes.extend(notes)
        worst += [(UNVERIFIED, x if x.startswith(POLICY) else f"error: {x}") for x in problems]
    if worst:
        worst.sort(key=lambda w: w[0])
        c.done(Status.FAIL, worst[0][1] + (f" (and {len(worst) - 1} more)" if len(worst) > 1 else ""))
        return worst[0][0] == CONNECTION and crash is not None
    decisions = sum(s.decisions for p in c.played for s in p.result.seats if s.seat in p.spec.bot_seats)
    c.done(Status.PASS, f"{len(c.played)} games, {decisions} decisions")
    return False
