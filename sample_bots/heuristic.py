"""A rule-of-thumb bot that plays the conventions of the ``iowa`` seed.

- Bids from an estimate of the tricks its hand takes in its best strain, plus
  what partners usually add; bids Pepper only with a near-certain hand.
- ``iowa`` cue bids: in the first two positions a 1 says "I hold an Ace" and a
  2 says "I hold a red and a black Jack"; it reads its partner's cue bids too.
- Pepper exchange: the partner passes its best trump (an Ace with no trump, or
  in no-trump); the bidder gives back its weakest card.
- Under its partner's winning card it plays low in a trump contract and high
  in no-trump; its first slough signals the suit it wants led.
- Cedes when its hand has no card that could take a trick.
"""

from __future__ import annotations

import math

from referee.rules.cards import EFFECTIVE_SUIT, NO_TRUMP, STRENGTH, Card

from .view import Seen, cid, family_of

ACE, KING, JACK = 5, 4, 2


def estimate_tricks(hand: list[int], strain: int, copies: bool = False) -> float:
    """Rough tricks this hand takes by itself with ``strain`` as trump (4: no-trump)."""
    eff, st = EFFECTIVE_SUIT[strain], STRENGTH[strain]
    est = 0.0
    trumps = [c for c in hand if strain != NO_TRUMP and eff[c] == strain]
    for c in trumps:
        est += {7: 1.0, 6: 0.85, 5: 0.7, 4: 0.45}.get(st[c], 0.3)
    if len(trumps) >= 3:
        est += 0.35 * (len(trumps) - 2)
    for c in hand:
        if c in trumps:
            continue
        suit, rank = divmod(c, 6)
        if rank == ACE:
            est += 0.85 if strain == NO_TRUMP else 0.7
        elif rank == KING and any(x == suit * 6 + ACE for x in hand):
            est += 0.45 if strain == NO_TRUMP else 0.3
    return est * (0.85 if copies else 1.0)


def best_strain(hand: list[int], copies: bool = False, options=range(5)) -> tuple[int, float]:
    return max(((s, estimate_tricks(hand, s, copies)) for s in options), key=lambda x: x[1])


def partner_bonus(team_of, seat: int, hand_size: int) -> float:
    """Tricks the rest of ``seat``'s side usually adds to its own estimate when it bids.

    Individual scoring: the widow and a called partner in five-handed, nothing
    in pepper-30 with 2 or 3 players. One partner: about 0.8 of a trick per 6
    cards. Two or three partners: nothing. They share the tricks with as many
    opponents, and any bonus overbid: measured on duplicate deals, dropping it
    gains +2.4 and +3.8 points a deal in bid-euchre/6 and /8 over a bonus that
    grows with the square root of the partners, which itself gained +2.7 and
    +7.2 over a linear one.
    """
    n = len(team_of)
    if len(set(team_of)) == n:
        return 2.0 if n == 5 else 0.0
    mates = sum(1 for x in range(n) if x != seat and team_of[x] == team_of[seat])
    return 0.8 * hand_size / 6 if mates == 1 else 0.0


def five_handed_endgame(mine: int, target: int, numbers: list[int], threat: bool) -> int | None:
    """five-handed: the number to bid because of the score, or None to bid on the cards.

    Only the winning bidder can end the game, by finishing the deal at the
    target or above even with the contract set (a set contract costs the
    number bid). So with points enough to stay at the target when set, bid the
    highest such number: winning the auction wins the game. When the standing
    bidder could go out that way (``threat``), outbid it as cheaply as possible.
    ``numbers``: the number bids open to the seat, ascending.
    """
    if not target:
        return None
    safe = [k for k in numbers if mine - k >= target]
    if safe:
        return safe[-1]
    if threat and numbers:
        return numbers[0]
    return None


def endgame_threat(bids, seat: int, scores, team_of, target: int) -> bool:
    """Whether the standing bid of ``bids`` (``[(seat, "bid 5"), ...]``) lets another seat go out even if set."""
    standing = next(((s, b) for s, b in reversed(bids) if b != "pass"), None)
    if standing is None or standing[0] == seat or not target:
        return False
    name = standing[1].split()[1]
    return name.isdigit() and scores[team_of[standing[0]]] - int(name) >= target


