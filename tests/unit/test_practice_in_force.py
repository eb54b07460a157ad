"""A text reads against the rules in force on its own day, ended ones included."""

from __future__ import annotations

from typing import Any

from agents.ingestion.practice import with_practice
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule


def _rule(product: str, value: int, action: str, **update: Any) -> ExtractedRule:
    base: dict[str, Any] = {
        "rule_name": f"{product} Owners Over {value}",
        "risk_factor": "Owners",
        "risk_category": "eligibility",
        "product_type": product,
        "action": action,
        "threshold": {"field": "owner_count", "operator": "gt", "value": value},
        "conditions": [{"field": "owner_count", "operator": "gt", "value": value}],
        "source": "Manual",
        "source_type": "manual",
        "text_id": "m1",
        "date": "2024-01-10",
        "valid_from": "2024-01-10",
    }
    return ExtractedRule.model_validate({**base, **update})


NOTE = KnowledgeText(
    id="t1",
    text="Quick reference: every line flags more than 25 owners; LRO refers more than 10.",
    source="Desk Handout",
    source_type="training",
    date="2024-11-12",
)


def _read(known: list[ExtractedRule], date: str | None) -> list[tuple[str, float | None]]:
    note = NOTE.model_copy(update={"date": date})
    claim = _rule(
        "ALL", 25, "flag_for_review", source="Desk Handout", source_type="training", text_id="t1"
    ).model_copy(update={"valid_from": None, "date": None})
    return [
        (c.product_type, c.threshold.value if c.threshold else None)
        for c in with_practice([note], [claim], known)
    ]


def test_a_note_read_again_after_a_withdrawal_still_speaks_of_the_rule_of_its_day() -> None:
    every_line = _rule("ALL", 25, "flag_for_review", valid_to="2025-09-02")  # withdrawn since
    lro = _rule("LRO", 10, "refer")
    # Its day knew the every-line rule: the note's every-line limit stays that rule's.
    assert _read([lro, every_line], "2024-11-12") == [("ALL", 25.0)]
    # A note of a day after the withdrawal knows only the LRO rule: read as about it.
    assert _read([lro, every_line], "2025-10-01") == [("LRO", 25.0)]
    # On the withdrawal's own day the every-line rule no longer holds; a note of no day
    # reads the rules in force now.
    assert _read([lro, every_line], "2025-09-02") == [("LRO", 25.0)]
    assert _read([lro, every_line], None) == [("LRO", 25.0)]
    # Without the ended rule known at all, even the note of 2024 was read as LRO's.
    assert _read([lro], "2024-11-12") == [("LRO", 25.0)]
