"""Golden scenarios for ruleset files (docs/rules.md, "Ruleset files").

A TOML file extends a built-in ruleset and overrides: target score, bid ladder,
pass-out handling, whether defenders may cede, the Pepper exchange and the
hand cap. Invalid files fail with an error naming the file, the key and what
is allowed.
"""

from __future__ import annotations

import pytest
from scenario import SPLIT, SPLIT_4_2, act, new_game, play_tricks

from referee.rules import BUILTIN_RULESETS, Game, Phase, RulesetError, get_ruleset, load_ruleset_file, ruleset_from_dict


def write(tmp_path, text, name="house.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def legal(g):
    return [str(a) for a in g.legal_actions()]


# ------------------------------------------------------------------ builtins

def test_the_four_builtin_rulesets():
    assert set(BUILTIN_RULESETS) == {"iowa", "bid-euchre", "pepper-30", "five-handed"}
    expect = {"iowa": ((4,), 42), "bid-euchre": ((4, 6, 8), 50), "pepper-30": ((2, 3, 4), 30), "five-handed": ((5,), 51)}
    for name, (counts, target) in expect.items():
        rs = get_ruleset(name)
        assert rs.player_counts == counts and rs.target_score == target and rs.family == name
    assert Game().ruleset.name == "iowa"             # the default ruleset
    with pytest.raises(RulesetError) as ei:
        get_ruleset("euchre")
    assert "iowa" in str(ei.value)


# ------------------------------------------------------------------ extends + overrides

def test_extends_and_overrides_with_the_name_defaulting_to_the_file_stem(tmp_path):
    p = write(tmp_path, 'extends = "iowa"\ntarget_score = 32\ndeal_cap = 50\n', "iowa-to-32.toml")
    rs = load_ruleset_file(p)
    assert rs.name == "iowa-to-32" and rs.family == "iowa" and rs.extends == "iowa"
    assert rs.target_score == 32 and rs.deal_cap == 50 and rs.source == str(p)
    # Everything not overridden is inherited.
    base = BUILTIN_RULESETS["iowa"]
    assert rs.player_counts == base.player_counts and rs.specials == base.specials
    assert rs.defenders_may_cede and rs.pepper_exchange
    # get_ruleset and Game accept the path too.
    assert get_ruleset(str(p)).target_score == 32
    assert Game(str(p), seed=1).ruleset.name == "iowa-to-32"


def test_explicit_name_and_description(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "pepper-30"\nname = "p30-house"\ndescription = "ours"\n'))
    assert rs.name == "p30-house" and rs.description == "ours" and rs.family == "pepper-30"


def test_target_score_override_ends_the_game_earlier(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "iowa"\ntarget_score = 6\n'))
    g = Game(rs, seed=2, first_dealer=3)
    act(g, "0: bid 1", "1: pass", "2: pass", "3: pass", "0: trump S", "1: cede yes", "3: cede yes")
    assert g.scores == [6, 0] and g.is_over and g.outcome.winners == (0,)


def test_reaching_the_target_on_the_capped_deal_is_a_target_win(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "iowa"\ntarget_score = 6\ndeal_cap = 1\n'))
    g = Game(rs, seed=2, first_dealer=3)
    act(g, "0: bid 1", "1: pass", "2: pass", "3: pass", "0: trump S", "1: cede yes", "3: cede yes")
    assert g.outcome.reason == "target" and g.outcome.winners == (0,)


def test_bid_ladder_override(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "iowa"\nmin_bid = 2\nmax_bid = 5\nspecials = []\n'))
    g = Game(rs, seed=1, first_dealer=3)
    assert legal(g) == ["pass", "bid 2", "bid 3", "bid 4", "bid 5"]
    act(g, "0: bid 5")
    # The top of the ladder ends the bidding.
    assert g.phase == Phase.NAME_TRUMP and g.to_act == 0


def test_specials_keep_the_ladder_order(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "bid-euchre"\nspecials = ["double-pepper"]\n'))
    assert rs.specials == ("double-pepper",)
    rs = load_ruleset_file(write(tmp_path, 'extends = "five-handed"\nspecials = ["moon-shot", "pepper"]\n'))
    assert rs.specials == ("pepper", "moon-shot")


def test_defenders_may_not_cede(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "iowa"\ndefenders_may_cede = false\n'))
    g = new_game(rs, 4, 3, dict(hands=SPLIT))
    act(g, "0: bid 3", "1: pass", "2: pass", "3: pass", "0: trump NT")
    assert g.phase == Phase.PLAY and g.to_act == 0     # no cede question
    play_tricks(g, SPLIT_4_2)
    assert g.deals[-1].points == (4, 2)


def test_pepper_without_the_exchange(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "iowa"\npepper_exchange = false\n'))
    g = Game(rs, seed=1, first_dealer=3)
    act(g, "0: bid pepper", "0: trump H")
    assert g.phase == Phase.CEDE and g.to_act == 1       # straight to the defenders
    rs = load_ruleset_file(write(tmp_path, 'extends = "bid-euchre"\npepper_exchange = false\n'))
    g = Game(rs, 4, seed=1, first_dealer=3)
    act(g, "0: bid pepper H", "1: pass", "2: pass", "3: pass")
    assert g.phase == Phase.PLAY and g.to_act == 0       # no passing, no discard


def test_player_counts_override(tmp_path):
    rs = load_ruleset_file(write(tmp_path, 'extends = "pepper-30"\nplayer_counts = [3]\n'))
    assert rs.player_counts == (3,)
    Game(rs, 3, seed=1)
    with pytest.raises(RulesetError):
        Game(rs, 4, seed=1)


def test_ruleset_from_dict_and_records_of_file_rulesets_replay(tmp_path):
    rs = ruleset_from_dict({"extends": "iowa", "name": "quick", "target_score": 12})
    g = Game(rs, seed=5)
    while not g.is_over:
        g.apply(g.legal_actions()[-1])   # bid pepper, trump NT, exchange no, cede yes: +12 per deal
    assert g.outcome.deals == 1 and g.scores in ([12, 0], [0, 12])
    again = Game.from_record(g.record())
    assert again.ruleset.target_score == 12 and again.outcome == g.outcome


# ------------------------------------------------------------------ invalid files

@pytest.mark.parametrize("text,key,allowed_part", [
    ('extends = "iowa"\ncolour = "red"\n', "colour", "target_score"),
    ('extends = "euchre"\n', "extends", "iowa"),
    ('target_score = 10\n', "extends", "iowa"),
    ('extends = "iowa"\ntarget_score = "high"\n', "target_score", "integer"),
    ('extends = "iowa"\ntarget_score = 0\n', "target_score", "integer"),
    ('extends = "iowa"\ntarget_score = true\n', "target_score", "integer"),
    ('extends = "iowa"\ndeal_cap = -1\n', "deal_cap", "integer"),
    ('extends = "iowa"\npass_out = "redeal"\n', "pass_out", "dealer-must-bid"),
    ('extends = "iowa"\ndefenders_may_cede = "yes"\n', "defenders_may_cede", "true or false"),
    ('extends = "bid-euchre"\ndefenders_may_cede = true\n', "defenders_may_cede", "iowa"),
    ('extends = "pepper-30"\npepper_exchange = true\n', "pepper_exchange", "iowa"),
    ('extends = "iowa"\nspecials = ["big-pepper"]\n', "specials", "pepper"),
    ('extends = "iowa"\nspecials = "pepper"\n', "specials", "pepper"),
    ('extends = "iowa"\nplayer_counts = [5]\n', "player_counts", "4"),
    ('extends = "iowa"\nplayer_counts = []\n', "player_counts", "4"),
    ('extends = "iowa"\nmin_bid = 5\nmax_bid = 3\n', "min_bid/max_bid", "min_bid <= max_bid"),
    ('extends = "iowa"\nmax_bid = 7\n', "min_bid/max_bid", "<= 6"),
    ('extends = "iowa"\nname = "iowa"\ntarget_score = 10\n', "name", "new name"),
    ('extends = "iowa"\nname = ""\n', "name", "non-empty"),
])
def test_invalid_files_name_the_file_the_key_and_what_is_allowed(tmp_path, text, key, allowed_part):
    p = write(tmp_path, text, "bad-rules.toml")
    with pytest.raises(RulesetError) as ei:
        load_ruleset_file(p)
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.key == key and key in str(e)
    assert e.source == str(p) and str(p) in str(e)
    assert e.allowed and allowed_part in e.allowed and allowed_part in str(e)


def test_a_file_that_is_not_toml(tmp_path):
    p = write(tmp_path, 'extends = "iowa\n', "broken.toml")
    with pytest.raises(RulesetError) as ei:
        load_ruleset_file(p)
    assert str(p) in str(ei.value) and "TOML" in str(ei.value)


def test_a_missing_file(tmp_path):
    p = tmp_path / "nope.toml"
    with pytest.raises(RulesetError) as ei:
        get_ruleset(str(p))
    assert str(p) in str(ei.value)
