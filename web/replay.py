"""A stored game as the replay viewer's frames, replayed on the rules engine.

Frame ``k`` is the table after the first ``k`` actions of the record: each seat's hand, the auction, the
contract, the trick on the table and the last one taken, tricks won, the scores, the lines of what
happened since frame ``k - 1``, and how long its seat took over action ``k`` (``ms``; None where the
referee played it) with any fault that fell on it. With ``seat`` given, a frame holds exactly what that seat knew then and
nothing else: its hand and private cards from :meth:`Game.view`, its lines from :meth:`Game.events_for`
(the engine decides hidden information; this module never filters cards itself), so a browser showing one
seat's view never receives another seat's cards. Without ``seat`` (the "all hands" view of a finished game),
every seat's view and every event.

Cards, strains, bids and contracts are written in one notation, the pages' (common.js): suit symbols, ``Q♣``,
``bids 2``, ``6♦``, ``pepper ♠``, ``6 NT``. The deal results, hand sizes and the trick's leader are public.
"""

from __future__ import annotations

from referee.rules import ACTIONS, CARDS, EventKind, Game, Strain
from referee.rules.text import scores as scores_text
from referee.rules.text import side

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

#: How a game of each family is won, in words (docs/rules.md, each family's "Game"); {target} is its target score.
WINNER_RULES = {
    "iowa": "First team to {target} or more wins; if both reach it on the same deal, the higher score, and if equal, "
            "the team that won that deal's bid.",
    "bid-euchre": "First team to {target} wins; if both reach it on the same deal, the bidding team.",
    "pepper-30": "The game ends after the deal in which anyone reaches {target}; the highest score wins, and sides tied "
                 "for it all win.",
    "five-handed": "Each plays for themself; partnerships form anew each deal. The game ends only when the winning "
                   "bidder of a deal finishes that deal with {target} or more, and that bidder wins, even if the "
                   "contract failed: reaching {target} as partner or defender does not end the game.",
}


def card_text(card: str) -> str:
    """``QC`` -> ``Q♣``."""
    return card[:-1] + SUIT_SYMBOLS.get(card[-1], card[-1])


def _card(c: int) -> str:
    return card_text(str(CARDS[c]))


def strain_text(strain: str) -> str:
    """``D`` -> ``♦``; ``NT`` stays."""
    return SUIT_SYMBOLS.get(strain, strain)


def contract_text(bid: str, trump: str | None, alone: bool = False) -> str:
    """``6 ♦``, ``6 NT``, ``pepper ♠``: the bid, then its strain apart (``6♦`` would read as a card)."""
    return bid + ("" if trump is None else " " + strain_text(trump)) + (" alone" if alone else "")


def bid_text(action: str) -> str:
    """A bid action as it reads after the bidder's name: ``bid 2`` -> ``bids 2``, ``bid 4 H`` -> ``bids 4♥``."""
    if not action.startswith("bid "):
        return action + ("es" if action == "pass" else "")
    words = action.split()[1:]
    return "bids " + (contract_text(words[0], words[1]) if len(words) == 2 else " ".join(words))


def event_line(kind: EventKind, seat: int | None, data, names: list[str], g: Game) -> str | None:
    """One event in words, with bot names (``None``: an event shown by the table itself, not as a line)."""
    who = f"{names[seat]} (seat {seat})" if seat is not None and 0 <= seat < len(names) else f"seat {seat}"
    match kind:
        case EventKind.DEAL:
            return f"Deal {data}: {who} deals"
        case EventKind.HAND:
            return f"{who} is dealt {' '.join(_card(c) for c in data)}"
        case EventKind.BID:
            return f"{who} {bid_text(str(ACTIONS[data]))}"
        case EventKind.THROWN_IN:
            return "Thrown in: everyone passed"
        case EventKind.CONTRACT:
            return f"Contract: {who} {contract_text(str(data[0]), str(Strain(data[1])))}"
        case EventKind.WIDOW:
            return f"{who} takes the widow: {' '.join(_card(c) for c in data)}"
        case EventKind.EXCHANGE:
            return f"{who} {'asks for an exchange' if data else 'plays as dealt'}"
        case EventKind.GIVE:
            return f"{who} gives no card" if data is False else None
        case EventKind.GAVE_CARD:
            return f"{who} gives {_card(data)}"
        case EventKind.RECEIVED_CARD:
            return f"{who} receives {_card(data)}"
        case EventKind.DISCARD:
            return f"{who} discards a card face down"
        case EventKind.DISCARDED_CARD:
            return f"{who} discards {_card(data)}"
        case EventKind.CEDE:
            return f"{who} {'cedes' if data else 'plays'}"
        case EventKind.CEDED:
            return "The defenders cede the deal"
        case EventKind.PLAY:
            return f"{who} plays {_card(data)}"
        case EventKind.TRICK:
            return f"Trick to {who}"
        case EventKind.PARTNER_CARD:
            return "Partner card: " + ("none" if data is None else _card(data))
        case EventKind.PARTNER:
            return f"{who} plays {_card(data)} and is the partner"
        case EventKind.DEAL_END:
            return f"Deal {data.number} points: {scores_text(g.table, data.points, '+')}; scores: {scores_text(g.table, data.scores)}"
        case EventKind.GAME_OVER:
            return "Game over"
    return None


