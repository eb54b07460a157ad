"""Labelled numbers, listed values, states and flags the offline reader takes from a clause.

The companion of `test_offline_conditions_behaviour.py` (numbers and the field they
belong to). Fields and wording are invented (a harbour dictionary no dataset has);
each test gives a clause and the (field, operator, value) triples expected from it.
"""

from __future__ import annotations

import pytest

from agents.offline.conditions import ConditionReader
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from tests.harbour import harbour_fields
from tests.rules import Triple, read_set

FIELDS = harbour_fields(
    "keeper_tenure_years",
    "tide_zone",
    "hull_class",
    "sail_cloth",
    "harbour_state",
    "bilge_alarm",
    "rust_flag",
    keeper_tenure_years={"synonyms": ["keeper tenure"]},
)


@pytest.fixture(scope="module")
def harbour() -> ConditionReader:
    """A reader over the harbour dictionary."""
    return ConditionReader(FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS})))


CASES = [
    # numbers written after the field's unit word ("Zone 3"), any case
    ("Tide Zone 3 is referred.", {("tide_zone", "eq", 3)}),
    ("tide zone 3 or 4 is referred.", {("tide_zone", "in", (3, 4))}),
    # after a comparator the label is no value of its own
    ("Above Zone 4 is declined.", set()),
    ("Above Zone 4, and Zone 2 is referred.", {("tide_zone", "eq", 2)}),
    # listed values, the longest first: "laminated mylar" is not "mylar"
    ("Laminated mylar sails are referred.", {("sail_cloth", "eq", "laminated mylar")}),
    (
        "Laminated mylar and plain mylar sails are referred.",
        {("sail_cloth", "in", ("laminated mylar", "mylar"))},
    ),
    # a head noun shared over a list: "cotton or hemp duck" names "cotton duck"
    ("Sails of Cotton or hemp duck are referred.", {("sail_cloth", "eq", "cotton duck")}),
    (
        "Sails of woven or braided dacron, cotton or hemp duck.",
        {("sail_cloth", "in", ("woven dacron", "cotton duck"))},
    ),
    # values listed after "other than" are excluded
    ("Any sail cloth other than cotton duck.", {("sail_cloth", "neq", "cotton duck")}),
    (
        "Sail cloth other than woven dacron or cotton duck.",
        {("sail_cloth", "not_in", ("woven dacron", "cotton duck"))},
    ),
    # an upper-case value written in lower case needs a field word next to it
    ("A steel hull class is referred.", {("hull_class", "eq", "STEEL")}),
    ("Hull class of steel is referred.", {("hull_class", "eq", "STEEL")}),
    ("STEEL boats are declined.", {("hull_class", "eq", "STEEL")}),
    ("Steel railings are fine.", set()),
    (
        "Steel railings are fine along the walkway; a steel hull class is referred.",
        {("hull_class", "eq", "STEEL")},
    ),
    ("The grp dinghy is fine.", set()),
    ("Boats built in GRP are fine.", {("hull_class", "eq", "GRP")}),
    # a two-letter code needs a field word before it or a list of codes around it
    ("Hull class VX is declined.", {("hull_class", "eq", "VX")}),
    ("Class VX is declined.", {("hull_class", "eq", "VX")}),
    ("Boats marked VX are referred.", set()),
    ("VX or KQ hulls are declined.", {("hull_class", "in", ("VX", "KQ"))}),
    ("VX or KQ or B hulls.", {("hull_class", "in", ("VX", "KQ", "B"))}),
    ("VX boats and KQ boats are declined.", set()),
    ("STEEL or VX hulls are declined.", {("hull_class", "eq", "STEEL")}),
    # US states by name or code; a code that is also a word only inside a list
    ("Boats in TX are referred.", {("harbour_state", "eq", "TX")}),
    ("Harbours in IN or OH.", {("harbour_state", "in", ("IN", "OH"))}),
    ("Harbours in OH or IN.", {("harbour_state", "in", ("OH", "IN"))}),
    ("Written IN full.", set()),
    ("Written IN full by a keeper from TX.", {("harbour_state", "eq", "TX")}),
    ("Any state other than Ohio or Texas.", {("harbour_state", "not_in", ("OH", "TX"))}),
    ("Except Texas, all are fine.", {("harbour_state", "neq", "TX")}),
    ("Except Texas or Ohio, all are fine.", {("harbour_state", "not_in", ("TX", "OH"))}),
    ("Harbours outside of OH are referred.", {("harbour_state", "neq", "OH")}),
    # a flag that is not protective is a condition, negated or not
    ("Visible rust on the hull.", {("rust_flag", "eq", True)}),
    ("No visible rust.", {("rust_flag", "eq", False)}),
]


@pytest.mark.parametrize(("text", "expected"), CASES, ids=[t for t, _ in CASES])
def test_values_of_a_clause(harbour: ConditionReader, text: str, expected: set[Triple]) -> None:
    assert read_set(harbour, text) == expected


@pytest.mark.parametrize(
    ("text", "present", "absent"),
    [
        ("A bilge alarm is fitted.", ["bilge_alarm"], []),
        ("No bilge alarm is fitted.", [], ["bilge_alarm"]),
    ],
)
def test_a_protective_flag_is_a_mitigant_not_a_condition(
    harbour: ConditionReader, text: str, present: list[str], absent: list[str]
) -> None:
    found = harbour.read(text)
    assert (found.protective_pos, found.protective_neg, found.conditions) == (present, absent, [])


def test_no_state_field_no_states() -> None:
    fields = {k: v for k, v in FIELDS.items() if k != "harbour_state"}
    reader = ConditionReader(FieldVocabulary(DataDictionary.model_validate({"fields": fields})))
    assert read_set(reader, "Boats in TX are referred.") == set()
