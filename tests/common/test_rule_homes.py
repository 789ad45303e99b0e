"""One home per rule: every SPEC rule id has exactly one ``# SPEC X-n (home)`` marker, and docs say where."""

from __future__ import annotations

import pytest

from tests.common import rule_homes


def test_every_rule_has_exactly_one_home():
    rules = rule_homes.documented_rules()
    homes = rule_homes.markers()
    assert len(rules) == len(set(rules)), "a rule is listed twice in docs/architecture.md"
    assert sorted(set(homes) - set(rules)) == [], "a marker names a rule the table does not list"
    assert {rule: len(homes.get(rule, [])) for rule in rules if len(homes.get(rule, [])) != 1} == {}


def test_the_documented_table_is_generated_from_the_markers():
    # Out of step: run `python -m tests.common.rule_homes` and commit docs/architecture.md.
    assert rule_homes.documented() == rule_homes.table(rule_homes.markers())


def test_every_home_names_a_definition():
    assert [home for homes in rule_homes.markers().values() for home in homes if home.endswith("::?")] == []


def test_the_table_lists_the_rules_of_the_spec():
    spec = rule_homes.spec_rules()
    if spec is None:
        pytest.skip("the product brief's SPEC.md is not beside this repository (a clean clone)")
    listed = rule_homes.documented_rules() + rule_homes.pending_rules()
    assert sorted(listed, key=rule_homes._order) == sorted(spec, key=rule_homes._order)


def test_a_pending_rule_has_no_home_yet():
    # A rule whose code landed leaves the pending list in the same commit that marks its home.
    pending = rule_homes.pending_rules()
    assert len(pending) == len(set(pending)), "a rule is pending twice"
    assert sorted(set(pending) & (set(rule_homes.markers()) | set(rule_homes.documented_rules()))) == []
