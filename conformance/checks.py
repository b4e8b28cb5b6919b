"""The checks that play games: one function per check, each with the verifier that proves its situation happened.

Edge cases are set up with explicit decks, first dealers and ruleset variants,
and with some seats played by the house (:mod:`conformance.house`), so that
situations the bot would not choose happen anyway. Each verifier reads the
finished games' replayed records (:func:`conformance.verify.replay`) and
returns ``(problems, notes)``.
"""

from __future__ import annotations

import math
import random
from collections import Counter

from referee.rules import GameStatus

from .decks import make_deck
from .house import House
from .model import BOT, Check, GameSpec, Played, variant
from .verify import bot_steps

# Every ruleset and player count the bot must play.
CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8),
           ("pepper-30", 2), ("pepper-30", 3), ("pepper-30", 4), ("five-handed", 5)]

Findings = tuple[list[str], list[str]]


def _house_seat(p: Played) -> int:
    return next(s for s, x in enumerate(p.spec.seats) if x != BOT)


# -- every ruleset and player count, the bot in every seat ------------------------------------
def play(base: str, n: int) -> Check:
    games = [GameSpec(variant(base, "play", deal_cap=3), n, [BOT] * n, seed=1000 + 17 * n + k) for k in range(2)]
    return Check(f"play {base} {n}p", [games], what=f"2 games of {base} with {n} players, 3 deals each, the bot in every seat")


# -- iowa: Pepper with and without the exchange ---------------------------------------------
def _verify_iowa_pepper(played: list[Played]) -> Findings:
    problems, notes = [], []
    for p in played:
        hs = _house_seat(p)
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


def iowa_pepper() -> Check:
    rs = variant("iowa", "pepper")
    g = [GameSpec(rs, 4, [House(bid="pepper", exchange=True), BOT, BOT, BOT], 2001, first_dealer=3),
         GameSpec(rs, 4, [House(bid="pepper", exchange=False, trump="NT"), BOT, BOT, BOT], 2002, first_dealer=3),
         GameSpec(rs, 4, [BOT, BOT, House(bid="pepper", exchange=True, trump="H"), BOT], 2003, first_dealer=1)]
    return Check("iowa: Pepper exchange and sit-out", [g], _verify_iowa_pepper,
                 what="the house bids Pepper: the bot as partner passes a card and sits out, as defender decides to cede")


# -- iowa: ceding -------------------------------------------------------------------------------
def _verify_cede(played: list[Played]) -> Findings:
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


def iowa_ceding() -> Check:
    strong = ["JS", "JC", "AS", "KS", "QS", "10S"]
    g = [GameSpec(variant("iowa", "cede", pass_out="dealer-must-bid"), 4, [BOT, House(), BOT, House()], seed,
                  decks=[make_deck("iowa", 4, 2, {0: strong}, seed=seed)], first_dealer=2) for seed in (2101, 2102)]
    return Check("iowa: ceding", [g], _verify_cede,
                 what="the bot must bid (the dealer must bid) holding six top trumps; both defenders cede")


# -- bid-euchre Pepper and Double Pepper ------------------------------------------------------
def _verify_bid_euchre_pepper(played: list[Played]) -> Findings:
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


def bid_euchre_pepper() -> Check:
    rs = variant("bid-euchre", "pepper", specials=["pepper"])
    g = [GameSpec(rs, 4, [House(bid="pepper")] + [BOT] * 3, 2201, first_dealer=3),
         GameSpec(rs, 6, [House(bid="pepper", trump="NT")] + [BOT] * 5, 2202, first_dealer=5),
         GameSpec(rs, 8, [House(bid="pepper", trump="D")] + [BOT] * 7, 2203, first_dealer=7),
         GameSpec(variant("bid-euchre", "double"), 8, [House(bid="double-pepper")] + [BOT] * 7, 2204, first_dealer=7)]
    return Check("bid-euchre: Pepper and Double Pepper", [g], _verify_bid_euchre_pepper,
                 what="the house bids Pepper: the bot's teammates pass a card or decline, then sit out")