def _frame(g: Game, viewers: list[int], start: int, names: list[str], seat: int | None) -> dict:
    views = {s: g.view(s) for s in viewers}
    v = views[viewers[0]]   # the public part is the same in every seat's view
    events = ([g.event_at(i) for i in range(start, g.event_count)] if seat is None
              else [e for _, e in g.events_for(seat, start)])
    c = v.contract
    last = None
    if not v.trick and v.tricks:
        leader, plays, winner = v.tricks[-1]
        last = {"leader": leader, "plays": [[s, str(x)] for s, x in plays], "winner": winner}
    return {
        "deal": v.deal, "dealer": v.dealer, "phase": str(v.phase), "to_act": v.to_act,
        "hands": {str(s): [str(x) for x in w.hand] for s, w in views.items()},
        "private": {str(s): w.to_dict()["private"] for s, w in views.items() if w.private},
        "bids": [[s, b] for s, b in v.bids],
        "contract": None if c is None else {"bidder": c.bidder, "bid": c.bid, "alone": c.alone,
                                            "trump": None if c.trump is None else str(c.trump)},
        "partner_card": None if v.partner_card is None else str(v.partner_card), "partner": v.partner,
        "sitting_out": list(v.sitting_out),
        "trick": [[s, str(x)] for s, x in v.trick], "last_trick": last, "trick_number": len(v.tricks) + 1,
        "leader": v.leader, "hand_sizes": [len(h) for h in g.hands],   # how many cards each holds is public
        "tricks_won": list(v.tricks_won), "scores": list(v.scores),
        "lines": [line for e in events if (line := event_line(e.kind, e.seat, e.data, names, g)) is not None],
    }


def frames(record: dict, names: list[str], seat: int | None = None) -> dict:
    """The replay of ``record`` (bot names by seat), every seat's view or only ``seat``'s (see the module)."""
    actions = record.get("actions", [])
    g = Game.from_record({**record, "actions": []}, verify=False)
    if seat is not None and not 0 <= seat < g.players:
        raise ValueError(f"no seat {seat} at a {g.players}-player table (seats 0 to {g.players - 1})")
    viewers = list(range(g.players)) if seat is None else [seat]
    t = g.table
    out = [_frame(g, viewers, 0, names, seat)]
    seen = g.event_count
    # What the referee added to the record (docs/protocol.md, "The control service"): each decision's time,
    # null where the referee played it, and the action each fault fell on. Records from before have neither.
    times = record.get("decision_ms") or []
    faults: dict[int, list[str]] = {}
    for index, fault_seat, kind in record.get("fault_steps") or []:
        faults.setdefault(index, []).append(f"{names[fault_seat]} (seat {fault_seat}): {kind}, the referee played for it")
    ended: list[int] = []   # the step that ends each deal
    for i, text in enumerate(actions):
        acting = g.to_act
        g.apply(text)
        if len(g.deals) > len(ended):
            ended.append(i + 1)
        f = _frame(g, viewers, seen, names, seat)
        f["actor"] = acting
        f["ms"] = times[i] if i < len(times) else None
        f["faults"] = faults.get(i, [])
        out.append(f)
        seen = g.event_count
    return {
        "ruleset": g.ruleset.name, "players": g.players, "seat": seat, "names": names,
        "team_of": list(t.team_of), "sides": [side(t, i) for i in range(t.teams)], "target_score": g.ruleset.target_score,
        "family": g.ruleset.family,
        "winner_rule": WINNER_RULES.get(g.ruleset.family, "").format(target=g.ruleset.target_score) or None,
        "frames": out, "deals": [{**_deal(d), "step": k} for d, k in zip(g.deals, ended, strict=True)],
        "outcome": None if g.outcome is None else g.outcome.to_dict(),
    }


def _deal(d) -> dict:
    """A deal's public result for the score sheet."""
    c = d.contract
    return {"number": d.number, "dealer": d.dealer, "ceded": d.ceded, "made": d.made, "partner": d.partner,
            "contract": None if c is None else {"bidder": c.bidder, "bid": c.bid, "alone": c.alone,
                                                "trump": None if c.trump is None else str(c.trump)},
            "tricks": list(d.tricks), "points": list(d.points), "scores": list(d.scores)}
