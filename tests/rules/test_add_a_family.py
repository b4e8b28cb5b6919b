"""Adding a family, step by step, with a toy registered here alone: iowa where a deal everyone passes is bid
round once more before it is thrown in.

The steps are the recipe's (the families package's docstring): a Rules subclass that overrides the hooks
where its rules differ, a DealState for what its hooks keep within a deal, registration, a ruleset naming it;
then games are played through the public Game API alone. Also: the family modules use the game's family
interface, never its underscored attributes.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import pickle
import random
from pathlib import Path

import pytest

from referee.rules import BUILTIN_RULESETS, Game, Phase
from referee.rules.actions import PASS
from referee.rules.families import FAMILIES, FAMILY_MODULES, DealState, register, rules_of
from referee.rules.families.iowa import IowaDeal, IowaRules
from referee.rules.rulesets import Ruleset

NAME = "iowa-twice"


# Step 1: the family's rules, a Rules subclass overriding what differs (here the auction's end).
class TwiceDeal(IowaDeal):
    """Step 2: what the family's hooks keep within a deal: the bidding circuits completed (and, a variant of
    iowa, iowa's own state, which its hooks read)."""

    __slots__ = ("circuits",)

    def __init__(self) -> None:
        super().__init__()
        self.circuits = 0


class TwiceRules(IowaRules):
    """Iowa, but a deal everyone passes is bid round once more before it is thrown in."""

    family = NAME

    def deal_state(self, g: Game) -> TwiceDeal:
        return TwiceDeal()

    def next_bidder(self, g: Game, seat: int, passed: bool) -> int | None:
        st = g.family_state
        if len(g.bids) == g.players * (st.circuits + 1):   # a circuit is complete
            if g.high_bidder is not None or st.circuits == 1:
                return None
            st.circuits += 1
        return (seat + 1) % g.players


@pytest.fixture
def twice(monkeypatch):
    """Steps 3 and 4: register the rules, and a ruleset naming the family (as a built-in, so that records replay)."""
    register(TwiceRules())
    rs = dataclasses.replace(BUILTIN_RULESETS["iowa"], name=NAME, family=NAME, _tables={},
                             description="Iowa Pepper, bid round twice before a throw-in.")
    monkeypatch.setitem(BUILTIN_RULESETS, NAME, rs)
    yield rs
    del FAMILIES[NAME]


def _pass_round(g: Game) -> None:
    for _ in range(g.players):
        g.apply(PASS)


def test_the_toy_family_changes_its_one_rule(twice):
    assert rules_of(NAME) is FAMILIES[NAME] and twice.family == NAME
    iowa, toy = Game("iowa", seed=4), Game(NAME, seed=4)
    assert toy.hands == iowa.hands and toy.to_act == iowa.to_act   # the same deal: only the auction differs
    _pass_round(iowa)
    _pass_round(toy)
    assert iowa.deals[0].thrown_in and iowa.deal_number == 2
    assert not toy.deals and toy.phase is Phase.BID and toy.to_act == (toy.dealer + 1) % 4
    assert toy.family_state.circuits == 1
    bid = next(a for a in toy.legal_actions() if a != PASS)
    toy.apply(bid)
    for _ in range(3):
        toy.apply(PASS)
    assert toy.contract is not None and toy.contract.bid == bid.bid_name and toy.phase is Phase.NAME_TRUMP
    fresh = Game(NAME, seed=4)
    _pass_round(fresh)
    _pass_round(fresh)
    assert fresh.deals[0].thrown_in and fresh.deal_number == 2 and fresh.family_state.circuits == 0


def test_the_family_state_is_per_deal_and_copied_with_the_game(twice):
    g = Game(NAME, seed=7)
    _pass_round(g)
    for other in (g.copy(), pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert isinstance(other.family_state, DealState) and type(other.family_state) is TwiceDeal
        assert other.family_state == g.family_state
        assert other.family_state is not g.family_state
        _pass_round(other)
        assert other.deals[0].thrown_in and g.family_state.circuits == 1 and not g.deals
    _pass_round(g)
    assert g.family_state.circuits == 0   # a new deal, a new state


def test_games_of_the_toy_family_play_to_the_end_and_replay(twice):
    for seed in range(6):
        rng = random.Random(seed)
        g = Game(NAME, seed=seed, deal_cap=30)
        while not g.is_over:
            g.apply(rng.choice(g.legal_action_ids()))
        assert g.outcome is not None and sum(d.thrown_in for d in g.deals) < len(g.deals)
        again = Game.from_record(g.record())
        assert again.ruleset.family == NAME and again.deals == g.deals and again.outcome == g.outcome
        assert again.view(0) == g.view(0)


def test_a_family_name_is_registered_once_and_a_ruleset_names_a_registered_family(twice):
    with pytest.raises(ValueError, match="already registered"):
        register(TwiceRules())
    with pytest.raises(ValueError, match="not a registered family"):
        rules_of("iowa-thrice")
    from referee.rules.errors import RulesetError

    with pytest.raises(RulesetError, match="unknown family 'iowa-thrice'"):
        Ruleset(name="x", family="iowa-thrice", description="", player_counts=(4,), target_score=42)


def test_family_modules_use_the_family_interface_not_the_games_underscored_attributes():
    # A hook reads and changes its game through the family interface (families/base.py's docstring); an underscored
    # attribute of the game is the game's own, which it may rename or compile away.
    folder = Path(rules_of("iowa").__module__.replace(".", "/")).parent
    root = Path(__file__).resolve().parents[2]
    for name in ("base", *FAMILY_MODULES):
        tree = ast.parse((root / folder / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "g":
                assert not node.attr.startswith("_"), f"{name}.py line {node.lineno}: g.{node.attr}"
