"""The OpenSpiel bridge: OpenSpiel's own checks, hidden information, and OpenSpiel's search bots playing it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.observation import make_observation

import pepper_spiel  # noqa: F401  (registers python_pepper)
from pepper_spiel.game import FIRST_DEALER
from referee.rules import CARDS

CONFIGS = [("iowa", 4), ("bid-euchre", 4), ("bid-euchre", 6), ("bid-euchre", 8), ("pepper-30", 2), ("pepper-30", 3),
           ("pepper-30", 4), ("five-handed", 5)]


def test_load_game_as_documented():
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa"})
    assert game.num_players() == 4
    assert game.get_type().short_name == "python_pepper"
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 4   # the first dealer


@pytest.mark.parametrize("ruleset,players", CONFIGS)
def test_openspiel_random_simulation_and_serialization(ruleset, players):
    # One deal per game keeps it to a fraction of a second; OpenSpiel checks every state on the way
    # (legal actions, chance outcomes, clones, strings and tensors for every seat, serialize/deserialize).
    game = pyspiel.load_game("python_pepper", {"ruleset": ruleset, "players": players, "deal_cap": 1})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_several_deals_deal_their_own_decks_with_chance_nodes():
    game = pyspiel.load_game("python_pepper", {"ruleset": "pepper-30", "players": 3, "deal_cap": 3})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state, rng = game.new_initial_state(), np.random.RandomState(3)
    chance = 0
    while not state.is_terminal():
        if state.is_chance_node():
            chance += 1
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert len(state.decks) == state.engine.deal_number == 3
    assert chance <= 1 + 3 * 24
    assert sorted(state.returns()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [-1.0, 1.0, 1.0])


def test_bad_parameters_are_refused_with_what_is_allowed():
    with pytest.raises(Exception, match="unknown ruleset 'euchre'"):
        pyspiel.load_game("python_pepper", {"ruleset": "euchre"})
    with pytest.raises(Exception, match="not played by 5 players"):
        pyspiel.load_game("python_pepper", {"ruleset": "iowa", "players": 5})


_TOKEN = re.compile(r"[0-9A-Za-z]+")
_CARD_TEXT = {str(c) for c in CARDS}


def _unknown_to(state, seat: int) -> set[str]:
    """Cards another seat (or the widow, or the dead hand) holds that ``seat`` has no way to know."""
    g = state.engine
    v = g.view(seat)
    known = {str(c) for c in v.hand} | {str(c) for cards in v.private.values() for c in cards}
    full = g.full_state()
    hidden = {c for s, h in enumerate(full["hands"]) if s != seat for c in h}
    hidden |= set(full["dead_hand"]) | (set() if "widow" in v.private else set(full["widow"]))
    return hidden - known


@pytest.mark.parametrize("ruleset,players", [("iowa", 4), ("pepper-30", 3), ("pepper-30", 2)])
def test_no_seat_sees_another_seats_cards(ruleset, players):
    # Decks without copies, so that a card's text names one card. Checked at every decision of two deals,
    # for every seat: the information-state string, the observation string, and each card-carrying piece
    # of the tensor.
    game = pyspiel.load_game("python_pepper", {"ruleset": ruleset, "players": players, "deal_cap": 2})
    obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    state, rng, checked = game.new_initial_state(), np.random.RandomState(11), 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        for seat in range(players):
            hidden = _unknown_to(state, seat)
            # The information state from the current deal's first line on (earlier deals' hands are known).
            info = state.information_state_string(seat)
            this_deal = info[info.rindex("\ndeal "):]
            for text in (this_deal, state.observation_string(seat)):
                assert not hidden & set(_TOKEN.findall(text)), (seat, hidden & set(_TOKEN.findall(text)))
            obs.set_from(state, seat)
            for piece in ("hand", "private", "trick", "tricks", "partner_card"):
                cards = {str(CARDS[c]) for c in np.nonzero(obs.dict[piece].reshape(-1, 24))[1]}
                assert not cards & hidden, (piece, cards & hidden)
            checked += bool(hidden)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 20


def test_information_state_is_the_same_for_every_deal_of_the_hidden_cards():
    # Two games whose decks differ only in the cards seat 0 does not hold: seat 0's strings and tensor agree.
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1})
    a, b = game.new_initial_state(), game.new_initial_state()
    for s in (a, b):
        s.apply_action(FIRST_DEALER + 3)   # seat 3 deals: seat 0 receives positions 0, 4, 8...
    deck = list(range(24))
    other = deck[:]
    other[1], other[2] = other[2], other[1]    # positions 1 and 2: seats 1 and 2
    for c in deck:
        if not a.is_chance_node():
            break
        a.apply_action(c)
    for c in other:
        if not b.is_chance_node():
            break
        b.apply_action(c)
    assert a.engine.view(0).hand == b.engine.view(0).hand and a.engine.view(1).hand != b.engine.view(1).hand
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.information_state_tensor(0) == b.information_state_tensor(0)
    assert a.information_state_string(1) != b.information_state_string(1)


def test_mcts_and_ismcts_bots_play_a_deal():
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1})
    rng = np.random.RandomState(5)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bots = [mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=rng),
            ismcts.ISMCTSBot(game, evaluator, 2.0, 8, random_state=rng)]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            bot = bots[state.current_player() % 2]
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert sorted(state.returns()) in ([-1.0, -1.0, 1.0, 1.0], [0.0] * 4)


@pytest.mark.parametrize("ruleset,players", CONFIGS)
def test_deal_receivers_match_the_engines_deal(ruleset, players):
    from pepper_spiel.sample import DEAD, WIDOW, deal_receivers
    from referee.rules import Game

    rng = np.random.RandomState(2)
    for dealer in range(players):
        g = Game(ruleset, players, seed=int(rng.randint(1 << 30)), first_dealer=dealer)
        deck = g.decks_dealt[0]
        got: dict[int, list[int]] = {}
        for pos, r in enumerate(deal_receivers(g.table, dealer)):
            got.setdefault(r, []).append(deck[pos])
        full = g.full_state()
        for s in range(players):
            assert got[s] == list(g.view(s).hand) or sorted(got[s]) == sorted(int(c) for c in g.view(s).hand)
        assert sorted(str(CARDS[c]) for c in got.get(WIDOW, [])) == sorted(full["widow"])
        assert sorted(str(CARDS[c]) for c in got.get(DEAD, [])) == sorted(full["dead_hand"])


@pytest.mark.parametrize("ruleset,players", [("iowa", 4), ("five-handed", 5), ("bid-euchre", 6)])
def test_resampled_states_keep_what_the_seat_knows(ruleset, players):
    # IS-MCTS asserts this at every search: the same information state, the same legal actions.
    game = pyspiel.load_game("python_pepper", {"ruleset": ruleset, "players": players, "deal_cap": 2})
    state, rng = game.new_initial_state(), np.random.RandomState(4)
    differ = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        seat = state.current_player()
        other = state.resample_from_infostate(seat, rng.uniform)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.legal_actions() == state.legal_actions()
        differ += str(other) != str(state)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert differ > 5   # the other seats' cards were drawn anew


def test_a_resampled_state_deals_the_next_deal_from_its_own_decks_and_actions():
    # five-handed: the bidder's discards are hidden from the others, so a resample redraws them; at each
    # deal's last action every seat's resampled state plays on into the next deal (the real discards
    # would not replay on the drawn deck).
    game = pyspiel.load_game("python_pepper", {"ruleset": "five-handed", "deal_cap": 2})
    redealt = 0
    for seed in (6, 12):   # seeds where a redrawn discard differs from the real one and matters
        state, rng = game.new_initial_state(), np.random.RandomState(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            after = state.clone()
            after.apply_action(after.legal_actions()[0])
            if after.is_chance_node():
                for seat in range(5):
                    other = state.resample_from_infostate(seat, rng.uniform)
                    other.apply_action(other.legal_actions()[0])
                    while other.is_chance_node():
                        other.apply_action(other.chance_outcomes()[0][0])
                    redealt += other.engine.deal_number == 2
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert redealt >= 5


def _play_out(state, rng):
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_five_handed_one_deal_games_separate_the_bidders_side_from_the_defenders():
    """The bidder and the called partner score alike, so the engine calls every one-deal game a draw; the returns
    still say which side won the deal: +1 for the seats with the top score, -1 for the others."""
    game = pyspiel.load_game("python_pepper", {"ruleset": "five-handed", "deal_cap": 1})
    rng = np.random.RandomState(11)
    for _ in range(12):
        state = _play_out(game.new_initial_state(), rng)
        o = state.engine.outcome
        scores = [o.scores[state.engine.table.team_of[s]] for s in range(5)]
        assert state.returns() == [1.0 if x == max(scores) else -1.0 for x in scores], (scores, state.returns())
        assert sorted(set(state.returns())) == [-1.0, 1.0], scores   # never all zero: one side scored more
        assert o.draw   # as the engine has it: the top score is shared


def test_a_deal_cap_tie_between_teams_is_still_a_draw():
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1})
    rng = np.random.RandomState(5)
    for _ in range(20):
        state = _play_out(game.new_initial_state(), rng)
        o = state.engine.outcome
        if o.draw:
            assert len(set(o.scores)) == 1 and state.returns() == [0.0] * 4
        else:
            assert sorted(state.returns()) == [-1.0, -1.0, 1.0, 1.0]


@pytest.mark.slow
def test_openspiels_checks_on_whole_games_where_docs_research_says_they_finish():
    """docs/research.md: on whole games random_sim_test finishes only for five-handed, because uniform random play
    runs the other rulesets to their deal cap (and the test's cost grows with the square of the deals)."""
    import random

    from referee.rules import Game, get_ruleset

    doc = " ".join((Path(__file__).parents[2] / "docs" / "research.md").read_text().split())
    assert "On whole games they finish only for five-handed" in doc and "runs to the 200-deal cap" in doc
    for ruleset, players in [("iowa", 4), ("bid-euchre", 4), ("pepper-30", 4), ("five-handed", 5)]:
        deals = []
        for seed in range(8):
            g, rng = Game(ruleset, players, seed=seed), random.Random(seed)
            while not g.is_over:
                g.apply(rng.choice(g.legal_actions()))
            deals.append(g.deal_number)
        cap = get_ruleset(ruleset).deal_cap
        if ruleset == "five-handed":
            assert max(deals) < 40, deals
        else:
            assert cap == 200 and sorted(deals)[len(deals) // 2] == cap, (ruleset, deals)
    game = pyspiel.load_game("python_pepper", {"ruleset": "five-handed"})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_the_first_dealers_chance_action_is_labelled_as_such_anywhere_in_the_history():
    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1})
    state = game.new_initial_state()
    first = state.chance_outcomes()[2][0]
    state.apply_action(first)
    state = _play_out(state, np.random.RandomState(2))
    chance = pyspiel.PlayerId.CHANCE
    assert state.action_to_string(chance, state.history()[0]) == "first dealer 2"
    assert state.engine.first_dealer == 2
    labels = [state.action_to_string(chance, pa.action) for pa in state.full_history()[1:] if pa.player == chance]
    assert labels and all(x.startswith("deal ") for x in labels), labels
    assert [x.split()[1] for x in labels] == [str(CARDS[c]) for c in state.decks[0][:len(labels)]], labels


