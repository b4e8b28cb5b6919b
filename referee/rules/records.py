"""Game records: the JSON-ready record of a game, and its exact replay (docs/rules.md, "Game records and replay").

A record holds the ruleset (a built-in name, or a ruleset file's parameters), the players, the seed, the first
dealer, any decks given, the start scores, target and deal cap where they differ from the ruleset's, whether finished
deals are held (``hold_finished_deal`` and ``deal_over``, only when they are), and every
action's text; once the game is over, its outcome and each deal's summary. Records written before a key was
added replay unchanged: a missing key means the ruleset's value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import ACTIONS
from .errors import RecordError, ReplayMismatchError, RulesError
from .rulesets import BUILTIN_RULESETS, get_ruleset, ruleset_from_dict
from .views import card_texts

if TYPE_CHECKING:
    from .game import Game

__all__ = ["RECORD_FORMAT", "game_record", "replay_record"]

RECORD_FORMAT = "pepper-game/1"
_RECORD_PARAM_KEYS = ("extends", "name", "description", "target_score", "deal_cap", "pass_out", "defenders_may_cede",
                      "pepper_exchange", "min_bid", "max_bid", "specials", "player_counts")


def game_record(g: Game) -> dict:
    """A JSON-ready record that replays to this exact game (see :func:`replay_record`)."""
    rs = g.ruleset
    rec = {
        "format": RECORD_FORMAT,
        "ruleset": rs.name,
        "ruleset_params": None if rs.name in BUILTIN_RULESETS else rs.to_dict(),
        "players": g.players,
        "seed": g.seed,
        "first_dealer": g.first_dealer,
        "decks": [None if d is None else card_texts(d) for d in g._decks] or None,
        "actions": [str(ACTIONS[a]) for a in g.history],
    }
    # Only where they differ from the ruleset's, so that other records keep their old form.
    if any(g.start_scores):
        rec["start_scores"] = list(g.start_scores)
    if g.target_score != rs.target_score:
        rec["target_score"] = g.target_score
    if g.deal_cap != rs.deal_cap:
        rec["deal_cap"] = g.deal_cap
    if g.hold_finished_deal:
        rec["hold_finished_deal"] = True
        rec["deal_over"] = g.deal_over   # held now, or the next deal dealt (the actions cannot tell the two apart)
    if g.outcome is not None:
        rec["outcome"] = g.outcome.to_dict()
        rec["deals"] = [d.to_dict() for d in g.deals]
    return rec

def replay_record(cls: type[Game], rec: dict, *, verify: bool = True) -> Game:
    """Replay a record exactly.

    Raises :class:`RecordError` for something that is not a well-formed
    record, :class:`ActionError` (with ``.index``) at the first refused
    action, and :class:`ReplayMismatchError` if ``verify`` and the replayed
    outcome differs from the recorded one.
    """
    if not isinstance(rec, dict) or rec.get("format") != RECORD_FORMAT:
        raise RecordError(f"not a game record: expected \"format\": \"{RECORD_FORMAT}\"")
    try:
        params = rec.get("ruleset_params")
        if params:
            rs = ruleset_from_dict({k: v for k, v in params.items() if k in _RECORD_PARAM_KEYS and v is not None}, source="record")
        else:
            rs = get_ruleset(rec["ruleset"])
        g = cls(rs, rec.get("players"), seed=rec.get("seed", 0), decks=rec.get("decks"), first_dealer=rec.get("first_dealer"),
                scores=rec.get("start_scores"), target_score=rec.get("target_score"), deal_cap=rec.get("deal_cap"),
                hold_finished_deal=rec.get("hold_finished_deal", False))
        actions = rec.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("record field 'actions' must be a list of action texts")
    except RecordError:
        raise
    except (KeyError, TypeError, ValueError) as e:
        raise RecordError(f"malformed game record: {e!s}") from None
    for i, text in enumerate(actions):
        if g.deal_over:   # a held deal: the next one was dealt before this action (after the last: see deal_over)
            g.next_deal()
        try:
            g.apply(text)
        except RulesError as e:
            e.index = i
            e.args = (f"action {i} ({text!r}): {e}",)
            raise
    if g.deal_over and rec.get("deal_over") is False:
        g.next_deal()
    if verify and "outcome" in rec:
        got = g.outcome.to_dict() if g.outcome else None
        if got != rec["outcome"]:
            raise ReplayMismatchError(f"replay diverges from the record: recorded outcome {rec['outcome']}, replayed {got}")
    return g
