"""The Monte Carlo bot's simulators reproduce the engine and the heuristic exactly.

The search is a policy improvement over the heuristic only if its play-outs
*are* the heuristic playing by the rules. Each test drives real games with
:class:`~sample_bots.heuristic.HeuristicBot` (its play-phase legal actions
sorted by card, the tie-break the simulators use) and checks that a simulator
started from a position, given the true hands, predicts exactly what the
engine then produced.
"""

from __future__ import annotations

import random

import pytest

from referee.rules import BUILTIN_RULESETS, Game
from sample_bots import HeuristicBot
from sample_bots.auction import AuctionModel, display_sorted, estimates
from sample_bots.bidding import AuctionSim
from sample_bots.dealsim import DealSim
from sample_bots.heuristic import estimate_tricks
from sample_bots.playout import PlayOut
from sample_bots.view import Seen, cid

CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]
H = HeuristicBot()


def _heuristic(view: dict) -> str:
    if view["phase"] == "play":
        view = dict(view)
        view["legal_actions"] = sorted(view["legal_actions"], key=lambda a: cid(a.split()[1]))
    return H.decide(view)


def _level(g: Game, name: str):
    return next(lv for lv in g.table.ladder if lv.name == name)


@pytest.mark.parametrize("name,players", CASES)
def test_playout_reproduces_engine_and_heuristic(name, players):
    rs = BUILTIN_RULESETS[name]
    for seed in range(12):
        g = Game(rs, players, seed=seed)
        rng = random.Random(seed)
        checks = []
        while not g.deals:
            s = g.to_act
            view = g.view(s).to_dict()
            action = _heuristic(view)
            if view["phase"] == "play" and rng.random() < 0.4:
                po = _playout(g, rs, players, view, s)
                assert sorted(set(po.legal(g.hands[s]))) == sorted(set(g.legal_action_ids()))
                checks.append(po.run(po.split(g.hands), [cid(action.split()[1])]))
            g.apply(action)
        for out in checks:
            assert tuple(out.tricks_won) == g.deals[0].tricks and out.partner == g.deals[0].partner



def _playout(g: Game, rs, players: int, view: dict, s: int) -> PlayOut:
    """The play-out of the deal as seat ``s`` sees it in ``view`` (what the montecarlo bot builds)."""
    v = Seen.of(view)
    lv = _level(g, v.bid)
    return PlayOut(family=rs.family, players=players, team_of=g.table.team_of, hand_size=g.table.hand_size,
                   deck_cards=g.table.deck, bidder=v.bidder, trump=v.strain, tricks_needed=lv.tricks, points=lv.points,
                   alone=lv.alone, sitting_out=v.sitting_out, tricks=v.tricks, trick=v.trick,
                   tricks_won=view["tricks_won"], partner_card=v.partner_card, partner=v.partner, seat=s)

@pytest.mark.parametrize("name,players", CASES)
def test_playout_keeps_the_engine_rules_on_random_positions(name, players):
    """Whatever cards are played (at random here), the play-out's legal cards are the engine's, and playing the
    engine's cards from any position of the deal ends it as the engine did: the tricks each seat won and the
    five-handed partner."""
    rs = BUILTIN_RULESETS[name]
    positions = 0
    for seed in range(20):
        g = Game(rs, players, seed=seed)
        rng = random.Random(seed)
        plays, checks = [], []
        while not g.deals:
            s = g.to_act
            view = g.view(s).to_dict()
            legal = list(g.legal_action_ids())
            if view["phase"] == "play":
                po = _playout(g, rs, players, view, s)
                assert sorted(set(po.legal(g.hands[s]))) == sorted(set(legal)), (seed, view)
                checks.append((po, po.split(g.hands), len(plays)))
                plays.append(legal[rng.randrange(len(legal))])
                g.apply(plays[-1])
            else:   # the heuristic's auction: contracts a partnership plays, not mostly random alone bids
                g.apply(_heuristic(view))
        deal = g.deals[0]
        for po, hands, start in checks:
            out = po.run(hands, plays[start:])
            assert (tuple(out.tricks_won), out.partner) == (deal.tricks, deal.partner), (seed, start)
            positions += 1
    assert positions > 100


def test_estimates_match_the_heuristic_bit_for_bit():
    rng = random.Random(3)
    for _ in range(3000):
        hand = display_sorted(rng.sample(list(range(24)) * 2, rng.choice([6, 8, 9])))
        copies = rng.random() < 0.5
        assert estimates(hand, copies) == [estimate_tricks(hand, s, copies) for s in range(5)]


