"""What a rule becomes in graph memory, and what is read back from it.

Each test starts from a rule written out here and checks what a reader of memory
sees of it: the nodes and edges of `rule_graph`, the fact texts retrieval searches,
the properties every edge carries, when a version holds, and the rule rebuilt from
its Rule node (`rule_from_properties`). Expected values are written out from the
rule in the test.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memory.model import EntitySpec, RelationshipSpec
from memory.underwriting import rule_fact, rule_from_properties, rule_graph
from schemas.rules import ExtractedRule

COASTAL = ExtractedRule.model_validate(
    {
        "rule_name": "Coastal Frame",
        "risk_factor": "Frame Construction",
        "risk_category": "construction",
        "product_type": "Property",
        "action": "approve_with_conditions",
        "outcome_description": "Frame buildings near the coast need a wind inspection.",
        "mitigants": ["Wind certificate", "Hurricane shutters"],
        "mitigant_fields": ["wind_certificate", "shutters"],
        "source": "Property guide",
        "source_type": "manual",
        "confidence": "low",
        "threshold": {"field": "coast_miles", "operator": "lt", "value": 5, "unit": "miles"},
        "threshold_type": "hard",
        "historical_exceptions": "two approvals with shutters",
        "decision_quality": "partial",
        "compound_trigger": "frame AND coastal",
        "conditions": [
            {"field": "construction", "operator": "in", "value": ["frame", "joisted masonry"]},
            {"field": "coast_miles", "operator": "lt", "value": 5},
        ],
        "data_fields": ["construction", "coast_miles"],
    }
)
"""A rule with every optional part filled in."""

VACANT = ExtractedRule(
    rule_name="Vacant Building",
    risk_factor="Vacancy",
    risk_category="occupancy",
    action="decline",
)
"""A rule with nothing but what a rule must have."""

COMMON = {
    "product_type": "Property",
    "rule_name": "Coastal Frame",
    "action": "approve_with_conditions",
}
"""What every edge of COASTAL carries."""


COASTAL_FACT = (
    "[Property] Frame Construction triggers rule 'Coastal Frame' (construction): "
    "action approve with conditions. "
    "Frame buildings near the coast need a wind inspection. "
    "Fires when: construction in frame, joisted masonry AND coast_miles lt 5. "
    "Threshold: coast_miles lt 5 miles (hard). "
    "Historical exceptions: two approvals with shutters. "
    "Decision quality in production: partial. "
    "Compound trigger: frame AND coastal. "
    "Mitigants: Wind certificate; Hurricane shutters. "
    "Data fields: construction, coast_miles. "
    "Source: Property guide (manual)."
)
"""The fact text of COASTAL's TRIGGERS edge."""


def _vacant(**changes: Any) -> ExtractedRule:
    return ExtractedRule.model_validate({**VACANT.model_dump(), **changes})


def test_the_fact_of_a_full_rule_says_every_part_in_order() -> None:
    assert rule_fact(COASTAL) == COASTAL_FACT


def test_the_fact_of_a_bare_rule_says_only_what_it_has() -> None:
    assert rule_fact(VACANT) == (
        "[ALL] Vacancy triggers rule 'Vacant Building' (occupancy): action decline. "
        "Source: unknown (manual)."
    )


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        (
            {"threshold": {"field": "age", "operator": "gt", "value": 40}},
            "Threshold: age gt 40 (unspecified).",
        ),
        (
            {
                "threshold": {"field": "staff", "operator": "gt", "value": 30, "unit": "staff"},
                "threshold_type": "soft",
                "soft_limit": 34,
            },
            "Threshold: staff gt 30 staff (soft); historically approved up to 34.",
        ),
        (
            {"threshold": {"field": "tiv", "operator": "gte", "value": 2.5}, "soft_limit": 2.75},
            "Threshold: tiv gte 2.5 (unspecified); historically approved up to 2.75.",
        ),
        ({"threshold_type": "soft"}, "This is a soft rule."),
        ({"compound_trigger": "a AND b"}, "Compound trigger: a AND b."),
        ({"mitigants": ["Sprinklers", "Alarm"]}, "Mitigants: Sprinklers; Alarm."),
        ({"data_fields": ["a", "b", "c"]}, "Data fields: a, b, c."),
        (
            {
                "conditions": [
                    {"field": "state", "operator": "not_in", "value": ["FL", "TX"]},
                    {"field": "sprinklered", "operator": "eq", "value": False},
                    {"field": "area", "operator": "gte", "value": 1.5},
                ]
            },
            "Fires when: state not_in FL, TX AND sprinklered eq False AND area gte 1.5.",
        ),
    ],
)
def test_each_part_of_a_rule_has_its_sentence_in_the_fact(
    changes: dict[str, Any], sentence: str
) -> None:
    assert rule_fact(_vacant(**changes)) == (
        "[ALL] Vacancy triggers rule 'Vacant Building' (occupancy): action decline. "
        f"{sentence} Source: unknown (manual)."
    )


