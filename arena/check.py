"""The conformance checker: ``pepper bot check -- COMMAND...``.

It starts a private referee in this process (127.0.0.1, a free port),
registers the bot under test with a fresh token, launches COMMAND with
``PEPPER_REFEREE``, ``PEPPER_TOKEN`` and ``PEPPER_BOT_NAME`` in its
environment, and drives it through a list of checks:

* ``connect``: the bot connects and says a valid Hello;
* ``play <ruleset> <n>p``: short games of every ruleset and player count with
  the bot in every seat;
* edge cases, set up with explicit decks, first dealers and ruleset variants,
  and with some seats played by the checker's own scripted bot (the *house*)
  so that situations the bot would not choose happen anyway: a Pepper with and
  without the exchange (the bot as partner passes a card and sits out, as
  defender decides whether to cede), ceding, bid-euchre Pepper (a teammate
  passes a card or declines) and Double Pepper, pepper-30 auctions (raising,
  the last player left, the dead hand), the five-handed widow and the called
  partner (also with no partner), Pepper and Moon Shot against four, hands
  with duplicate cards, games that end early (a forfeit and an abort by
  another seat);
* ``large batches``: 64 games at once, so requests arrive in big batches;
* ``game start and end``: games back to back;
* ``protocol``: every answer named a request that was open;
* ``shutdown``: the bot exits on SIGTERM;
* ``policy``: the bot's own policy chose every answer. The Python SDK (and the
  Node sample bot) never send an illegal answer: when ``decide()`` raises or
  returns something that is not legal they log it and play the first legal
  action instead, which the other checks cannot see. This check reads the
  bot's output (its stdout and stderr, kept in the bot log) for the SDK's
  ``[policy error N, fallbacks F]`` lines and its exit summary (``F fallbacks,
  N policy errors``; see sdk/python/pepper_bot/runner.py), and the Node bot's
  ``strategy failed`` / ``not legal`` lines, and fails when there are any.

Each forced situation is verified from the finished games' records (replayed
with the rules engine), so a check that passes really exercised it. A check
fails with a reason: ``crash`` (the process exited), ``timeout``, ``illegal
action``, ``protocol error`` (malformed answers, answers to requests that were
not open, no valid Hello), ``connection lost``, or ``error``. After a crash or
a timeout the remaining checks are skipped (``--keep-going`` runs them).

``{python}`` in COMMAND stands for the arena's own interpreter, as in
``pepper bot register --command`` (see arena/registry.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import secrets
import shlex
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .registry import expand

__all__ = ["CheckOptions", "run_check"]

BOT = "bot"
HOUSE_NAME = "checker-house"


@dataclass
class CheckOptions:
    name: str = "bot-under-test"
    deadline_ms: int = 2000
    time_bank_ms: int = 4000
    max_faults: int = 3
    connect_timeout: float = 30.0
    wave_timeout: float = 180.0
    only: list[str] = field(default_factory=list)
    report: str | None = None
    keep_going: bool = False
    verbose: bool = False
    out: object = None   # a text stream (default: stdout)


# ----------------------------------------------------------------------------- scripted seats
@dataclass
class House:
    """How the checker's own bot plays one seat of one game.

    ``bid``: "pass" (pass, or the lowest bid when it must bid), "top" (the
    highest bid, which ends single-circuit auctions), "min:K" (the lowest
    number up to K, else pass), or a special bid name ("pepper",
    "double-pepper", "moon-shot"). ``misbehave_at``: answer a malformed action
    at this decision (1-based) of the seat, to end the game early.
    """

    bid: str = "pass"
    trump: str = "S"
    exchange: bool = True
    give: str = "first"
    cede: bool = True
    misbehave_at: int = 0
    n: int = 0

    def choose(self, phase: str, legal: list[str]) -> str | None:
        """The action text; None for a malformed answer."""
        self.n += 1
        if self.misbehave_at and self.n == self.misbehave_at:
            return None
        if phase == "bid":
            return self._bid(legal)
        if phase == "name-trump":
            return f"trump {self.trump}" if f"trump {self.trump}" in legal else legal[0]
        if phase == "exchange":
            return "exchange yes" if self.exchange else "exchange no"
        if phase == "give-card":
            if self.give == "none" and "give none" in legal:
                return "give none"
            return next((a for a in legal if a != "give none"), legal[0])
        if phase == "cede":
            return "cede yes" if self.cede else "cede no"
        return legal[0]   # discard, play

    def _bid(self, legal: list[str]) -> str:
        bids = [a for a in legal if a != "pass"]
        fallback = "pass" if "pass" in legal else legal[0]

        def strain_ok(a: str) -> bool:
            t = a.split()
            return len(t) == 2 or t[2] == self.trump

        if self.bid == "pass":
            return fallback
        if self.bid == "top":
            top = bids[-1].split()[1] if bids else None
            return next((a for a in bids if a.split()[1] == top and strain_ok(a)), bids[-1] if bids else fallback)
        if self.bid.startswith("min:"):
            k = int(self.bid[4:])
            nums = [a for a in bids if a.split()[1].isdigit() and int(a.split()[1]) <= k and strain_ok(a)]
            return nums[0] if nums else fallback
        return next((a for a in bids if a.split()[1] == self.bid and strain_ok(a)), fallback)


class HouseBot:
    """The checker's scripted bot: one Connect stream in this process, scripts per (game, seat)."""

    def __init__(self, address: str, token: str):
        self.address, self.token = address, token
        self.scripts: dict[str, dict[int, House]] = {}
        self.task: asyncio.Task | None = None
        self.error: str | None = None

    async def start(self) -> None:
        import grpc
        from pepper_proto.v1 import bot_pb2, bot_pb2_grpc

        from referee.wire import PROTOCOL_VERSION

        self._pb = bot_pb2
        self.channel = grpc.aio.insecure_channel(self.address)
        self.call = bot_pb2_grpc.BotServiceStub(self.channel).Connect()
        await self.call.write(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(
            bot_name=HOUSE_NAME, protocol_version=PROTOCOL_VERSION, token=self.token, max_batch=256)))
        first = await self.call.read()
        if first.WhichOneof("message") != "welcome":
            raise RuntimeError("the checker's own bot was not welcomed by the referee")
        self.task = asyncio.create_task(self._loop())

    async def _loop(self) -> None:
        import grpc
        from pepper_bot.convert import phase_name

        pb = self._pb
        try:
            while True:
                resp = await self.call.read()
                if resp is grpc.aio.EOF:
                    return
                answers = []
                for it in resp.batch.items:
                    if it.WhichOneof("item") != "request":
                        continue
                    r = it.request
                    h = self.scripts.setdefault(r.game_id, {}).setdefault(r.seat, House())
                    legal = list(r.legal_actions)
                    a = h.choose(phase_name(r.view.phase), legal)
                    answers.append(pb.Answer(request_id=r.request_id, action_index=len(legal) + 5) if a is None
                                   else pb.Answer(request_id=r.request_id, action=a))
                if answers:
                    await self.call.write(pb.ConnectRequest(answers=pb.AnswerBatch(answers=answers)))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001
            self.error = repr(e)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        try:
            self.call.cancel()
        except Exception:  # noqa: BLE001
            pass
        await self.channel.close()


