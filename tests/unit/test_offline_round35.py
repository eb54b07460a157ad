"""Offline extraction round 35: tenants a building is "let to", "business on" a class in an
ambiguous state code ("in PA"), a building "older than" a calendar year, a causative
"has its value verified", and a listed class said with modifiers before it.

Every field and sentence below is made up for these tests (a pottery-and-glass studio
dictionary no dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "tenant class"],
        "description": "Business class, lower case (e.g. 'glass blower', 'raku pottery')",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "erected"],
        "description": "Calendar year the building was put up",
    },
}
EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _read(text: str, kind: str = "manual") -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Where a lessor's building is let to a raku pottery or to a glass blower, refer the "
        "submission to the LRO lead.",
        "From 1 May 2024, lessor's risk submissions where the building is let to a raku "
        "pottery or to a glass blower are declined.",
    ],
)
def test_the_tenants_a_building_is_let_to_are_the_classes(text: str) -> None:
    rules = _read(text)
    assert [conditions for _, conditions in rules] == [
        [("occupancy", "in", ["raku pottery", "glass blower"])]
    ]


def test_a_qualifier_that_narrows_the_tenant_still_holds_the_rule_back() -> None:
    said = "Submissions where the building is let to a raku pottery with a wood kiln are declined."
    assert _read(said) == []


def test_business_on_a_class_in_an_ambiguous_state_code() -> None:
    said = (
        "Pennsylvania potteries: no LRO business on raku potteries in PA, new or renewal; "
        "decline at the desk."
    )
    assert _read(said, "training") == [
        ("decline", [("occupancy", "eq", "raku pottery"), ("state", "eq", "PA")])
    ]


def test_a_building_older_than_a_year_was_built_before_it() -> None:
    said = "A building older than 1850 still has its value verified before we bind."
    assert _read(said) == [("verify", [("year_built", "lt", 1850)])]


def test_a_listed_class_with_modifiers_before_it_is_the_listed_class() -> None:
    said = "Revived Victorian glass blowers (gas furnaces, open demonstrations) are referred."
    assert _read(said) == [("refer", [("occupancy", "eq", "glass blower")])]


SHOP = {
    **FIELDS,
    "coin_cell_bases_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["coin cell bases", "button cell bases"],
        "description": "Share of products whose bases run on coin or button cells, percent",
    },
    "battery_door_secured": {
        "type": "bool",
        "synonyms": ["secured battery door", "screw-secured compartment"],
        "description": "Battery compartments need a tool to open",
    },
    "kiln_fuel": {
        "type": "str",
        "synonyms": ["kiln fuel", "kiln firing"],
        "description": "Fuel of the kiln, lower case: electric, propane, wood",
    },
    "glaze_test_report": {
        "type": "bool",
        "synonyms": ["glaze lead test", "third-party glaze testing"],
        "description": "A current third-party glaze lead test report is on file",
    },
    "child_sales_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["sales to children"],
        "description": "Share of sales to children, percent",
    },
    "reach_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["working height", "reach"],
        "description": "Highest working height on a job, in feet",
    },
}
SHOP_EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": SHOP}))


def _shop(text: str, kind: str = "manual") -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in SHOP_EXTRACTOR.extract(text, source_type=kind)
    ]


def test_if_any_of_its_things_use_a_share_is_more_than_none() -> None:
    said = (
        "If any of a maker's bases use coin or button cells and the battery doors are not "
        "secured, decline the GL."
    )
    assert _shop(said) == [
        ("decline", [("battery_door_secured", "eq", False), ("coin_cell_bases_pct", "gt", 0)])
    ]


def test_a_plain_fuel_said_as_fired_names_the_fuel_of_its_own_thing() -> None:
    assert _shop("A wood-fired kiln is declined.") == [("decline", [("kiln_fuel", "eq", "wood")])]
    grinders = _shop("Propane-powered grinders used indoors are declined.")
    assert all(c[0] != "kiln_fuel" for _, conditions in grinders for c in conditions)


def test_what_an_order_verifies_after_its_condition_is_the_mitigant() -> None:
    said = (
        "On the GL, if 30 percent or more of sales go to children, verify third-party glaze "
        "testing (glaze lead test) before quoting."
    )
    rules = SHOP_EXTRACTOR.extract(said, source_type="manual")
    assert [(r.action, [c.field for c in r.conditions], r.mitigant_fields) for r in rules] == [
        ("verify", ["child_sales_pct"], ["glaze_test_report"])
    ]


@pytest.mark.parametrize(
    "practice",
    [
        "We've done thirty-six a couple of times. Past thirty-six nobody has approved one.",
        "I've cleared jobs at thirty-six when the scaffold was rented. Over that, no.",
    ],
)
def test_how_far_practice_went_said_past_a_limit(practice: str) -> None:
    said = f"Anything they work higher than thirty feet is referred. {practice}"
    rules = SHOP_EXTRACTOR.extract(said, source_type="sme")
    assert [(r.action, r.soft_limit) for r in rules] == [("refer", 36.0)]


def test_an_operator_of_something_is_a_trade() -> None:
    assert _read("Fireworks display operators are referred to the events desk.") == [
        ("refer", [("occupancy", "eq", "fireworks display operator")])
    ]


COUNTS = {
    **FIELDS,
    "kilns_on_site": {
        "type": "int",
        "unit": "kilns",
        "synonyms": ["kiln count", "kilns held at one time"],
        "description": "Kilns on the premises",
    },
    "monthly_kiln_firings": {
        "type": "int",
        "unit": "firings per month",
        "synonyms": ["firings a month"],
        "description": "Kiln firings a month",
    },
    "raku_pottery_students": {
        "type": "int",
        "unit": "students",
        "synonyms": ["raku students", "students on the raku course"],
        "description": "Students on the raku course at one time",
    },
}
COUNT_EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": COUNTS}))


def _count(text: str) -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in COUNT_EXTRACTOR.extract(text, source_type="compliance")
    ]


def test_times_in_a_month_is_the_field_counted_per_month() -> None:
    said = "A kiln fired more than twenty times in a month is referred."
    assert _count(said) == [("refer", [("monthly_kiln_firings", "gt", 20)])]


def test_the_figure_a_change_replaces_is_no_condition() -> None:
    said = "The referral now starts above four kilns instead of above two."
    assert _count(said) == [("refer", [("kilns_on_site", "gt", 4)])]


def test_a_class_the_measured_field_already_names_is_said_once() -> None:
    said = "Raku potteries with more than twelve raku students are referred."
    assert _count(said) == [("refer", [("raku_pottery_students", "gt", 12)])]


def test_an_explanation_set_off_by_dashes_is_no_part_of_the_rule() -> None:
    said = (
        "Raku potteries - lifting the pots out of the kiln while red hot until they are "
        "dropped in sawdust - are declined."
    )
    assert [action for action, _ in _read(said)] == ["decline"]
    kept = "At that size - anything above 1850 - the building is declined."
    assert _read(kept) == [("decline", [("year_built", "gt", 1850)])]


def test_a_whole_count_said_twice_is_one_condition() -> None:
    said = "Two or more kilns - that is, more than one - send the account for referral."
    assert _count(said) == [("refer", [("kilns_on_site", "gt", 1)])]


def test_a_clause_on_how_a_limit_changes_is_no_rule() -> None:
    said = (
        "With effect from 3 March 2025, the referral point for raku potteries on General "
        "Liability drops from forty to thirty kilns. A pottery with more than thirty kilns is "
        "referred."
    )
    rules = _count(said)
    assert len(rules) == 1
    assert ("kilns_on_site", "gt", 30) in rules[0][1]


def test_from_a_figure_up_to_and_including_another_is_a_range() -> None:
    said = "Fewer than 40 kilns, quote it; from 40 up to and including 60, refer it."
    assert _count(said) == [("refer", [("kilns_on_site", "gte", 40), ("kilns_on_site", "lte", 60)])]


def test_taller_than_a_figure_from_one_end_to_the_other_is_a_height() -> None:
    heights = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "chimney_height_ft": {
                    "type": "float",
                    "unit": "ft",
                    "synonyms": ["chimney height"],
                    "description": "Height of the kiln chimney, in feet",
                },
                "kiln_setback_ft": {
                    "type": "float",
                    "unit": "ft",
                    "synonyms": ["distance from the kiln to the boundary"],
                    "description": "Distance from the kiln to the boundary, in feet",
                },
            }
        }
    )
    rules = OfflineExtractor(heights).extract(
        "If the chimney stands taller than 80 ft from base to cap, refer it.", source_type="manual"
    )
    assert [[(c.field, c.operator, c.value) for c in r.conditions] for r in rules] == [
        [("chimney_height_ft", "gt", 80)]
    ]


WALLS = DataDictionary.model_validate(
    {
        "fields": {
            **FIELDS,
            "chimney_height_ft": {
                "type": "float",
                "unit": "ft",
                "synonyms": ["chimney height", "tallest chimney"],
                "description": "Height of the tallest kiln chimney, in feet",
            },
            "chimney_design_stamped": {
                "type": "bool",
                "synonyms": ["engineer's stamp", "stamped design"],
                "description": "An engineer has stamped the chimney design",
            },
            "glaze_sales_pct": {
                "type": "float",
                "unit": "percent",
                "synonyms": ["glaze sales"],
                "description": "Percent of sales that are glazes",
            },
            "files_encrypted": {
                "type": "bool",
                "synonyms": ["encrypted files"],
                "description": "Client files are encrypted",
            },
        }
    }
)
WALL_EXTRACTOR = OfflineExtractor(WALLS)


def _wall(text: str) -> list[tuple[str, list[tuple[str, str, object]], list[str]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions), r.mitigant_fields)
        for r in WALL_EXTRACTOR.extract(text, source_type="sme")
    ]


def test_if_so_is_the_question_asked_and_its_protection_the_mitigant() -> None:
    said = (
        "Q: Retaining chimneys? A: I ask one question. Is any chimney they build taller than "
        "thirty feet? If so, and there's no engineer's stamp on the design, refer it. With a "
        "stamped design I'll write it."
    )
    assert _wall(said) == [("refer", [("chimney_height_ft", "gt", 30)], ["chimney_design_stamped"])]


def test_whether_or_not_a_flag_holds_is_no_condition() -> None:
    said = (
        "Anyone with more than three quarters of sales in glazes is flagged for review, "
        "whether or not their files are encrypted."
    )
    assert _wall(said) == [("flag_for_review", [("glaze_sales_pct", "gt", 75)], [])]
