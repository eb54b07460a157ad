import pytest
from pydantic import ValidationError

from memory import (
    EdgeTypeDefinition,
    NodeTypeDefinition,
    OntologyDefinition,
    get_ontology,
    list_ontologies,
    register_ontology,
)


def test_underwriting_ontology_is_registered() -> None:
    onto = get_ontology("underwriting")
    assert "underwriting" in list_ontologies()
    assert onto.labels == ("RiskFactor", "Rule", "Outcome", "Mitigant", "Source")
    assert set(onto.relations) == {"TRIGGERS", "RESULTS_IN", "OVERRIDES", "DERIVED_FROM"}
    triggers = onto.edge_type("TRIGGERS")
    for prop in (
        "threshold",
        "threshold_type",
        "historical_exceptions",
        "confidence",
        "decision_quality",
        "compound_trigger",
        "data_fields",
    ):
        assert prop in triggers.properties


def test_edges_are_checked_against_endpoint_labels_and_values() -> None:
    onto = get_ontology("underwriting")
    onto.validate_edge("RiskFactor", "TRIGGERS", "Rule", {"threshold_type": "soft"})
    onto.validate_edge("Rule", "DERIVED_FROM", "Source", {"source_type": "production"})
    with pytest.raises(ValueError, match="allowed source labels: Mitigant"):
        onto.validate_edge("RiskFactor", "OVERRIDES", "Rule", {})
    with pytest.raises(ValueError, match="allowed target labels: Outcome"):
        onto.validate_edge("Rule", "RESULTS_IN", "Source", {})
    with pytest.raises(ValueError, match="allowed: manual, training, sme, production, compliance"):
        onto.validate_edge("Rule", "DERIVED_FROM", "Source", {"source_type": "rumour"})
    with pytest.raises(ValueError, match="unknown relation 'LIKES'"):
        onto.validate_edge("Rule", "LIKES", "Rule", {})


def test_prompt_context_names_every_label_and_relation() -> None:
    text = get_ontology("underwriting").to_prompt_context()
    for word in ("RiskFactor", "Mitigant", "TRIGGERS", "(Mitigant) -> (Rule)", "hard, soft"):
        assert word in text


def test_registry_refuses_silent_replacement() -> None:
    onto = OntologyDefinition(
        name="test-conversation",
        description="people and topics",
        node_types=(NodeTypeDefinition(label="Person", description="a person"),),
        edge_types=(
            EdgeTypeDefinition(
                relation="KNOWS",
                description="knows",
                source_labels=("Person",),
                target_labels=("Person",),
            ),
        ),
    )
    register_ontology(onto)
    assert get_ontology("test-conversation") is onto
    changed = onto.model_copy(update={"description": "other"})
    with pytest.raises(ValueError, match="already registered"):
        register_ontology(changed)
    with pytest.raises(ValueError, match="registered: .*underwriting"):
        get_ontology("nope")
    with pytest.raises(ValidationError):
        onto.name = "x"  # frozen


def test_underwriting_declares_its_partition_and_shared_labels() -> None:
    onto = get_ontology("underwriting")
    assert (onto.partition_property, onto.partition_wildcard) == ("product_type", "ALL")
    assert onto.shared_labels == {"RiskFactor", "Outcome", "Source", "Mitigant"}
    assert "Rule" not in onto.shared_labels  # a rule's own node is overwritten


def test_partition_and_indexed_properties_must_be_identifiers() -> None:
    base = {"name": "x", "description": "x", "node_types": (), "edge_types": ()}
    for bad in ("product type", "p) DELETE n //", ""):
        with pytest.raises(ValidationError, match="identifier"):
            OntologyDefinition(**base, partition_property=bad)
        with pytest.raises(ValidationError, match="identifier"):
            OntologyDefinition(**base, indexed_edge_properties=("ok", bad))
    assert OntologyDefinition(**base, partition_property="region_2").partition_property


def test_built_in_ontologies_load_by_name_in_a_fresh_process() -> None:
    import subprocess
    import sys

    code = (
        "import sys, memory\n"
        "assert 'memory.underwriting' not in sys.modules\n"
        "assert memory.get_ontology('underwriting').name == 'underwriting'\n"
        "assert 'memory.underwriting' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
