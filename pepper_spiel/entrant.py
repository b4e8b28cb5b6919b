"""An arena entrant that asks an OpenSpiel bot: ``python -m pepper_spiel.entrant --bot ismcts``.

    pepper bot register ismcts --openspiel ismcts     # the arena runs the command below
    python -m pepper_spiel.entrant --bot ismcts --referee 127.0.0.1:50051 --token T

The bot SDK (:mod:`pepper_bot`) carries the wire. At each decision the entrant
rebuilds the seat's deal from the events it was sent (:func:`sample.deal_actions`),
draws a deal consistent with them (:func:`sample.sample_deal`) and puts it in a
one-deal ``python_pepper`` game at the real game's dealer, scores and target
(:meth:`OpenSpielEntrant.search_state`): the search sees one deal, to fit the
arena's 2 s a decision, and values it by the game's score (``returns="race"``:
a set that hands the other team the game costs a whole game, a point early in
a game little). Then it asks the OpenSpiel bot for its action:

* ``ismcts``: OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``),
  resampling the hidden cards at every simulation (``PepperState.resample_from_infostate``);
* ``mcts``: OpenSpiel's MCTS on the one sampled deal (it sees that deal's cards: a determinization);
* ``random``: OpenSpiel's uniform random bot.

A simulation finishes the deal by plain card sense (``--rollout playout``,
:class:`playout.PlayoutEvaluator`; ``random``: OpenSpiel's random rollouts).
The decision's deadline bounds each search: as many simulations as fit 40% of
it (at most 1 s) at the pace of earlier searches at the same point of a deal
(phase and cards held), at most ``--simulations``. Where that is under two a
legal action, the play-out's own action is played (each action is tried once
before any twice, so such a short search picks among equals), as it is when a
search runs past 80% of the deadline (a stalled machine). A variant
ruleset is searched as its built-in base; when the search game's legal actions
differ from the view's, or no deal agrees with the
seat's events, the entrant plays a random legal action and logs why.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from pepper_bot import Bot, run_bot
from pepper_bot.runner import add_connection_args

from referee.rules import ACTIONS, BUILTIN_RULESETS, Action, EventKind, Game, RulesError

from .game import SHORT_NAME, PepperState
from .playout import PlayoutEvaluator, SearchOvertime, playout_action
from .sample import deal_actions, deal_facts, deal_voids, sample_deal, shown_events, taken_widow

__all__ = ["BOTS", "NoSearch", "OpenSpielEntrant", "main"]

log = logging.getLogger("pepper_spiel.entrant")
BOTS = ("ismcts", "mcts", "random")
ROLLOUTS = ("playout", "random")   # how a search finishes a deal: playout.PlayoutEvaluator, or OpenSpiel's random
SIMULATIONS = 1000   # the most a search runs; the decision's deadline bounds it first (decide)
FIRST_PACE = 0.01    # seconds a simulation is assumed to take before a configuration's first search
SEARCH_FLOOR = 2     # simulations per legal action below which a search is noise (decide)
UCT_C = 0.5          # values are race returns: a deal early in a game moves them by a tenth, not by 2
_KINDS = {k.value: k for k in EventKind}
_CARD_DATA = {EventKind.PLAY, EventKind.GAVE_CARD, EventKind.RECEIVED_CARD, EventKind.DISCARDED_CARD,
              EventKind.PARTNER_CARD, EventKind.PARTNER}


def engine_event(e: dict) -> tuple | None:
    """An SDK event dict (:func:`pepper_bot.convert.event_to_dict`) as the engine's (kind, seat, data), for the
    kinds a deal's actions are read from (None for the others)."""
    kind = _KINDS.get(e.get("kind"))
    who = e.get("actor") if e.get("actor") is not None else e.get("seat")
    cards = e.get("cards") or []
    if kind in (EventKind.DEAL, EventKind.THROWN_IN):
        return kind, who, e.get("deal")
    if kind in (EventKind.HAND, EventKind.WIDOW):
        return kind, who, tuple(int(Action.parse(f"play {c}")) for c in cards)
    if kind == EventKind.TRICK:   # its end: the next play leads (sample.deal_voids)
        return kind, who, (e.get("leader"), tuple(int(Action.parse(f"play {c}")) for c in cards))
    if kind in _CARD_DATA:
        return kind, who, int(Action.parse(f"play {cards[0]}")) if cards else None
    if kind == EventKind.BID:
        return kind, who, int(Action.parse(e["action"]))
    if kind == EventKind.CONTRACT:
        return kind, who, (e.get("bid"), int(Action.parse(f"trump {e['strain']}")) - int(Action.trump(0)))
    if kind in (EventKind.EXCHANGE, EventKind.GIVE, EventKind.CEDE):
        return kind, who, e.get("flag")
    if kind == EventKind.DISCARD:
        return kind, who, None
    return None


