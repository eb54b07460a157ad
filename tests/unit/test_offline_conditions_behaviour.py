"""Conditions the offline reader takes from one clause (`agents.offline.conditions`).

Each test gives a clause and the (field, operator, value) triples that must be read
from it. The fields belong to an invented harbour / lighthouse dictionary that no
dataset has, so the tests depend only on the dictionary written here and on English.
Expected values are written out from the clause (a converted unit is worked out by
hand in a comment), never computed with the product's helpers.
"""

from __future__ import annotations

import pytest

from agents.offline.conditions import ConditionReader, blank_parentheses
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from tests.harbour import harbour_fields
from tests.rules import Triple, read_set

FIELDS = harbour_fields(
    "berth_length_ft",
    "winch_span_ft",
    "tow_distance_miles",
    "keeper_tenure_years",
    "glaze_loss_ratio",
    "mooring_fee_usd",
    "salt_index",
    "tide_zone",
    "drift_pct",
    "crew_count",
    "hull_class",
    "sail_cloth",
    "harbour_state",
    "bilge_alarm",
    "rust_flag",
)


def _reader(fields: dict[str, dict[str, object]]) -> ConditionReader:
    """A condition reader over an invented dictionary.

    Args:
        fields: The dictionary's fields, as in `fields.json`.

    Returns:
        A reader with no topic set.
    """
    return ConditionReader(FieldVocabulary(DataDictionary.model_validate({"fields": fields})))


@pytest.fixture(scope="module")
def harbour() -> ConditionReader:
    """A reader over the harbour dictionary."""
    return _reader(FIELDS)


# --- numbers and the comparison written around them ------------------------------------

NUMBERS = [
    # comparators before and after the number, and the plus sign
    ("A berth longer than 80 feet is referred.", {("berth_length_ft", "gt", 80.0)}),
    ("Berth length of 80 feet or more is declined.", {("berth_length_ft", "gte", 80.0)}),
    ("Berths of 80 feet OR MORE are declined.", {("berth_length_ft", "gte", 80.0)}),
    ("Keepers with 10+ years are fine.", {("keeper_tenure_years", "gte", 10)}),
    ("A keeper with ten-plus years.", {("keeper_tenure_years", "gte", 10)}),
    ("Keeper tenure under 3 years is referred.", {("keeper_tenure_years", "lt", 3)}),
    # a requirement fires below the amount required, a stated cap above it
    ("We require at least 5 years of keeper tenure.", {("keeper_tenure_years", "lt", 5)}),
    (
        "The keeper requires at most 40 years of keeper tenure.",
        {("keeper_tenure_years", "gt", 40)},
    ),
    ("The keeper requires under 4 years.", {("keeper_tenure_years", "lt", 4)}),
    # minimum / maximum written as a label after the number or before it
    ("Mooring fee of $4,000 minimum.", {("mooring_fee_usd", "lt", 4000.0)}),
    ("The minimum mooring fee is $4,000.", {("mooring_fee_usd", "lt", 4000.0)}),
    ("Berths of 90 feet maximum.", {("berth_length_ft", "gt", 90.0)}),
    ("The maximum berth is 90 feet.", {("berth_length_ft", "gt", 90.0)}),
    # a number with no comparison is no condition
    ("A berth of exactly 90 feet.", set()),
    # ranges: "7-8", "7 to 9"; two numbers of different fields joined by "and" are none
    (
        "A crew of 7-8 deckhands is referred.",
        {("crew_count", "gte", 7), ("crew_count", "lte", 8)},
    ),
    (
        "A crew of 7 to 9 deckhands is referred.",
        {("crew_count", "gte", 7), ("crew_count", "lte", 9)},
    ),
    ("A berth of 90 feet and 3 years of keeper tenure.", set()),
    # "years 1 and 2" is a range of years, not a label "year 1"
    (
        "Years 1 and 2 of keeper tenure are referred.",
        {("keeper_tenure_years", "gte", 1), ("keeper_tenure_years", "lte", 2)},
    ),
    # a count written with a hyphen ("36-slip") is skipped, the numbers after it are not
    ("A 36-slip marina with more than 12 deckhands.", {("crew_count", "gt", 12)}),
    # a number no field can take does not stop the reading of the next one
    ("Over 40 feet, or a crew of more than 12 deckhands.", {("crew_count", "gt", 12)}),
    # parenthesised text is left out, offsets kept
    ("A crew (deckhands only) of more than 12.", {("crew_count", "gt", 12)}),
    # a practice limit ("we have gone up to") is evidence, not a condition
    ("We have gone up to 95 feet on berth length.", set()),
    # units converted to the field's unit: 8 months = 8/12 year, 10,560 ft = 2 miles
    ("Keeper tenure under 8 months is referred.", {("keeper_tenure_years", "lt", 0.666667)}),
    ("A tow yard more than 10,560 feet away.", {("tow_distance_miles", "gt", 2.0)}),
    # percent into a rate, a share in words into a percent or a rate
    ("Glaze loss above 35% is declined.", {("glaze_loss_ratio", "gt", 0.35)}),
    ("Hull drift of more than half is referred.", {("drift_pct", "gt", 50.0)}),
    ("Glaze loss of more than half is declined.", {("glaze_loss_ratio", "gt", 0.5)}),
    # "N% below" is a negative value of a field that says so; the comparison flips
    ("Hull drift more than 10% below is referred.", {("drift_pct", "lt", -10.0)}),
    ("A crew of 12 or more below deck is referred.", {("crew_count", "gte", 12)}),
    # the unit alone places a number when one field is measured in it
    ("Anything over 2 miles is declined.", {("tow_distance_miles", "gt", 2.0)}),
    # two fields measured in feet and no word naming either: nowhere
    ("Anything over 40 feet is declined.", set()),
    # a unit no field has (square feet): nowhere
    ("A berth of more than 2,000 sq ft.", set()),
    # a word after the number that no field counts needs a naming word: "crew"
    ("A crew of more than 12 sailors.", {("crew_count", "gt", 12)}),
    ("Anything over 40 is declined.", set()),
]