def test_a_full_rule_becomes_its_nodes_and_edges() -> None:
    graph = rule_graph(COASTAL)
    assert graph.name == "Coastal Frame"
    assert graph.confidence == 0.5  # "low"
    assert graph.valid_at is None  # no valid_from: from the time of the write
    risk, rule_node, *others = graph.entities
    assert risk == EntitySpec(
        "RiskFactor", "Frame Construction", "", {"risk_category": "construction"}
    )
    assert (rule_node.label, rule_node.name) == ("Rule", "Coastal Frame")
    assert rule_node.summary == "Frame buildings near the coast need a wind inspection."
    assert rule_node.invalid_at is None
    assert others == [
        EntitySpec("Outcome", "Approve With Conditions", "", {"action": "approve_with_conditions"}),
        EntitySpec("Source", "Property guide", "", {"source_type": "manual"}),
        EntitySpec("Mitigant", "Wind certificate"),
        EntitySpec("Mitigant", "Hurricane shutters"),
    ]
    rule_ref = ("Rule", "Coastal Frame")
    triggers, results_in, derived_from, *overrides = graph.relationships
    assert triggers.source == ("RiskFactor", "Frame Construction")
    assert (triggers.relation, triggers.target) == ("TRIGGERS", rule_ref)
    assert triggers.fact == COASTAL_FACT
    assert results_in == RelationshipSpec(
        rule_ref,
        "RESULTS_IN",
        ("Outcome", "Approve With Conditions"),
        "[Property] Rule 'Coastal Frame' results in approve with conditions. "
        "Frame buildings near the coast need a wind inspection.",
        COMMON,
    )
    assert derived_from == RelationshipSpec(
        rule_ref,
        "DERIVED_FROM",
        ("Source", "Property guide"),
        "Rule 'Coastal Frame' is derived from Property guide (manual).",
        {**COMMON, "source_type": "manual"},
    )
    mitigant_props = {**COMMON, "mitigant_fields": ["wind_certificate", "shutters"]}
    assert overrides == [
        RelationshipSpec(
            ("Mitigant", name),
            "OVERRIDES",
            rule_ref,
            f"[Property] '{name}' can override rule 'Coastal Frame' "
            "(Frame Construction, action approve with conditions).",
            mitigant_props,
        )
        for name in ("Wind certificate", "Hurricane shutters")
    ]


def test_the_triggers_edge_carries_the_rule_as_structured_properties() -> None:
    triggers = rule_graph(COASTAL).relationships[0]
    assert triggers.properties == {
        **COMMON,
        "risk_category": "construction",
        "threshold": {"field": "coast_miles", "operator": "lt", "value": 5, "unit": "miles"},
        "threshold_type": "hard",
        "soft_limit": None,
        "historical_exceptions": "two approvals with shutters",
        "confidence": "low",
        "decision_quality": "partial",
        "compound_trigger": "frame AND coastal",
        "conditions": [
            {"field": "construction", "operator": "in", "value": ["frame", "joisted masonry"]},
            {"field": "coast_miles", "operator": "lt", "value": 5},
        ],
        "data_fields": ["construction", "coast_miles"],
    }