@pytest.mark.parametrize("perfect_recall", [False, True])
def test_an_observer_for_all_players_shows_every_seats_cards(perfect_recall):
    game = pyspiel.load_game("python_pepper", {"ruleset": "five-handed", "deal_cap": 1})
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    everyone = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=perfect_recall, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))
    mine = make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=perfect_recall, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    everyone.set_from(state, 0)
    mine.set_from(state, 0)
    hands = [state.engine.view(s).hand for s in range(5)]
    for s, hand in enumerate(hands):
        assert everyone.dict["hand"][s].sum() == len(hand) == 9
        assert all(everyone.dict["hand"][s][c] >= 1 for c in hand)
    assert (everyone.dict["hand"][0] == mine.dict["hand"]).all()
    text = everyone.string_from(state, 0)
    for hand in hands:
        assert all(str(CARDS[c]) in text for c in hand), text
    assert not any(str(CARDS[c]) in mine.string_from(state, 0) for c in set(hands[1]) - set(hands[0]))


def test_race_returns_value_a_deal_by_the_games_score():
    from pepper_spiel.game import race_returns
    assert race_returns((0, 0), 42, (0, 1, 0, 1)) == [0.0] * 4
    early, late = race_returns((6, 0), 42, (0, 1)), race_returns((36, 30), 42, (0, 1))
    assert 0 < early[0] < late[0] < 1 and early[1] == -early[0]   # six points matter more near the target
    assert race_returns((41, -20), 42, (0, 1))[0] > 0.95
    with pytest.raises(ValueError, match="unknown returns 'points': expected one of result, race"):
        pyspiel.load_game("python_pepper", {"returns": "points"})