# ----------------------------------------------------------------------------- games and checks
@dataclass
class GameSpec:
    ruleset: dict                    # ruleset_json object
    players: int
    seats: list                      # BOT or a House, per seat
    seed: int
    decks: list[list[str]] | None = None
    first_dealer: int | None = None
    policy: dict | None = None       # GamePolicy fields, e.g. {"on_malformed": "forfeit"}
    expect: str = "completed"        # completed, forfeited or aborted
    game_id: str = ""

    @property
    def bot_seats(self) -> list[int]:
        return [s for s, x in enumerate(self.seats) if x == BOT]


@dataclass
class Played:
    spec: GameSpec
    result: object                   # control_pb2.GameResult
    steps: list = field(default_factory=list)   # (deal, seat, phase, action) per decision
    deals: list = field(default_factory=list)   # per-deal facts from the replayed events
    full_state: dict = field(default_factory=dict)
    replay_error: str = ""

    @property
    def status(self) -> str:
        from pepper_proto.v1 import game_pb2

        return game_pb2.GameStatus.Name(self.result.status).removeprefix("GAME_STATUS_").lower()


@dataclass
class Check:
    name: str
    rounds: list[list[GameSpec]]     # rounds run one after another; a round's games run at once
    verify: object = None            # fn(list[Played]) -> (problems, notes)
    wave: int = 1
    what: str = ""                   # one line: what it exercises
    status: str = "pending"          # pass, fail, skip
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    played: list[Played] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> list[GameSpec]:
        return [g for r in self.rounds for g in r]


def _rs(base: str, tag: str, deal_cap: int = 1, **kw) -> dict:
    return {"extends": base, "name": f"{base}-check-{tag}", "deal_cap": deal_cap, **kw}


CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
           ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4), ("five-handed", 5)]


def make_deck(base: str, players: int, dealer: int, fixed: dict, widow: list[str] = (), dead: list[str] = (),
              seed: int = 0) -> list[str]:
    """A deck order that deals ``fixed[seat]`` (cards as text) to those seats, ``widow`` to the
    five-handed widow and ``dead`` to the 2-player dead hand; the other cards are shuffled from ``seed``.
    The result is checked by dealing it with the rules engine."""
    from referee.rules import CARDS, Game, get_ruleset

    t = get_ruleset(base).table(players)
    pool = [str(CARDS[c]) for c in t.deck]
    for c in [c for cs in fixed.values() for c in cs] + list(widow) + list(dead):
        pool.remove(c)   # ValueError: the deck has no (more) such card
    random.Random(seed).shuffle(pool)
    hands = {s: list(fixed.get(s, [])) for s in range(players)}
    for s in range(players):
        while len(hands[s]) < t.hand_size:
            hands[s].append(pool.pop())
    widow = list(widow) + [pool.pop() for _ in range(t.widow_size - len(widow))]
    dead = list(dead) + (pool if t.dead_hand else [])
    receivers = [(dealer + 1 + i) % players for i in range(players)] + (["dead"] if t.dead_hand else [])
    if t.widow_size:
        per = t.hand_size // t.widow_size
        order = []
        for rnd in range(t.hand_size):
            order += receivers
            if rnd % per == per - 1:
                order.append("widow")
    else:
        order = [receivers[p % len(receivers)] for p in range(len(t.deck))]
    src = {s: iter(h) for s, h in hands.items()} | {"widow": iter(widow), "dead": iter(dead)}
    deck = [next(src[slot]) for slot in order]
    g = Game(base, players, decks=[deck], first_dealer=dealer)
    st = g.full_state()
    assert all(sorted(st["hands"][s]) == sorted(hands[s]) for s in range(players)), "make_deck: hands differ"
    assert sorted(st["widow"]) == sorted(widow if t.widow_size else []), "make_deck: widow differs"
    assert sorted(st["dead_hand"]) == sorted(dead), "make_deck: dead hand differs"
    return deck


# -- reading finished games ----------------------------------------------------------------
def _replay(p: Played) -> None:
    from referee.rules import ACTIONS, CARDS, Game, Strain

    try:
        rec = json.loads(p.result.record_json)
        actions = rec.pop("actions", [])
        rec.pop("outcome", None)
        rec.pop("deals", None)
        rec["actions"] = []
        g = Game.from_record(rec, verify=False)
        for a in actions:
            p.steps.append((g.deal_number, g.to_act, str(g.phase), a))
            g.apply(a)
    except Exception as e:  # noqa: BLE001
        p.replay_error = f"the record of game {p.result.game_id} does not replay: {e}"
        return
    if p.result.full_state_json:
        p.full_state = json.loads(p.result.full_state_json)
    deals: list[dict] = []
    d: dict = {}
    for e in g.events:
        k, s, data = e.kind, e.seat, e.data
        if k == "deal":
            d = {"number": data, "dealer": s, "bids": [], "gives": [], "discards": [], "cedes": [], "plays": Counter(),
                 "contract": None, "exchange": None, "ceded": False, "widow": None, "partner_card": "-", "partner": None,
                 "thrown_in": False, "tricks": []}
            deals.append(d)
        elif k == "bid":
            d["bids"].append((s, str(ACTIONS[data])))
        elif k == "contract":
            d["contract"] = (s, data[0], str(Strain(data[1])))
        elif k == "exchange":
            d["exchange"] = data
        elif k == "give":
            d["gives"].append((s, data))
        elif k == "discard":
            d["discards"].append(s)
        elif k == "cede":
            d["cedes"].append((s, data))
        elif k == "ceded":
            d["ceded"] = True
        elif k == "widow":
            d["widow"] = s
        elif k == "partner_card":
            d["partner_card"] = None if data is None else str(CARDS[data])
        elif k == "partner":
            d["partner"] = s
        elif k == "play":
            d["plays"][s] += 1
        elif k == "trick":
            d["tricks"].append(data[1])
        elif k == "thrown_in":
            d["thrown_in"] = True
    p.deals = deals


def _bot_steps(p: Played, phase: str | None = None, deal: int | None = None) -> list:
    bots = set(p.spec.bot_seats)
    return [st for st in p.steps if st[1] in bots and (phase is None or st[2] == phase) and (deal is None or st[0] == deal)]


