"""The decide path's shortcuts (issue 26) give exactly what the long way gives."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from agents.underwriting.policy import evaluate_rule, fires
from bench.synthetic import generate_rules, stress_rules, stress_submission, wide_submission
from memory.underwriting.conditions import ConditionIndex
from memory.underwriting.documents import json_document, model_of_document
from schemas.fields import cached_data_dictionary
from schemas.rules import STORED, ExtractedRule, RuleConflict, RuleSource


def _rules() -> list[ExtractedRule]:
    fields = cached_data_dictionary(None)
    rules = generate_rules(fields, 60, seed=3)
    # Every part a rule can have: sources, conflicts, a date, no threshold.
    rules[0] = rules[0].model_copy(
        update={
            "sources": [RuleSource(source="Manual", source_type="manual", date="2024-01-02")],
            "conflicts": [RuleConflict(rule_name="Other", text_ids=["a", "b"], fields=["x"])],
            "date": "2024-01-02",
            "valid_from": "2024-01-02",
            "threshold": None,
            "soft_limit": 12.0,
        }
    )
    return rules


def _stored_document(rule: ExtractedRule) -> str:
    """A Rule node's document as the rulebook writes it: the rule, its history, sorted keys."""
    history = {"versions": [{"valid_from": "2024-01-02"}], "claims": [{"text_id": "t"}]}
    return json.dumps({**rule.model_dump(mode="json"), **history}, sort_keys=True)


def test_a_stored_rule_is_read_as_validation_reads_it() -> None:
    rules = _rules()
    index = ConditionIndex()
    for number, rule in enumerate(rules):
        index.add(f"k{number}", rule.rule_name, rule.product_type, rule.conditions,
                  _stored_document(rule))  # fmt: skip
    found = index.rules_named([r.rule_name for r in rules])
    for rule in rules:
        [read] = found[rule.rule_name]
        slow = ExtractedRule.model_validate_json(_stored_document(rule), context={STORED: True})
        assert read == slow == rule
        assert repr(read) == repr(slow)
        assert read.model_dump(mode="json") == slow.model_dump(mode="json")
        assert read.model_dump_json() == slow.model_dump_json()
        document = json_document(read)
        assert document == rule.model_dump(mode="json")
        assert list(document) == list(rule.model_dump(mode="json"))  # the same order
        assert model_of_document(document) is read
        # The rule shares no list with its document: changing one leaves the other.
        assert read.mitigants is not document["mitigants"]


def test_an_incomplete_stored_document_is_validated() -> None:
    rule = _rules()[1]
    document = rule.model_dump(mode="json")
    del document["confidence"]  # an older writer: defaults are validation's to fill
    index = ConditionIndex()
    index.add("k", rule.rule_name, rule.product_type, rule.conditions, json.dumps(document))
    [read] = index.rules_named([rule.rule_name])[rule.rule_name]
    assert read == ExtractedRule.model_validate(document, context={STORED: True})


def test_json_document_is_made_once_and_gives_its_model_back() -> None:
    rule = _rules()[2]
    first = json_document(rule)
    assert json_document(rule) is first
    assert model_of_document(first) is rule
    assert model_of_document(dict(first)) is None  # an equal dict is not the document


@pytest.mark.parametrize("shape", ["wide", "stress"])
def test_fires_agrees_with_the_evaluation(shape: str) -> None:
    fields = cached_data_dictionary(None)
    rng = random.Random(5)
    if shape == "stress":
        rules = stress_rules(fields, 400)
        cases: list[dict[str, Any]] = [stress_submission(fields, seed=i) for i in range(40)]
    else:
        rules = generate_rules(fields, 400)
        cases = [wide_submission(rng.choice(rules), fields, seed=i) for i in range(40)]
    cases.append({})  # nothing known
    fired = 0
    for values in cases:
        for rule in rules:
            assert fires(rule, values) is evaluate_rule(rule, values).fires
            fired += fires(rule, values)
    assert fired > 40


def test_stress_submissions_fire_many_rules() -> None:
    fields = cached_data_dictionary(None)
    rules = stress_rules(fields, 2000)
    counts = [sum(fires(r, stress_submission(fields, seed=i)) for r in rules) for i in range(10)]
    assert min(counts) >= 5 and sum(counts) / len(counts) >= 10