def test_a_bare_rule_has_one_source_no_mitigants_and_empty_properties() -> None:
    graph = rule_graph(VACANT)
    assert graph.confidence == 0.7  # "medium", the default
    assert [(e.label, e.name) for e in graph.entities] == [
        ("RiskFactor", "Vacancy"),
        ("Rule", "Vacant Building"),
        ("Outcome", "Decline"),
        ("Source", "unknown"),
    ]
    assert graph.entities[1].summary == ""
    triggers, results_in, derived_from = graph.relationships
    common = {"product_type": "ALL", "rule_name": "Vacant Building", "action": "decline"}
    assert triggers.properties == {
        **common,
        "risk_category": "occupancy",
        "threshold": None,
        "threshold_type": None,
        "soft_limit": None,
        "historical_exceptions": None,
        "confidence": "medium",
        "decision_quality": None,
        "compound_trigger": None,
        "conditions": [],
        "data_fields": [],
    }
    # An empty outcome description leaves no trailing space in the fact.
    assert results_in.fact == "[ALL] Rule 'Vacant Building' results in decline."
    assert results_in.properties == common
    assert derived_from.fact == "Rule 'Vacant Building' is derived from unknown (manual)."
    assert derived_from.properties == {**common, "source_type": "manual"}


@pytest.mark.parametrize(
    ("action", "outcome", "words"),
    [
        ("refer", "Refer", "refer"),
        ("decline", "Decline", "decline"),
        ("approve_with_conditions", "Approve With Conditions", "approve with conditions"),
        ("exclude", "Exclude", "exclude"),
        ("verify", "Verify", "verify"),
        ("flag_for_review", "Flag For Review", "flag for review"),
    ],
)
def test_each_action_results_in_its_outcome_node(action: str, outcome: str, words: str) -> None:
    graph = rule_graph(_vacant(action=action, mitigants=["Sprinklers"]))
    assert graph.entities[2] == EntitySpec("Outcome", outcome, "", {"action": action})
    results_in = graph.relationships[1]
    assert results_in.target == ("Outcome", outcome)
    assert results_in.fact == f"[ALL] Rule 'Vacant Building' results in {words}."
    overrides = graph.relationships[-1]
    assert overrides.fact == (
        f"[ALL] 'Sprinklers' can override rule 'Vacant Building' (Vacancy, action {words})."
    )
    assert rule_fact(_vacant(action=action)) == (
        f"[ALL] Vacancy triggers rule 'Vacant Building' (occupancy): action {words}. "
        "Source: unknown (manual)."
    )


@pytest.mark.parametrize(("confidence", "weight"), [("high", 0.9), ("medium", 0.7), ("low", 0.5)])
def test_the_stated_confidence_is_the_weight_written(confidence: str, weight: float) -> None:
    assert rule_graph(_vacant(confidence=confidence)).confidence == weight
    retired = _vacant(confidence=confidence, valid_from="2023-01-01", valid_to="2024-01-01")
    assert rule_graph(retired, retired=True).confidence == weight


def test_a_mitigant_named_twice_is_one_node_and_one_edge() -> None:
    graph = rule_graph(_vacant(mitigants=["Alarm", "Guard", "Alarm"]))
    assert [e.name for e in graph.entities if e.label == "Mitigant"] == ["Alarm", "Guard"]
    assert [r.source for r in graph.relationships if r.relation == "OVERRIDES"] == [
        ("Mitigant", "Alarm"),
        ("Mitigant", "Guard"),
    ]


def test_a_consolidated_rule_is_derived_from_each_text_behind_it_once() -> None:
    rule = _vacant(
        source="Underwriting manual",
        sources=[
            {"source": "Manual 2023", "source_type": "manual", "text_id": "t1"},
            {"source": "SME call", "source_type": "sme", "text_id": "t2"},
            {"source": "Manual 2023", "source_type": "manual", "text_id": "t3"},
        ],
    )
    graph = rule_graph(rule)
    assert [e for e in graph.entities if e.label == "Source"] == [
        EntitySpec("Source", "Manual 2023", "", {"source_type": "manual"}),
        EntitySpec("Source", "SME call", "", {"source_type": "sme"}),
    ]
    derived = [r for r in graph.relationships if r.relation == "DERIVED_FROM"]
    assert [(r.target, r.fact, r.properties["source_type"]) for r in derived] == [
        (
            ("Source", "Manual 2023"),
            "Rule 'Vacant Building' is derived from Manual 2023 (manual).",
            "manual",
        ),
        (("Source", "SME call"), "Rule 'Vacant Building' is derived from SME call (sme).", "sme"),
    ]