class NoSearch(ValueError):
    """Why the entrant has no state to search at a decision; it then plays a random legal action and logs this."""


class _Seat:
    def __init__(self, seat: int, players: int, ruleset: str, deal_cap: int):
        self.seat, self.players, self.ruleset, self.deal_cap = seat, players, ruleset, deal_cap
        self.events: list[tuple] = []   # this deal's, as the engine's (kind, seat, data)


class OpenSpielEntrant(Bot):
    """A :class:`pepper_bot.Bot` whose decisions come from an OpenSpiel bot searching a sampled deal."""

    wants_events = True

    def __init__(self, bot: str = "ismcts", simulations: int = SIMULATIONS, seed: int | None = None,
                 name: str | None = None, rollout: str = "playout", uct_c: float = UCT_C):
        if bot not in BOTS:
            raise ValueError(f"unknown OpenSpiel bot {bot!r}: expected one of {', '.join(BOTS)}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}: expected one of {', '.join(ROLLOUTS)}")
        self.kind, self.simulations, self.uct_c = bot, simulations, uct_c
        self.name = name or f"openspiel-{bot}"
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(self.rng.randrange(1 << 31))
        self.evaluator = (PlayoutEvaluator(self.np_rng) if rollout == "playout"
                          else mcts.RandomRolloutEvaluator(1, self.np_rng))
        self.games: dict[str, _Seat] = {}
        self._search: dict[tuple[str, int, bool], object] = {}   # (ruleset, players, race) -> the one-deal game
        self._pace: dict[tuple[str, int, str, int], float] = {}   # (..., phase, cards held) -> s a simulation, lately
        self.decisions = self.fallbacks = 0   # decisions asked, and those played at random (logged)
        self.searches = self.simulated = 0     # decisions searched, and the simulations they ran
        self.playouts = self.overtime = 0      # decisions given the play-out's action: no time to search, or
        #                                        a search past 80% of the deadline (playout.SearchOvertime)

    # -- SDK hooks ---------------------------------------------------------------
    def on_game_start(self, info: dict) -> None:
        rs = info.get("ruleset", {})
        name = (rs.get("params") or {}).get("extends") or rs.get("name")
        self.games[info["game_id"]] = _Seat(info["seat"], info["players"], name if name in BUILTIN_RULESETS else "",
                                            rs.get("deal_cap") or 0)

    def on_event(self, game_id: str, event: dict) -> None:
        g = self.games.get(game_id)
        e = engine_event(event)
        if g is None or e is None:
            return
        if e[0] == EventKind.DEAL:
            g.events = []
        g.events.append(e)

    def on_game_end(self, game_id: str, result: dict) -> None:
        self.games.pop(game_id, None)

    def decide(self, view: dict) -> str:
        legal = view["legal_actions"]
        self.decisions += 1
        if len(legal) == 1:   # nothing to search
            return legal[0]
        try:
            state = self.search_state(view)
        except NoSearch as e:
            return self._fallback(legal, str(e))
        g, game = self.games[view["game_id"]], state.get_game()
        # Simulations within the time: at most --simulations, and what fits 40% of the decision's deadline
        # (at most 1 s) at the pace of earlier searches at the same point of a deal (a simulation from the
        # auction plays the whole deal out, one from the last trick a card a seat), else the slowest pace seen.
        key = (g.ruleset, g.players, view["phase"], len(view["hand"]))
        deadline = view.get("deadline_ms") or 2000
        budget = min(1.0, 0.4 * deadline / 1000)
        pace = self._pace.get(key)
        sims = max(4, min(self.simulations, int(budget / (pace or max(self._pace.values(), default=FIRST_PACE)))))
        if sims < SEARCH_FLOOR * len(legal) and isinstance(self.evaluator, PlayoutEvaluator):
            # Too short a search to tell the actions apart (each is tried once first, the most tried wins): the
            # play-out's own action rather than a random one among equals.
            self.playouts += 1
            return str(ACTIONS[playout_action(state.engine, self.np_rng)])
        start = time.perf_counter()
        if isinstance(self.evaluator, PlayoutEvaluator):   # a machine that stalls: stop at 80% of the deadline
            self.evaluator.stop_at = start + 0.8 * deadline / 1000
        try:
            action = self._bot(game, g.seat, sims).step(state)
        except SearchOvertime as e:
            self.overtime += 1
            log.info("playing the play-out's action: %s", e)
            return str(ACTIONS[playout_action(state.engine, self.np_rng)])
        took = time.perf_counter() - start
        self.searches, self.simulated = self.searches + 1, self.simulated + sims
        self._pace[key] = took / sims if pace is None else 0.7 * pace + 0.3 * took / sims
        return str(ACTIONS[action])

    # -- the search ----------------------------------------------------------------
    def search_state(self, view: dict) -> PepperState:
        """The state the search starts from at ``view``'s decision: a deal the seat cannot tell from the real
        one (:func:`sample.sample_deal`), at the game's dealer, scores and target, in a one-deal ``python_pepper``
        game. Its returns are the game's result if the deal ends the game, else, before the game's last deal,
        the race to the target from the scores after the deal (``returns="race"``). Raises :class:`NoSearch`."""
        g = self.games.get(view.get("game_id", ""))
        if g is None:   # a view without its game start: nothing to search from
            raise NoSearch("no game start for this view")
        if not g.ruleset:
            raise NoSearch(f"ruleset {view.get('ruleset')!r} has no built-in base to search")
        game = self._game(g.ruleset, g.players, race=not g.deal_cap or view["deal"] < g.deal_cap)
        state = self._sample(game, g, view)
        if state is None:
            raise NoSearch("no sampled deal agrees with the events")
        if sorted(str(ACTIONS[a]) for a in state.legal_actions()) != sorted(view["legal_actions"]):
            raise NoSearch("the search game's legal actions differ from the view's")
        return state

    def _fallback(self, legal: list[str], why: str) -> str:
        self.fallbacks += 1
        log.warning("playing a random legal action: %s", why)
        return self.rng.choice(legal)

    def _game(self, ruleset: str, players: int, race: bool):
        key = (ruleset, players, race)
        if key not in self._search:
            self._search[key] = pyspiel.load_game(SHORT_NAME, {"ruleset": ruleset, "players": players, "deal_cap": 1,
                                                               "returns": "race" if race else "result"})
        return self._search[key]

    def _bot(self, game, seat: int, simulations: int):
        if self.kind == "random":
            return pyspiel.make_uniform_random_bot(seat, self.rng.randrange(1 << 31))
        # With the play-out's prior, PUCT: a short search keeps to the play-out's action unless another does better.
        puct = isinstance(self.evaluator, PlayoutEvaluator)
        if self.kind == "mcts":
            return mcts.MCTSBot(game, self.uct_c, simulations, self.evaluator, random_state=self.np_rng,
                                child_selection_fn=mcts.SearchNode.puct_value if puct else mcts.SearchNode.uct_value)
        policy = ismcts.ChildSelectionPolicy.PUCT if puct else ismcts.ChildSelectionPolicy.UCT
        return ismcts.ISMCTSBot(game, self.evaluator, self.uct_c, simulations, random_state=self.np_rng,
                                child_selection_policy=policy)

    def _sample(self, game, g: _Seat, view: dict):
        """The search's state: a deal the seat cannot tell from this one, at the game's dealer, scores and target."""
        spec, dealer, scores, target = game.spec, view["dealer"], list(view["scores"]), view["target_score"]
        hand, played, unseen = deal_facts(g.events, g.seat, spec.table.team_of)
        actions = deal_actions(g.events, g.seat, spec.table.bid_names_strain)
        gave = [e[2] for e in g.events if e[0] == EventKind.GAVE_CARD and e[1] == g.seat]
        received = [e[2] for e in g.events if e[0] == EventKind.RECEIVED_CARD and e[1] == g.seat]
        try:
            engine = sample_deal(spec.table, lambda deck: Game(spec.ruleset, spec.players, decks=[deck], first_dealer=dealer,
                                                                scores=scores, target_score=target),
                                 g.seat, dealer, hand, actions, played, gave, received, self.rng, unseen=unseen,
                                 shown=shown_events(g.events), widow=taken_widow(g.events, g.seat),
                                 voids=deal_voids(g.events, g.seat))
        except (RulesError, ValueError) as e:
            log.warning("sampling the deal failed: %s", e)
            return None
        return None if engine is None else game.state_from(engine)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pepper_spiel.entrant",
                                 description="Play in the arena with an OpenSpiel bot searching the current deal.")
    ap.add_argument("--bot", choices=BOTS, default="ismcts", help="which OpenSpiel bot (default: ismcts)")
    ap.add_argument("--simulations", type=int, default=SIMULATIONS,
                    help=f"ismcts and mcts: the most simulations a decision runs (default {SIMULATIONS}; "
                         "40%% of the decision's deadline, at most 1 s, bounds them first)")
    ap.add_argument("--rollout", choices=ROLLOUTS, default="playout",
                    help="how a simulation finishes the deal: playout (plain card sense) or random (default playout)")
    ap.add_argument("--uct-c", type=float, default=UCT_C, help=f"the search's exploration constant (default {UCT_C})")
    ap.add_argument("--seed", type=int, default=None, help="the random seed of the sampling and the search")
    add_connection_args(ap)
    a = ap.parse_args(argv)
    bot = OpenSpielEntrant(a.bot, a.simulations, a.seed, rollout=a.rollout, uct_c=a.uct_c)
    return run_bot(bot, a.referee, a.token, a.name, a.max_batch, tls_ca=a.tls_ca, log_level=a.log_level,
                   give_up_after=a.give_up_after)


if __name__ == "__main__":
    sys.exit(main())
