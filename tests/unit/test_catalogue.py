"""The rule catalogue a reviewer browses: rows, filters, pages and what versions changed."""

from __future__ import annotations

import pytest

from memory.underwriting.catalogue import (
    RuleFilter,
    changes,
    condition_words,
    facet_values,
    paginate,
    row_of,
    rule_words,
    soft_zone,
)
from schemas.rules import Condition, ExtractedRule, RuleSource


def rule(**extra: object) -> ExtractedRule:
    body: dict[str, object] = {
        "rule_name": "BOP Employees Over 20",
        "risk_factor": "Employee Count",
        "risk_category": "eligibility",
        "product_type": "BOP",
        "action": "decline",
        "source": "Manual",
        "source_type": "manual",
        "threshold": {"field": "employee_count", "operator": "gt", "value": 20, "unit": "people"},
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": 20}],
    }
    return ExtractedRule.model_validate({**body, **extra})


def test_conditions_read_as_words() -> None:
    assert rule_words(rule()) == "decline when employee count is above 20 people"
    both = rule(
        conditions=[
            {"field": "employee_count", "operator": "gte", "value": 25000},
            {"field": "occupancy", "operator": "in", "value": ["bar", "tavern"]},
        ],
        action="approve_with_conditions",
    )
    assert rule_words(both) == (
        "approve with conditions when employee count is at least 25,000 people "
        "and occupancy is one of bar, tavern"
    )
    assert condition_words(Condition(field="sprinklered", operator="eq", value=False)) == (
        "sprinklered is no"
    )
    assert rule_words(rule(conditions=[])) == "decline when always"


def test_soft_zone_only_for_a_soft_limit() -> None:
    assert soft_zone(rule()) is None
    soft = rule(threshold_type="soft", soft_limit=23.0)
    assert soft_zone(soft) == "approved in practice from 20 up to 23 people (employee count)"


def test_filters_keep_only_matching_rows() -> None:
    row = row_of(
        rule(
            sources=[
                {"source": "M", "source_type": "manual"},
                {"source": "S", "source_type": "sme"},
            ]
        )
    )
    assert row.source_types == ("manual", "sme")
    assert RuleFilter().keeps(row)
    assert RuleFilter(product_type="BOP", action="decline", source_type="sme").keeps(row)
    assert not RuleFilter(product_type="GL").keeps(row)
    assert not RuleFilter(source_type="production").keeps(row)
    assert not RuleFilter(hardness="soft").keeps(row)
    assert not RuleFilter(conflict=True).keeps(row)
    flagged = row_of(
        rule(conflicts=[{"rule_name": "Other", "text_ids": ["a", "b"], "fields": ["x"]}])
    )
    assert RuleFilter(conflict=True).keeps(flagged)


def test_facets_count_values() -> None:
    rows = [
        row_of(rule()),
        row_of(rule(rule_name="B", action="refer")),
        row_of(rule(rule_name="C")),
    ]
    facets = facet_values(rows)
    assert facets["action"] == [("decline", 2), ("refer", 1)]
    assert facets["product_type"] == [("BOP", 3)]


def test_pages() -> None:
    rows = [row_of(rule(rule_name=f"R{i:03}")) for i in range(120)]
    first = paginate(rows, 1, 50)
    assert (first.total, first.pages, len(first.rows)) == (120, 3, 50)
    last = paginate(rows, 3, 50)
    assert [r.name for r in last.rows] == [f"R{i:03}" for i in range(100, 120)]
    assert paginate(rows, 9, 50).page == 3
    assert paginate([], 1, 50).pages == 1
    with pytest.raises(ValueError, match="page must be 1 or more"):
        paginate(rows, 0, 50)
    with pytest.raises(ValueError, match="page size"):
        paginate(rows, 1, 0)


def test_changes_say_what_a_version_changed() -> None:
    first = rule(sources=[{"source": "Manual", "source_type": "manual"}])
    assert changes(None, first) == ["first stated"]
    assert changes(first, first) == ["restated"]
    softer = first.model_copy(
        update={
            "threshold_type": "soft",
            "soft_limit": 23.0,
            "mitigants": ["Established business"],
            "sources": [*first.sources, RuleSource(source="SME", source_type="sme")],
        }
    )
    assert changes(first, softer) == [
        "hard -> soft",
        "soft limit 23",
        "mitigants added: Established business",
        "sources added: SME",
    ]
    amended = rule(
        action="refer", conditions=[{"field": "employee_count", "operator": "gt", "value": 25}]
    )
    assert changes(first, amended) == [
        "action decline -> refer",
        "conditions now: employee count is above 25 people",
    ]