@pytest.mark.parametrize(("text", "expected"), NUMBERS, ids=[t for t, _ in NUMBERS])
def test_numeric_conditions_of_a_clause(
    harbour: ConditionReader, text: str, expected: set[Triple]
) -> None:
    assert read_set(harbour, text) == expected


def test_a_value_keeps_the_type_of_its_field(harbour: ConditionReader) -> None:
    (whole,) = harbour.read("A berth longer than 80 feet is referred.").conditions
    (count,) = harbour.read("More than 12 deckhands.").conditions
    assert type(whole.value) is float and whole.value == 80.0  # a float field stays float
    assert type(count.value) is int and count.value == 12  # an int field gets an int


def test_numbers_report_where_each_number_is_and_whether_it_is_practice(
    harbour: ConditionReader,
) -> None:
    text = "We have gone up to 95 feet on berth length."
    (hit,) = harbour.numbers(text)
    assert (hit.field, hit.value, hit.operator) == ("berth_length_ft", 95.0, "lte")
    assert (hit.start, hit.end, hit.soft_evidence) == (19, 26, True)  # "95 feet"
    (plain,) = harbour.numbers("A berth of exactly 90 feet.")
    assert (plain.start, plain.end, plain.soft_evidence) == (19, 26, False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a time window is not a threshold: "in the last 5 years", "for 5 years"
        ("Keeper tenure of 3 years in the last 5 years.", [("keeper_tenure_years", 3)]),
        ("For 5 years the keeper tenure was short.", []),
        ("Keeper tenure of 3 years ago.", []),
        # a hyphenated time ("a 3-year tenure") is still a number of years
        ("Keepers with a 3-year tenure or less are referred.", [("keeper_tenure_years", 3)]),
    ],
)
def test_numbers_skip_time_windows(
    harbour: ConditionReader, text: str, expected: list[tuple[str, object]]
) -> None:
    assert [(h.field, h.value) for h in harbour.numbers(text)] == expected


def test_blank_parentheses_keeps_every_offset() -> None:
    assert blank_parentheses("a crew (deckhands) of 12") == "a crew             of 12"


# --- which field a number belongs to ---------------------------------------------------

