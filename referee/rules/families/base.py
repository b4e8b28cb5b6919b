"""The hooks the phase machine calls, with the rules most families share.

A family of rules is one subclass of :class:`Rules` in its own module that
overrides the hooks where its rules differ, the way python-chess gathers each
variant into one board class (``RacingKingsBoard.is_legal`` is
``super().is_legal(move) and not self.gives_check(move)``). The phase machine
(:class:`referee.rules.game.Game`) owns the state and the common flow of a
deal (auction, trump, discards, cede, tricks); it asks the family's
:class:`Rules` at each point where families differ:

====================  =============================================================
hook                  decides
====================  =============================================================
``layout``            deck, cards per seat, widow, dead hand, teams (per player count)
``default_max_bid``,  the bid ladder: the highest number bid, what each special bid
``special_level``     needs and scores
``deal``              who receives which card of the deck
``decision``          the name of the decision awaited (``Game.decision_kind``)
``deal_state``        the family's own per-deal state (a :class:`DealState`), or none
``last_chance``,      the auction: when the last seat must bid (``dealer-must-bid``),
``next_bidder``       who bids next, when the auction ends
``after_contract``    what follows the contract: exchange, give, widow, or the next step
``after_exchange``    what follows the exchange: the defenders' cede, or the play
``apply_exchange``,   the Pepper exchange and give (iowa's swap, bid-euchre's gift)
``legal_give``,
``apply_give``
``sitting_out``       who sits out the play
``start_play``        anything set when play starts (five-handed's partner call)
``legal_play``        the legal cards: follow suit, then the family's own filter
``on_play``           a played card's consequences beyond the trick (partner found)
``score``             a deal's points per team, and whether the contract was made
``winners``           whether the game ends after a deal, and who won
====================  =============================================================

A hook that reads or changes the game takes it as ``g``. It reads the game's
public attributes and properties (``hands``, ``contract``, ``trump``,
``bids``, ``high_bidder``, ``trick_cards``, ``tricks``, ...) and changes the
game through its family interface only (``log_event``, ``tell``, ``ask``,
``ask_next``, ``ask_discards``, ``start_play``, ``watch_plays``,
``set_partner_card``, ``set_partner``; and the ``hands`` and ``widow``
lists), never through its underscored attributes. What only the family
needs between hooks within a deal is its own :class:`DealState`, which
:meth:`Rules.deal_state` makes at each deal and the game keeps as
``g.family_state`` (copied and pickled with the game). One :class:`Rules`
instance per family is shared by every game: it holds no state of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple

from .. import actions as A
from ..events import DECISION_OF, Decision

if TYPE_CHECKING:   # the game imports the families, not the other way round
    from ..game import Game
    from ..rulesets import Ruleset, Table

__all__ = ["Family", "Layout", "Rules", "DealState", "NINE_TO_ACE", "JACK_TO_ACE", "DEAD"]

NINE_TO_ACE = (0, 1, 2, 3, 4, 5)
JACK_TO_ACE = (2, 3, 4, 5)
DEAD = -1     # receiver index of the 2-player dead hand while dealing


class Family(StrEnum):
    """A family of rules: the game logic a ruleset runs (its name is the value, as in ruleset files)."""

    IOWA = "iowa"
    BID_EUCHRE = "bid-euchre"
    PEPPER_30 = "pepper-30"
    FIVE_HANDED = "five-handed"


class Layout(NamedTuple):
    """The cards and teams of a family for one player count."""

    deck: tuple[int, ...]          # ordered deck (card ids, copies repeated)
    hand_size: int                 # cards per seat = tricks per deal
    team_of: tuple[int, ...]       # seat -> team
    widow_size: int = 0
    dead_hand: bool = False


class DealState:
    """A family's own per-deal state: what its hooks keep between calls within one deal (``g.family_state``).

    A subclass names its fields in ``__slots__`` and sets each in ``__init__``; a field holds a value, or a list
    or dict of values. ``Game.copy()`` copies it with :meth:`copy` (lists and dicts copied, values shared), pickling
    takes it whole, and two are equal when their fields are.
    """

    __slots__ = ()

    def _fields(self) -> tuple[str, ...]:
        return tuple(k for cls in type(self).__mro__ for k in getattr(cls, "__slots__", ()))

    def copy(self) -> DealState:
        other = object.__new__(type(self))
        for k in self._fields():
            v = getattr(self, k)
            setattr(other, k, v.copy() if type(v) in (list, dict) else v)
        return other

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and all(getattr(self, k) == getattr(other, k) for k in self._fields())

    __hash__ = None   # mutable

    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in self._fields()}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self._fields())})"


class Rules:
    """The rules every family shares; a family's module overrides what differs."""

    family: Family | str              # a Family for the built-in families; a registered family's own name otherwise
    specials: tuple[str, ...] = ()     # the special bids a ruleset of this family may use, low to high
    has_copies: bool = False           # the deck holds duplicate cards (legal lists name each card once)
    bid_names_strain: bool = False     # bids name their strain (no trump-naming step)
    may_cede: bool = False             # a ruleset may let the defenders cede (`defenders_may_cede`)
    may_exchange: bool = False         # a ruleset may give the Pepper bidder an exchange (`pepper_exchange`)

    # -- cards, teams and the bid ladder -------------------------------------
    def layout(self, players: int) -> Layout:
        raise NotImplementedError

    def default_max_bid(self, hand_size: int) -> int:
        """The highest number bid when a ruleset does not set ``max_bid``: one per trick."""
        return hand_size

    def special_level(self, name: str, hand_size: int) -> tuple[int, bool, int | None]:
        """(tricks needed, alone, fixed points or None) of the special bid ``name``."""
        raise NotImplementedError

    # -- the deal -------------------------------------------------------------
    def deal(self, table: Table, deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int], list[int]]:
        """(hands, widow, dead hand): one card at a time clockwise from the dealer's left."""
        n = table.players
        # The dealer's left (seat dealer + 1) receives the first card, and every n-th card after it.
        return [list(deck[(s - dealer - 1) % n::n]) for s in range(n)], [], []

    def dealt_hand(self, table: Table, deck: Sequence[int], dealer: int, seat: int) -> tuple[int, ...]:
        """``seat``'s cards as :meth:`deal` dealt them from ``deck`` (a HAND event's data: the log keeps no copy)."""
        if type(self).deal is Rules.deal:   # one card at a time: the seat's every n-th card, without dealing the rest
            n = table.players
            return tuple(deck[(seat - dealer - 1) % n::n])
        return tuple(self.deal(table, deck, dealer)[0][seat])

    def deal_state(self, g: Game) -> DealState | None:
        """The family's own state for the deal ``g`` has just dealt (kept as ``g.family_state``); None: none."""
        return None

    # -- the auction ------------------------------------------------------------
    def last_chance(self, g: Game) -> bool:
        """No bid so far: is the seat to act the last one who can still bid?"""
        return len(g.bids) == g.players - 1

    def next_bidder(self, g: Game, seat: int, passed: bool) -> int | None:
        """The next seat to bid after ``seat``'s call, or None when the auction is over (one circuit)."""
        return None if len(g.bids) == g.players else (seat + 1) % g.players

    def decision(self, g: Game) -> Decision:
        """The decision the seat to act faces (``g`` not over): its phase's, unless the family tells them apart."""
        return DECISION_OF[g.phase]

    # -- after the contract ------------------------------------------------------
    def after_contract(self, g: Game) -> None:
        """Trump is named: go on to whatever precedes the play."""
        self.after_exchange(g)

    def after_exchange(self, g: Game) -> None:
        """The hands are final: the defenders may cede, or the play starts."""
        g.start_play()

    def apply_exchange(self, g: Game, a: int) -> None:
        raise NotImplementedError(f"the {self.family} family has no exchange")

    def legal_give(self, g: Game) -> list[int]:
        raise NotImplementedError(f"the {self.family} family has no give")

    def apply_give(self, g: Game, a: int) -> None:
        raise NotImplementedError(f"the {self.family} family has no give")

    # -- the play -----------------------------------------------------------------
    def sitting_out(self, table: Table, bidder: int, alone: bool) -> tuple[int, ...]:
        """Seats that do not play this deal's tricks."""
        return ()

    def start_play(self, g: Game) -> None:
        """Set up anything the family needs before the first card."""

    def legal_play(self, g: Game) -> list[int]:
        """Follow the effective suit led when able (each card named once where the deck has copies): the
        game's compiled :meth:`Game.follow_suit <referee.rules.game.Game.follow_suit>`."""
        return g.follow_suit()

    def on_play(self, g: Game, seat: int, card: int) -> None:
        """Called for each card while ``g.watching_plays`` (``g.watch_plays``: five-handed's partner call)."""

    # -- scoring and the game's end -----------------------------------------------
    def score(self, team_of: Sequence[int], teams: int, hand_size: int, bidder: int, partner: int | None,
              tricks_needed: int, points: int | None, alone: bool, tricks_won: Sequence[int],
              ceded: bool = False) -> tuple[bool, list[int]]:
        """(contract made, points per team) of a deal with a contract, for families with fixed teams.

        ``points`` is the contract's fixed value (None for a bid scored by the
        tricks taken); ``ceded``: the defence conceded before the play.
        """
        pts = [0] * teams
        bt = team_of[bidder]
        if ceded:
            # Ceded: the bidding team scores its bid's value (6 for a trick-count bid); defenders nothing.
            pts[bt] = points if points is not None else hand_size
            return True, pts
        team_tricks = [0] * teams
        for s, t in enumerate(tricks_won):
            team_tricks[team_of[s]] += t
        made = team_tricks[bt] >= tricks_needed
        if made:
            pts[bt] = points if points is not None else team_tricks[bt]
        elif points is not None:
            pts[bt] = -points
        else:
            pts[bt] = self.set_penalty(tricks_needed, hand_size)
        for team in range(teams):
            if team != bt:
                pts[team] = self.defence_points(team_tricks[team], hand_size)
        return made, pts

    def set_penalty(self, tricks_needed: int, hand_size: int) -> int:
        """What a failed trick-count contract costs the bidding team: a whole hand's worth."""
        return -hand_size

    def defence_points(self, tricks: int, hand_size: int) -> int:
        """What a defending team scores: its tricks."""
        return tricks

    def winners(self, scores: Sequence[int], target: int, bidding_team: int) -> tuple[int, ...] | None:
        """Winning teams if the game ends after a played or ceded deal, else None.

        The common rule: a single team at or past the target wins; when several
        are, the bidding team of the last deal wins.
        """
        reached = [i for i, s in enumerate(scores) if s >= target]
        if not reached:
            return None
        if len(reached) == 1:
            return (reached[0],)
        return self.tie_winners(scores, reached, bidding_team)

    def tie_winners(self, scores: Sequence[int], reached: list[int], bidding_team: int) -> tuple[int, ...]:
        return (bidding_team,)

    def check_ruleset(self, rs: Ruleset) -> None:
        """Nothing to add: :func:`~referee.rules.rulesets.ruleset_from_dict` checks the common keys."""


class PartnershipRules(Rules):
    """Families whose alone bids (Pepper) make the bidder's teammates sit out."""

    def sitting_out(self, table: Table, bidder: int, alone: bool) -> tuple[int, ...]:
        if not alone:
            return ()
        team_of = table.team_of
        bt = team_of[bidder]
        return tuple([s for s in range(table.players) if s != bidder and team_of[s] == bt])


def give_ids(g: Game, has_copies: bool) -> list[int]:
    """``give c`` for each card of the seat to act (each card named once)."""
    hand = g.hands[g.to_act]
    return [A.GIVE_BASE + c for c in (dict.fromkeys(hand) if has_copies else hand)]
