"""A text heard again: its practice stays as first heard; a corrected reading replaces it."""

from __future__ import annotations

from typing import Any

from memory.underwriting.claims import _merge
from schemas.rules import ExtractedRule


def _claim(text_id: str, source_type: str, value: float, soft: float | None) -> ExtractedRule:
    rule: dict[str, Any] = {
        "rule_name": "More Than Three Moorings Review",
        "risk_factor": "Moorings",
        "risk_category": "operations",
        "product_type": "ALL",
        "action": "refer",
        "threshold": {"field": "mooring_count", "operator": "gt", "value": value},
        "threshold_type": "soft" if soft else "hard",
        "soft_limit": soft,
        "conditions": [{"field": "mooring_count", "operator": "gt", "value": value}],
        "source": "Marina Guide",
        "source_type": source_type,
        "text_id": text_id,
        "date": "2025-07-14" if text_id == "log" else "2024-03-11",
    }
    return ExtractedRule.model_validate(rule)


def test_practice_heard_again_keeps_the_rule_as_it_stood_when_first_heard() -> None:
    manual, log = _claim("guide", "manual", 3, None), _claim("log", "production", 3, 7)
    # the rule was amended to 2 since: the log's practice, re-read, copies the new limit
    again = _claim("log", "production", 2, 7)
    merged = _merge([manual, log], [again], "2026-01-01")
    assert merged == [manual, log]


def test_a_re_read_text_that_says_something_else_replaces_its_claim() -> None:
    manual, log = _claim("guide", "manual", 3, None), _claim("log", "production", 3, 7)
    corrected = _claim("log", "production", 3, 8)
    assert _merge([manual, log], [corrected], "2026-01-01") == [manual, corrected]
    restated = _claim("guide", "manual", 4, None)  # a statement re-read is read anew
    assert _merge([manual, log], [restated], "2026-01-01") == [log, restated]
