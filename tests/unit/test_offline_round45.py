"""Offline extraction round 45: placements, limits named by a figure, and case logs.

Every field and sentence below is made up for these tests (a lighthouse-museum dictionary
no dataset has).
"""

from __future__ import annotations

from agents.offline.tables import table_rows
from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case (e.g. 'lighthouse museum')",
    },
    "lamp_wall_clearance_in": {
        "type": "float",
        "unit": "inches",
        "synonyms": ["lamp clearance", "lamp-to-wall clearance"],
        "description": "Distance from the lamp housing to the nearest combustible wall",
    },
    "lamp_heat_shield": {
        "type": "bool",
        "synonyms": ["heat shield", "listed lamp shield"],
        "description": "A listed heat shield protects the wall behind the lamp",
    },
    "fuel_store_in_lamp_room": {
        "type": "bool",
        "synonyms": ["fuel store in the lamp room"],
        "description": "The lamp-oil fuel store is installed in the same room as the lamp",
    },
    "tour_size_max": {
        "type": "int",
        "unit": "visitors",
        "synonyms": ["largest tour", "tour size"],
        "description": "Largest number of visitors the museum takes up the tower at once",
    },
    "docent_on_duty": {
        "type": "bool",
        "synonyms": ["trained docent", "docent on duty"],
        "description": "A trained docent leads every tour up the tower",
    },
    "open_flame_lanterns_allowed": {
        "type": "bool",
        "synonyms": ["open-flame lanterns allowed"],
        "description": "Visitors may carry open-flame lanterns on night tours",
    },
    "dock_distance_ft": {
        "type": "float",
        "unit": "feet",
        "synonyms": ["distance to the dock"],
        "description": "Distance from the tower to the nearest fireboat dock",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_flag_placed_in_the_same_room_as_a_hazard_is_a_trigger() -> None:
    text = (
        "Where the lamp-oil fuel store is installed in the same room as the lamp rather than "
        "a room of its own, the underwriter flags the file for review."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "flag_for_review", [("fuel_store_in_lamp_room", "eq", True)])
    ]


def test_a_limit_named_by_its_hyphened_figure_is_the_referral_point() -> None:
    rules = EXTRACTOR.extract(
        "The fifty-visitor referral point is fine as a trigger, but I've approved museums "
        "with tours of up to 60 where a trained docent is on duty.",
        source_type="sme",
    )
    assert [(r.action, r.soft_limit, r.mitigant_fields) for r in rules] == [
        ("refer", 60.0, ["docent_on_duty"])
    ]
    assert [(c.field, c.operator, c.value) for c in rules[0].conditions] == [
        ("tour_size_max", "gt", 50)
    ]


def test_a_figure_pointed_back_at_is_not_a_new_limit() -> None:
    text = (
        "Tours of more than 80 visitors are declined. Above twenty visitors, and up to that "
        "eighty-visitor ceiling, we write with conditions."
    )
    assert ("ALL", "approve_with_conditions", [("tour_size_max", "gt", 20)]) in rule_triples(
        EXTRACTOR, text
    )


def test_as_little_as_is_how_far_practice_went_and_a_fitted_shield_is_the_mitigant() -> None:
    rules = EXTRACTOR.extract(
        "A lamp clearance under 36 inches is declined, but I have accepted lamps with as "
        "little as 30 inches where a heat shield is fitted.",
        source_type="sme",
    )
    assert [(r.action, r.soft_limit, r.mitigant_fields) for r in rules] == [
        ("decline", 30.0, ["lamp_heat_shield"])
    ]


def test_one_case_approved_after_referral_states_no_rule() -> None:
    text = (
        "- 2024-10-08 - lighthouse museum, ME: tours of 26 visitors; docent on duty; approved "
        "after referral.\n- 2024-11-20 - lighthouse museum, RI: tours of 24; approved after "
        "referral."
    )
    assert EXTRACTOR.extract(text, source_type="production") == []


def test_a_table_of_dated_cases_is_read_as_outcomes() -> None:
    rows = table_rows(
        [
            "| referred | class | largest tour | decision | comment |",
            "|---|---|---|---|---|",
            "| 2024-07-09 | lighthouse museum | 26 | approved | docent on every tour |",
        ]
    )
    assert rows == [
        "Outcome: referred 2024-07-09, lighthouse museum, largest tour 26, approved: "
        "docent on every tour."
    ]


def test_the_desk_writing_inside_a_limit_is_no_rule_of_its_own() -> None:
    text = (
        "The desk may write a museum that takes no more than 20 visitors up the tower. A "
        "museum whose largest tour is over twenty visitors is referred."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("tour_size_max", "gt", 20)])]


def test_what_visitors_may_do_says_the_flag_that_allows_it() -> None:
    text = (
        "A museum where visitors may carry open-flame lanterns, with the dock farther than "
        "five hundred feet away, is a decline on Property."
    )
    assert rule_triples(EXTRACTOR, text) == [
        (
            "Property",
            "decline",
            [("dock_distance_ft", "gt", 500), ("open_flame_lanterns_allowed", "eq", True)],
        )
    ]
