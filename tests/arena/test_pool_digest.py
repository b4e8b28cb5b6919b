"""A rating pool is a ruleset's content and a player count: its digest covers the rules, not the name or prose."""

from __future__ import annotations

import dataclasses

from arena.config import RunConfig
from arena.ratings import Pool, ruleset_digest
from referee.rules import get_ruleset, ruleset_from_dict


def test_the_digest_follows_the_rules_not_the_name():
    to32 = ruleset_from_dict({"extends": "iowa", "name": "short", "target_score": 32})
    to12 = ruleset_from_dict({"extends": "iowa", "name": "short", "target_score": 12})
    renamed = ruleset_from_dict({"extends": "iowa", "name": "other", "target_score": 32, "description": "prose"})
    assert ruleset_digest(to32) != ruleset_digest(to12) and ruleset_digest(to32) == ruleset_digest(renamed)
    assert len(ruleset_digest(to32)) == 12 and ruleset_digest(get_ruleset("iowa")) == ruleset_digest(get_ruleset("iowa"))
    assert ruleset_digest(dataclasses.replace(get_ruleset("iowa"), _tables={})) == ruleset_digest(get_ruleset("iowa"))
    assert Pool.of(to32, 4) != Pool.of(to12, 4) and Pool.of(to32, 4).ruleset == Pool.of(to12, 4).ruleset == "short"


def test_a_pool_key_parses_back_and_labels_show_the_digest_only_where_a_name_is_shared():
    a, b = Pool("short", "2b08be1aa0c3", 4), Pool("short", "1fe7ffd00000", 4)
    iowa = Pool("iowa", "0214bacce8b0", 4)
    assert a.key == "short@2b08be1aa0c3/4p" and Pool.parse(a.key) == a
    assert Pool.parse("odd@name/with@slash@abc123/3p") == Pool("odd@name/with@slash", "abc123", 3)
    assert Pool.parse("iowa/4p") == Pool("iowa", "", 4) and Pool("iowa", "", 4).key == "iowa/4p"  # from before digests
    assert iowa.label([a, b, iowa]) == "iowa/4p" and a.label([a, iowa]) == "short/4p"
    assert a.label([a, b, iowa]) == "short@2b08be1/4p" and b.label([a, b]) == "short@1fe7ffd/4p"


def test_a_runs_pool_is_its_ruleset_files_content(tmp_path):
    rules = tmp_path / "short.toml"
    rules.write_text('extends = "iowa"\ntarget_score = 32\n')
    before = RunConfig(ruleset=str(rules)).pool()
    rules.write_text('extends = "iowa"\ntarget_score = 12\n')
    after = RunConfig(ruleset=str(rules)).pool()
    assert before.ruleset == after.ruleset == "short" and before.players == after.players == 4
    assert before.key != after.key
    assert RunConfig().pool() == Pool.of(get_ruleset("iowa"), 4)


def test_a_rule_added_later_at_its_default_keeps_every_pools_digest():
    # A new field of Ruleset whose default keeps the old game must not split the pools.
    @dataclasses.dataclass(frozen=True)
    class WithANewRule(type(get_ruleset("iowa"))):
        new_rule: bool = False

    iowa = get_ruleset("iowa")
    fields = {f.name: getattr(iowa, f.name) for f in dataclasses.fields(iowa) if f.init}
    assert ruleset_digest(WithANewRule(**fields)) == ruleset_digest(iowa)
    assert ruleset_digest(WithANewRule(**fields, new_rule=True)) != ruleset_digest(iowa)
