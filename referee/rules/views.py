"""What each seat may see of a game, and everything for spectators (:meth:`Game.view <referee.rules.game.Game.view>`).

Only functions of a game's state: a seat's view holds its own cards and the public record, nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import ACTIONS
from .cards import CARDS, sort_key
from .events import SeatView

if TYPE_CHECKING:
    from .game import Game

__all__ = ["seat_view", "full_state", "card_texts"]


def card_texts(xs) -> list[str]:
    return [str(CARDS[c]) for c in xs]


def seat_view(g: Game, seat: int) -> SeatView:
    """What ``seat`` may know now: its own cards and the public record, nothing more."""
    if not 0 <= seat < g.players:
        raise ValueError(f"no seat {seat} at a {g.players}-player table")
    return SeatView(
        ruleset=g.ruleset.name, players=g.players, seat=seat, team_of=g.table.team_of,
        deal=len(g.decks_dealt), dealer=g.dealer, phase=g.phase, to_act=g.to_act,
        hand=tuple(CARDS[c] for c in sorted(g.hands[seat], key=sort_key)),
        bids=tuple((s, str(ACTIONS[a])) for s, a in g._bids),
        contract=g.contract,
        partner_card=None if g._partner_card is None else CARDS[g._partner_card],
        partner=g._partner, sitting_out=g._sitting_out, leader=g._leader,
        trick=tuple((s, CARDS[c]) for s, c in zip(g._trick_seats, g._trick_cards)),
        tricks=tuple((ld, tuple((s, CARDS[c]) for s, c in plays), w) for ld, plays, w in g._tricks),
        tricks_won=tuple(g.tricks_won), scores=tuple(g.scores),
        private={k: [CARDS[c] for c in v] for k, v in g._private[seat].items()},
        legal_actions=tuple(g.legal_actions()) if seat == g.to_act and g.outcome is None else (),
        family=g._family, target_score=g.target_score,
    )

def full_state(g: Game) -> dict:
    """Everything, hidden cards included: for spectators once the game is over, and for tests."""
    return {
        "hands": [card_texts(sorted(h, key=sort_key)) for h in g.hands],
        "widow": card_texts(g.widow), "dead_hand": card_texts(g.dead_hand),
        "decks": [card_texts(d) for d in g.decks_dealt],
    }
