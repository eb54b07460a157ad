"""Round 26, extraction: what a subject has versus what it must have, ages, late evidence.

Every field and sentence below is made up for these tests (a ferry-operator dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.placement import find_product
from tests.rules import condition_set, extractor_over

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'ferry operator')",
    },
    "sells_charter_cruises": {
        "type": "bool",
        "synonyms": ["sells charter cruises", "charter cruise sales"],
        "description": "The operator sells charter cruises to the public",
    },
    "hull_survey_current": {
        "type": "bool",
        "synonyms": ["hull survey", "out-of-water survey"],
        "description": "An out-of-water hull survey is current (within 24 months)",
    },
    "dock_age_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["dock age", "age of the dock", "dock is N years old"],
        "description": "Age of the passenger dock in years",
    },
    "safety_briefing_minutes": {
        "type": "int",
        "unit": "minutes",
        "synonyms": ["safety briefing", "briefing time"],
        "description": "Minutes of safety briefing given to passengers before departure",
    },
    "fare_change_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["fare change", "fare cut"],
        "description": "Fare change against last season, in percent (-12 = a 12% reduction)",
    },
    "night_crossings_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["night crossings", "share of crossings after dark"],
        "description": "Share of crossings made after dark, in percent",
    },
}


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS)


def _read(extractor, text: str, kind: str = "manual"):  # type: ignore[no-untyped-def]
    return extractor.extract(text, source="Ferry Guide", source_type=kind)


def test_a_flag_of_the_subject_is_not_what_the_subject_must_hold(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "An operator that sells charter cruises must hold a passenger-vessel license: verify "
        "the license before binding, on any product.",
    )
    assert [condition_set(r) for r in rules] == [{("sells_charter_cruises", "eq", True)}]


def test_a_flag_said_missing_after_its_complement_is_false(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "If the hull survey of the vessels is missing, verify with the owner.")
    assert [condition_set(r) for r in rules] == [{("hull_survey_current", "eq", False)}]


def test_so_many_months_old_names_no_age_field(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "If the report is more than eighteen months old, verify it.")
    assert rules == []


def test_an_age_field_is_still_read_by_its_own_words(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "A dock more than forty years old is referred.")
    assert [condition_set(r) for r in rules] == [{("dock_age_years", "gt", 40)}]


def test_practice_before_the_rule_it_bends_gives_the_soft_limit(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Night crossings were 37% of the schedule, against the 30% referral point in the "
        "guide. QA: the desk has routinely signed off on night crossing shares up to forty "
        "percent for established operators. Anything beyond 40% still goes to referral.",
        "production",
    )
    assert [(condition_set(r), r.soft_limit) for r in rules] == [
        ({("night_crossings_pct", "gt", 30)}, 40.0)
    ]


def test_a_list_of_every_product_is_every_product() -> None:
    assert find_product("This applies to BOP, LRO, Property and GL alike.") == "ALL"
    assert find_product("Property, GL, BOP and LRO") == "ALL"
    assert find_product("On the BOP and GL, refer it.") == "BOP"


def test_a_standards_table_acts_when_its_standard_is_not_met(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "| Item | Standard | If the standard is not met |\n"
        "|---|---|---|\n"
        "| Night crossings | 30% or less | refer for schedule review |",
    )
    assert [condition_set(r) for r in rules] == [{("night_crossings_pct", "gt", 30)}]


def test_less_than_that_points_at_a_measure_said_with_a_hyphen(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "A ferry left twenty-two minutes late. On the GL the standard is a ten-minute safety "
        "briefing, and operators that brief passengers for less than that are declined.",
        "production",
    )
    assert [condition_set(r) for r in rules] == [{("safety_briefing_minutes", "lt", 10)}]


def test_a_bare_comparison_in_parentheses_is_the_condition(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "A night-heavy schedule (over 40%) from an operator that sells charter cruises is "
        "declined outright, on any product.",
    )
    assert [condition_set(r) for r in rules] == [
        {("night_crossings_pct", "gt", 40), ("sells_charter_cruises", "eq", True)}
    ]


def test_a_reduction_is_negative_on_a_field_whose_reductions_are(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "The guide refers any fare cut deeper than 15 percent.")
    assert [condition_set(r) for r in rules] == [{("fare_change_pct", "lt", -15)}]


def test_a_class_the_dictionary_lists_is_a_class_whatever_its_head(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "Ferry operators are declined on the BOP.")
    assert [condition_set(r) for r in rules] == [{("occupancy", "eq", "ferry operator")}]
