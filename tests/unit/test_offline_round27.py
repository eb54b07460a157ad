"""Round 27, extraction: a class's policy wording, denied subjects and possessions, scales.

Every field and sentence below is made up for these tests (a kite-surfing dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.eval_consolidation import score_rules
from memory.underwriting.fieldlink.profile import parse_enum
from schemas.rules import ExtractedRule
from tests.rules import condition_set, extractor_over

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'kite-surfing school', 'surf shop')",
    },
    "iko_certified": {
        "type": "bool",
        "synonyms": ["IKO instructor certificate", "instructor certification"],
        "description": "The instructors hold their own IKO instructor certificates",
    },
    "kites_stored_above_compressor": {
        "type": "bool",
        "synonyms": ["kites stored above the compressor room", "kite loft over the compressor"],
        "description": "Kites are stored in the loft above the compressor room",
    },
    "rescue_boat_on_station": {
        "type": "bool",
        "synonyms": ["rescue boat", "chase boat on station"],
        "description": "A rescue boat is on station during lessons",
    },
    "students_per_instructor_max": {
        "type": "int",
        "unit": "students",
        "synonyms": ["students per instructor", "class size"],
        "description": "Largest number of students one instructor takes on the water",
    },
    "daily_students": {
        "type": "int",
        "unit": "students",
        "synonyms": ["students a day", "daily student count"],
        "description": "Students taught on a busy day",
    },
    "instructor_count": {
        "type": "int",
        "unit": "instructors",
        "synonyms": ["instructors", "teaching staff"],
        "description": "Instructors on the payroll",
    },
    "annual_visitors_millions": {
        "type": "float",
        "unit": "million visitors",
        "synonyms": ["annual visitors", "visitors per year"],
        "description": "Visitors to the beach site per year, in millions",
    },
    "wind_limit_knots": {
        "type": "float",
        "unit": "knots",
        "synonyms": ["wind limit"],
        "description": "Highest wind speed lessons run in",
    },
}


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS)


def _read(extractor, text: str, kind: str = "manual"):  # type: ignore[no-untyped-def]
    return extractor.extract(text, source="Kite Guide", source_type=kind)


def _summary(rules):  # type: ignore[no-untyped-def]
    return [(r.action, r.product_type, condition_set(r)) for r in rules]


SCHOOL = ("occupancy", "eq", "kite-surfing school")


def test_an_exclusion_every_policy_issued_to_a_class_carries(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Every policy we issue to a kite-surfing school carries the tow-line exclusion; "
        "riders are not covered while being towed.",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [("exclude", {SCHOOL})]


def test_an_exclusion_said_of_the_policy_under_a_text_naming_one_class(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Kite-surfing schools have no home on the BOP. On the GL we look at the shop, but "
        "the GL goes out with the tow-line exclusion left in place and no buy-back.",
    )
    assert _summary(rules) == [("exclude", "GL", {SCHOOL})]


def test_a_subject_ends_before_its_past_participle(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "A kite-surfing school submitted for a BOP is declined outright.")
    assert _summary(rules) == [("decline", "BOP", {SCHOOL})]


def test_a_denied_possession_reaches_over_its_objects_words(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "An instructor that does not hold its own current IKO instructor certificate is "
        "declined on the GL.",
    )
    assert _summary(rules) == [("decline", "GL", {("iko_certified", "eq", False)})]


def test_nothing_over_a_limit_is_acceptable_declines(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "Nothing taking more than forty students a day is acceptable.")
    assert _summary(rules) == [("decline", "ALL", {("daily_students", "gt", 40)})]


def test_a_class_that_does_so_takes_the_clause_before(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Kites must never be stored above the compressor room; a kite-surfing school that "
        "does so is declined.",
    )
    assert _summary(rules) == [
        ("decline", "ALL", {SCHOOL, ("kites_stored_above_compressor", "eq", True)})
    ]


def test_a_scoped_order_to_confirm_a_protection_is_the_protection_missing(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "For every kite-surfing school, regardless of product, the underwriter must confirm "
        "that a rescue boat is on station before the quote is released.",
    )
    assert _summary(rules) == [("verify", "ALL", {SCHOOL, ("rescue_boat_on_station", "eq", False)})]


def test_what_the_application_says_they_do_not_hold_is_false(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "Ask whether the instructors hold an IKO instructor certificate; if the application "
        "says they do not, confirm with the school before quoting.",
    )
    assert _summary(rules) == [("verify", "ALL", {("iko_certified", "eq", False)})]


def test_a_bare_figure_equal_to_the_limit_just_said_continues_it(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(
        extractor,
        "A lesson of no more than six students per instructor is standard. Where any "
        "instructor takes more than six, refer the school.",
    )
    assert _summary(rules) == [("refer", "ALL", {("students_per_instructor_max", "gt", 6)})]


def test_a_field_counted_in_millions_takes_the_figure_in_millions(extractor) -> None:  # type: ignore[no-untyped-def]
    rules = _read(extractor, "A beach site with more than two million annual visitors is referred.")
    assert _summary(rules) == [("refer", "ALL", {("annual_visitors_millions", "gt", 2)})]


def test_a_descriptions_value_list_ends_with_its_sentence() -> None:
    values, examples = parse_enum(
        "Fuel burned, lower case: natural gas, coal, sawdust. If coal is used at all, "
        "the solid fuel is recorded"
    )
    assert (values, examples) == (["natural gas", "coal", "sawdust"], False)


def _rule(operator: str, value: float, field: str) -> ExtractedRule:
    return ExtractedRule.model_validate(
        {
            "rule_name": "Class size",
            "risk_factor": "Class size",
            "risk_category": "operations",
            "product_type": "GL",
            "action": "refer",
            "outcome_description": "Large classes are referred.",
            "source": "Kite Guide",
            "source_type": "manual",
            "conditions": [{"field": field, "operator": operator, "value": value}],
        }
    )


def test_a_whole_number_limit_scores_the_same_in_either_strictness() -> None:
    gold = _rule("gt", 8, "students_per_instructor_max").model_dump(mode="json")
    stored = [_rule("gte", 9, "students_per_instructor_max")]
    whole = frozenset({"students_per_instructor_max"})
    assert score_rules([gold], stored, whole)["exact"] == 1.0
    assert score_rules([gold], stored)["exact"] == 0.0  # a field not known to be whole


def test_a_fractional_limit_keeps_its_strictness() -> None:
    gold = _rule("gt", 8, "wind_limit_knots").model_dump(mode="json")
    stored = [_rule("gte", 9, "wind_limit_knots")]
    assert score_rules([gold], stored, frozenset({"daily_students"}))["exact"] == 0.0