@pytest.mark.parametrize(
    ("valid_from", "start"),
    [
        ("2024-03-01", datetime(2024, 3, 1, tzinfo=UTC)),
        ("2024-03-01T09:30:00Z", datetime(2024, 3, 1, 9, 30, tzinfo=UTC)),
        ("2024-03-01T09:30:00+02:00", datetime(2024, 3, 1, 7, 30, tzinfo=UTC)),
    ],
)
def test_a_version_holds_from_the_start_of_its_day_or_its_time(
    valid_from: str, start: datetime
) -> None:
    graph = rule_graph(_vacant(valid_from=valid_from))
    assert graph.valid_at is not None and graph.valid_at.tzinfo is not None
    assert graph.valid_at == start
    assert all(e.invalid_at is None for e in graph.entities)


def test_a_retired_rule_writes_only_its_node_ending_at_its_valid_to() -> None:
    rule = _vacant(
        outcome_description="Vacant buildings are declined.",
        confidence="high",
        mitigants=["Sprinklers"],
        valid_from="2023-01-01",
        valid_to="2024-06-30",
    )
    history = {"versions": [{"valid_from": "2023-01-01"}], "claims": [{"text_id": "t1"}]}
    graph = rule_graph(rule, history=history, retired=True)
    end = datetime(2024, 6, 30, tzinfo=UTC)
    assert (graph.name, graph.relationships, graph.confidence) == ("Vacant Building", (), 0.9)
    assert graph.valid_at == end
    (node,) = graph.entities
    assert (node.label, node.name, node.summary) == (
        "Rule",
        "Vacant Building",
        "Vacant buildings are declined.",
    )
    assert node.invalid_at == end
    assert node.properties["versions"] == [{"valid_from": "2023-01-01"}]
    assert node.properties["claims"] == [{"text_id": "t1"}]
    assert node.properties["valid_to"] == "2024-06-30"
    assert rule_from_properties(node.properties) == rule


def test_the_rule_node_keeps_the_whole_rule_and_its_history() -> None:
    history = {"versions": [{"valid_from": "2024-01-01"}], "claims": []}
    node = rule_graph(COASTAL, history=history).entities[1]
    assert node.properties["versions"] == [{"valid_from": "2024-01-01"}]
    assert node.properties["claims"] == []
    assert node.properties["rule_name"] == "Coastal Frame"
    assert node.properties["threshold"] == {
        "field": "coast_miles",
        "operator": "lt",
        "value": 5,
        "unit": "miles",
    }
    assert rule_from_properties(node.properties) == COASTAL
    assert "versions" not in rule_graph(COASTAL).entities[1].properties


def test_a_stored_rule_is_read_back_as_it_was_written() -> None:
    # Checked when it was written, so a name that new input may not have is read back.
    stored = {
        "rule_name": "Line one\nline two",
        "risk_factor": "Vacancy",
        "risk_category": "occupancy",
        "action": "refer",
        "versions": [{"valid_from": "2024-01-01"}],
        "claims": [],
    }
    rule = rule_from_properties(stored)
    assert rule is not None
    assert (rule.rule_name, rule.action, rule.product_type) == (
        "Line one\nline two",
        "refer",
        "ALL",
    )


@pytest.mark.parametrize(
    "properties",
    [
        {},
        {"rule_name": "Draft"},
        {"rule_name": "Odd", "risk_factor": "x", "risk_category": "occupancy", "action": "maybe"},
        {"risk_category": "occupancy"},
    ],
)
def test_a_node_without_a_whole_rule_reads_as_none(properties: dict[str, Any]) -> None:
    assert rule_from_properties(properties) is None
