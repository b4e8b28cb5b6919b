"""A fast, rules-exact play-out simulator for determinized search.

:class:`PlayOut` plays the rest of a deal's card play, from a position taken
from a seat's view and a guess of the hidden hands, and scores it. It plays on
plain lists of card ints (no events, no history, no :class:`~referee.rules.Game`
objects) with the engine's rules: :func:`~referee.rules.legal_plays` (a hand
kept by :func:`~referee.rules.effective_suit` holds its legal follows in one
list), :func:`~referee.rules.trick_winner_index` for the trick in progress and,
card by card after it, its table (``TRICK_RANK``: the bowers, and "of identical
cards the first played ranks higher"; the policy needs the winner so far at
every decision, and one comparison a card keeps it), the five-handed
:func:`~referee.rules.families.five_handed.partner_call_order` and
:func:`~referee.rules.scoring.deal_points`. The five-handed duties of the
called partnership (the bidder's trump lead to the first trick, the holder of
the called card playing it when following its suit) are those of
``FiveHandedRules.legal_play``; tests/sample_bots/test_mc_simulators.py checks
both against the engine on random positions of every ruleset.

Every seat plays the policy of :class:`~sample_bots.heuristic.HeuristicBot`
(re-implemented here, decision for decision, on ints): leads draw trump with a
master (or with two trumps as the bidder), then Aces, then the suit a
partner signalled, then a low trump on offence, else the weakest card; under a
partner's winner play low or slough (preferring a low card of a suit where it
holds the Ace, its signal); otherwise win as cheaply as possible, else play
low. Rolling out with the very policy of the opponents makes the search a
one-step policy improvement over that policy.

A play-out from the middle of a deal costs some tens of microseconds (one
per remaining card), against about 2 ms for building, copying and playing a
:class:`~referee.rules.Game`, so a 1–3 ms decision can afford dozens of
sampled deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from referee.rules import legal_plays, trick_winner_index
from referee.rules.cards import EFFECTIVE_SUIT, NO_TRUMP, STRENGTH, TRICK_RANK
from referee.rules.families.five_handed import partner_call_order
from referee.rules.scoring import deal_points

__all__ = ["PlayOut", "PlayedOut", "POWER"]

ACE = 5   # a card's rank is card % 6: the Ace is the highest plain rank

# POWER[trump][card]: overall strength, trumps above everything (the heuristic's Seen.strength).
POWER = [[(16 if EFFECTIVE_SUIT[t][c] == t else 0) + STRENGTH[t][c] for c in range(24)] for t in range(5)]

_HIGHER: dict = {}   # (trump, cards in the deck) -> per card, the cards of its effective suit that outrank it


class PlayedOut(NamedTuple):
    """How a play-out ended."""

    tricks_won: list[int]   # per seat
    partner: int | None     # the five-handed called partner, once the called card showed
    mismatches: int = 0     # scripted cards the policy would not have played (PlayOut.mismatches)


class PlayOut:
    """One play-phase position with its hidden hands left open.

    Built once per decision from public facts (the contract, the tricks so far
    and the trick in progress); :meth:`value` then plays a candidate card and
    the rest of the deal for one guess of every seat's hand and returns
    ``seat``'s result: its side's deal points minus the average of the
    others'.

    Hands are given as :meth:`split` returns them: per seat, per effective suit, weakest first.
    """

    def __init__(self, *, family: str, players: int, team_of, hand_size: int, deck_cards, bidder: int, trump: int,
                 tricks_needed: int, points: int | None, alone: bool, sitting_out=(),
                 tricks=(), trick=(), tricks_won=None, partner_card: int | None = None, partner: int | None = None,
                 seat: int = 0):
        self.family, self.players, self.team_of, self.hand_size = family, players, tuple(team_of), hand_size
        self.teams = max(team_of) + 1
        self.individual = self.teams == players
        self.bidder, self.trump, self.alone = bidder, trump, alone
        self.tricks_needed, self.points = tricks_needed, points
        self.seat = seat
        active = [s for s in range(players) if s not in set(sitting_out)]
        self.active_players = len(active)
        self.next_seat = [0] * players
        for i, s in enumerate(active):
            self.next_seat[s] = active[(i + 1) % len(active)]
        self.suit_of = suit_of = EFFECTIVE_SUIT[trump]
        self.power = power = POWER[trump]
        self.plain_suits = tuple(suit for suit in range(4) if suit != trump)   # in suit order: the ties' tie-break
        in_deck = set(deck_cards)
        self.copies = len(in_deck) < len(deck_cards)   # several copies of a card: the heuristic counts distinct cards
        key = (trump, frozenset(in_deck))
        higher = _HIGHER.get(key)
        if higher is None:
            higher = _HIGHER[key] = [[h for h in in_deck if suit_of[h] == suit_of[c] and power[h] > power[c]]
                                     for c in range(24)]
        self.higher = higher
        self.five = family == "five-handed" and not alone   # a called partner
        # The position: cards seen, and every slough (trick index, seat, suit) so far, the partner's signals.
        self.tricks_done = len(tricks)
        seen = bytearray(24)
        sloughs = []
        for trick_index, plays in [(i, plays) for i, (_, plays, _) in enumerate(tricks)] + [(len(tricks), trick)]:
            if plays:
                led = suit_of[plays[0][1]]
                for s, card in plays:
                    seen[card] = 1
                    if suit_of[card] != led:
                        sloughs.append((trick_index, s, suit_of[card]))
        self.seen, self.sloughs = seen, sloughs
        self.trick = [tuple(play) for play in trick]
        self.tricks_won = list(tricks_won) if tricks_won is not None else [0] * players
        if tricks_won is None:
            for _, _, winner in tricks:
                self.tricks_won[winner] += 1
        self.partner_card, self.partner = partner_card, partner
        # The partner is open (called, not yet shown) when a card is called and nobody has played it;
        # before the first lead the call is still to come.
        self.call_pending = self.five and not tricks and not trick
        self.partner_open = self.five and partner is None and (partner_card is not None or self.call_pending)
        if trick:
            self.to_play = self.next_seat[trick[-1][0]]
        elif tricks:
            self.to_play = tricks[-1][2]
        else:
            self.to_play = bidder
        # Fixed partnerships: per seat, (its team-mates, whether it is on offence); None where the call makes the
        # sides (see _five_handed_sides).
        self.sides_fixed = None
        if not self.individual:
            self.sides_fixed = []
            for s in range(players):
                mates = frozenset(x for x in range(players) if x != s and team_of[x] == team_of[s])
                self.sides_fixed.append((mates, s == bidder or bidder in mates))

    # ------------------------------------------------------------------ rules
    def legal(self, hand: list[int]) -> list[int]:
        """The seat to play's legal cards in the root position (``hand``: its cards)."""
        led_card = self.trick[0][1] if self.trick else None
        legal = legal_plays(hand, led_card, self.trump)
        if not self.partner_open:
            return legal
        # Five-handed, as FiveHandedRules.legal_play: the bidder leads a trump to the first trick when holding
        # one; a holder of the called card who follows its suit must play it.
        if led_card is None:
            if self.call_pending and self.trump != NO_TRUMP:
                return [card for card in legal if self.suit_of[card] == self.trump] or legal
            return legal
        called = self.partner_card
        if (called is not None and called in legal and self.suit_of[called] == self.suit_of[led_card]
                and self.to_play != self.bidder):
            return [called]
        return legal

    def score(self, tricks_won, partner) -> float:
        """``seat``'s deal points minus the average of the other teams' (or players')."""
        pts = deal_points(self.family, self.team_of, self.teams, self.hand_size, self.bidder, partner,
                          self.tricks_needed, self.points, self.alone, tricks_won)
        mine = pts[self.seat] if self.individual else pts[self.team_of[self.seat]]
        return mine - (sum(pts) - mine) / (len(pts) - 1)

    # --------------------------------------------------------------- play-out
    def split(self, hands: list[list[int]]) -> list[list[list[int]]]:
        """Hands as the play-out wants them: per seat, per effective suit, weakest first."""
        suit_of, key = self.suit_of, self.power.__getitem__
        out = []
        for hand in hands:
            suits: list[list[int]] = [[], [], [], []]
            for card in sorted(hand, key=key):
                suits[suit_of[card]].append(card)
            out.append(suits)
        return out

    def value(self, split_hands: list[list[list[int]]], card: int) -> float:
        """Play ``card`` for the seat to play, then everybody plays the heuristic to the end; score it.

        ``split_hands`` are every seat's current cards as :meth:`split` returns them (not modified).
        """
        out = self._play(split_hands, (card,), None)
        return self.score(out.tricks_won, out.partner)

    def run(self, split_hands: list[list[list[int]]], first: Sequence[int] = ()) -> PlayedOut:
        """Play the deal out: the cards ``first`` (in playing order: a candidate card, or a line of play), then
        the heuristic's policy, move for move, ties between equally strong cards of different suits broken
        towards the lower suit (S, H, D, C)."""
        return self._play(split_hands, first, None)

    def mismatches(self, split_hands: list[list[list[int]]], script, check) -> int:
        """Replay ``script`` (cards played in order) from this position and count how many of them,
        by seats with ``check[seat]``, differ from what the heuristic policy would have played with
        these hands: a measure of how unlikely the hands are, if the players play like the heuristic."""
        return self._play(split_hands, script, check, stop_after_script=True).mismatches

    def _play(self, split_hands, script, check, stop_after_script: bool = False) -> PlayedOut:
        """Play ``script``'s cards, then the policy's, to the end of the deal (or, ``stop_after_script``, to the
        end of the script). A seat with ``check[seat]`` decides by the policy even where the script has its card,
        and the script's card is played: each difference is a mismatch."""
        trump, bidder, suit_of = self.trump, self.bidder, self.suit_of
        next_seat, higher, hand_size, active_players = self.next_seat, self.higher, self.hand_size, self.active_players
        script_len = len(script)
        hands = [[suit[:] for suit in hand] for hand in split_hands]
        seen = bytearray(self.seen)
        sloughs = list(self.sloughs)
        tricks_won = list(self.tricks_won)
        tricks_done = self.tricks_done
        trick_seats = [s for s, _ in self.trick]
        trick_cards = [c for _, c in self.trick]
        led = suit_of[trick_cards[0]] if trick_cards else -1
        rank = TRICK_RANK[trump][led] if trick_cards else None   # the trick's order of the cards
        winner = trick_winner_index(trick_cards, trump) if trick_cards else 0   # the trick's winning card so far
        partner, called = self.partner, self.partner_card
        partner_open, call_pending = self.partner_open, self.call_pending
        sides = self.sides_fixed or self._five_handed_sides(hands, partner, called)
        seat = self.to_play
        scripted, mismatches = 0, 0
        while tricks_done < hand_size:
            hand = hands[seat]
            if scripted < script_len and (check is None or not check[seat]):
                card = script[scripted]
                scripted += 1
            else:
                if (trick_cards and partner_open and seat != bidder and called is not None and suit_of[called] == led
                        and called in hand[led]):
                    card = called   # it must play the called card (see legal): the policy has no choice
                else:
                    mates, offence = sides[seat]
                    if trick_cards:
                        card = self._follow(hand, led, rank, rank[trick_cards[winner]], trick_seats[winner] in mates)
                    else:
                        card = self._lead(hand, seat, mates, offence, call_pending, seen, sloughs, higher)
                if scripted < script_len:
                    if card != script[scripted]:
                        mismatches += 1
                        card = script[scripted]
                    scripted += 1
            # Play it.
            suit = suit_of[card]
            hand[suit].remove(card)
            seen[card] = 1
            if not trick_cards:
                led = suit
                rank = TRICK_RANK[trump][led]
                winner = 0
                if call_pending:   # five-handed: the bidder's first lead calls the partner
                    call_pending = False
                    called = next((c for c in partner_call_order(trump, card)
                                   if any(c in hands[s][suit_of[c]] for s in range(len(hands)) if s != bidder)), None)
                    partner_open = called is not None
                    sides = self._five_handed_sides(hands, partner, called)
            else:
                if rank[card] > rank[trick_cards[winner]]:   # strictly: of identical cards the first played wins
                    winner = len(trick_cards)
                if suit != led:
                    sloughs.append((tricks_done, seat, suit))
            if partner_open and card == called and seat != bidder:
                partner, partner_open = seat, False
                sides = self._five_handed_sides(hands, partner, called)
            trick_seats.append(seat)
            trick_cards.append(card)
            if len(trick_cards) == active_players:
                seat = trick_seats[winner]
                tricks_won[seat] += 1
                tricks_done += 1
                trick_seats, trick_cards = [], []
            else:
                seat = next_seat[seat]
            if stop_after_script and scripted == script_len:
                break
        return PlayedOut(tricks_won, partner, mismatches)

    # ------------------------------------------------------------------ the heuristic's policy
    def _five_handed_sides(self, hands, partner: int | None, called: int | None) -> list[tuple]:
        """Per seat, (the seats it knows to be its team-mates, whether it is on offence), where the call makes the
        sides. They change when the partner is called and when the called card shows (_play asks again then)."""
        bidder, five = self.bidder, self.five
        sides = []
        for seat, hand in enumerate(hands):
            if seat == bidder:
                sides.append((((partner,) if partner is not None else ()), True))
            elif partner is not None:
                sides.append(((bidder,), True) if seat == partner else ((), False))
            elif five and called is not None and called in hand[self.suit_of[called]]:
                sides.append(((bidder,), True))   # it holds the called card: the partner, unknown to the others
            else:
                sides.append(((), False))
        return sides

    def _follow(self, hand, led: int, rank, best: int, winning: bool) -> int:
        """A card to the trick in progress: win it as cheaply as possible unless a team-mate is ``winning`` it.
        ``rank``: TRICK_RANK[trump][led], the trick's order of the cards; ``best``: the winning card's."""
        trump = self.trump
        follow = hand[led]
        if follow:
            if len(follow) > 1 and not winning:
                for card in follow:   # weakest first: the cheapest that wins
                    if rank[card] > best:
                        return card
            return follow[0]
        if trump != NO_TRUMP and not winning:
            for card in hand[trump]:
                if rank[card] > best:
                    return card
        return self._slough(hand)

    def _slough(self, hand) -> int:
        """A low card of a plain suit whose Ace it holds (a signal), else its weakest plain card (the lower suit
        on a tie), else its weakest trump."""
        power = self.power
        signal = weakest = -1
        signal_power = weakest_power = 99
        for suit in self.plain_suits:
            cards = hand[suit]
            if cards:
                low = cards[0]
                if power[low] < weakest_power:
                    weakest, weakest_power = low, power[low]
                if cards[-1] % 6 == ACE and low % 6 != ACE and power[low] < signal_power:
                    signal, signal_power = low, power[low]
        if signal >= 0:
            return signal
        return weakest if weakest >= 0 else hand[self.trump][0]

    def _weakest(self, hand) -> int:
        """The weakest plain card (the lower suit on a tie), else the weakest trump."""
        power = self.power
        card, card_power = -1, 99
        for suit in self.plain_suits:
            cards = hand[suit]
            if cards and power[cards[0]] < card_power:
                card, card_power = cards[0], power[cards[0]]
        return card if card >= 0 else hand[self.trump][0]

    def _lead(self, hand, seat: int, mates, offence: bool, opening: bool, seen, sloughs, higher) -> int:
        """A card to lead. ``opening``: five-handed's first lead, by the bidder, which calls the partner."""
        trumps = hand[self.trump] if self.trump != NO_TRUMP else ()
        if offence and trumps:   # the bidder is on offence: the opening lead is its
            top = trumps[-1]
            bidder = seat == self.bidder
            if bidder and len(trumps) >= 2 and (not self.copies or trumps[0] != top):   # two distinct trumps
                return top
            if _master(top, trumps, seen, higher):
                return top
            if opening and bidder:   # a trump it must lead, and its top one would not draw: the lowest
                return trumps[0]
        for suit in self.plain_suits:   # an Ace
            cards = hand[suit]
            if cards and cards[-1] % 6 == ACE:
                return cards[-1]
        if mates and sloughs:   # the suit of a team-mate's first slough in a trick
            skipped = -1
            for trick_index, by, suit in sloughs:
                if trick_index != skipped and by in mates:
                    if hand[suit]:
                        return hand[suit][0]
                    skipped = trick_index
        if offence and trumps:
            return trumps[0]
        return self._weakest(hand)


def _master(card: int, held, seen, higher) -> bool:
    """No card that outranks ``card`` is unseen and held by another seat (``higher``: PlayOut.higher)."""
    for h in higher[card]:
        if not seen[h] and h not in held:
            return False
    return True
