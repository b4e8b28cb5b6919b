"""The order of DecisionRequest.legal_actions is part of the protocol (docs/protocol.md, "Decision kinds").

A bot may answer by index, and bots in other languages sort nothing if the list says what it holds:
- bids: "pass" first (when allowed), then the bids from the lowest to the highest, in the ruleset's
  ladder order (in bid-euchre each level's strains S, H, D, C, NT);
- card actions (play, give, discard): in the deck's order (suits S, H, D, C; ranks 9, 10, J, Q, K, A),
  each card once, "give none" last, whatever order the engine keeps the hand in;
- trump: S, H, D, C, NT among those allowed; exchange and cede: the listed two in a fixed order.
Checked on what goes on the wire (the reference request), at every decision of random games.
"""

from __future__ import annotations

import random

import pytest

from referee import wire
from referee.rules import BUILTIN_RULESETS, Card, Game, ruleset_from_dict

CASES = [(name, n) for name, rs in BUILTIN_RULESETS.items() for n in rs.player_counts]
TRUMPS = ["trump S", "trump H", "trump D", "trump C", "trump NT"]


def _in_order(sub: list[str], full: list[str]) -> bool:
    pos = [full.index(x) for x in sub]
    return pos == sorted(pos)


@pytest.mark.parametrize("name,players", CASES)
def test_legal_actions_come_in_the_documented_order(name, players):
    rs = ruleset_from_dict({"extends": name, "name": f"{name}-order", "deal_cap": 3})
    ladder: list[str] = []     # the longest list of bids seen: every later list keeps its order
    seen = set()
    for seed in range(12):
        g = Game(rs, players, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            view = wire.view_to_proto(g.view(g.to_act))
            legal = wire.legal_texts(g)
            verb = legal[-1].split()[0]
            seen.add(verb)
            if verb == "bid":
                bids = [a for a in legal if a != "pass"]
                assert "pass" not in legal or legal[0] == "pass", legal
                if len(bids) > len(ladder):
                    assert _in_order(ladder[-len(bids):] if ladder else [], bids) or not ladder, (ladder, bids)
                    ladder = bids
                assert bids == ladder[len(ladder) - len(bids):], (bids, ladder)   # a suffix of the ladder
                nums = [int(b.split()[1]) for b in bids if b.split()[1].isdigit()]
                assert nums == sorted(nums), bids
            elif verb in ("play", "give", "discard"):
                cards = [a.split()[1] for a in legal if a != "give none"]
                assert len(cards) == len(set(cards)), legal
                assert cards == sorted(cards, key=lambda c: int(Card.parse(c))), legal
                assert set(cards) <= set(view.hand), (legal, list(view.hand))
                assert "give none" not in legal or legal[-1] == "give none", legal
            elif verb == "trump":
                assert _in_order(legal, TRUMPS), legal
            elif verb == "exchange":
                assert legal == ["exchange yes", "exchange no"], legal
            elif verb == "cede":
                assert legal == ["cede no", "cede yes"], legal
            ids = g.legal_action_ids()
            g.apply(ids[rng.randrange(len(ids))])
    assert {"bid", "play"} <= seen
