"""Policies that simulate with the rules engine, served through the bot SDK.

The SDK (:mod:`pepper_bot`) knows only the protocol. The sample bots also know
the rules engine: :class:`EngineBot` gives them each game's ruleset (a variant
may reuse a built-in's name) and reads the answer spellings the engine accepts.
"""

from __future__ import annotations

from pepper_bot import Bot, PolicyBot, as_bot

from referee.rules import BUILTIN_RULESETS, Action, RulesError, Ruleset, ruleset_from_dict

__all__ = ["EngineBot", "as_engine_bot", "ruleset_of"]

_RULESET_KEYS = ("extends", "name", "description", "target_score", "deal_cap", "pass_out", "defenders_may_cede",
                 "pepper_exchange", "min_bid", "max_bid", "specials", "player_counts")


def ruleset_of(info: dict) -> Ruleset | None:
    """The :class:`~referee.rules.Ruleset` of a game, from ``on_game_start``'s info (None if unknown).

    A game may be played under a variant (e.g. ``{"extends": "iowa", "deal_cap": 3}``)
    whose name is not a built-in one.
    """
    rs = info.get("ruleset", {})
    params = rs.get("params") or {}
    name = rs.get("name", "")
    if not params.get("extends"):
        return BUILTIN_RULESETS.get(name)
    try:
        return ruleset_from_dict({k: v for k, v in params.items() if k in _RULESET_KEYS and v is not None},
                                 source=f"<game {info.get('game_id', '?')}>")
    except (RulesError, ValueError, TypeError):
        return None


class EngineBot(PolicyBot):
    """A :class:`~pepper_bot.PolicyBot` for a policy that uses the rules engine.

    A policy with a ``rulesets`` dict (bots that simulate, like MonteCarloBot)
    learns each game's ruleset at game start; an answer in another spelling the
    engine accepts (``"bid pepper s"``) is given in the canonical one.
    """

    def decide(self, view: dict):
        answer = self.policy.decide(view)
        if isinstance(answer, str) and answer not in view.get("legal_actions", ()):
            try:
                return str(Action.parse(answer))
            except (RulesError, ValueError):
                pass   # not an action: the SDK plays its fallback and reports it
        return answer

    def on_game_start(self, info: dict) -> None:
        known = getattr(self.policy, "rulesets", None)
        name = info.get("ruleset", {}).get("name")
        if isinstance(known, dict) and name:
            rs = ruleset_of(info)
            if rs is not None:
                known[name] = rs   # a variant may reuse a name: the latest game's definition wins
        super().on_game_start(info)


def as_engine_bot(obj, name: str | None = None) -> Bot:
    """Like :func:`pepper_bot.as_bot`, with an :class:`EngineBot` around a plain policy."""
    if isinstance(obj, type):
        obj = obj()
    if isinstance(obj, Bot) or not callable(getattr(obj, "decide", None)):
        return as_bot(obj, name)
    return EngineBot(obj, name)