# -- pepper-30 auctions and the dead hand ---------------------------------------------------
def _verify_auction(played: list[Played]) -> Findings:
    problems, notes = [], []
    for p in played:
        bids = p.deals[0]["bids"]
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


def pepper30_auctions() -> Check:
    rs = variant("pepper-30", "auction", deal_cap=2)
    g = [GameSpec(rs, 3, [BOT, House(bid="min:7"), BOT], 2301, first_dealer=0),
         GameSpec(rs, 3, [BOT, House(), House()], 2302, first_dealer=0, game_id="last"),
         GameSpec(rs, 4, [House(bid="min:1"), BOT, BOT, BOT], 2303, first_dealer=3),
         GameSpec(rs, 2, [House(bid="min:7"), BOT], 2304, first_dealer=1)]
    return Check("pepper-30: auctions", [g], _verify_auction,
                 what="the house keeps raising; the bot answers standing bids, and bids or passes as the last one left")


def _verify_dead_hand(played: list[Played]) -> Findings:
    problems = [f"game {p.spec.game_id}: no dead hand ({dead})"
                for p in played if len(dead := p.full_state.get("dead_hand", [])) != 8]
    return problems, [f"the dead hand held {' '.join(played[0].full_state.get('dead_hand', []))}"] if played else []


def pepper30_dead_hand() -> Check:
    top = ["JS", "JC", "JH", "JD", "AS", "AH", "AD", "AC"]
    rs = variant("pepper-30", "dead")
    g = [GameSpec(rs, 2, [BOT, BOT], s, decks=[make_deck("pepper-30", 2, 0, {}, dead=top, seed=s)], first_dealer=0)
         for s in (2401, 2402)]
    g.append(GameSpec(rs, 2, [House(bid="min:3"), BOT], 2403, first_dealer=1))
    return Check("pepper-30: the dead hand", [g], _verify_dead_hand,
                 what="2 players: a third hand nobody sees (here every Jack and Ace)")


# -- five-handed: the widow and the called partner ------------------------------------------
def _verify_widow(played: list[Played]) -> Findings:
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


def five_handed_widow() -> Check:
    must_bid = variant("five-handed", "widow", pass_out="dealer-must-bid", specials=[])
    top = variant("five-handed", "top", specials=[])
    g = [GameSpec(must_bid, 5, [House(), House(), House(), House(), BOT], s, first_dealer=4, game_id="widow") for s in (2501, 2502)]
    house_hand = ["AS", "AS", "KS", "KS", "QS", "QS", "AH", "AD", "AC"]
    g.append(GameSpec(top, 5, [House(bid="top", trump="S"), BOT, BOT, BOT, BOT], 2503, first_dealer=4, game_id="partner",
                      decks=[make_deck("five-handed", 5, 4, {0: house_hand, 1: ["JS"], 2: ["JS"], 3: ["JS"]},
                                       widow=["KH", "KD", "KC"], seed=2503)]))
    g.append(GameSpec(top, 5, [House(bid="top", trump="NT"), BOT, BOT, BOT, BOT], 2504, first_dealer=4, game_id="nopartner",
                      decks=[make_deck("five-handed", 5, 4, {0: ["JS"] * 3 + ["QS"] * 3 + ["KS"] * 3},
                                       widow=["AS"] * 3, seed=2504)]))
    return Check("five-handed: widow and called partner", [g], _verify_widow,
                 what="the bot must bid: it takes the widow, discards 3 and calls a partner; as defender it holds "
                      "the called card; a deal with no partner")


def _verify_alone(played: list[Played]) -> Findings:
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


def five_handed_alone() -> Check:
    g = [GameSpec(variant("five-handed", "moon"), 5, [House(bid="moon-shot", trump="H")] + [BOT] * 4, 2601, first_dealer=4),
         GameSpec(variant("five-handed", "pep", specials=["pepper"]), 5, [House(bid="pepper", trump="NT")] + [BOT] * 4, 2602,
                  first_dealer=4)]
    return Check("five-handed: Pepper and Moon Shot", [g], _verify_alone, what="the house plays alone against four bot seats")