# ----------------------------------------------------------------------------- the check list
def build_checks() -> list[Check]:
    H = House
    checks: list[Check] = []

    # -- every ruleset and player count, the bot in every seat --------------------------------
    for base, n in CONFIGS:
        games = [GameSpec(_rs(base, "play", deal_cap=3), n, [BOT] * n, seed=1000 + 17 * n + k) for k in range(2)]
        checks.append(Check(f"play {base} {n}p", [games], what=f"2 games of {base} with {n} players, 3 deals each, the bot in every seat"))

    # -- iowa: Pepper with and without the exchange -------------------------------------------
    def v_iowa_pepper(played):
        problems, notes = [], []
        for p in played:
            hs = [s for s, x in enumerate(p.spec.seats) if x != BOT][0]
            partner = (hs + 2) % 4
            d = p.deals[0]
            if not d["contract"] or d["contract"][:2] != (hs, "pepper"):
                problems.append(f"game {p.spec.game_id}: the house's Pepper bid did not stand ({d['contract']})")
                continue
            want_ex = p.spec.seats[hs].exchange
            if d["exchange"] != want_ex:
                problems.append(f"game {p.spec.game_id}: exchange {d['exchange']} (wanted {want_ex})")
            if want_ex and not any(s == partner for s, _ in d["gives"]):
                problems.append(f"game {p.spec.game_id}: the partner (seat {partner}) was not asked for a card")
            if d["plays"][partner]:
                problems.append(f"game {p.spec.game_id}: the partner (seat {partner}) played although it sits out")
            if not d["cedes"] or d["cedes"][0][0] == hs:
                problems.append(f"game {p.spec.game_id}: no defender was asked to cede")
            notes.append(f"{p.spec.game_id}: cede answers {['yes' if f else 'no' for _, f in d['cedes']]}"
                         + (", ceded" if d["ceded"] else ""))
        return problems, notes

    g = [GameSpec(_rs("iowa", "pepper"), 4, [H(bid="pepper", exchange=True), BOT, BOT, BOT], 2001, first_dealer=3),
         GameSpec(_rs("iowa", "pepper"), 4, [H(bid="pepper", exchange=False, trump="NT"), BOT, BOT, BOT], 2002, first_dealer=3),
         GameSpec(_rs("iowa", "pepper"), 4, [BOT, BOT, H(bid="pepper", exchange=True, trump="H"), BOT], 2003, first_dealer=1)]
    checks.append(Check("iowa: Pepper exchange and sit-out", [g], v_iowa_pepper,
                        what="the house bids Pepper: the bot as partner passes a card and sits out, as defender decides to cede"))

    # -- iowa: ceding --------------------------------------------------------------------------
    def v_cede(played):
        problems, notes = [], []
        for p in played:
            d = p.deals[0]
            if not d["contract"] or d["contract"][0] not in p.spec.bot_seats:
                problems.append(f"game {p.spec.game_id}: the bot did not win the auction ({d['contract']})")
            elif not d["ceded"]:
                problems.append(f"game {p.spec.game_id}: the deal was not ceded")
            else:
                notes.append(f"{p.spec.game_id}: the bot bid {d['contract'][1]} in {d['contract'][2]}, the defence ceded"
                             + (f" (exchange: {'yes' if d['exchange'] else 'no'})" if d["exchange"] is not None else ""))
        return problems, notes

    strong = ["JS", "JC", "AS", "KS", "QS", "10S"]
    g = [GameSpec(_rs("iowa", "cede", pass_out="dealer-must-bid"), 4, [BOT, H(), BOT, H()], seed,
                  decks=[make_deck("iowa", 4, 2, {0: strong}, seed=seed)], first_dealer=2) for seed in (2101, 2102)]
    checks.append(Check("iowa: ceding", [g], v_cede,
                        what="the bot must bid (the dealer must bid) holding six top trumps; both defenders cede"))

    # -- bid-euchre Pepper and Double Pepper -------------------------------------------------
    def v_be_pepper(played):
        problems, notes = [], []
        for p in played:
            hs = 0
            d = p.deals[0]
            n = p.spec.players
            mates = [s for s in range(n) if s != hs and s % 2 == hs % 2]
            bid = p.spec.seats[hs].bid
            if not d["contract"] or d["contract"][:2] != (hs, bid):
                problems.append(f"game {p.spec.game_id}: the house's {bid} bid did not stand ({d['contract']})")
                continue
            if bid == "pepper":
                if not d["gives"] or d["gives"][0][0] != mates[0]:
                    problems.append(f"game {p.spec.game_id}: the first teammate (seat {mates[0]}) was not asked to pass a card")
                gave = [s for s, f in d["gives"] if f]
                notes.append(f"{p.spec.game_id} ({n}p): " + (f"seat {gave[0]} passed a card, the bidder discarded"
                                                              if gave else "every teammate declined"))
                if gave and d["discards"] != [hs]:
                    problems.append(f"game {p.spec.game_id}: a card was passed but the bidder did not discard")
            elif d["gives"]:
                problems.append(f"game {p.spec.game_id}: teammates were asked for cards on a Double Pepper")
            for s in mates:
                if d["plays"][s]:
                    problems.append(f"game {p.spec.game_id}: seat {s} played although it sits out")
        return problems, notes

    g = [GameSpec(_rs("bid-euchre", "pepper", specials=["pepper"]), 4, [H(bid="pepper")] + [BOT] * 3, 2201, first_dealer=3),
         GameSpec(_rs("bid-euchre", "pepper", specials=["pepper"]), 6, [H(bid="pepper", trump="NT")] + [BOT] * 5, 2202, first_dealer=5),
         GameSpec(_rs("bid-euchre", "pepper", specials=["pepper"]), 8, [H(bid="pepper", trump="D")] + [BOT] * 7, 2203, first_dealer=7),
         GameSpec(_rs("bid-euchre", "double"), 8, [H(bid="double-pepper")] + [BOT] * 7, 2204, first_dealer=7)]
    checks.append(Check("bid-euchre: Pepper and Double Pepper", [g], v_be_pepper,
                        what="the house bids Pepper: the bot's teammates pass a card or decline, then sit out"))

    # -- pepper-30 auctions and the dead hand --------------------------------------------------
    def v_auction(played):
        problems, notes = [], []
        for p in played:
            d = p.deals[0]
            bids = d["bids"]
            if p.spec.game_id.endswith("-last"):
                if [s for s, _ in bids[:2]] != [1, 2] or len(bids) < 3 or bids[2][0] != 0:
                    problems.append(f"game {p.spec.game_id}: the bot was not the last one left in the auction ({bids})")
                else:
                    notes.append(f"{p.spec.game_id}: last one left, the bot answered {bids[2][1]}")
                continue
            raised = [i for i, (s, a) in enumerate(bids) if s in p.spec.bot_seats and any(x != "pass" for _, x in bids[:i])]
            if not raised:
                problems.append(f"game {p.spec.game_id}: the bot never answered a standing bid ({bids})")
            rounds = max(Counter(s for s, _ in bids).values()) if bids else 0
            notes.append(f"{p.spec.game_id}: {len(bids)} calls in deal 1, up to {rounds} per seat")
        return problems, notes

    A = _rs("pepper-30", "auction", deal_cap=2)
    g = [GameSpec(A, 3, [BOT, H(bid="min:7"), BOT], 2301, first_dealer=0),
         GameSpec(A, 3, [BOT, H(), H()], 2302, first_dealer=0),
         GameSpec(A, 4, [H(bid="min:1"), BOT, BOT, BOT], 2303, first_dealer=3),
         GameSpec(A, 2, [H(bid="min:7"), BOT], 2304, first_dealer=1)]
    g[1].game_id = "last"
    checks.append(Check("pepper-30: auctions", [g], v_auction,
                        what="the house keeps raising; the bot answers standing bids, and bids or passes as the last one left"))

    def v_dead(played):
        problems = []
        for p in played:
            dead = p.full_state.get("dead_hand", [])
            if len(dead) != 8:
                problems.append(f"game {p.spec.game_id}: no dead hand ({dead})")
        return problems, [f"the dead hand held {' '.join(played[0].full_state.get('dead_hand', []))}"] if played else []

    top = ["JS", "JC", "JH", "JD", "AS", "AH", "AD", "AC"]
    g = [GameSpec(_rs("pepper-30", "dead"), 2, [BOT, BOT], s, decks=[make_deck("pepper-30", 2, 0, {}, dead=top, seed=s)],
                  first_dealer=0) for s in (2401, 2402)]
    g.append(GameSpec(_rs("pepper-30", "dead"), 2, [H(bid="min:3"), BOT], 2403, first_dealer=1))
    checks.append(Check("pepper-30: the dead hand", [g], v_dead,
                        what="2 players: a third hand nobody sees (here every Jack and Ace)"))

    # -- five-handed: the widow and the called partner -----------------------------------------
    def v_widow(played):
        problems, notes = [], []
        for p in played:
            d = p.deals[0]
            gid = p.spec.game_id
            if gid.endswith("-widow"):
                if d["widow"] != 4 or d["discards"] != [4, 4, 4]:
                    problems.append(f"game {gid}: the bot did not take the widow and discard 3 (widow {d['widow']}, discards {d['discards']})")
                elif d["partner_card"] == "-":
                    problems.append(f"game {gid}: the bot's lead called no partner card")
                else:
                    pc = d["partner_card"]
                    notes.append(f"{gid}: the bot bid {d['contract'][1]} in {d['contract'][2]}, called {pc or 'no partner'}"
                                 + (f", partner seat {d['partner']}" if d["partner"] is not None else ""))
            elif gid.endswith("-partner"):
                if d["partner_card"] != "JS" or d["partner"] != 1:
                    problems.append(f"game {gid}: seat 1 (the bot, holding a called JS) did not become the partner "
                                    f"(called {d['partner_card']}, partner {d['partner']})")
                else:
                    notes.append(f"{gid}: the house called JS; seat 1 had to play it and became the partner")
            elif gid.endswith("-nopartner"):
                if d["partner_card"] is not None or d["partner"] is not None:
                    problems.append(f"game {gid}: a partner card was called although nobody else holds a qualifying card")
                else:
                    notes.append(f"{gid}: the house holds every spade in no-trump: no partner")
        return problems, notes

    W = _rs("five-handed", "widow", pass_out="dealer-must-bid", specials=[])
    T = _rs("five-handed", "top", specials=[])
    g = [GameSpec(W, 5, [H(), H(), H(), H(), BOT], s, first_dealer=4, game_id="widow") for s in (2501, 2502)]
    house_hand = ["AS", "AS", "KS", "KS", "QS", "QS", "AH", "AD", "AC"]
    g.append(GameSpec(T, 5, [H(bid="top", trump="S"), BOT, BOT, BOT, BOT], 2503, first_dealer=4, game_id="partner",
                      decks=[make_deck("five-handed", 5, 4, {0: house_hand, 1: ["JS"], 2: ["JS"], 3: ["JS"]},
                                       widow=["KH", "KD", "KC"], seed=2503)]))
    g.append(GameSpec(T, 5, [H(bid="top", trump="NT"), BOT, BOT, BOT, BOT], 2504, first_dealer=4, game_id="nopartner",
                      decks=[make_deck("five-handed", 5, 4, {0: ["JS"] * 3 + ["QS"] * 3 + ["KS"] * 3},
                                       widow=["AS"] * 3, seed=2504)]))
    checks.append(Check("five-handed: widow and called partner", [g], v_widow,
                        what="the bot must bid: it takes the widow, discards 3 and calls a partner; as defender it holds "
                             "the called card; a deal with no partner"))

    def v_alone(played):
        problems = []
        notes = [f"{p.spec.game_id}: the house bid {p.deals[0]['contract'][1]} in {p.deals[0]['contract'][2]}; "
                 f"the bot's four seats defended {len(p.deals[0]['tricks'])} tricks" for p in played if p.deals and p.deals[0]["contract"]]
        for p in played:
            d = p.deals[0]
            want = p.spec.seats[0].bid
            if not d["contract"] or d["contract"][:2] != (0, want):
                problems.append(f"game {p.spec.game_id}: the house's {want} did not stand ({d['contract']})")
            elif want == "moon-shot" and d["widow"] is not None:
                problems.append(f"game {p.spec.game_id}: a widow was taken on a Moon Shot")
        return problems, notes

    g = [GameSpec(_rs("five-handed", "moon"), 5, [H(bid="moon-shot", trump="H")] + [BOT] * 4, 2601, first_dealer=4),
         GameSpec(_rs("five-handed", "pep", specials=["pepper"]), 5, [H(bid="pepper", trump="NT")] + [BOT] * 4, 2602, first_dealer=4)]
    checks.append(Check("five-handed: Pepper and Moon Shot", [g], v_alone,
                        what="the house plays alone against four bot seats"))

    # -- duplicate cards ------------------------------------------------------------------------
    def v_dup(played):
        notes = []
        for p in played:
            same = sum(1 for d in p.deals for t in d["tricks"] if len(set(t)) < len(t))
            notes.append(f"{p.spec.game_id}: {same} tricks held identical cards")
        return [], notes

    g = [GameSpec(_rs("bid-euchre", "dup"), 4, [BOT] * 4, 2701, first_dealer=0,
                  decks=[make_deck("bid-euchre", 4, 0, {1: ["AS", "AS", "KS", "KS", "QH", "QH", "JD", "JD"]}, seed=2701)]),
         GameSpec(_rs("bid-euchre", "dup"), 8, [BOT] * 8, 2702, first_dealer=0,
                  decks=[make_deck("bid-euchre", 8, 0, {3: ["AS"] * 4 + ["KS"] * 4}, seed=2702)]),
         GameSpec(_rs("five-handed", "dup"), 5, [BOT] * 5, 2703, first_dealer=0,
                  decks=[make_deck("five-handed", 5, 0, {2: ["AS"] * 3 + ["KH"] * 3 + ["QD"] * 3}, seed=2703)])]
    checks.append(Check("duplicate cards", [g], v_dup,
                        what="hands holding two, three or four copies of a card (bid-euchre 4p and 8p, five-handed)"))

    # -- games that end early -------------------------------------------------------------------
    def v_end(played):
        problems = []
        for p in played:
            hs = [s for s, x in enumerate(p.spec.seats) if x != BOT][0]
            if p.status == p.spec.expect and f"seat {hs}" not in p.result.reason:
                problems.append(f"game {p.spec.game_id}: ended {p.status} for another reason: {p.result.reason}")
        return problems, [f"{p.spec.game_id}: {p.status} ({p.result.reason})" for p in played]

    # The house answers nonsense at its third decision (mid-deal: the bots have answered before it).
    g = [GameSpec(_rs("iowa", "end", deal_cap=3), 4, [H(misbehave_at=3), BOT, BOT, BOT], 2801, first_dealer=0,
                  policy={"on_malformed": "forfeit"}, expect="forfeited"),
         GameSpec(_rs("five-handed", "end", deal_cap=3), 5, [BOT, BOT, H(misbehave_at=3), BOT, BOT], 2802, first_dealer=2,
                  policy={"on_malformed": "abort"}, expect="aborted"),
         GameSpec(_rs("pepper-30", "end", deal_cap=3), 2, [BOT, H(misbehave_at=3)], 2803, first_dealer=1,
                  policy={"on_malformed": "forfeit"}, expect="forfeited")]
    checks.append(Check("game end: forfeit and abort", [g], v_end,
                        what="another seat forfeits or aborts the game mid-deal; the bot must carry on with its other games"))

    # -- wave 2: load and sequencing ------------------------------------------------------------
    g = [GameSpec(_rs("iowa", "load"), 4, [BOT] * 4, 3000 + k) for k in range(64)]
    checks.append(Check("large batches", [g], wave=2, what="64 games at once: requests arrive in large batches"))
    rounds = [[GameSpec(_rs("iowa", "seq"), 4, [BOT] * 4, 3100 + r), GameSpec(_rs("pepper-30", "seq"), 2, [BOT] * 2, 3150 + r),
               GameSpec(_rs("five-handed", "seq"), 5, [BOT] * 5, 3200 + r)] for r in range(4)]
    checks.append(Check("game start and end", rounds, wave=2, what="4 rounds of games back to back"))

    # unique game ids
    for c in checks:
        slug = "".join(ch if ch.isalnum() else "-" for ch in c.name.lower()).strip("-")
        while "--" in slug:
            slug = slug.replace("--", "-")
        k = 0
        for r in c.rounds:
            for gs in r:
                k += 1
                gs.game_id = f"{slug[:40]}-{k}" + (f"-{gs.game_id}" if gs.game_id else "")
    return checks


