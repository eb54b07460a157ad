"""Parsing submissions against the data dictionary, and the decision shapes."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from schemas.fields import DataDictionary
from schemas.submission import (
    CitedRule,
    Decision,
    ParsedSubmission,
    SubmissionError,
    parse_submission,
)

FIELDS = DataDictionary.model_validate(
    {
        "fields": {
            "product_type": {"type": "str", "description": "Product: BOP, LRO, Property, GL"},
            "state": {"type": "str", "description": "Two-letter US state code"},
            "occupancy": {"type": "str", "description": "Occupancy, lower case"},
            "flood_zone": {"type": "str", "description": "FEMA flood zone code, upper case"},
            "employee_count": {"type": "int", "unit": "employees"},
            "tiv_usd": {"type": "float", "unit": "USD"},
            "sprinklered": {"type": "bool"},
        }
    }
)


def test_clean_submission_round_trips() -> None:
    parsed = parse_submission(
        {
            "id": "s1",
            "product_type": "BOP",
            "state": "TX",
            "occupancy": "restaurant",
            "employee_count": 22,
            "tiv_usd": 1_250_000.5,
            "sprinklered": False,
        },
        FIELDS,
    )
    assert parsed.id == "s1"
    assert parsed.unknown_fields == {}
    assert parsed.values == {
        "product_type": "BOP",
        "state": "TX",
        "occupancy": "restaurant",
        "employee_count": 22,
        "tiv_usd": 1_250_000.5,
        "sprinklered": False,
    }


@pytest.mark.parametrize(
    ("field", "raw", "expected"),
    [
        ("employee_count", 22.0, 22),
        ("employee_count", "22", 22),
        ("employee_count", " 22.0 ", 22),
        ("tiv_usd", 1_150_000, 1_150_000.0),
        ("tiv_usd", "950000.50", 950_000.5),
        ("tiv_usd", "-37", -37.0),
        ("sprinklered", True, True),
        ("state", " tx ", "TX"),
        ("occupancy", "Gas Station", "gas station"),
        ("flood_zone", "ae", "AE"),
        ("product_type", "property", "Property"),
        ("product_type", "bop", "BOP"),
    ],
)
def test_coercions(field: str, raw: Any, expected: Any) -> None:
    value = parse_submission({field: raw}, FIELDS).values[field]
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("field", "raw", "message"),
    [
        ("employee_count", "twenty", "field 'employee_count' expects int, got 'twenty' (str)"),
        ("employee_count", 22.5, "field 'employee_count' expects int, got 22.5 (float)"),
        ("employee_count", True, "field 'employee_count' expects int, got True (bool)"),
        ("tiv_usd", False, "field 'tiv_usd' expects float, got False (bool)"),
        ("tiv_usd", float("nan"), "field 'tiv_usd' expects float, got nan (float)"),
        ("tiv_usd", "1.2m", "field 'tiv_usd' expects float, got '1.2m' (str)"),
        ("sprinklered", 1, "field 'sprinklered' expects bool, got 1 (int)"),
        ("sprinklered", "yes", "field 'sprinklered' expects bool, got 'yes' (str)"),
        ("state", 42, "field 'state' expects non-empty str, got 42 (int)"),
        ("occupancy", "  ", "field 'occupancy' expects non-empty str, got '  ' (str)"),
        ("employee_count", [3], "field 'employee_count' expects int, got [3] (list)"),
    ],
)
def test_errors_name_field_type_and_value(field: str, raw: Any, message: str) -> None:
    with pytest.raises(SubmissionError) as info:
        parse_submission({field: raw}, FIELDS)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_unknown_fields_are_kept_as_given() -> None:
    parsed = parse_submission(
        {"occupancy": "office", "Pet Policy": "no cats", "hazards": ["x", 1]}, FIELDS
    )
    assert parsed.values == {"occupancy": "office"}
    assert parsed.unknown_fields == {"Pet Policy": "no cats", "hazards": ["x", 1]}


def test_keys_match_ignoring_case_and_spacing() -> None:
    parsed = parse_submission({"Employee Count": 5, " TIV-usd ": 10}, FIELDS)
    assert parsed.values == {"employee_count": 5, "tiv_usd": 10.0}
    assert parsed.unknown_fields == {}


def test_same_field_twice_is_an_error() -> None:
    with pytest.raises(SubmissionError, match="employee_count.*twice"):
        parse_submission({"employee_count": 5, "Employee Count": 6}, FIELDS)


def test_null_value_means_unknown() -> None:
    parsed = parse_submission({"employee_count": None, "state": "OH"}, FIELDS)
    assert parsed.values == {"state": "OH"}
    assert "employee_count" not in parsed.unknown_fields


def test_numeric_id_becomes_text_and_absent_id_is_none() -> None:
    assert parse_submission({"id": 7}, FIELDS).id == "7"
    assert parse_submission({}, FIELDS).id is None


@pytest.mark.parametrize(
    ("data", "shown"),
    [
        ([("employee_count", 5)], "[('employee_count', 5)] (list)"),
        ("employee_count=5", "'employee_count=5' (str)"),
        (None, "None (NoneType)"),
    ],
)
def test_non_mapping_input_names_what_was_given(data: Any, shown: str) -> None:
    with pytest.raises(SubmissionError) as info:
        parse_submission(data, FIELDS)
    assert "JSON object" in str(info.value)
    assert shown in str(info.value)


def test_non_text_key_is_an_error() -> None:
    with pytest.raises(SubmissionError, match=r"got 3 \(int\)"):
        parse_submission({3: "x"}, FIELDS)  # type: ignore[dict-item]


def test_models_forbid_extra_keys() -> None:
    with pytest.raises(ValidationError):
        ParsedSubmission.model_validate({"values": {}, "surprise": 1})
    with pytest.raises(ValidationError):
        Decision.model_validate({"decision": "approve", "confidence": 0.9})


def test_decision_shape() -> None:
    decision = Decision(
        decision="refer",
        cited_rules=[CitedRule(rule_name="R", outcome="refer", why="x 3 > 2", source="Manual")],
        missing_fields=["vacancy_days"],
        reasoning_chain=["R fires"],
        retrieved_rules=["R", "S"],
        latency_ms=12.5,
        notes=["unknown field 'pets'"],
    )
    assert decision.model_dump()["cited_rules"][0]["rule_name"] == "R"
    with pytest.raises(ValidationError):
        Decision(decision="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        CitedRule(rule_name="R", outcome="approve", why="", source="")  # type: ignore[arg-type]
