"""The condition index finds exactly the rules the policy could fire, without a scan."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from agents.underwriting.policy import decide
from memory.underwriting import ConditionIndex, holds
from schemas.fields import load_data_dictionary
from schemas.rules import Condition, ExtractedRule
from schemas.submission import parse_submission

DEV = Path(__file__).parents[2].parent / "shared/datasets/underwriting/dev"
FIELDS = ("employees", "occupancy", "sprinklered", "tiv", "state")
VALUES: dict[str, list[Any]] = {
    "employees": [0, 5, 10, 10.0, 20, 23, 50, "many", True],
    "occupancy": ["bakery", " Bakery ", "gas station", "BAR", 3, False],
    "sprinklered": [True, False, 1, "yes"],
    "tiv": [0.5, 1_000_000, 2_500_000.0, 10],
    "state": ["TX", "tx", "FL", "CA", ["TX"]],
}
OPERATORS = ("eq", "neq", "lt", "lte", "gt", "gte", "in", "not_in")


def _condition(rng: random.Random) -> Condition:
    field = rng.choice(FIELDS)
    operator = rng.choice(OPERATORS)
    if operator in ("in", "not_in") and rng.random() < 0.8:
        value: Any = rng.sample([v for v in VALUES[field] if not isinstance(v, list)], k=2)
    else:
        value = rng.choice(VALUES[field])
    return Condition(field=field, operator=operator, value=value)


def _rule(index: int, rng: random.Random) -> ExtractedRule:
    conditions = [_condition(rng) for _ in range(rng.randint(0, 3))]
    return ExtractedRule.model_validate(
        {
            "rule_name": f"Rule {index}",
            "risk_factor": "Factor",
            "risk_category": "operations",
            "product_type": rng.choice(("BOP", "GL", "ALL")),
            "action": rng.choice(("refer", "decline", "approve_with_conditions")),
            "outcome_description": "An outcome.",
            "source": "Test",
            "source_type": "manual",
            "conditions": [c.model_dump() for c in conditions],
        }
    )


def _brute_force(rules: list[ExtractedRule], values: dict[str, Any], product: str | None) -> list:
    """The definition the index implements, by scanning every rule."""
    found = []
    for rule in rules:
        if product is not None and rule.product_type not in ("ALL", product):
            continue
        present = [c for c in rule.conditions if values.get(c.field) is not None]
        if present and all(holds(c.operator, values[c.field], c.value) for c in present):
            found.append(rule.rule_name)
    return found


def _index(rules: list[ExtractedRule]) -> ConditionIndex:
    return ConditionIndex((r.rule_name, r.product_type, r.conditions) for r in rules)


def test_candidates_equal_a_scan_of_every_rule_on_random_rules() -> None:
    rng = random.Random(11)
    rules = [_rule(i, rng) for i in range(400)]
    index = _index(rules)
    assert len(index) == 400
    for _ in range(300):
        values = {f: rng.choice(VALUES[f]) for f in FIELDS if rng.random() < 0.7}
        product = rng.choice(("BOP", "GL", None))
        values["product_type"] = product
        expected = _brute_force(rules, values, product)
        assert sorted(index.candidates(values, product)) == sorted(expected), values


def test_candidates_stay_exact_as_rules_are_replaced_and_dropped() -> None:
    rng = random.Random(23)
    rules = {i: _rule(i, rng) for i in range(300)}
    index = _index(list(rules.values()))
    for round_ in range(6):
        for i in rng.sample(sorted(rules), 40):  # dropped, or replaced by another version
            if rng.random() < 0.5:
                index.discard(rules.pop(i).rule_name)
            else:
                new = _rule(i, rng)
                rules[i] = new
                index.add(new.rule_name, new.rule_name, new.product_type, new.conditions)
        for _ in range(60):
            values = {f: rng.choice(VALUES[f]) for f in FIELDS if rng.random() < 0.7}
            product = rng.choice(("BOP", "GL", "LRO", None))
            expected = _brute_force(list(rules.values()), values, product)
            assert sorted(index.candidates(values, product)) == sorted(expected), (round_, values)
            by_name = {r.rule_name: r for r in rules.values()}
            for entry, read in index.held(values, product):  # the fields each one reads
                fields = {c.field for c in by_name[entry.name].conditions}
                assert read == [f for f, v in values.items() if v is not None and f in fields]
            assert [e.name for e, _ in index.held(values, product)] == index.candidates(
                values, product
            )
    assert index.compactions >= 1


def test_thresholds_at_the_boundary_and_text_compared_like_the_policy() -> None:
    rules = [
        _fixed("Over 20", "employees", "gt", 20),
        _fixed("At least 20", "employees", "gte", 20),
        _fixed("Under 20", "employees", "lt", 20),
        _fixed("At most 20", "employees", "lte", 20),
        _fixed("Bakery", "occupancy", "eq", "bakery"),
        _fixed("Not Texas", "state", "not_in", ["TX", "OK"]),
    ]
    index = _index(rules)
    assert index.candidates({"employees": 20}, None) == ["At least 20", "At most 20"]
    assert index.candidates({"employees": 20.5}, None) == ["Over 20", "At least 20"]
    assert index.candidates({"employees": True}, None) == []  # a boolean is not a number
    assert index.candidates({"occupancy": "  BAKERY "}, None) == ["Bakery"]
    assert index.candidates({"state": "tx"}, None) == []
    assert index.candidates({"state": "FL"}, None) == ["Not Texas"]


def _fixed(name: str, field: str, operator: str, value: Any) -> ExtractedRule:
    rng = random.Random(0)
    rule = _rule(0, rng)
    return rule.model_copy(
        update={
            "rule_name": name,
            "product_type": "ALL",
            "conditions": [Condition(field=field, operator=operator, value=value)],
        }
    )


@pytest.mark.skipif(not DEV.is_dir(), reason="the shared dev dataset is not beside the checkout")
def test_dev_decisions_are_the_same_from_the_index_candidates_as_from_every_rule() -> None:
    fields = load_data_dictionary(DEV / "fields.json")
    rules = [
        ExtractedRule.model_validate(json.loads(line))
        for line in (DEV / "rules.jsonl").read_text().splitlines()
        if line.strip()
    ]
    by_name = {r.rule_name: r for r in rules}
    index = _index(rules)
    for line in (DEV / "submissions.jsonl").read_text().splitlines():
        case = json.loads(line)
        values = dict(parse_submission(case["submission"], fields).values)
        product = values.get("product_type")
        names = index.candidates(values, product)
        full, narrowed = decide(rules, values), decide([by_name[n] for n in names], values)
        assert (narrowed.decision, narrowed.cited_rule_names) == (
            full.decision,
            full.cited_rule_names,
        ), case["id"]
        assert narrowed.decision == case["expected_decision"], case["id"]


def test_rules_are_served_by_name_from_their_documents_through_changes_and_a_snapshot() -> None:
    rng = random.Random(5)
    rules = [_rule(i, rng) for i in range(100)]
    index = ConditionIndex()
    for number, rule in enumerate(rules):
        index.add(
            f"uuid-{number}",
            rule.rule_name,
            rule.product_type,
            rule.conditions,
            rule.model_dump_json(),
        )
    assert index.rules_named(["Rule 3", "Rule 70", "Nope"]) == {
        "Rule 3": (rules[3],),
        "Rule 70": (rules[70],),
        "Nope": (),
    }
    changed = rules[3].model_copy(update={"action": "decline"})
    index.add(
        "uuid-3",
        changed.rule_name,
        changed.product_type,
        changed.conditions,
        changed.model_dump_json(),
    )
    assert index.rules_named(["Rule 3"])["Rule 3"] == (changed,)
    for number in range(60):  # past half dead: the index compacts itself
        index.discard(f"uuid-{number}")
    assert index.compactions >= 1
    assert index.rules_named(["Rule 3", "Rule 80"]) == {"Rule 3": (), "Rule 80": (rules[80],)}
    loaded = ConditionIndex.from_bytes(index.to_bytes())
    assert loaded.rules_named(["Rule 99"]) == {"Rule 99": (rules[99],)}
    # A Rule node without a whole rule (a hand-made node) is indexed but serves no rule.
    loaded.add("uuid-x", "Partial", "ALL", [], json.dumps({"rule_name": "Partial"}))
    assert loaded.rules_named(["Partial"]) == {"Partial": ()}


def test_a_snapshot_loads_to_the_index_it_was_saved_from() -> None:
    rng = random.Random(5)
    rules = [_rule(i, rng) for i in range(300)]
    index = _index(rules)
    # A NaN limit (only `json` writes it) and a replaced rule's dead slot.
    index.add("odd", "Odd", "ALL", [Condition(field="tiv", operator="gt", value=float("nan"))])
    index.add("Rule 7", "Rule 7", "GL", rules[7].conditions[:1])
    loaded = ConditionIndex.from_bytes(index.to_bytes())
    assert len(loaded) == len(index)
    assert repr(loaded.rules) == repr([r for r in index.rules if r is not None])  # NaN != NaN
    for _ in range(200):
        values = {f: rng.choice(VALUES[f]) for f in FIELDS if rng.random() < 0.7}
        product = rng.choice(("BOP", "GL", None))
        assert loaded.candidates(values, product) == index.candidates(values, product)
    # A key twice (not what `to_bytes` writes): the later entry replaces the earlier.
    twice = json.dumps(
        [["k", "A", "ALL", [], None, None, None], ["k", "B", "GL", [], None, None, None]]
    ).encode()
    assert [r.name for r in ConditionIndex.from_bytes(twice).rules if r] == ["B"]