# ----------------------------------------------------------------------------- running
_POLICY = {"fallback": 1, "forfeit": 2, "abort": 3}

# The Node sample bot (sample_bots/node/lib/client.js): one line per fallback, and its summary.
_NODE_FALLBACK_RE = re.compile(r"request \d+: strategy (?:failed: |chose .*, not legal; playing )")
_NODE_SUMMARY_RE = re.compile(r"\d+ decisions \((\d+) fallbacks\)")
_MISSING_MODULE_RE = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '([^']+)'")
_SDK_HINT = "does the script start the SDK (`main(MyBot())` under `if __name__ == '__main__':`)?"
_PYTHON_HINT = (f"is this the project's Python? use {{python}} or .venv/bin/python (the checker runs {sys.executable}), "
                "or install the SDK in yours: pip install ./sdk/python")


@dataclass
class PolicyErrors:
    """What the bot's output says about its policy's failures."""

    fallbacks: int = 0            # decide() raised or answered a non-legal action: the first legal action was played
    hook_errors: int = 0          # on_game_start / on_event / on_game_end raised (Python SDK)
    examples: list[str] = field(default_factory=list)   # the first such lines

    @classmethod
    def scan(cls, lines: list[str]) -> PolicyErrors:
        from pepper_bot.runner import POLICY_ERROR_RE, SUMMARY_RE

        sdk_fb = sdk_errors = node_lines = node_fb = 0
        examples: list[str] = []
        for line in lines:
            m = POLICY_ERROR_RE.search(line)
            if m:
                sdk_errors, sdk_fb = max(sdk_errors, int(m[1])), max(sdk_fb, int(m[2]))
            elif _NODE_FALLBACK_RE.search(line):
                node_lines += 1
            else:
                if (m := SUMMARY_RE.search(line)):
                    sdk_fb, sdk_errors = max(sdk_fb, int(m[1])), max(sdk_errors, int(m[2]))
                if (m := _NODE_SUMMARY_RE.search(line)):
                    node_fb = max(node_fb, int(m[1]))
                continue
            if len(examples) < 3:
                examples.append(line)
        return cls(sdk_fb + max(node_lines, node_fb), max(0, sdk_errors - sdk_fb), examples)


