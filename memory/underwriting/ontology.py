"""The underwriting ontology: risk factors trigger rules, rules result in outcomes."""

from __future__ import annotations

from memory.model.ontology import (
    EdgeTypeDefinition,
    NodeTypeDefinition,
    OntologyDefinition,
    register,
)

# Nodes many rules share accumulate properties; a Rule node is the rule's own.
SHARED_LABELS = frozenset({"RiskFactor", "Outcome", "Source", "Mitigant"})
PARTITION_PROPERTY = "product_type"
ALL_PRODUCTS = "ALL"


def _nodes(*items: tuple[str, str]) -> tuple[NodeTypeDefinition, ...]:
    return tuple(
        NodeTypeDefinition(label=label, description=desc, shared=label in SHARED_LABELS)
        for label, desc in items
    )


def _labels(*labels: str) -> tuple[str, ...]:
    return labels


SOURCE_TYPES = ("manual", "training", "sme", "production", "compliance", "review")

UNDERWRITING = register(
    OntologyDefinition(
        name="underwriting",
        description=(
            "Underwriting knowledge: risk factors trigger rules, rules result in outcomes, "
            "mitigants override rules, and every rule is derived from a source."
        ),
        node_types=_nodes(
            ("RiskFactor", "A characteristic of a submission that carries risk (gas station)."),
            ("Rule", "A named underwriting rule with its conditions and action."),
            ("Outcome", "What a rule prescribes: refer, decline, approve with conditions..."),
            ("Mitigant", "A control that can override a rule (fire suppression installed)."),
            ("Source", "Where knowledge came from: a manual, SME, training or production log."),
        ),
        edge_types=(
            EdgeTypeDefinition(
                relation="TRIGGERS",
                description="The risk factor sets off the rule.",
                source_labels=_labels("RiskFactor"),
                target_labels=_labels("Rule"),
                properties=(
                    "threshold",
                    "threshold_type",
                    "historical_exceptions",
                    "confidence",
                    "decision_quality",
                    "compound_trigger",
                    "data_fields",
                ),
                property_values={
                    "threshold_type": ("hard", "soft"),
                    "decision_quality": ("aligned", "divergent", "partial"),
                    "confidence": ("high", "medium", "low"),
                },
            ),
            EdgeTypeDefinition(
                relation="RESULTS_IN",
                description="The rule prescribes the outcome.",
                source_labels=_labels("Rule"),
                target_labels=_labels("Outcome"),
            ),
            EdgeTypeDefinition(
                relation="OVERRIDES",
                description="The mitigant can override (waive or soften) the rule.",
                source_labels=_labels("Mitigant"),
                target_labels=_labels("Rule"),
            ),
            EdgeTypeDefinition(
                relation="DERIVED_FROM",
                description="The rule was learned from the source.",
                source_labels=_labels("Rule"),
                target_labels=_labels("Source"),
                properties=("source_type",),
                property_values={"source_type": SOURCE_TYPES},
            ),
        ),
        partition_property=PARTITION_PROPERTY,
        partition_wildcard=ALL_PRODUCTS,
        # Decision paths read a rule's edges by its name (a typed pattern scans nodes).
        indexed_edge_properties=("rule_name",),
    )
)