@pytest.mark.parametrize("name,players", CASES)
def test_auction_replays_and_deal_simulation(name, players):
    rs = BUILTIN_RULESETS[name]
    for seed in range(25):
        g = Game(rs, players, seed=seed)
        finishes, dealt, model_checked = [], None, False
        while not g.deals:
            s = g.to_act
            view = g.view(s).to_dict()
            action = _heuristic(view)
            if view["phase"] == "bid":
                sim = AuctionSim(view, rs, g.table)
                infos = [sim.seat_info(h, sim.copies_rule or len(set(h)) < len(h)) for h in g.hands]
                finishes.append(sim.finish(sim.parse(action), infos))
            elif dealt is None:
                dealt = ([list(h) for h in g.hands], list(g.widow))
            if view["phase"] == "play" and not view["tricks"] and not view["trick"] and not model_checked:
                model = AuctionModel(view, rs, g.table, s)
                assert all(model.mismatches(o, g.hands[o]) == 0 for o in range(players) if o != s)
                model_checked = True
            g.apply(action)
        deal = g.deals[0]
        c = deal.contract
        want = None if c is None else (c.bidder, g.table.ladder.index(_level(g, c.bid)), int(c.trump))
        assert all(f == want for f in finishes)
        if c is None:
            continue
        for me in range(players):
            value = DealSim(rs, g.table, me).value(dealt[0], dealt[1], c.bidder, _level(g, c.bid), int(c.trump))
            mine = deal.points[g.table.team_of[me]]
            assert value == pytest.approx(mine - (sum(deal.points) - mine) / (len(deal.points) - 1))


def test_five_handed_endgame_bids():
    from sample_bots.heuristic import five_handed_endgame

    assert five_handed_endgame(57, 51, [3, 4, 5, 6, 7], threat=False) == 6    # set at 6 still leaves 51: go out
    assert five_handed_endgame(50, 51, [3, 4, 5], threat=True) == 3          # stop the standing bidder cheaply
    assert five_handed_endgame(50, 51, [3, 4, 5], threat=False) is None      # bid on the cards
    assert five_handed_endgame(60, 0, [3], threat=True) is None              # no target known
    # The bot itself, at 57 with the target at 51 and a weak hand: it bids to go out.
    g = Game("five-handed", 5, seed=1)
    view = g.view(g.to_act).to_dict()
    view["scores"] = [57 if s == view["seat"] else 10 for s in range(5)]
    assert H.decide(view) == "bid 6"


def test_simulators_follow_the_heuristic_through_five_handed_endgames():
    """Near the target the score decides some bids; the auction replays must agree with the heuristic.

    Each game starts from scores around the target (set on the engine before the first deal), so that
    the bids heuristic.five_handed_endgame dictates are common."""
    from sample_bots import heuristic

    rs = BUILTIN_RULESETS["five-handed"]
    fired = 0
    real = heuristic.five_handed_endgame

    def counting(*a):
        nonlocal fired
        k = real(*a)
        fired += k is not None
        return k

    heuristic.five_handed_endgame = counting
    try:
        for seed in range(12):
            g = Game(rs, 5, seed=seed)
            rng = random.Random(seed)
            g.scores[:] = [rng.randint(40, 60) for _ in range(5)]
            while not g.is_over:
                deal_no, finishes = len(g.deals), []
                while len(g.deals) == deal_no and not g.is_over:
                    s = g.to_act
                    view = g.view(s).to_dict()
                    action = _heuristic(view)
                    if view["phase"] == "bid":
                        sim = AuctionSim(view, rs, g.table)
                        infos = [sim.seat_info(h, True) for h in g.hands]
                        finishes.append(sim.finish(sim.parse(action), infos))
                    if view["phase"] == "play" and not view["tricks"] and not view["trick"]:
                        model = AuctionModel(view, rs, g.table, s)
                        assert all(model.mismatches(o, g.hands[o]) == 0 for o in range(5) if o != s)
                    g.apply(action)
                c = g.deals[-1].contract
                want = None if c is None else (c.bidder, g.table.ladder.index(_level(g, c.bid)), int(c.trump))
                assert all(f == want for f in finishes), (seed, deal_no)
    finally:
        heuristic.five_handed_endgame = real
    assert fired >= 10    # the heuristic did bid by the score in these games
