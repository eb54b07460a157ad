"""Synthetic but realistic rule sets drawn from a data dictionary."""

from __future__ import annotations

import random

from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule

_BUSINESSES = (
    "bakery",
    "brewery",
    "car wash",
    "cold storage",
    "dance studio",
    "dry cleaner",
    "florist",
    "foundry",
    "furniture maker",
    "gym",
    "hardware store",
    "hotel",
    "ice rink",
    "kennel",
    "laundromat",
    "machine shop",
    "marina",
    "nursery",
    "pharmacy",
    "print shop",
    "sawmill",
    "self storage",
    "shooting range",
    "spa",
    "tire shop",
    "veterinary clinic",
    "winery",
)
_QUALIFIERS = ("coastal", "downtown", "rural", "historic", "24-hour", "family-run", "franchise")
_PRODUCTS = ("BOP", "LRO", "Property", "GL", "ALL")
_ACTIONS = ("refer", "decline", "approve_with_conditions", "verify", "flag_for_review")
_SOURCES = (
    ("Underwriting Manual", "manual"),
    ("SME interview", "sme"),
    ("Production decision log", "production"),
    ("Compliance bulletin", "compliance"),
)


def generate_rules(fields: DataDictionary, n: int, seed: int = 7) -> list[ExtractedRule]:
    """Return `n` distinct rules: an occupancy, a numeric threshold, mitigants and a source.

    Numeric fields, their units and the boolean (mitigant) fields all come from `fields`.
    """
    rng = random.Random(seed)
    numeric = [(k, s) for k, s in fields.fields.items() if s.type in ("int", "float")]
    flags = fields.boolean_fields()
    rules = []
    for i in range(n):
        business = f"{rng.choice(_QUALIFIERS)} {rng.choice(_BUSINESSES)}"
        field, spec = rng.choice(numeric)
        limit = rng.choice((5, 10, 15, 20, 25, 40, 50, 100, 250, 1000))
        action = rng.choice(_ACTIONS)
        soft = rng.random() < 0.3
        source, source_type = rng.choice(_SOURCES)
        mitigant_fields = rng.sample(flags, k=min(len(flags), rng.randint(0, 2)))
        unit = spec.unit or ""
        doc = {
            "rule_name": f"{business.title()} {field.replace('_', ' ').title()} Rule {i}",
            "risk_factor": business.title(),
            "risk_category": "occupancy",
            "product_type": rng.choice(_PRODUCTS),
            "action": action,
            "outcome_description": f"A {business} with {field.replace('_', ' ')} over "
            f"{limit} {unit} is {action.replace('_', ' ')}.",
            "mitigants": [f.replace("_", " ") for f in mitigant_fields],
            "mitigant_fields": mitigant_fields,
            "source": f"{source} {i % 50}",
            "source_type": source_type,
            "threshold": {"field": field, "operator": "gt", "value": limit, "unit": unit or None},
            "threshold_type": "soft" if soft else "hard",
            "soft_limit": float(limit * 1.2) if soft else None,
            "conditions": [
                {"field": "occupancy", "operator": "eq", "value": business},
                {"field": field, "operator": "gt", "value": limit},
            ],
            "data_fields": ["occupancy", field],
            "text_id": f"synthetic-{i // 10}",  # ten rules per source document
        }
        rules.append(ExtractedRule.model_validate(doc))
    return rules


def query_for(rule: ExtractedRule) -> str:
    """A query a user could type for a rule: product, risk, field and limit.

    Like the dataset queries (``"employee count 22"`` for a BOP submission); without
    the limit and product, hundreds of synthetic rules share a query at 100k.
    """
    threshold = rule.threshold
    words: list[str] = [] if rule.product_type == "ALL" else [str(rule.product_type)]
    words.append(rule.risk_factor.lower())
    if threshold is not None:
        words += [threshold.field.replace("_", " "), "over", f"{threshold.value:g}"]
    return " ".join(words)