# -- duplicate cards ----------------------------------------------------------------------------
def _verify_duplicates(played: list[Played]) -> Findings:
    notes = [f"{p.spec.game_id}: {sum(1 for d in p.deals for t in d['tricks'] if len(set(t)) < len(t))} tricks held identical cards"
             for p in played]
    return [], notes


def duplicate_cards() -> Check:
    g = [GameSpec(variant("bid-euchre", "dup"), 4, [BOT] * 4, 2701, first_dealer=0,
                  decks=[make_deck("bid-euchre", 4, 0, {1: ["AS", "AS", "KS", "KS", "QH", "QH", "JD", "JD"]}, seed=2701)]),
         GameSpec(variant("bid-euchre", "dup"), 8, [BOT] * 8, 2702, first_dealer=0,
                  decks=[make_deck("bid-euchre", 8, 0, {3: ["AS"] * 4 + ["KS"] * 4}, seed=2702)]),
         GameSpec(variant("five-handed", "dup"), 5, [BOT] * 5, 2703, first_dealer=0,
                  decks=[make_deck("five-handed", 5, 0, {2: ["AS"] * 3 + ["KH"] * 3 + ["QD"] * 3}, seed=2703)])]
    return Check("duplicate cards", [g], _verify_duplicates,
                 what="hands holding two, three or four copies of a card (bid-euchre 4p and 8p, five-handed)")


# -- games that end early -----------------------------------------------------------------------
def _verify_early_end(played: list[Played]) -> Findings:
    problems = [f"game {p.spec.game_id}: ended {p.status} for another reason: {p.result.reason}"
                for p in played if p.status == p.spec.expect and f"seat {_house_seat(p)}" not in p.result.reason]
    return problems, [f"{p.spec.game_id}: {p.status} ({p.result.reason})" for p in played]


def early_end() -> Check:
    # The house answers nonsense at its third decision (mid-deal: the bots have answered before it).
    # The deal cap leaves room for that decision to come: the house is not asked for publicly forced
    # actions, and a Pepper bid can end the auction before the dealer bids (with a cap of 3, about 1%
    # of iowa games completed first; tests/conformance/test_early_end_reach.py).
    g = [GameSpec(variant("iowa", "end", deal_cap=10), 4, [House(misbehave_at=3), BOT, BOT, BOT], 2801, first_dealer=0,
                  policy={"on_malformed": "forfeit"}, expect=GameStatus.FORFEITED),
         GameSpec(variant("five-handed", "end", deal_cap=10), 5, [BOT, BOT, House(misbehave_at=3), BOT, BOT], 2802,
                  first_dealer=2, policy={"on_malformed": "abort"}, expect=GameStatus.ABORTED),
         GameSpec(variant("pepper-30", "end", deal_cap=10), 2, [BOT, House(misbehave_at=3)], 2803, first_dealer=1,
                  policy={"on_malformed": "forfeit"}, expect=GameStatus.FORFEITED)]
    return Check("game end: forfeit and abort", [g], _verify_early_end,
                 what="another seat forfeits or aborts the game mid-deal; the bot must carry on with its other games")


# -- silent fallbacks: the first legal action where no strategy would choose it -----------------------------
# A bot that does not mark its fallbacks (protocol 1.1, or a strategy that catches its own errors) plays the
# first legal action unseen. The probe makes the bot the iowa dealer who must bid, holding only hearts and
# diamonds, then asks it to name trump: the first legal action, "trump S", and "trump C" are alike for it (no
# card of either suit, nor either black Jack), so whatever its strategy, it names one as often as the other;
# a strategy that falls back on 30% of its decisions names spades on about 30% of them. A sign test between
# the two counts fails the check below P_SILENT (uniform random play fails once in 1/P_SILENT runs). A bot that
# names spades every time passes: always answering the first legal action is a strategy (README's first bot),
# and nothing tells it from one that always fails; a silent fallback is a mixture, spades among other suits.
PROBES = 200
P_SILENT = 1e-4


