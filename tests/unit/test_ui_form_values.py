"""The review application reads form text as the data dictionary's types.

A form gives only text. The edit form's condition values, its soft limit and the
decide form's fields are typed by the one coercion submissions go through
(`schemas.submission.coerce_value`), with the form's own words for yes and no and
digits grouped by commas.
"""

from __future__ import annotations

import re

import pytest
from starlette.datastructures import FormData

from agents.ui.actions import edited_rule
from schemas.fields import DataDictionary, FieldSpec
from schemas.rules import ExtractedRule

FIELDS = DataDictionary(
    fields={
        "employee_count": FieldSpec(type="int"),
        "tiv_usd": FieldSpec(type="float"),
        "sprinklered": FieldSpec(type="bool"),
        "occupancy": FieldSpec(type="str", description="Business class, lower case."),
    }
)

RULE = ExtractedRule.model_validate(
    {
        "rule_name": "Big Crew",
        "risk_factor": "Crew size",
        "risk_category": "operations",
        "product_type": "BOP",
        "action": "refer",
        "outcome_description": "Large crews are referred.",
        "source": "BOP guide",
        "source_type": "manual",
        "confidence": "high",
        "conditions": [
            {"field": "employee_count", "operator": "gt", "value": 20},
            {"field": "tiv_usd", "operator": "gte", "value": 1000000.0},
            {"field": "sprinklered", "operator": "eq", "value": False},
            {"field": "occupancy", "operator": "in", "value": ["restaurant", "bar"]},
        ],
        "threshold": {"field": "employee_count", "operator": "gt", "value": 20},
        "threshold_type": "soft",
    }
)


def _edit(**values: str) -> ExtractedRule:
    return edited_rule(RULE, FormData(list(values.items())), FIELDS)


def test_form_text_becomes_the_fields_types() -> None:
    edited = _edit(
        value_0="1,250", value_1="2,500,000.5", value_2="Yes", value_3="Diner, Bar", soft_limit="25"
    )
    assert [c.value for c in edited.conditions] == [1250, 2500000.5, True, ["Diner", "Bar"]]
    assert type(edited.conditions[0].value) is int
    assert edited.threshold is not None and edited.threshold.value == 1250
    assert (edited.soft_limit, type(edited.soft_limit)) == (25.0, float)


@pytest.mark.parametrize(("text", "value"), [("true", True), ("NO", False), ("false", False)])
def test_yes_and_no_words_are_booleans(text: str, value: bool) -> None:
    assert _edit(value_2=text).conditions[2].value is value


def test_a_blank_value_keeps_the_condition_and_a_blank_soft_limit_clears_it() -> None:
    soft = RULE.model_copy(update={"soft_limit": 30.0})
    edited = edited_rule(soft, FormData([("value_0", ""), ("value_3", "restaurant, bar")]), FIELDS)
    assert edited.conditions == RULE.conditions
    assert edited.soft_limit is None


def test_an_integral_number_fits_an_int_field_as_a_submission_does() -> None:
    assert _edit(value_0="40.0").conditions[0].value == 40


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"value_0": "lots"}, "employee_count must be a number (int), got 'lots'"),
        ({"value_0": "20.5"}, "employee_count must be a number (int), got '20.5'"),
        ({"value_1": "inf"}, "tiv_usd must be a number (float), got 'inf'"),
        ({"value_2": "maybe"}, "sprinklered must be yes or no, got 'maybe'"),
        ({"soft_limit": "high"}, "soft_limit must be a number (float), got 'high'"),
    ],
)
def test_text_that_does_not_fit_its_field_is_refused(values: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _edit(**values)
