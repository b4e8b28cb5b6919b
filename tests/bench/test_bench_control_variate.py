"""bench/control_variate.py: the cards' value by the heuristic's own play of each deal, subtracted from a game's
margin. On a complete duplicate block of games that play the same deals (iowa cut to 2 deals: no game reaches the
target sooner) the variate is exactly zero, so it changes nothing; on single games it explains part of the margin."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

_spec = importlib.util.spec_from_file_location("bench_control_variate",
                                               Path(__file__).resolve().parents[2] / "bench" / "control_variate.py")
cv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cv)


def test_the_variate_cancels_on_complete_blocks_and_helps_single_games(capsys):
    cv.main(["--configs", "iowa:4:2", "--pairs", "0:0.4", "--blocks", "16", "--json", "--no-write"])
    [row] = json.loads(capsys.readouterr().out.splitlines()[-1])
    [pair] = row["pairs"]
    block, single = pair["block"], pair["single"]
    # Each side held each team's cards of both deals once: the block's variate sums to 0, whatever the slope.
    assert block["var_cv"] == block["var"] and row["block"] == 1.0, block
    assert single["var_cv"] < single["var"] and single["corr"] > 0, single
    assert row["single"] == single["var"] / single["var_cv"]


def test_the_reference_value_of_a_deal_is_its_points_when_the_heuristic_plays_every_seat():
    from referee.rules import Game, get_ruleset

    rs = get_ruleset("iowa")
    ref = cv.Reference(rs, 4)
    g = Game(rs, 4, seed=11)
    deck, dealer = g.decks_dealt[0], g.first_dealer
    while not g.is_over and len(g.deals) == 0:    # the first deal, the heuristic in every seat
        g.apply(cv.HEURISTIC.decide(g.view(g.to_act).to_dict()))
    assert ref.points(deck, dealer) == tuple(g.deals[0].points)
    assert (deck, dealer) in ref.cache