def _probe_deck(seed: int) -> list[str]:
    red = [r + s for s in "HD" for r in ("9", "10", "J", "Q", "K", "A")]
    return make_deck("iowa", 4, 3, {3: random.Random(seed).sample(red, 6)}, seed=seed)


def sign_test(more: int, fewer: int) -> float:
    """P(at least ``more`` of ``more + fewer`` fair coin flips come up the same side): the one-sided sign test."""
    n = more + fewer
    return sum(math.comb(n, k) for k in range(more, n + 1)) / 2 ** n


def _verify_silent(played: list[Played]) -> Findings:
    named = Counter(st[3] for p in played for st in bot_steps(p, "name-trump"))
    asked = sum(named.values())
    spades, clubs = named["trump S"], named["trump C"]
    note = (f"named trump {asked} times holding no black card: " + ", ".join(f"{a.split()[1]} {k}" for a, k in
                                                                          sorted(named.items())))
    if asked < len(played):
        return [f"the bot named trump in {asked} of {len(played)} games, where it had to bid"], [note]
    if spades == asked:   # always the first legal action: a (poor) strategy, or one that always fails; no telling
        return [], [note + ": always the first legal action, which a strategy may choose; a silent fallback shows "
                           "as spades now and then among other suits"]
    p = sign_test(spades, clubs)
    if p < P_SILENT:
        return [f"policy error: the bot named spades, the first legal action, {spades} times and clubs {clubs} "
                f"times holding neither (P = {p:.1g} for a strategy that does not favour the first legal action): "
                f"it plays the first legal action where no strategy would, as a client does for a strategy that "
                f"failed; fix the strategy, and mark such answers as fallbacks (Answer.fallback, protocol 1.2) so "
                f"that the referee counts them"], [note]
    return [], [note]


def silent_fallbacks() -> Check:
    rs = variant("iowa", "probe", pass_out="dealer-must-bid")
    g = [GameSpec(rs, 4, [House(), House(), House(), BOT], 3300 + k, decks=[_probe_deck(3300 + k)], first_dealer=3)
         for k in range(PROBES)]
    return Check("policy: no silent fallbacks", [g], _verify_silent, wave=2,
                 what=f"{PROBES} times the iowa dealer who must bid, holding only hearts and diamonds, names trump: "
                      f"spades (the first legal action) no more often than clubs")


# -- wave 2: load and sequencing ----------------------------------------------------------------
def large_batches() -> Check:
    g = [GameSpec(variant("iowa", "load"), 4, [BOT] * 4, 3000 + k) for k in range(64)]
    return Check("large batches", [g], wave=2, what="64 games at once: requests arrive in large batches")


def start_and_end() -> Check:
    rounds = [[GameSpec(variant("iowa", "seq"), 4, [BOT] * 4, 3100 + r), GameSpec(variant("pepper-30", "seq"), 2, [BOT] * 2, 3150 + r),
               GameSpec(variant("five-handed", "seq"), 5, [BOT] * 5, 3200 + r)] for r in range(4)]
    return Check("game start and end", rounds, wave=2, what="4 rounds of games back to back")


def build_checks() -> list[Check]:
    """Every game-playing check, in the order they are shown, each game with an id unique to the run."""
    checks = [play(base, n) for base, n in CONFIGS]
    checks += [iowa_pepper(), iowa_ceding(), bid_euchre_pepper(), pepper30_auctions(), pepper30_dead_hand(),
               five_handed_widow(), five_handed_alone(), duplicate_cards(), early_end(), silent_fallbacks(),
               large_batches(), start_and_end()]
    for c in checks:
        slug = "-".join("".join(ch if ch.isalnum() else " " for ch in c.name.lower()).split())
        for k, gs in enumerate(c.games, 1):
            gs.game_id = f"{slug[:40]}-{k}" + (f"-{gs.game_id}" if gs.game_id else "")
    return checks