TOW_ONLY = {
    "tow_distance_miles": {
        "type": "float",
        "unit": "miles",
        "synonyms": ["tow distance", "tow yard"],
        "description": "Road distance to the tow yard, in miles",
    }
}
TWO_SPANS = {
    "dock_span_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["dock span", "span"],
        "description": "Span of the dock",
    },
    "quay_span_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["quay span", "span"],
        "description": "Span of the quay",
    },
}
PIER = {
    "pier_length_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["pier length", "pier"],
        "description": "Length of the pier",
    },
    "rail_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["rail height"],
        "description": "Height of the guard rail",
    },
    "pier_distance_miles": {
        "type": "float",
        "unit": "miles",
        "synonyms": ["pier distance", "pier"],
        "description": "Road distance to the pier",
    },
}
SURVEY = {
    "survey_gap_months": {
        "type": "int",
        "unit": "months",
        "synonyms": ["survey gap"],
        "description": "Months since the last hull survey, 0 to 36",
    },
    "keeper_tenure_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["keeper tenure"],
        "description": "Years the keeper has held the post",
    },
}


@pytest.mark.parametrize(
    ("fields", "text", "context", "expected"),
    [
        # a field in another unit takes a number only when the clause names it
        (TOW_ONLY, "A railing four feet high is referred.", "", set()),
        (
            TOW_ONLY,
            "A tow yard more than 10,560 feet away.",
            "",
            {("tow_distance_miles", "gt", 2.0)},
        ),
        (TOW_ONLY, "The tow is more than 10,560 feet.", "", {("tow_distance_miles", "gt", 2.0)}),
        # a bare number needs a word naming the field, here or in the sentences before
        (TOW_ONLY, "Anything over 40 is declined.", "", set()),
        (
            TOW_ONLY,
            "Anything over 40 is declined.",
            "The tow is slow.",
            {("tow_distance_miles", "gt", 40.0)},
        ),
        (
            FIELDS,
            "Anything over 40 is declined.",
            "Keeper tenure matters here.",
            {("keeper_tenure_years", "gt", 40)},
        ),
        # with a word no field counts, the sentences before are not clear enough
        (FIELDS, "Anything over 40 lanterns is declined.", "The keeper is new.", set()),
        # two fields named alike: a tie is nobody's, the sentence before settles it
        (TWO_SPANS, "A span over 40 feet is declined.", "", set()),
        (
            TWO_SPANS,
            "A span over 40 feet is declined.",
            "On the quay:",
            {("quay_span_ft", "gt", 40.0)},
        ),
        # ... but a word in the clause weighs more than one in the sentence before
        (
            TWO_SPANS,
            "A span over 40 feet beside the old dock.",
            "On the quay:",
            {("dock_span_ft", "gt", 40.0)},
        ),
        # the field measured in the number's own unit wins a tie with a converted one
        (PIER, "A pier over 500 feet is referred.", "", {("pier_length_ft", "gt", 500.0)}),
        # 500 ft = 500/5280 mile = 0.094697 (to six places)
        (
            PIER,
            "A road distance over 500 feet is referred.",
            "",
            {("pier_distance_miles", "gt", 0.094697)},
        ),
        (PIER, "Anything over 500 feet is referred.", "", set()),
        # 2 years = 24 months, within the 0-36 scale; 5 years = 60 months is not
        (SURVEY, "A survey gap over 2 years is referred.", "", {("survey_gap_months", "gt", 24)}),
        (SURVEY, "A survey gap over 5 years is referred.", "", {("keeper_tenure_years", "gt", 5)}),
        (SURVEY, "Over 18 months is declined.", "", {("survey_gap_months", "gt", 18)}),
        (SURVEY, "Keeper tenure under 8 months.", "", {("keeper_tenure_years", "lt", 0.666667)}),
    ],
)
def test_the_field_a_number_belongs_to(
    fields: dict[str, dict[str, object]], text: str, context: str, expected: set[Triple]
) -> None:
    assert read_set(_reader(fields), text, context) == expected


def test_a_bare_number_continues_the_topic_of_the_text() -> None:
    reader = _reader(FIELDS)
    assert read_set(reader, "Fifteen or more are declined.") == set()
    reader.topic = "crew_count"  # "Two or more deckhands ... Fifteen or more ..."
    assert read_set(reader, "Fifteen or more are declined.") == {("crew_count", "gte", 15)}


def test_the_topic_takes_a_number_in_its_own_unit() -> None:
    reader = _reader(SURVEY)
    reader.topic = "keeper_tenure_years"
    # 18 months = 1.5 years
    assert read_set(reader, "Over 18 months is declined.") == {("keeper_tenure_years", "gt", 1.5)}
