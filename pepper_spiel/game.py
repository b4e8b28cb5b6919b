"""Pepper as an OpenSpiel game: ``python_pepper``, a pyspiel Python game over the rules engine.

Parameters: ``ruleset`` (a built-in name, default ``iowa``), ``players`` (0: the
ruleset's default count), ``deal_cap`` (0: the ruleset's own; a smaller cap
makes short games, e.g. 1 for a single deal) and ``returns`` (``result`` or
``race``, below). The engine (:mod:`referee.rules`) decides everything; this
module only maps its states to OpenSpiel's.

Chance. The first dealer is one chance node (uniform over the seats, outcomes
``FIRST_DEALER + seat``, after the cards' ids); then
every deal's deck is dealt one chance node per card, in deck order: the outcome
is the next card, with probability (copies left) / (cards left), so a deal has
at most as many chance nodes as the deck has cards and each has at most 24
outcomes. Once one distinct card is left, the rest of the deck is filled in
without asking. The complete deck goes to the engine (``Game(decks=...)``),
which deals it by its own rules (widow, dead hand) and keeps the record.

Returns: +1 for every seat of a winning team, -1 for every other seat. A game
the deal cap ends with the top score shared (five-handed: the bidder and the
called partner score alike, so every one-deal game) gives +1 to each seat with
the top score and -1 to the others; 0 to all only when every team scored alike.
With ``returns="race"`` the deal cap is a search horizon instead, not the end of
a game: a game it ends before a team reaches the target returns each seat its
team's chance in the race to the target (:func:`race_returns`), so that a
search of one deal from the real game's scores (:meth:`PepperGame.state_from`)
values the deal's points as the game's score makes them matter.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import NamedTuple

import pyspiel

from referee.rules import ACTIONS, BUILTIN_RULESETS, CARDS, EventKind, Game, Ruleset, Table, get_ruleset, ruleset_from_dict
from referee.rules.actions import N_ACTIONS

from .observation import PepperObserver
from .sample import deal_facts, deal_voids, sample_deal, shown_events, taken_widow

__all__ = ["GAME_TYPE", "PepperGame", "PepperState", "RETURNS", "SHORT_NAME", "race_returns"]

SHORT_NAME = "python_pepper"
DEFAULTS = {"ruleset": "iowa", "players": 0, "deal_cap": 0, "returns": "result"}
RETURNS = ("result", "race")   # the deal cap ends the game (the leader wins), or is a search's horizon
# The first dealer's chance outcomes come after the cards' (FIRST_DEALER + seat), so that an action of the
# history names its chance node by itself: "first dealer 2", never "deal JS".
FIRST_DEALER = len(CARDS)

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Pepper (Pepper Arena rules engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,   # two teams: zero-sum; pepper-30 with 3 seats: not
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=8,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULTS,
)



class _Spec(NamedTuple):
    ruleset: Ruleset
    players: int
    table: Table
    race: bool   # returns="race"

    def __deepcopy__(self, memo) -> _Spec:
        # pyspiel's clone() deep-copies a Python state's attributes one by one (not through the state's
        # __deepcopy__): the configuration is immutable and shared, and copying its ruleset took most of a clone.
        return self


def race_returns(scores: tuple[int, ...] | list[int], target: int, team_of: tuple[int, ...]) -> list[float]:
    """Each seat's value of a game stopped short of its end at ``scores`` (one per team): ``2 p - 1``, ``p`` its
    team's chance in the race to ``target``.

    A team ``d`` points from the target gets weight ``1/d`` (``d`` at least 1) and ``p`` is its share of the
    weights: even scores are even chances, and a point matters more the closer the teams are to the target
    (of 42: 6 to 0 is worth 0.08, 36 to 30 is 0.33, 40 to 0 is 0.91). The scale of a game's result (+1 a win,
    -1 a loss), so a deal that ends the game outweighs any that does not."""
    weights = [1.0 / max(target - s, 1) for s in scores]
    total = sum(weights)
    return [2.0 * weights[t] / total - 1.0 for t in team_of]


class PepperGame(pyspiel.Game):
    """One configuration of Pepper: a ruleset, a player count and a deal cap."""

    def __init__(self, params=None):
        p = {**DEFAULTS, **(params or {})}
        name = p["ruleset"]
        if p["returns"] not in RETURNS:
            raise ValueError(f"python_pepper: unknown returns {p['returns']!r}: expected one of {', '.join(RETURNS)}")
        if name not in BUILTIN_RULESETS:
            raise ValueError(f"python_pepper: unknown ruleset {name!r}: expected one of {', '.join(BUILTIN_RULESETS)}")
        rs = get_ruleset(name)
        if p["deal_cap"]:
            rs = ruleset_from_dict({"extends": name, "name": f"{name}-cap{p['deal_cap']}", "deal_cap": int(p["deal_cap"])},
                                   source="python_pepper deal_cap")
        n = int(p["players"]) or rs.default_players
        table = rs.table(n)   # RulesetError (a ValueError) for a count the ruleset is not played by
        self.ruleset, self.players, self.table = rs, n, table
        self.spec = _Spec(rs, n, table, p["returns"] == "race")
        # A generous bound on decisions per deal: every bid turn of the longest auction, trump, the exchange
        # and cede questions, discards, and every card played.
        per_deal = (len(table.ladder) + 2) * n + 1 + 3 * n + table.widow_size + 2 + table.hand_size * n
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS, max_chance_outcomes=FIRST_DEALER + 8, num_players=n,
            min_utility=-1.0, max_utility=1.0, utility_sum=None, max_game_length=rs.deal_cap * per_deal)
        super().__init__(GAME_TYPE, info, {"ruleset": name, "players": n, "deal_cap": int(p["deal_cap"]),
                                           "returns": p["returns"]})

    def new_initial_state(self) -> PepperState:
        return PepperState(self)

    def state_from(self, engine: Game) -> PepperState:
        """A state over a copy of ``engine``, a game of this game's ruleset in its first deal, dealt from
        ``decks=``: how a search starts from a deal sampled outside OpenSpiel (the arena entrant). The
        engine may start at a real game's scores and target (``Game(scores=..., target_score=...)``): the
        returns are then that game's, as far as this game's deal cap reaches."""
        if engine.deal_number != 1 or engine.ruleset != self.spec.ruleset or engine.players != self.players:
            raise ValueError("state_from takes a game of this game's ruleset and players, in its first deal")
        state = PepperState(self)
        state.first_dealer, state.decks = engine.first_dealer, list(engine.decks_dealt)
        state.actions, state.engine, state.dealing, state._left = list(engine.history), engine.copy(), False, None
        state.start = {"scores": list(engine.start_scores), "target_score": engine.target_score}
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> PepperObserver:
        if params:
            raise ValueError(f"python_pepper observers take no parameters; got {params}")
        return PepperObserver(self, iig_obs_type)


class PepperState(pyspiel.State):
    """A game in progress: the engine's :class:`Game` plus the chance nodes that deal it."""

    def __init__(self, game: PepperGame):
        super().__init__(game)
        self._spec = game.spec   # a plain object: OpenSpiel may hand a state a fresh wrapper of its game
        self.first_dealer: int | None = None
        self.start: dict = {}   # Game's scores and target_score where a state_from game starts mid-way (replays)
        self.decks: list[tuple[int, ...]] = []   # the decks of the deals dealt so far
        self._deck: list[int] = []                # the deck being dealt
        self._left: Counter | None = Counter(game.table.deck)   # cards not yet dealt of it (None: no deal dealing)
        self.actions: list[int] = []              # the seats' actions, in order
        self.engine: Game | None = None
        self.dealing = True
        self.cut = 0   # while dealing: the engine's events before this index are the finished deals'
        self.deal_start = 0   # index in actions of the current deal's first action

    # -- OpenSpiel API -----------------------------------------------------------
    def current_player(self) -> int:
        if self.dealing:
            return pyspiel.PlayerId.CHANCE
        if self.engine.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.engine.to_act

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.engine.legal_action_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.first_dealer is None:
            n = self._spec.players
            return [(FIRST_DEALER + s, 1.0 / n) for s in range(n)]
        total = sum(self._left.values())
        return [(c, k / total) for c, k in sorted(self._left.items()) if k]

    def _apply_action(self, action: int) -> None:
        if self.dealing:
            self._deal(action)
            return
        g = self.engine
        deals = g.deal_number
        g.apply(action)
        self.actions.append(action)
        if not g.is_over and g.deal_number > deals:
            # The engine started the next deal from its own shuffle: keep it hidden and deal our own.
            self.dealing, self._left = True, Counter(self._spec.table.deck)
            log = g.event_log
            self.cut = next(i for i in range(len(log) - 1, -1, -1) if log[i][0] == EventKind.DEAL)

    def _deal(self, outcome: int) -> None:
        if self.first_dealer is None:
            self.first_dealer = outcome - FIRST_DEALER
            return
        self._deck.append(outcome)
        self._left[outcome] -= 1
        rest = [c for c, k in self._left.items() if k]
        if len(rest) == 1:   # one distinct card left: no choice
            self._deck.extend([rest[0]] * self._left[rest[0]])
            self._left[rest[0]] = 0
        if len(self._deck) < len(self._spec.table.deck):
            return
        self.decks.append(tuple(self._deck))
        self._deck, self._left = [], None   # less for every clone to copy
        self.engine = self._replay()
        self.dealing = False
        self.deal_start = len(self.actions)

    def _replay(self) -> Game:
        """The engine game of our decks and actions (the engine takes decks only when a game is created)."""
        g = Game(self._spec.ruleset, self._spec.players, decks=list(self.decks), first_dealer=self.first_dealer,
                 **self.start)
        for a in self.actions:
            g.apply(a)
        return g

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"first dealer {action - FIRST_DEALER}" if action >= FIRST_DEALER else f"deal {CARDS[action]}"
        return str(ACTIONS[action])

    def is_terminal(self) -> bool:
        return not self.dealing and self.engine.is_over

    def returns(self) -> list[float]:
        n = self._spec.players
        if not self.is_terminal():
            return [0.0] * n
        o = self.engine.outcome
        if self._spec.race and o.reason == "deal-cap":   # the search's horizon, not the game's end
            return race_returns(o.scores, self.engine.target_score, self._spec.table.team_of)
        if not o.draw:
            return [1.0 if s in o.winning_seats else -1.0 for s in range(n)]
        # A draw: the deal cap came with the top score shared. In five-handed the bidder and the called partner
        # score alike, so every one-deal game would be a draw; the seats with the top score beat the others.
        team_of = self._spec.table.team_of
        top = max(o.scores)
        if min(o.scores) == top:
            return [0.0] * n
        return [1.0 if o.scores[team_of[s]] == top else -1.0 for s in range(n)]

    def __str__(self) -> str:
        """Everything, hidden cards included (for debugging; seats see information_state_string)."""
        if self.engine is None:
            return f"first dealer {self.first_dealer}, dealing {' '.join(str(CARDS[c]) for c in self._deck)}"
        head = repr(self.engine)
        if self.dealing:
            return f"{head}\ndealing {' '.join(str(CARDS[c]) for c in self._deck)}"
        hands = self.engine.full_state()["hands"]
        return head + "".join(f"\nseat {s}: {' '.join(h)}" for s, h in enumerate(hands))

    def __deepcopy__(self, memo) -> PepperState:
        # clone(): the engine's own copy() is much cheaper than a deep copy of its log and ruleset.
        other = PepperState.__new__(PepperState)
        pyspiel.State.__init__(other, self.get_game())
        other._spec = self._spec
        other.first_dealer, other.decks, other._deck = self.first_dealer, list(self.decks), list(self._deck)
        other.start = self.start   # never changed once set
        other._left, other.actions = None if self._left is None else Counter(self._left), list(self.actions)
        other.engine = None if self.engine is None else self.engine.copy()
        other.dealing, other.cut, other.deal_start = self.dealing, self.cut, self.deal_start
        return other

    def resample_from_infostate(self, player: int, probability_sampler=None) -> PepperState:
        """A state ``player`` cannot tell from this one: the current deal's hidden cards drawn anew
        (:func:`pepper_spiel.sample.sample_deal`). Earlier deals are kept as they were: they no longer
        bear on the play. Should no draw agree with every play (rare: see sample_deal), a copy of this
        state is returned. (OpenSpiel's ``history()`` of the result is this state's: the engine's record,
        ``state.engine.record()``, is the sampled one.)"""
        if self.dealing:
            return self.clone()
        spec = self._spec
        events = [(e.kind, e.seat, e.data) for _, e in self.engine.events_for(player)]
        hand, played, unseen = deal_facts(events, player, spec.table.team_of)
        private = self.engine.view(player).private
        past = self.decks[:-1]

        def make_game(deck):
            g = Game(spec.ruleset, spec.players, decks=[*past, deck], first_dealer=self.first_dealer, **self.start)
            for a in self.actions[:self.deal_start]:
                g.apply(a)
            return g

        rng = random.Random(int(probability_sampler() * 2**31) if probability_sampler else None)
        g = sample_deal(spec.table, make_game, player, self.engine.dealer, hand, self.actions[self.deal_start:], played,
                        [int(c) for c in private.get("gave", ())], [int(c) for c in private.get("received", ())], rng, unseen=unseen,
                        shown=shown_events(events), widow=taken_widow(events, player), voids=deal_voids(events, player))
        other = self.clone()
        if g is not None:   # its own decks and actions, so that later deals replay from them
            other.engine, other.decks, other.actions = g, [*past, tuple(g.decks_dealt[-1])], list(g.history)
        return other

    # -- what a seat may know ------------------------------------------------------
    def visible_events_of_all(self) -> list[tuple]:
        """Every event some seat has seen, once each, in order: what all the seats know together."""
        if self.engine is None:
            return []
        end = self.cut if self.dealing else self.engine.event_count
        seen = {i: e for s in range(self._spec.players) for i, e in self.engine.events_for(s) if i < end}
        return [(e.kind, e.seat, e.data) for _, e in sorted(seen.items(), key=lambda x: x[0])]

    def visible_events(self, seat: int, public_only: bool = False) -> list[tuple]:
        """The engine events ``seat`` has seen, as (kind, seat, data) (none of a deal still being dealt)."""
        if self.engine is None:
            return []
        end = self.cut if self.dealing else self.engine.event_count
        return [(e.kind, e.seat, e.data) for _, e in self.engine.events_for(seat)
                if _ < end and not (public_only and e.visible_to != -1)]


pyspiel.register_game(GAME_TYPE, PepperGame)
