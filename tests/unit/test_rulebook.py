from memory.model import entity_key, normalise_name
from memory.underwriting import rule_fact, rule_from_properties, rule_graph
from schemas.rules import ExtractedRule

SOFT = ExtractedRule(
    rule_name="Headcount Limit",
    risk_factor="Employee Count",
    risk_category="eligibility",
    product_type="BOP",
    action="decline",
    outcome_description="Over 30 staff is declined.",
    mitigants=["Clean loss history"],
    mitigant_fields=["clean_losses"],
    source="SME interview",
    source_type="sme",
    confidence="high",
    threshold={"field": "employee_count", "operator": "gt", "value": 30, "unit": "employees"},
    threshold_type="soft",
    soft_limit=34,
    historical_exceptions="approved up to 34",
    decision_quality="divergent",
    conditions=[{"field": "employee_count", "operator": "gt", "value": 30}],
    data_fields=["employee_count"],
)


def test_rule_graph_follows_the_ontology() -> None:
    graph = rule_graph(SOFT)
    labels = {(e.label, e.name) for e in graph.entities}
    assert labels == {
        ("RiskFactor", "Employee Count"),
        ("Rule", "Headcount Limit"),
        ("Outcome", "Decline"),
        ("Source", "SME interview"),
        ("Mitigant", "Clean loss history"),
    }
    shapes = {(r.source[0], r.relation, r.target[0]) for r in graph.relationships}
    assert shapes == {
        ("RiskFactor", "TRIGGERS", "Rule"),
        ("Rule", "RESULTS_IN", "Outcome"),
        ("Rule", "DERIVED_FROM", "Source"),
        ("Mitigant", "OVERRIDES", "Rule"),
    }
    triggers = next(r for r in graph.relationships if r.relation == "TRIGGERS")
    assert triggers.properties["threshold_type"] == "soft"
    assert triggers.properties["soft_limit"] == 34
    assert triggers.properties["threshold"]["value"] == 30
    # The rule's stated confidence orders what it writes: high above medium above low.
    weights = [
        rule_graph(SOFT.model_copy(update={"confidence": level})).confidence
        for level in ("high", "medium", "low")
    ]
    assert graph.confidence == weights[0] and 1.0 >= weights[0] > weights[1] > weights[2] > 0


def test_fact_text_carries_the_nuance() -> None:
    fact = rule_fact(SOFT)
    for part in (
        "[BOP]",
        "employee_count gt 30 employees (soft)",
        "approved up to 34",
        "divergent",
        "Clean loss history",
        "SME interview (sme)",
    ):
        assert part in fact


def test_rule_node_round_trips_the_whole_rule() -> None:
    rule_node = next(e for e in rule_graph(SOFT).entities if e.label == "Rule")
    assert rule_from_properties(rule_node.properties) == SOFT
    assert rule_from_properties({"rule_name": "partial"}) is None


def test_entity_keys_normalise_names_but_not_labels_or_namespaces() -> None:
    assert normalise_name("  Gas   STATION. ") == "gas station"
    key = entity_key("agent__a", "RiskFactor", "Gas Station")
    assert key == entity_key("agent__a", "RiskFactor", "gas  station")
    assert key != entity_key("agent__a", "Rule", "Gas Station")
    assert key != entity_key("agent__b", "RiskFactor", "Gas Station")
