"""A fast, rules-exact play-out simulator for determinized search.

:class:`PlayOut` plays the rest of a deal's card play, from a position taken
from a seat's view and a guess of the hidden hands, and scores it. It is a
dedicated re-implementation of the play phase of :mod:`referee.rules.game` on
plain lists of card ints: no events, no history, no validation, no
:class:`~referee.rules.Game` objects. It reuses the engine's tables
(:data:`~referee.rules.cards.EFFECTIVE_SUIT`, :data:`~referee.rules.cards.STRENGTH`,
:data:`~referee.rules.cards.TRICK_RANK`), so following suit, the bowers and
"of identical cards the first played ranks higher" are the engine's own. It
also knows the five-handed rules that matter for play: the bidder's forced
trump lead to the first trick, the partner card called by that lead, the
holder's duty to play it when following its suit, and partner scoring.

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

from referee.rules.cards import EFFECTIVE_SUIT, NO_TRUMP, STRENGTH, TRICK_RANK
from referee.rules.families.five_handed import partner_call_order
from referee.rules.scoring import deal_points

__all__ = ["PlayOut", "POWER"]

ACE = 5

# POWER[trump][card]: overall strength, trumps above everything (the heuristic's Seen.strength).
POWER = [[(16 if EFFECTIVE_SUIT[t][c] == t else 0) + STRENGTH[t][c] for c in range(24)] for t in range(5)]


_HIGHER: dict = {}   # (trump, cards in the deck) -> higher[card]


class PlayOut:
    """One play-phase position with its hidden hands left open.

    Built once per decision from public facts (the contract, the tricks so far
    and the trick in progress); :meth:`value` then plays a candidate card and
    the rest of the deal for one guess of every seat's hand and returns
    ``seat``'s result: its side's deal points minus the average of the
    others'.
    """

    def __init__(self, *, family: str, players: int, team_of, hand_size: int, deck_cards, bidder: int, trump: int,
                 tricks_needed: int, points: int | None, alone: bool, sitting_out=(),
                 tricks=(), trick=(), tricks_won=None, partner_card: int | None = None, partner: int | None = None,
                 seat: int = 0):
        n = players
        self.family, self.n, self.team_of, self.hand_size = family, n, tuple(team_of), hand_size
        self.teams = max(team_of) + 1
        self.individual = self.teams == n
        self.bidder, self.trump, self.alone = bidder, trump, alone
        self.tricks_needed, self.points = tricks_needed, points
        self.seat = seat
        active = [s for s in range(n) if s not in set(sitting_out)]
        self.n_active = len(active)
        self.nxt = [0] * n
        for i, s in enumerate(active):
            self.nxt[s] = active[(i + 1) % len(active)]
        self.eff = EFFECTIVE_SUIT[trump]
        self.pw = POWER[trump]
        self.rank = TRICK_RANK[trump]
        in_deck = set(deck_cards)
        self.copies = len(in_deck) < len(deck_cards)   # several copies of a card: the heuristic counts distinct cards
        eff, pw = self.eff, self.pw
        # higher[c]: cards of c's effective suit that outrank it (for "is this card a master?").
        key = (trump, frozenset(in_deck))
        higher = _HIGHER.get(key)
        if higher is None:
            higher = _HIGHER[key] = [[h for h in in_deck if eff[h] == eff[c] and pw[h] > pw[c]] for c in range(24)]
        self.higher = higher
        self.five = family == "five-handed" and not alone
        # Root state.
        self.tricks_done = len(tricks)
        seen = bytearray(24)
        sloughs = []
        for ti, (_, plays, _) in enumerate(tricks):
            led = eff[plays[0][1]]
            for s, c in plays:
                seen[c] = 1
                if eff[c] != led:
                    sloughs.append((ti, s, eff[c]))
        for s, c in trick:
            seen[c] = 1
            if eff[c] != eff[trick[0][1]]:
                sloughs.append((len(tricks), s, eff[c]))
        self.seen = seen
        self.sloughs = sloughs
        self.trick = [tuple(x) for x in trick]
        self.tricks_won = list(tricks_won) if tricks_won is not None else [0] * n
        if tricks_won is None:
            for _, _, w in tricks:
                self.tricks_won[w] += 1
        self.partner_card = partner_card
        self.partner = partner
        # The partner is open (called, not yet shown) when a card is called and nobody has played it;
        # before the first lead the call is still to come.
        self.call_pending = self.five and not tricks and not trick
        self.partner_open = self.five and partner is None and (partner_card is not None or self.call_pending)
        self.to_play = trick[-1][0] if trick else None
        if trick:
            self.to_play = self.nxt[trick[-1][0]]
        elif tricks:
            self.to_play = tricks[-1][2]
        else:
            self.to_play = bidder
        if self.individual:
            self.mates_fixed = None
        else:
            self.mates_fixed = [frozenset(x for x in range(n) if x != s and team_of[x] == team_of[s]) for s in range(n)]

    # ------------------------------------------------------------------ rules
    def legal(self, hand: list[int]) -> list[int]:
        """The seat to play's legal cards in the root position (hand: its cards)."""
        eff = self.eff
        if self.trick:
            led = eff[self.trick[0][1]]
            fol = [c for c in hand if eff[c] == led]
            if not fol:
                return list(hand)
            pc = self.partner_card
            if self.partner_open and pc is not None and pc in fol and self.to_play != self.bidder:
                return [pc]
            return fol
        if self.call_pending and self.trump != NO_TRUMP:
            return [c for c in hand if eff[c] == self.trump] or list(hand)
        return list(hand)

    def score(self, tricks_won, partner) -> float:
        """``seat``'s deal points minus the average of the other teams' (or players')."""
        pts = deal_points(self.family, self.team_of, self.teams, self.hand_size, self.bidder, partner,
                          self.tricks_needed, self.points, self.alone, tricks_won)
        if self.individual:
            me = pts[self.seat]
        else:
            me = pts[self.team_of[self.seat]]
        return me - (sum(pts) - me) / (len(pts) - 1)

    # --------------------------------------------------------------- play-out
    def split(self, hands: list[list[int]]) -> list[list[list[int]]]:
        """Hands as the play-out wants them: per seat, per effective suit, weakest first."""
        eff, key = self.eff, self.pw.__getitem__
        out = []
        for h in hands:
            suits = [[], [], [], []]
            for c in sorted(h, key=key):
                suits[eff[c]].append(c)
            out.append(suits)
        return out

    def value(self, split_hands: list[list[list[int]]], card: int) -> float:
        """Play ``card`` for the seat to play, then everybody plays the heuristic to the end; score it.

        ``split_hands`` are every seat's current cards as :meth:`split` returns them (not modified).
        """
        tw, partner = self.run(split_hands, card)
        return self.score(tw, partner)

    def mismatches(self, split_hands: list[list[list[int]]], script, check) -> int:
        """Replay ``script`` (cards played in order) from this position and count how many of them,
        by seats with ``check[seat]``, differ from what the heuristic policy would have played with
        these hands: a measure of how unlikely the hands are, if the players play like the heuristic."""
        return self.run(split_hands, None, script, check)

    def run(self, split_hands: list[list[list[int]]], card: int | None = None, script=None, check=None):
        """Play the deal out (``card`` first, if given); returns (tricks won per seat, partner seat or None).

        The policy is :class:`~sample_bots.heuristic.HeuristicBot`'s card play, move for move, with
        ties between equally strong cards of different suits broken towards the lower suit (S, H, D, C).
        With a ``script`` (see :meth:`mismatches`) it returns the mismatch count instead.
        """
        n, eff, pw, bidder, trump = self.n, self.eff, self.pw, self.bidder, self.trump
        rank_t, nxt, n_active, higher = self.rank, self.nxt, self.n_active, self.higher
        H = [[suit[:] for suit in h] for h in split_hands]
        seen = bytearray(self.seen)
        sloughs = list(self.sloughs)
        tw = list(self.tricks_won)
        ti = self.tricks_done
        hand_size = self.hand_size
        trick = self.trick
        ts = [s for s, _ in trick]
        tc = [c for _, c in trick]
        five, copies = self.five, self.copies
        pc, partner, popen, call_pending = self.partner_card, self.partner, self.partner_open, self.call_pending
        mates_fixed = self.mates_fixed
        pcs = eff[pc] if pc is not None else -1
        plain = [su for su in range(4) if su != trump]   # non-trump suits, in suit order
        has_trump = trump != NO_TRUMP
        seat = self.to_play
        if tc:
            led = eff[tc[0]]
            table = rank_t[led]
            bi = 0
            best = table[tc[0]]
            for i in range(1, len(tc)):
                r = table[tc[i]]
                if r > best:
                    bi, best = i, r
        else:
            led = -1
            table = None
            bi, best = 0, -1
        if script is None:
            script = (card,) if card is not None else ()
            replay = False
        else:
            replay = True
        ns = len(script)
        si = mism = 0
        while ti < hand_size:
            hs = H[seat]
            if si < ns and (check is None or not check[seat]):
                c = script[si]
                si += 1
            else:
                # The seat's side as it sees it, and whether it is on offence.
                if mates_fixed is not None:
                    mates = mates_fixed[seat]
                    offence = seat == bidder or bidder in mates
                elif seat == bidder:
                    mates = (partner,) if partner is not None else ()
                    offence = True
                elif partner is not None:
                    mates = (bidder,) if seat == partner else ()
                    offence = seat == partner
                elif five and pc is not None and pc in hs[pcs]:
                    mates = (bidder,)
                    offence = True
                else:
                    mates = ()
                    offence = False
                c = -1
                if tc:
                    fol = hs[led]
                    if fol:
                        if popen and seat != bidder and pcs == led and pc in fol:
                            c = pc
                        elif len(fol) == 1 or ts[bi] in mates:
                            c = fol[0]
                        else:
                            for x in fol:
                                if table[x] > best:
                                    c = x
                                    break
                            else:
                                c = fol[0]
                    else:
                        if has_trump and ts[bi] not in mates:
                            for x in hs[trump]:
                                if table[x] > best:
                                    c = x
                                    break
                        if c < 0:
                            # Slough: a low card of a suit where we hold the Ace (a signal), else the weakest.
                            bp = 99
                            for su in plain:
                                lst = hs[su]
                                if lst and lst[-1] % 6 == ACE and lst[0] % 6 != ACE and pw[lst[0]] < bp:
                                    c, bp = lst[0], pw[lst[0]]
                            if c < 0:
                                for su in plain:
                                    lst = hs[su]
                                    if lst and pw[lst[0]] < bp:
                                        c, bp = lst[0], pw[lst[0]]
                                if c < 0:
                                    c = hs[trump][0]
                else:
                    trumps = hs[trump] if has_trump else ()
                    if call_pending and trumps and seat == bidder:
                        # five-handed: the bidder leads a trump to the first trick
                        top = trumps[-1]
                        if len(trumps) >= 2 and (not copies or trumps[0] != top):
                            c = top
                        else:
                            for h in higher[top]:
                                if not seen[h] and h not in trumps:
                                    c = trumps[0]
                                    break
                            else:
                                c = top
                    else:
                        if offence and trumps:
                            top = trumps[-1]
                            if seat == bidder and len(trumps) >= 2 and (not copies or trumps[0] != top):
                                c = top
                            else:
                                for h in higher[top]:
                                    if not seen[h] and h not in trumps:
                                        break
                                else:
                                    c = top
                        if c < 0:
                            for su in plain:
                                lst = hs[su]
                                if lst and lst[-1] % 6 == ACE:
                                    c = lst[-1]
                                    break
                        if c < 0 and mates and sloughs:
                            done = -1
                            for sti, ss, su in sloughs:
                                if sti != done and ss in mates:
                                    if hs[su]:
                                        c = hs[su][0]
                                        break
                                    done = sti
                        if c < 0:
                            if offence and trumps:
                                c = trumps[0]
                            else:
                                bp = 99
                                for su in plain:
                                    lst = hs[su]
                                    if lst and pw[lst[0]] < bp:
                                        c, bp = lst[0], pw[lst[0]]
                                if c < 0:
                                    c = trumps[0]
                if si < ns:
                    if c != script[si]:
                        mism += 1
                        c = script[si]
                    si += 1
            # ---- play it
            ce = eff[c]
            hs[ce].remove(c)
            seen[c] = 1
            if not tc:
                led = ce
                table = rank_t[led]
                bi, best = 0, table[c]
                if call_pending:
                    call_pending = False
                    pc = None
                    for x in partner_call_order(trump, c):   # the engine's order, derived from the card functions
                        ex = eff[x]
                        if any(x in H[s][ex] for s in range(n) if s != bidder):
                            pc = x
                            break
                    if pc is None:
                        popen = False
                    else:
                        pcs = eff[pc]
            else:
                r = table[c]
                if r > best:
                    bi, best = len(tc), r
                if ce != led:
                    sloughs.append((ti, seat, ce))
            if popen and c == pc and seat != bidder:
                partner = seat
                popen = False
            ts.append(seat)
            tc.append(c)
            if len(tc) == n_active:
                w = ts[bi]
                tw[w] += 1
                ti += 1
                ts, tc = [], []
                seat = w
            else:
                seat = nxt[seat]
            if replay and si == ns:
                return mism
        return mism if replay else (tw, partner)