class Checker:
    def __init__(self, command: list[str], opts: CheckOptions):
        self.command, self.o = command, opts
        self.out = opts.out or sys.stdout
        self.checks: list[Check] = []
        self.proc: asyncio.subprocess.Process | None = None
        self.exit_code: int | None = None
        self.fatal: str = ""          # crash / timeout: later waves are skipped
        self.protocol_counts = Counter()
        self.coverage = Counter()     # the bot's decisions by phase (fallbacks included)
        self.decisions = 0            # decisions the bot answered itself
        self.log_records: list[str] = []
        self.tmp = Path(tempfile.mkdtemp(prefix="pepper-check-"))
        self.bot_log = self.tmp / "bot.log"
        self.tee: asyncio.Task | None = None   # -v: copies the bot's output to the log and to the screen
        self.policy_examples: list[str] = []

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # -- setup ------------------------------------------------------------------
    async def start_referee(self) -> None:
        import grpc
        from pepper_proto.v1 import control_pb2_grpc

        from referee.service import Policy, ServerConfig, start

        self.control_token = secrets.token_urlsafe(24)
        policy = Policy(deadline_ms=self.o.deadline_ms, time_bank_ms=self.o.time_bank_ms, on_illegal="fallback",
                        on_malformed="fallback", on_timeout="fallback", on_disconnect="forfeit", max_faults=self.o.max_faults)
        # Shared seats: the checker drives every seat of a table through the one process under test (and its
        # own house bot), which is what it means to check; a tournament never shares.
        self.srv = await start(ServerConfig(address="127.0.0.1:0", control_token=self.control_token, policy=policy,
                                            shared_seats=True))
        self.address = self.srv.address
        self.channel = grpc.aio.insecure_channel(self.address, options=[("grpc.max_receive_message_length", 256 << 20)])
        self.control = control_pb2_grpc.ControlServiceStub(self.channel)
        self.md = [("authorization", f"Bearer {self.control_token}")]

    async def register(self, name: str) -> str:
        from pepper_proto.v1 import control_pb2

        r = await self.control.RegisterBot(control_pb2.RegisterBotRequest(name=name), metadata=self.md)
        return r.token

    async def connections(self, name: str) -> int:
        from pepper_proto.v1 import control_pb2

        bots = (await self.control.ListBots(control_pb2.ListBotsRequest(), metadata=self.md)).bots
        return next((b.connections for b in bots if b.name == name), 0)

    async def launch(self) -> None:
        env = dict(os.environ, PEPPER_REFEREE=self.address, PEPPER_TOKEN=self.bot_token, PEPPER_BOT_NAME=self.o.name,
                   PYTHONUNBUFFERED="1")
        self.logf = open(self.bot_log, "wb")
        if not self.o.verbose:
            self.proc = await asyncio.create_subprocess_exec(*self.command, env=env, stdin=asyncio.subprocess.DEVNULL,
                                                             stdout=self.logf, stderr=self.logf, start_new_session=True)
            return
        # -v shows the bot's output, and the log still gets it (the policy check and the hints read it).
        self.proc = await asyncio.create_subprocess_exec(*self.command, env=env, stdin=asyncio.subprocess.DEVNULL,
                                                         stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                                                         start_new_session=True)
        self.tee = asyncio.create_task(self._tee(self.proc.stdout))

    async def _tee(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self.logf.write(line)
            self.logf.flush()
            self.say(line.decode(errors="replace").rstrip("\n"))

    async def _drain_tee(self, timeout: float = 2.0) -> None:
        """With -v: wait until the bot's output so far is in the log (the pipe closes when the bot exits)."""
        if self.tee is not None and self.proc is not None and self.proc.returncode is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self.tee), timeout)
            except TimeoutError:
                pass

    def exited(self) -> bool:
        if self.proc is None:
            return False
        if self.proc.returncode is not None:
            self.exit_code = self.proc.returncode
            return True
        return False

    def crash_reason(self) -> str:
        rc = self.exit_code
        how = f"killed by signal {-rc}" if rc is not None and rc < 0 else f"exited with code {rc}"
        return f"crash: the bot {how}"

    def startup_hint(self) -> str:
        """Why a bot may have died before connecting, from its exit code and the end of its output ("" if unclear)."""
        for line in reversed(self.tail(40)):
            m = _MISSING_MODULE_RE.search(line)
            if m:
                top = m[1].split(".")[0]
                try:
                    import importlib.util

                    ours = importlib.util.find_spec(top) is not None
                except (ImportError, ValueError):
                    ours = False
                if ours:   # the checker's Python has it: the bot runs another one
                    return f" ({m[0]}): {_PYTHON_HINT}"
                return (f" ({m[0]}): is it installed for the bot's Python, and is the bot started from its own folder? "
                        f"(the project's Python: {{python}} or .venv/bin/python)")
        if self.exit_code == 0:
            return f": {_SDK_HINT}"
        return ""

    def launch_hint(self, e: OSError) -> str:
        """A hint for a command that cannot be started."""
        prog = self.command[0]
        if prog.endswith(".py"):
            return f" (run a Python file with an interpreter: pepper bot check -- {{python}} {shlex.join(self.command)})"
        if isinstance(e, FileNotFoundError) and Path(prog).name.startswith("python"):
            return f" (use {{python}}, the checker's own interpreter {sys.executable}, or .venv/bin/python)"
        if isinstance(e, FileNotFoundError) and os.sep not in prog:
            return f" (is {prog} installed and on PATH?)"
        return ""

    # -- checks -----------------------------------------------------------------
    async def check_connect(self) -> Check:
        c = Check("connect", [], what="the bot starts and connects with a valid Hello")
        t0 = time.monotonic()
        while time.monotonic() - t0 < self.o.connect_timeout:
            if await self.connections(self.o.name):
                c.status, c.reason = "pass", f"connected after {time.monotonic() - t0:.1f} s"
                return c
            if self.exited():
                await self._drain_tee()
                c.status, c.reason = "fail", self.crash_reason() + " before connecting" + self.startup_hint()
                return c
            await asyncio.sleep(0.05)
        c.status = "fail"
        c.reason = (f"protocol error: no valid connection within {self.o.connect_timeout:.0f} s (the bot must connect to "
                    f"$PEPPER_REFEREE and send a Hello with $PEPPER_BOT_NAME, $PEPPER_TOKEN and protocol version 1.x)")
        return c

    async def create(self, gs: GameSpec) -> str | None:
        """Create one game; returns an error text, or None."""
        import grpc
        from pepper_proto.v1 import control_pb2

        seats = [self.o.name if x == BOT else HOUSE_NAME for x in gs.seats]
        self.house.scripts[gs.game_id] = {s: x for s, x in enumerate(gs.seats) if x != BOT}
        req = control_pb2.CreateGameRequest(game_id=gs.game_id, ruleset_json=json.dumps(gs.ruleset), players=gs.players,
                                            seats=seats, seed=gs.seed)
        if gs.first_dealer is not None:
            req.first_dealer = gs.first_dealer
        for d in gs.decks or ():
            req.decks.add(cards=d)
        if gs.policy:
            for k, v in gs.policy.items():
                setattr(req.policy, k, _POLICY[v])
        try:
            await self.control.CreateGame(req, metadata=self.md)
        except grpc.aio.AioRpcError as e:
            return f"{e.code().name}: {e.details()}"
        return None

    async def run_check_games(self, c: Check, stop: asyncio.Event) -> None:
        from pepper_proto.v1 import control_pb2

        t0 = time.monotonic()
        for rnd in c.rounds:
            if stop.is_set():
                break
            errors = [e for e in await asyncio.gather(*(self.create(gs) for gs in rnd)) if e]
            if errors:
                c.status = "fail"
                await self._reap(1.0)  # a bot that just crashed: collect its exit code first
                c.reason = (self.crash_reason() if self.exited() else f"connection lost: the referee could not start a game: {errors[0]}")
                break
            ids = [gs.game_id for gs in rnd]
            await self.wait_games(ids, stop)
            for gs in rnd:
                r = (await self.control.GetGame(control_pb2.GetGameRequest(game_id=gs.game_id), metadata=self.md)).result
                p = Played(gs, r)
                if p.status != "running":
                    _replay(p)
                c.played.append(p)
        c.seconds = time.monotonic() - t0

    async def wait_games(self, ids: list[str], stop: asyncio.Event) -> None:
        from pepper_proto.v1 import control_pb2, game_pb2

        want = set(ids)
        end = time.monotonic() + self.o.wave_timeout
        while time.monotonic() < end and not stop.is_set():
            games = (await self.control.ListGames(control_pb2.ListGamesRequest(), metadata=self.md)).games
            running = False
            for g in games:
                if g.game_id not in want:
                    continue
                if g.status == game_pb2.GAME_STATUS_RUNNING:
                    running = True
                bots = {s.seat for s in g.seats if s.bot_name == self.o.name}
                if not self.o.keep_going and any(f.kind == game_pb2.FAULT_KIND_TIMEOUT and f.seat in bots for f in g.faults):
                    self.fatal = self.fatal or "timeout"
                    stop.set()
            if not running:
                return
            if self.exited():   # the referee forfeits the lost connection's games: keep polling until they end
                self.fatal = self.fatal or "crash"
            await asyncio.sleep(0.05)

    def snapshot_protocol(self) -> None:
        """Answers to requests that were not open (the referee counts them per connection)."""
        try:
            for c in self.srv.referee.conns.get(self.o.name, []):
                self.protocol_counts[c.id] = max(self.protocol_counts[c.id], int(getattr(c, "unknown", 0)))
        except Exception:  # noqa: BLE001 - best effort: these counters are not part of the control API
            pass

    async def run_wave(self, checks: list[Check]) -> None:
        stop = asyncio.Event()
        await asyncio.gather(*(self.run_check_games(c, stop) for c in checks))
        if self._lost_connection(checks):
            # The referee saw the stream drop; give a crashing bot a moment to be reaped so
            # the verdict says "crash" (with its exit code) rather than "connection lost".
            await self._reap(1.0)
        self.exited()
        self.snapshot_protocol()
        for c in checks:
            self.judge(c)

    async def _reap(self, timeout: float) -> None:
        if self.proc is not None and self.proc.returncode is None:
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                pass

    @staticmethod
    def _lost_connection(checks: list[Check]) -> bool:
        from pepper_proto.v1 import game_pb2

        return any(f.kind == game_pb2.FAULT_KIND_DISCONNECT
                   for c in checks for p in c.played if p.result is not None for f in p.result.faults)

    def judge(self, c: Check) -> None:
        from pepper_proto.v1 import game_pb2

        if c.status == "fail":
            return
        worst: list[tuple[int, str]] = []
        for p in c.played:
            r, gid = p.result, p.spec.game_id
            bots = set(p.spec.bot_seats)
            faults = [f for f in r.faults if f.seat in bots]
            for f in faults:
                where = f"game {gid} seat {f.seat}, deal {f.deal}"
                detail = f.detail if len(f.detail) <= 160 else f.detail[:157] + "..."
                if f.kind == game_pb2.FAULT_KIND_DISCONNECT:
                    worst.append((0, self.crash_reason() if self.exit_code is not None else f"connection lost: {where}: {detail}"))
                elif f.kind == game_pb2.FAULT_KIND_TIMEOUT:
                    worst.append((1, f"timeout: {where}: {detail}"))
                elif f.kind == game_pb2.FAULT_KIND_ILLEGAL:
                    worst.append((2, f"illegal action: {where}: {detail}"))
                else:
                    worst.append((3, f"protocol error: malformed answer: {where}: {detail}"))
            if p.status == "running":
                worst.append((1 if self.fatal == "timeout" else 4,
                              f"timeout: game {gid} did not finish" + (" (the bot stopped answering)" if self.fatal == "timeout" else "")))
            elif not faults and p.status != p.spec.expect:
                worst.append((4, f"error: game {gid} ended {p.status} ({r.reason})"))
            if p.replay_error:
                worst.append((4, f"error: {p.replay_error}"))
            for s in r.seats:
                if s.seat in bots:
                    self.decisions += s.decisions
            for st in _bot_steps(p):
                self.coverage[st[2]] += 1
        if not worst and c.played and c.verify is not None and not any(p.status == "running" for p in c.played):
            try:
                problems, notes = c.verify(c.played)
            except Exception as e:  # noqa: BLE001 - a verifier bug must not hide the other checks
                problems, notes = [f"the checker could not verify its games: {e!r}"], []
            c.notes.extend(notes)
            worst += [(5, f"error: {x}") for x in problems]
        if worst:
            worst.sort(key=lambda w: w[0])
            c.status = "fail"
            c.reason = worst[0][1] + (f" (and {len(worst) - 1} more)" if len(worst) > 1 else "")
            if worst[0][0] == 0 and self.exit_code is not None:
                self.fatal = self.fatal or "crash"
            return
        n_games = len(c.played)
        decisions = sum(s.decisions for p in c.played for s in p.result.seats if s.seat in p.spec.bot_seats)
        c.status = "pass"
        c.reason = f"{n_games} games, {decisions} decisions"

    async def check_protocol(self) -> Check:
        c = Check("protocol: answers name open requests", [], wave=3,
                  what="no answers to request ids that were never sent, already answered, or of another game")
        unknown = sum(self.protocol_counts.values())
        if unknown:
            c.status, c.reason = "fail", f"protocol error: {unknown} answers named requests that were not open on the connection"
        else:
            c.status, c.reason = "pass", f"{self.decisions} answers, all to open requests"
        return c

    async def check_shutdown(self) -> Check:
        c = Check("shutdown", [], wave=3, what="the bot exits when sent SIGTERM")
        if self.exited():
            c.status, c.reason = "fail", self.crash_reason() + " before the end of the checks"
            return c
        t0 = time.monotonic()
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
            c.status, c.reason = "pass", f"exited {time.monotonic() - t0:.1f} s after SIGTERM (code {self.proc.returncode})"
        except TimeoutError:
            c.status, c.reason = "fail", "the bot was still running 10 s after SIGTERM"
        return c

    async def check_policy(self) -> Check:
        """After the shutdown (the SDK logs its summary on exit): did the SDK fall back for the bot's policy?"""
        c = Check("policy: decide() chose every answer", [], wave=3,
                  what="decide() never raised or answered a non-legal action (which the SDK replaces by the first "
                       "legal action and logs as [policy error N, fallbacks F])")
        await self._drain_tee()
        try:
            lines = self.bot_log.read_text(errors="replace").splitlines()
        except OSError as e:
            c.status, c.reason = "fail", f"error: cannot read the bot's output {self.bot_log}: {e}"
            return c
        pe = PolicyErrors.scan(lines)
        self.policy_examples = pe.examples
        why = []
        if pe.fallbacks:
            why.append(f"decide() failed {pe.fallbacks} times (raised or returned a non-legal action; "
                       f"the SDK played the first legal action instead)")
        if pe.hook_errors:
            why.append(f"on_game_start/on_event/on_game_end raised {pe.hook_errors} times (the SDK logged and ignored it)")
        if why:
            c.status, c.reason = "fail", "policy error: " + "; ".join(why) + f": see {self.bot_log}"
        else:
            c.status, c.reason = "pass", "no policy errors in the bot's output"
        return c

    # -- output -----------------------------------------------------------------
    def show(self, c: Check) -> None:
        self.say(f"{c.status.upper():4}  {c.name:<40} {c.reason}")
        if c.status == "fail" and c.what:
            self.say(f"      {'':<40} (checks: {c.what})")
        if self.o.verbose:
            for n in c.notes:
                self.say(f"      {'':<40} - {n}")

    def tail(self, n: int = 15) -> list[str]:
        try:
            lines = self.bot_log.read_text(errors="replace").splitlines()
        except OSError:
            return []
        return lines[-n:]

    # -- main -------------------------------------------------------------------
    async def main(self) -> int:
        ref_log = logging.getLogger("referee")
        saved = (ref_log.level, ref_log.propagate, list(ref_log.handlers))
        handler = _ListHandler(self.log_records)
        ref_log.handlers, ref_log.propagate = [handler], False
        ref_log.setLevel(logging.WARNING)
        try:
            return await self._main()
        finally:
            ref_log.setLevel(saved[0])
            ref_log.propagate, ref_log.handlers = saved[1], saved[2]

    async def _main(self) -> int:
        o = self.o
        import grpc

        await self.start_referee()
        try:
            try:
                self.bot_token = await self.register(o.name)
            except grpc.aio.AioRpcError as e:
                self.say(f"error: cannot register the bot as {o.name!r}: {e.details()}")
                return 2
            house_token = await self.register(HOUSE_NAME)
            self.house = HouseBot(self.address, house_token)
            await self.house.start()
            self.say(f"pepper bot check: {shlex.join(self.command)}")
            self.say(f"private referee on {self.address}; the bot is {o.name!r} "
                     f"(deadline {o.deadline_ms} ms, time bank {o.time_bank_ms} ms, a seat forfeits on its fault number {o.max_faults + 1})")
            try:
                await self.launch()
            except OSError as e:
                self.say(f"error: cannot start {shlex.join(self.command)}: {e}{self.launch_hint(e)}")
                return 2
            t0 = time.monotonic()
            done: list[Check] = []
            conn = await self.check_connect()
            self.show(conn)
            done.append(conn)
            self.checks = [c for c in build_checks() if not o.only or any(s.lower() in c.name.lower() for s in o.only)]
            if conn.status != "pass":
                self.fatal = "crash" if self.exited() else "protocol"
            for wave in sorted({c.wave for c in self.checks}):
                batch = [c for c in self.checks if c.wave == wave]
                if self.fatal and not o.keep_going:
                    for c in batch:
                        c.status, c.reason = "skip", f"not run after the earlier {self.fatal}"
                else:
                    await self.run_wave(batch)
                for c in batch:
                    self.show(c)
                done += batch
            for fn in (self.check_protocol, self.check_shutdown, self.check_policy):
                c = await fn()
                if fn != self.check_shutdown and conn.status != "pass":
                    c.status, c.reason = "skip", "the bot never connected"
                self.show(c)
                done.append(c)
            elapsed = time.monotonic() - t0
            failed = [c for c in done if c.status == "fail"]
            skipped = [c for c in done if c.status == "skip"]
            cov = ", ".join(f"{k} {v}" for k, v in sorted(self.coverage.items()))
            self.say()
            if cov:
                self.say(f"the bot answered {self.decisions} decisions (by kind, fallbacks included: {cov})")
            if self.house.error or any("internal error" in r for r in self.log_records):
                self.say("warning: the checker's referee reported problems: " + "; ".join(self.log_records[:3] + [self.house.error or ""]))
            self.say(f"{len(done)} checks: {len(done) - len(failed) - len(skipped)} passed, {len(failed)} failed"
                     + (f", {len(skipped)} skipped" if skipped else "") + f" in {elapsed:.1f} s")
            if failed:
                self.say(f"the bot's output: {self.bot_log}")
                tail = self.tail()
                first = [ln for ln in self.policy_examples if ln not in tail]
                if first:
                    self.say("its first policy errors:")
                    for line in first:
                        self.say(f"  | {line if len(line) <= 300 else line[:297] + '...'}")
                    self.say("the end of its output:")
                for line in tail:
                    self.say(f"  | {line}")
            self.write_report(done, elapsed)
            self.passed = not failed
            return 1 if failed else 0
        finally:
            await self.cleanup()

    def write_report(self, done: list[Check], elapsed: float) -> None:
        if not self.o.report:
            return
        data = {
            "command": self.command, "passed": not any(c.status == "fail" for c in done), "seconds": round(elapsed, 2),
            "bot_log": str(self.bot_log), "decisions": self.decisions, "coverage": dict(self.coverage),
            "checks": [{"name": c.name, "status": c.status, "reason": c.reason, "what": c.what, "notes": c.notes,
                        "games": [p.spec.game_id for p in c.played], "seconds": round(c.seconds, 2)} for c in done],
        }
        Path(self.o.report).write_text(json.dumps(data, indent=2))

    async def cleanup(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    await asyncio.wait_for(self.proc.wait(), 5)
                    break
                except TimeoutError:
                    continue
        if hasattr(self, "house"):
            await self.house.close()
        if hasattr(self, "channel"):
            await self.channel.close()
        if hasattr(self, "srv"):
            await self.srv.shutdown(drain_s=0, grace_s=0.5)
        if self.tee is not None:
            self.tee.cancel()
        if hasattr(self, "logf"):
            self.logf.close()
        if getattr(self, "passed", False):   # keep the bot's log only when something failed
            shutil.rmtree(self.tmp, ignore_errors=True)


class _ListHandler(logging.Handler):
    def __init__(self, sink: list):
        super().__init__(logging.WARNING)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record.getMessage())


def run_check(command: list[str], opts: CheckOptions | None = None) -> int:
    """Run the conformance checks against ``command``. Returns the exit code (0 pass, 1 fail, 2 usage)."""
    opts = opts or CheckOptions()
    if len(command) == 1 and " " in command[0].strip():
        command = shlex.split(command[0])
    command = [expand(a) for a in command]   # {python}: this interpreter, as for `pepper bot register --command`
    if not command:
        print("error: give the bot's command after --, e.g. pepper bot check -- python mybot.py", file=sys.stderr)
        return 2
    try:
        return asyncio.run(Checker(command, opts).main())
    except KeyboardInterrupt:
        return 130
