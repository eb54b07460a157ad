"""Offline extraction round 45, fourth part: words that look like values, counts or names.

Every field and sentence below is made up for these tests (an ice-rink dictionary no
dataset has).
"""

from __future__ import annotations

from memory.underwriting.fieldlink.numbers import find_numbers
from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "operation"],
        "description": "Business class of the insured, lower case",
    },
    "coach_licence_grade": {
        "type": "str",
        "synonyms": ["coaching licence class"],
        "description": "Licence grade of the head coach: apprentice, general or master",
    },
    "ice_depth_in": {
        "type": "float",
        "unit": "inches",
        "synonyms": ["ice depth", "ice thickness"],
        "description": "Thinnest ice measured on the rink, in inches",
    },
    "bench_tiers": {
        "type": "int",
        "unit": "tiers",
        "synonyms": ["stacking height", "stack height in tiers"],
        "description": "Number of tiers of spectator benches stacked at the rink side",
    },
    "skaters_per_session": {
        "type": "int",
        "unit": "skaters",
        "synonyms": ["session load"],
        "description": "Peak number of skaters on the ice in one session",
    },
    "zamboni_count": {
        "type": "int",
        "unit": "resurfacers",
        "synonyms": ["ice resurfacers"],
        "description": "Number of ice resurfacing machines",
    },
    "master_coach_present": {
        "type": "bool",
        "synonyms": ["sponsoring master coach present"],
        "description": "The apprentice's sponsoring master coach is present at every session",
    },
    "guest_skate_rental": {
        "type": "bool",
        "synonyms": ["guests hire skates at the desk"],
        "description": "Members of the public hire skates from the rink",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_product_s_name_is_no_value_of_a_grade() -> None:
    text = "A General Liability submission for a rink whose ice is under 2 inches is declined."
    assert rule_triples(EXTRACTOR, text) == [("GL", "decline", [("ice_depth_in", "lt", 2)])]


def test_the_thing_a_field_measures_is_no_business_class() -> None:
    assert rule_triples(EXTRACTOR, "Stacks above 6 tiers are referred.") == [
        ("ALL", "refer", [("bench_tiers", "gt", 6)])
    ]


def test_any_one_is_no_figure() -> None:
    assert find_numbers("on any one session") == []
    text = (
        "No more than sixty skaters on any one session may be bound without the rink "
        "underwriter. Above that, refer."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("skaters_per_session", "gt", 60)])]


def test_a_count_said_by_an_ordinal_reaches_it() -> None:
    text = (
        "Rinks with two resurfacers or fewer are fine at the desk. A third resurfacer means "
        "the account goes to the team lead."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("zamboni_count", "gt", 2)])]


def test_where_a_rule_bends_names_its_mitigant() -> None:
    rules = EXTRACTOR.extract(
        "An apprentice coaching licence grade is a decline. Where it bends is when the "
        "apprentice's sponsoring master coach is physically present at every session.",
        source_type="sme",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("decline", ["master_coach_present"])]


def test_one_word_of_a_long_name_may_be_said_in_another_word() -> None:
    text = (
        "Where guests rent skates at the desk and the session load is over 200 skaters, the "
        "GL submission is referred."
    )
    assert rule_triples(EXTRACTOR, text) == [
        (
            "GL",
            "refer",
            [("guest_skate_rental", "eq", True), ("skaters_per_session", "gt", 200)],
        )
    ]
