"""Rules as the tests compare them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import Condition, ExtractedRule

if TYPE_CHECKING:
    from agents.offline.conditions import ConditionReader

#: A rule with a protection, for the rule-graph tests (unit and store).
KITCHEN = ExtractedRule.model_validate(
    {
        "rule_name": "Open Kitchen",
        "risk_factor": "Cooking",
        "risk_category": "operations",
        "product_type": "BOP",
        "action": "refer",
        "outcome_description": "Open flame cooking is referred.",
        "mitigants": ["Hood suppression"],
        "mitigant_fields": ["hood_system"],
        "source": "BOP guide",
        "source_type": "manual",
        "confidence": "low",
        "conditions": [{"field": "cooking", "operator": "eq", "value": True}],
    }
)

#: A condition as the tests compare it: (field, operator, value), list values as tuples.
Triple = tuple[str, str, object]


class _WithConditions(Protocol):
    @property
    def conditions(self) -> Sequence[Condition]: ...


def condition_set(rule: _WithConditions) -> set[Triple]:
    """A rule's (or a read clause's) conditions as triples, list values as tuples."""
    return {
        (c.field, c.operator, tuple(c.value) if isinstance(c.value, list) else c.value)
        for c in rule.conditions
    }


def read_set(reader: ConditionReader, text: str, context: str = "") -> set[Triple]:
    """The conditions a reader reads from a clause (after `context`), as triples."""
    return condition_set(reader.read(text, context))


def only_rule(rules: list[ExtractedRule]) -> ExtractedRule:
    """The one rule of a text (a readable failure when there are more or none)."""
    assert len(rules) == 1, [(r.action, r.conditions) for r in rules]
    return rules[0]


def knowledge_text(
    text_id: str, body: str, kind: str = "sme", date: str = "2024-05-02"
) -> KnowledgeText:
    """A dated text of one source type, its source named after its id."""
    return KnowledgeText(
        id=text_id, text=body, source=f"Note {text_id}", source_type=kind, date=date
    )  # type: ignore[arg-type]


def limit_rule(field: str, op: str, value: float, **update: Any) -> ExtractedRule:
    """A stated hard BOP limit on one field, from a dated manual; `update` overrides."""
    base: dict[str, Any] = {
        "rule_name": f"{field} {op} {value}",
        "risk_factor": field,
        "risk_category": "eligibility",
        "product_type": "BOP",
        "action": "refer",
        "threshold": {"field": field, "operator": op, "value": value},
        "threshold_type": "hard",
        "conditions": [{"field": field, "operator": op, "value": value}],
        "source": "Carnival Guide",
        "source_type": "manual",
        "text_id": "guide",
        "date": "2023-01-10",
    }
    return ExtractedRule.model_validate({**base, **update})


#: The generic fields every test dictionary starts from; a test adds its own risk's fields.
BASE_FIELDS: dict[str, Any] = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "state": {"type": "str", "synonyms": ["state"], "description": "US state, two letters"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case",
    },
}


def rule_triples(
    extractor: OfflineExtractor, text: str, kind: str = "manual"
) -> list[tuple[str, str, list[tuple[str, str, object]]]]:
    """Each rule a text gives as (product, action, its sorted conditions)."""
    return [
        (r.product_type, r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in extractor.extract(text, source_type=kind)
    ]


def extractor_over(fields: dict[str, Any], more: dict[str, Any] | None = None) -> OfflineExtractor:
    """An offline extractor over a test's dictionary, with more fields or some replaced."""
    return OfflineExtractor(DataDictionary.model_validate({"fields": {**fields, **(more or {})}}))


def practice_claims(
    extractor: OfflineExtractor, fields: DataDictionary, *texts: KnowledgeText
) -> list[ExtractedRule]:
    """The claims of a batch of texts: each extracted, then read for practice in order."""
    from agents.ingestion.practice import with_practice

    extracted = [
        rule
        for t in texts
        for rule in extractor.extract(
            t.text, source=t.source, source_type=t.source_type, text_id=t.id
        )
    ]
    return with_practice(list(texts), extracted, [], fields)
