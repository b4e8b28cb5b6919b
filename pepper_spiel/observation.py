"""What one seat may know, as OpenSpiel strings and tensors.

Everything here is read from the engine's per-seat API (``Game.events_for`` and
``Game.view``), which never hands a seat another seat's cards; nothing reads the
engine's hands directly.

* The information-state string (``perfect_recall``) is every event the seat has
  seen this game, one line each: the deals so far, its own hands, bids, plays,
  its own exchanges and discards, the deal results.
* The observation string is the seat's view now (``SeatView.to_dict()``).
* The tensor (the same for both) is the current deal in full, earlier deals
  through the scores: see :data:`PepperObserver.dict` for its named pieces.

A public observer (``private_info=NONE``) leaves out the seat's cards; one for
all players (``ALL_PLAYERS``) shows every seat's cards and secrets, each read
from that seat's own view (the widow nobody took and the dead hand stay out).
"""

from __future__ import annotations

import json

import numpy as np
import pyspiel

from referee.rules import ACTIONS, BID_NAMES, CARDS, Action, EventKind, Phase
from referee.rules.actions import PASS

__all__ = ["PepperObserver", "event_text"]

_CARD_KINDS = {EventKind.GAVE_CARD, EventKind.RECEIVED_CARD, EventKind.DISCARDED_CARD, EventKind.PLAY,
               EventKind.PARTNER_CARD, EventKind.PARTNER}
_PRIVATE = ("widow", "gave", "received", "discards")   # the engine's names of a seat's own secrets
_N_CALLS = 1 + len(BID_NAMES) * 6                     # pass, then every bid id


def event_text(kind: EventKind, seat: int | None, data) -> str:
    """One event as a line of an information-state string."""
    if kind in (EventKind.HAND, EventKind.WIDOW):
        what = " ".join(str(CARDS[c]) for c in sorted(data))   # sorted: the order dealt tells nothing
    elif kind in _CARD_KINDS:
        what = "none" if data is None else str(CARDS[data])
    elif kind == EventKind.BID:
        what = str(ACTIONS[data])
    elif kind == EventKind.TRICK:
        what = f"led by {data[0]}: " + " ".join(str(CARDS[c]) for c in data[1])
    elif kind in (EventKind.DEAL_END, EventKind.GAME_OVER):
        what = json.dumps(data.to_dict(), separators=(",", ":"))
    elif isinstance(data, tuple):
        what = " ".join(map(str, data))
    else:
        what = "" if data is None else str(data)
    who = "" if seat is None else f" {seat}"
    return f"{kind.value}{who} {what}".rstrip()


class PepperObserver:
    """OpenSpiel's PyObserver for ``python_pepper``: ``tensor``, ``dict``, ``set_from``, ``string_from``."""

    def __init__(self, game, iig_obs_type=None):
        t, n = game.table, game.players
        self.table, self.players = t, n
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        kind = pyspiel.PrivateInfoType.SINGLE_PLAYER if iig_obs_type is None else iig_obs_type.private_info
        self.private = kind != pyspiel.PrivateInfoType.NONE
        self.everyone = kind == pyspiel.PrivateInfoType.ALL_PLAYERS
        seats = (n,) if self.everyone else ()   # ALL_PLAYERS: the hand and the secrets of every seat, by seat
        pieces = [
            ("seat", (n,)), ("dealer", (n,)), ("to_act", (n,)), ("phase", (len(Phase),)),
            ("hand", (*seats, 24)),                 # copies held of each card
            ("calls", (n, _N_CALLS)),               # each seat's latest call this deal
            ("bidder", (n,)), ("bid", (len(BID_NAMES),)), ("trump", (5,)), ("alone", (1,)),
            ("private", (*seats, len(_PRIVATE), 24)),   # widow taken, cards given, received, discarded
            ("partner_card", (24,)), ("partner", (n,)), ("sitting_out", (n,)),
            ("trick", (n, 24)),                     # the trick in progress: seat -> card
            ("tricks", (t.hand_size, n, 24)),       # the finished tricks of the deal: trick, seat -> card
            ("tricks_won", (n,)),                   # a fraction of the deal's tricks
            ("scores", (t.teams,)),                 # a fraction of the target score (negative when set)
        ]
        self.tensor = np.zeros(sum(int(np.prod(s)) for _, s in pieces), np.float32)
        self.dict = {}
        i = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[i:i + size].reshape(shape)
            i += size

    def set_from(self, state, player: int) -> None:
        d = self.dict
        self.tensor.fill(0)
        d["seat"][player] = 1
        g = state.engine
        if g is None:
            return
        if state.dealing:   # between deals the seat knows the scores, nothing of the next deal
            if g.deals:
                d["scores"][:] = np.asarray(g.deals[-1].scores, np.float32) / g.ruleset.target_score
            return
        v = g.view(player)
        d["dealer"][v.dealer] = 1
        if v.to_act is not None:
            d["to_act"][v.to_act] = 1
        d["phase"][v.phase - 1] = 1
        for s in (range(self.players) if self.everyone else [player] if self.private else []):
            sv = g.view(s) if s != player else v
            hand, secrets = (d["hand"][s], d["private"][s]) if self.everyone else (d["hand"], d["private"])
            for c in sv.hand:
                hand[c] += 1
            for k, name in enumerate(_PRIVATE):
                for c in sv.private.get(name, ()):
                    secrets[k, c] += 1
        for s, text in v.bids:
            a = Action.parse(text)
            d["calls"][s, :] = 0
            d["calls"][s, a - PASS] = 1
        c = v.contract
        if c is not None:
            d["bidder"][c.bidder] = 1
            d["bid"][BID_NAMES.index(c.bid)] = 1
            if c.trump is not None:
                d["trump"][c.trump] = 1
            d["alone"][0] = c.alone
        if v.partner_card is not None:
            d["partner_card"][v.partner_card] = 1
        if v.partner is not None:
            d["partner"][v.partner] = 1
        for s in v.sitting_out:
            d["sitting_out"][s] = 1
        for s, card in v.trick:
            d["trick"][s, card] = 1
        for k, (_, plays, _) in enumerate(v.tricks):
            for s, card in plays:
                d["tricks"][k, s, card] = 1
        d["tricks_won"][:] = np.asarray(v.tricks_won, np.float32) / self.table.hand_size
        d["scores"][:] = np.asarray(v.scores, np.float32) / g.ruleset.target_score

    def string_from(self, state, player: int) -> str:
        if self.perfect_recall:
            lines = [f"seat {player}"]
            if self.everyone:
                lines += [event_text(*e) for e in state.visible_events_of_all()]
            else:
                lines += [event_text(*e) for e in state.visible_events(player, public_only=not self.private)]
            if state.dealing and state.engine is not None:
                lines.append("dealing")
            return "\n".join(lines)
        if state.engine is None or state.dealing:
            scores = [] if state.engine is None or not state.engine.deals else list(state.engine.deals[-1].scores)
            return json.dumps({"seat": player, "dealing": True, "scores": scores})
        v = state.engine.view(player).to_dict()
        if not self.private:
            v["hand"], v["private"] = [], {}
        elif self.everyone:
            views = [state.engine.view(s).to_dict() for s in range(self.players)]
            v["hand"], v["private"] = [w["hand"] for w in views], [w["private"] for w in views]
        v.pop("legal_actions", None)
        return json.dumps(v, separators=(",", ":"))