def test_a_one_deal_race_game_from_the_real_scores_returns_the_games_stakes():
    # The same deck and the same play from three scores: the deal's returns follow the game's score, and a
    # deal that takes a team to the target is a whole game's result (+1/-1), not the race value.
    from pepper_spiel.game import race_returns
    from pepper_spiel.playout import playout_action
    from referee.rules import Game
    from referee.rules.actions import PASS

    race = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1, "returns": "race"})
    result = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 1})
    team_of, rng, ended = race.table.team_of, np.random.RandomState(0), 0
    for seed in range(6):
        deck = list(Game("iowa", 4, seed=seed).decks_dealt[0])
        returns = {}
        for scores in ((0, 0), (30, 0), (0, 30), (40, 40)):
            state = race.state_from(Game(race.ruleset, 4, decks=[deck], first_dealer=0, scores=list(scores), target_score=42))
            assert list(state.engine.scores) == list(scores)
            state.apply_action(min(a for a in state.legal_actions() if a != PASS))   # a contract: bid 1
            while not state.is_terminal():
                state.apply_action(playout_action(state.engine, rng))
            o = state.engine.outcome
            if o.reason == "target":
                ended += 1
                assert state.returns() == [1.0 if s in o.winning_seats else -1.0 for s in range(4)]
            else:
                assert state.returns() == race_returns(o.scores, 42, team_of)
            returns[scores] = state.returns()
        assert len({tuple(r) for r in returns.values()}) > 1, returns
        zero = result.state_from(Game(result.ruleset, 4, decks=[deck], first_dealer=0))
        zero.apply_action(min(a for a in zero.legal_actions() if a != PASS))
        while not zero.is_terminal():
            zero.apply_action(playout_action(zero.engine, rng))
        assert set(zero.returns()) <= {-1.0, 0.0, 1.0}   # the default: the deal cap ends a game, the leader wins
    assert ended > 0   # from 40-40 every made or set deal ends the game


def test_a_state_from_a_real_game_keeps_its_scores_and_target_through_resampling_and_later_deals():
    # IS-MCTS redraws the hidden cards at every simulation, and a longer horizon deals the next deals:
    # each engine rebuilt on the way starts at the real game's scores and target, as the root did.
    from referee.rules import Game

    game = pyspiel.load_game("python_pepper", {"ruleset": "iowa", "deal_cap": 3, "returns": "race"})
    state = game.state_from(Game(game.ruleset, 4, seed=4, scores=[25, -6], target_score=50))
    state.apply_action(state.legal_actions()[0])
    rng = np.random.RandomState(4)
    other = state.resample_from_infostate(1, rng.rand)
    assert other.engine.decks_dealt != state.engine.decks_dealt
    assert (other.engine.start_scores, other.engine.target_score) == ((25, -6), 50)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[0])
    assert (state.engine.start_scores, state.engine.target_score) == ((25, -6), 50)
    assert state.engine.deal_number > 1 or state.engine.outcome.reason == "target"