def bid_options(legal: list[str]) -> list[tuple[str, int | None, str]]:
    """The bids among ``legal`` as (level name, strain or None, action text)."""
    out = []
    for a in legal:
        w = a.split()
        if w[0] == "bid":
            strain = "SHDCN".index(w[2][0]) if len(w) == 3 else None
            out.append((w[1], strain, a))
    return out


class HeuristicBot:
    name = "heuristic"

    def decide(self, view: dict) -> str:
        v = Seen.of(view)
        phase = view["phase"]
        handler = getattr(self, "_" + phase.replace("-", "_"), None)
        action = handler(v) if handler else None
        return action if action in v.legal else v.legal[0]

    # -- helpers ------------------------------------------------------------
    @staticmethod
    def _copies(v: Seen) -> bool:
        return len(set(v.hand)) < len(v.hand) or family_of(v.view) in ("bid-euchre", "five-handed")

    # -- decisions ----------------------------------------------------------
    def _bid(self, v: Seen) -> str:
        opts = bid_options(v.legal)
        if not opts:
            return "pass"
        copies = self._copies(v)
        strain, est = best_strain(v.hand, copies)
        hand_size = len(v.hand)
        n, dealer = v.players, v.view["dealer"]
        position = (v.seat - dealer) % n  # 1: first to bid
        iowa = family_of(v.view) == "iowa"
        # Read partner cue bids (iowa convention).
        if iowa:
            for s, b in v.view["bids"]:
                if s != v.seat and v.team_of[s] == v.team_of[v.seat] and (s - dealer) % n in (1, 2):
                    if b == "bid 1":
                        est += 0.7
                    elif b == "bid 2" and strain != NO_TRUMP:
                        est += 0.9
        numbers = [(int(name), st, a) for name, st, a in opts if name.isdigit()]
        specials = [(name, st, a) for name, st, a in opts if not name.isdigit()]
        if family_of(v.view) == "five-handed":
            target, scores = v.view.get("target_score") or 0, v.view["scores"]
            k = five_handed_endgame(scores[v.team_of[v.seat]], target, [k for k, _, _ in numbers],
                                    endgame_threat(v.view["bids"], v.seat, scores, v.team_of, target))
            if k is not None:
                return f"bid {k}"
        if est >= hand_size - 0.35 and specials:
            name, _, _ = specials[0]
            return next(a for nm, st, a in specials if nm == name and st in (None, strain))
        total = est + partner_bonus(v.team_of, v.seat, len(v.hand))
        want = math.floor(total)
        if iowa and position in (1, 2) and not any(b != "pass" for _, b in v.view["bids"]):
            # Cue bids: 1 = "I hold an Ace", 2 = "I hold a red and a black Jack".
            jacks = {c // 6 for c in v.hand if c % 6 == JACK}
            if want < 3:
                if jacks & {0, 3} and jacks & {1, 2} and any(n == 2 for n, _, _ in numbers):
                    return "bid 2"
                if any(c % 6 == ACE for c in v.hand) and any(n == 1 for n, _, _ in numbers):
                    return "bid 1"
                return "pass" if "pass" in v.legal else numbers[0][2]
        fits = [(k, st, a) for k, st, a in numbers if k <= want and st in (None, strain)]
        if fits:
            # Single-circuit auctions: bid what the hand is worth; elimination: the cheapest raise.
            k, _, a = fits[0] if family_of(v.view) == "pepper-30" else fits[-1]
            return a
        if "pass" in v.legal:
            return "pass"
        # The dealer must bid: the cheapest bid in the best strain.
        return next((a for k, st, a in numbers if st in (None, strain)), v.legal[0])

    def _name_trump(self, v: Seen) -> str:
        strain, _ = best_strain(v.hand, self._copies(v))
        return "trump " + ("S", "H", "D", "C", "NT")[strain]

    def _exchange(self, v: Seen) -> str:
        return "exchange yes"

    def _give_card(self, v: Seen) -> str:
        if v.seat == v.bidder:  # bidder gives back its weakest card
            return "give " + str(Card(self._weakest(v, v.hand)))
        best = max(v.hand, key=v.strength)
        if v.trump is not None and v.eff(best) != v.trump and best % 6 != ACE and "give none" in v.legal:
            return "give none"  # bid-euchre: nothing worth passing
        return "give " + str(Card(best))

    def _discard(self, v: Seen) -> str:
        return "discard " + str(Card(self._weakest(v, v.hand)))

    def _weakest(self, v: Seen, cards: list[int]) -> int:
        # Lowest non-trump, preferring short suits (to make voids).
        counts = {}
        for c in cards:
            counts[v.eff(c)] = counts.get(v.eff(c), 0) + 1
        return min(cards, key=lambda c: (v.eff(c) == v.trump, v.strength(c), counts[v.eff(c)]))

    def _cede(self, v: Seen) -> str:
        # Cede only when no card of ours could take a trick.
        strain = v.strain
        st = STRENGTH[strain]
        threats = 0
        for c in v.hand:
            if strain != NO_TRUMP and v.eff(c) == strain and st[c] >= 4:
                threats += 1
            elif c % 6 == ACE and v.eff(c) != strain:
                threats += 1
        trumps = [c for c in v.hand if strain != NO_TRUMP and v.eff(c) == strain]
        if len(trumps) >= 2:
            threats += 1
        return "cede yes" if threats == 0 else "cede no"

    # -- play -----------------------------------------------------------------
    def _play(self, v: Seen) -> str:
        cards = [cid(a.split()[1]) for a in v.legal]
        return "play " + str(Card(self._choose_card(v, cards)))

    def _choose_card(self, v: Seen, cards: list[int]) -> int:
        if len(cards) == 1:
            return cards[0]
        side = v.teammates()
        on_offence = v.bidder in side
        if not v.trick:
            return self._lead(v, cards, side, on_offence)
        wseat, wcard = v.trick_winner()
        led = v.eff(v.trick[0][1])
        following = v.eff(cards[0]) == led and all(v.eff(c) == led for c in cards)
        mate_winning = wseat in side and wseat != v.seat
        if mate_winning:
            if following:
                if v.trump is None and wseat == v.bidder:
                    return max(cards, key=v.strength)  # no-trump: unblock under the bidder
                return min(cards, key=v.strength)
            return self._slough(v, cards)
        winners = [c for c in cards if v.beats(c, wcard)]
        if winners:
            return min(winners, key=v.strength)
        return self._slough(v, cards) if not following else min(cards, key=v.strength)

    def _slough(self, v: Seen, cards: list[int]) -> int:
        # First slough signals: a low card of a suit where we hold the Ace.
        aces = {c // 6 for c in v.hand if c % 6 == ACE and v.eff(c) != v.trump}
        signal = [c for c in cards if c // 6 in aces and c % 6 != ACE and v.eff(c) != v.trump]
        if signal:
            return min(signal, key=v.strength)
        return min(cards, key=lambda c: (v.eff(c) == v.trump, v.strength(c)))

    def _lead(self, v: Seen, cards: list[int], side: set[int], on_offence: bool) -> int:
        trumps = [c for c in cards if v.trump is not None and v.eff(c) == v.trump]
        if on_offence and trumps:
            top = max(trumps, key=v.strength)
            if self._is_master(v, top):
                return top
            if v.seat == v.bidder and len(trumps) >= 2:
                return top
        aces = [c for c in cards if c % 6 == ACE and v.eff(c) != v.trump]
        if aces:
            return aces[0]
        # Partner's first slough asks for that suit.
        mates = side - {v.seat}
        for _, plays, _ in v.tricks:
            led = v.eff(plays[0][1])
            for s, c in plays:
                if s in mates and v.eff(c) != led:
                    want = [x for x in cards if v.eff(x) == v.eff(c)]
                    if want:
                        return min(want, key=v.strength)
                    break
        if trumps and on_offence:
            return min(trumps, key=v.strength)
        return min(cards, key=lambda c: (v.eff(c) == v.trump, v.strength(c)))

    @staticmethod
    def _is_master(v: Seen, card: int) -> bool:
        """No unseen card of the same effective suit outranks it."""
        suit, s = v.eff(card), v.strength(card)
        gone = set(v.played) | set(v.hand)
        for c in range(24):
            if c not in gone and EFFECTIVE_SUIT[v.strain][c] == suit and v.strength(c) > s:
                return False
        return True
