"""Synthetic but realistic rule sets drawn from a data dictionary."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

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
_STATES = ("CA", "FL", "NY", "TX", "OH", "WA", "GA", "IL")
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
    seen: dict[tuple[str, str, str], int] = {}
    for i in range(n):
        business = f"{rng.choice(_QUALIFIERS)} {rng.choice(_BUSINESSES)}"
        field, spec = rng.choice(numeric)
        product = rng.choice(_PRODUCTS)
        # Distinct pieces of knowledge: a product, business and field drawn again is
        # another business (else it would be the same rule stated twice).
        count = seen[(product, business, field)] = seen.get((product, business, field), 0) + 1
        if count > 1:
            business = f"{business} {count}"
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
            "product_type": product,
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


SHAPES = ("own", "shared", "none")  # a source per rule, 50 shared sources, no text_id


def with_sources(rules: list[ExtractedRule], shape: str) -> list[ExtractedRule]:
    """The same rules with another source shape (how their `text_id`s group them).

    ``own``: every rule its own text id (a decision log: one source each);
    ``shared``: 50 shared source documents; ``none``: no text id, so rules are
    grouped by their source name.

    Raises:
        ValueError: An unknown shape (the message lists the allowed ones).
    """
    if shape not in SHAPES:
        raise ValueError(f"unknown source shape {shape!r}; allowed: {', '.join(SHAPES)}")
    out = []
    for i, rule in enumerate(rules):
        tid = {"own": f"synthetic-rule-{i}", "shared": f"synthetic-{i % 50}", "none": None}[shape]
        out.append(rule.model_copy(update={"text_id": tid}))
    return out


def write_rules_file(rules: list[ExtractedRule], path: Path) -> Path:
    """Write rules as a rules.jsonl file (one JSON object a line); return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for rule in rules:
            f.write(rule.model_dump_json(exclude_none=True) + "\n")
    return path


def wide_submission(
    rule: ExtractedRule, fields: DataDictionary, seed: int, numeric: int = 6, flags: int = 3
) -> dict[str, Any]:
    """A submission with product, state, occupancy, `numeric` numbers and `flags` booleans.

    The occupancy and one threshold come from `rule` (so it fires); the other
    fields are drawn from the data dictionary with plausible values.
    """
    rng = random.Random(seed)
    product = "BOP" if rule.product_type == "ALL" else str(rule.product_type)
    values: dict[str, Any] = {"product_type": product, "state": rng.choice(_STATES)}
    for c in rule.conditions:
        values[c.field] = c.value + 1 if isinstance(c.value, int | float) else c.value
    numbers = [
        k for k, s in fields.fields.items() if s.type in ("int", "float") and k not in values
    ]
    for name in rng.sample(numbers, k=min(numeric, len(numbers))):
        spec = fields.fields[name]
        number = rng.choice((1, 3, 8, 12, 30, 75, 200, 900, 5000))
        values[name] = number if spec.type == "int" else float(number)
    booleans = [k for k in fields.boolean_fields() if k not in values]
    for name in rng.sample(booleans, k=min(flags, len(booleans))):
        values[name] = rng.random() < 0.5
    return values


_STRESS_OCCUPANCIES = tuple(f"{q} {b}" for q in _QUALIFIERS[:3] for b in _BUSINESSES[:10])


def stress_rules(fields: DataDictionary, n: int, seed: int = 11) -> list[ExtractedRule]:
    """`n` rules that fire by the hundred: each a threshold from 1-500 on one numeric field.

    Half also name an occupancy (of 30), a fifth also a state, so a submission with six
    numbers, an occupancy and a state satisfies hundreds of them at 100k rules (issue 26's
    stress shape). Fields come from `fields` (the dev dictionary).
    """
    rng = random.Random(seed)
    numeric = [k for k, s in fields.fields.items() if s.type in ("int", "float")]
    flags = fields.boolean_fields()
    rules = []
    for i in range(n):
        field = rng.choice(numeric)
        limit = rng.randint(1, 500)
        operator = rng.choice(("gt", "gte"))
        conditions: list[dict[str, Any]] = [{"field": field, "operator": operator, "value": limit}]
        words = [f"{field.replace('_', ' ')} over {limit}"]
        risk = field.replace("_", " ").title()
        if rng.random() < 0.5:
            occupancy = rng.choice(_STRESS_OCCUPANCIES)
            conditions.insert(0, {"field": "occupancy", "operator": "eq", "value": occupancy})
            words.insert(0, occupancy)
            risk = occupancy.title()
        if rng.random() < 0.2:
            state = rng.choice(_STATES)
            conditions.append({"field": "state", "operator": "eq", "value": state})
            words.append(f"in {state}")
        action = rng.choice(_ACTIONS)
        soft = rng.random() < 0.3
        source, source_type = rng.choice(_SOURCES)
        mitigant_fields = rng.sample(flags, k=min(len(flags), rng.randint(0, 2)))
        doc = {
            "rule_name": f"Stress {risk} {field.replace('_', ' ').title()} Rule {i}",
            "risk_factor": risk,
            "risk_category": "occupancy",
            "product_type": rng.choice(_PRODUCTS),
            "action": action,
            "outcome_description": f"A risk with {' '.join(words)} is {action.replace('_', ' ')}.",
            "mitigants": [f.replace("_", " ") for f in mitigant_fields],
            "mitigant_fields": mitigant_fields,
            "source": f"{source} {i % 50}",
            "source_type": source_type,
            "threshold": {"field": field, "operator": operator, "value": limit},
            "threshold_type": "soft" if soft else "hard",
            "soft_limit": float(limit * 1.2) if soft else None,
            "conditions": conditions,
            "data_fields": list(dict.fromkeys(c["field"] for c in conditions)),
            "text_id": f"stress-{i // 10}",
        }
        rules.append(ExtractedRule.model_validate(doc))
    return rules


def stress_submission(fields: DataDictionary, seed: int) -> dict[str, Any]:
    """A submission of the stress shape: 6 numbers, 3 booleans, an occupancy and a state."""
    rng = random.Random(seed)
    values: dict[str, Any] = {
        "product_type": rng.choice(_PRODUCTS[:4]),
        "state": rng.choice(_STATES),
        "occupancy": rng.choice(_STRESS_OCCUPANCIES),
    }
    numbers = [k for k, s in fields.fields.items() if s.type in ("int", "float")]
    for name in rng.sample(numbers, k=6):
        number = rng.randint(1, 600)
        values[name] = number if fields.fields[name].type == "int" else float(number)
    for name in rng.sample(fields.boolean_fields(), k=3):
        values[name] = rng.random() < 0.5
    return values
