"""Practice and statements round 34: a count in a case line is no calendar year, a log of
case-reference lines reaches its furthest approval, a term a manual defines is read where
a rule uses it, and "specialty GL" names a program, not a business class.

Every field and sentence below is made up for these tests (a clock-repair dictionary no
dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'clock repairer', 'bell foundry')",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "built in"],
        "description": "Calendar year the building was put up",
    },
    "loss_count_3yr": {
        "type": "int",
        "unit": "losses",
        "synonyms": ["losses in three years", "loss count"],
        "description": "Losses in the last three years",
    },
    "years_in_business": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years in business", "operating history"],
        "description": "Whole years the insured has operated",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Construction in lower case: frame, masonry, non-combustible",
    },
    "brass_stock_tons": {
        "type": "float",
        "unit": "tons",
        "synonyms": ["brass stock", "brass held on the premises"],
        "description": "Brass held on the premises in US short tons",
    },
    "tower_clock_jobs": {
        "type": "int",
        "unit": "jobs",
        "synonyms": ["tower clock jobs", "steeple clock jobs"],
        "description": "Tower clock jobs a year",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)


def _text(id_: str, kind: str, day: str, text: str) -> KnowledgeText:
    return KnowledgeText(id=id_, text=text, source=f"Doc {id_}", source_type=kind, date=day)


MANUAL = _text(
    "m1",
    "manual",
    "2024-01-10",
    "LRO buildings built before 1940 are referred. LRO buildings with more than two losses "
    "in three years are referred.",
)


def test_a_count_in_a_case_line_is_no_year_built() -> None:
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "LRO-24-0031 - two-storey brick, built 1931; a clock repairer tenant. Approved by the "
        "regional underwriter.\nLRO-24-0047 - three-unit strip, three losses in three years "
        "(two water, one theft). Supply lines replaced since. Approved at three by the "
        "regional underwriter.\nLRO-24-0052 - 1958 block building. No referral needed.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    soft = sorted((c.conditions[0].field, c.soft_limit) for c in claims if c.text_id == "p1")
    assert soft == [("loss_count_3yr", 3.0), ("year_built", 1931.0)]


def test_a_defined_term_reads_as_its_definition_where_a_rule_uses_it() -> None:
    said = (
        "For the purposes of this manual an applicant with less than three years of operating "
        "history is a new venture. New ventures in any clock class are referred to the lead."
    )
    rules = EXTRACTOR.extract(said, source_type="manual")
    assert [(r.action, [(c.field, c.operator, c.value) for c in r.conditions]) for r in rules] == [
        ("refer", [("years_in_business", "lt", 3)])
    ]


def test_a_term_no_rule_uses_changes_nothing() -> None:
    said = (
        "An applicant with less than three years of operating history is a new venture. New "
        "ventures make up a third of the book."
    )
    assert EXTRACTOR.extract(said, source_type="manual") == []


def test_specialty_before_a_product_names_no_class() -> None:
    said = "For specialty GL, a business with under three years of history is referred."
    rules = EXTRACTOR.extract(said, source_type="training")
    assert [[c.field for c in r.conditions] for r in rules] == [["years_in_business"]]


def test_a_wood_frame_building_is_of_frame_construction() -> None:
    said = "A wood-frame building built before 1900 is declined."
    rules = EXTRACTOR.extract(said, source_type="manual")
    assert [sorted((c.field, c.value) for c in r.conditions) for r in rules] == [
        [("construction_type", "frame"), ("year_built", 1900)]
    ]


def test_a_limit_raised_by_a_share_moves_to_its_new_figure() -> None:
    manual = _text(
        "m2",
        "manual",
        "2024-01-10",
        "Where more than forty thousand pounds of brass stock is held on the premises, refer "
        "the Property submission to the property lead.",
    )
    bulletin = _text(
        "c1",
        "compliance",
        "2024-04-15",
        "With effect from 15 April 2024, the Property referral point for brass stock held "
        "on the premises is raised by twenty-five per cent.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, bulletin)
    assert [
        (c.text_id, [(x.field, x.operator, x.value) for x in c.conditions]) for c in claims
    ] == [
        ("m2", [("brass_stock_tons", "gt", 20)]),
        ("c1", [("brass_stock_tons", "gt", 25)]),
    ]


def test_a_timber_frame_business_is_no_construction() -> None:
    said = "Timber-frame joinery shops holding more than twenty tons of brass stock are referred."
    rules = EXTRACTOR.extract(said, source_type="manual")
    assert [[c.field for c in r.conditions if c.field != "occupancy"] for r in rules] == [
        ["brass_stock_tons"]
    ]


def test_a_quoted_class_list_after_an_aside_in_parentheses_is_read() -> None:
    from memory.underwriting.fieldlink.profile import parse_enum

    said = (
        "Business class of the insured (for LRO, of the principal tenant), lower case; one of: "
        "'clock repairer', 'bell foundry', 'organ builder'. Other classes are out of scope."
    )
    assert parse_enum(said) == (["clock repairer", "bell foundry", "organ builder"], False)


def test_practice_in_days_past_a_limit_in_hours_is_read_in_hours() -> None:
    from agents.offline.practice_text import read_limits

    said = (
        "Q: Is the forty-eight-hour survey window a hard line? A: No, it's a guideline. "
        "With a clean record I'll go down to about a day and a half."
    )
    assert [(r.value, r.soft_limit) for r in read_limits(said)] == [(48, 36)]


def test_a_desk_lead_is_where_a_referral_goes() -> None:
    said = (
        "Property: a clock repairer holding more than twenty tons of brass stock goes to the "
        "property lead."
    )
    rules = EXTRACTOR.extract(said, source_type="training")
    assert [(r.action, r.product_type) for r in rules] == [("refer", "Property")]


def test_a_business_named_by_its_material_is_no_construction() -> None:
    said = "A bell foundry or frame yard holding more than twenty tons of brass stock is referred."
    rules = EXTRACTOR.extract(said, source_type="manual")
    assert [[c.field for c in r.conditions if c.field != "occupancy"] for r in rules] == [
        ["brass_stock_tons"]
    ]


def test_where_a_declined_risk_is_passed_is_not_its_product() -> None:
    said = (
        "BOP: eight tons of brass stock is the ceiling, and above it we decline the package "
        "and pass the risk to Property."
    )
    rules = EXTRACTOR.extract(said, source_type="training")
    assert [(r.action, r.product_type) for r in rules] == [("decline", "BOP")]


def test_the_class_cover_is_written_for_is_the_rule_s_class() -> None:
    # a dictionary with a few example classes: a class the text names is coined
    said = "The company will not write Property cover for cider mills located in Ohio."
    rules = EXTRACTOR.extract(said, source_type="compliance")
    assert [[(c.field, c.value) for c in r.conditions] for r in rules] == [
        [("occupancy", "cider mill")]
    ]


def test_feet_and_inches_are_one_length() -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    said = "the sill stands two feet six inches above the tide; the next one foot ten inches"
    assert [(m.value, m.unit) for m in find_numbers(said)] == [(30, "inch"), (22, "inch")]


def test_a_limit_raised_to_a_figure_in_another_unit_moves_to_it() -> None:
    fields = DataDictionary.model_validate(
        {
            "fields": {
                **FIELDS,
                "sill_height_in": {
                    "type": "float",
                    "unit": "inches",
                    "synonyms": ["sill height", "door sill height"],
                    "description": "Height of the door sill above the tide, in inches",
                },
            }
        }
    )
    reader = OfflineExtractor(fields)
    manual = _text(
        "m3", "manual", "2024-01-10", "A building whose sill height is under 36 inches is declined."
    )
    bulletin = _text(
        "c2",
        "compliance",
        "2025-01-13",
        "Effective 13 January 2025, the manual is amended by raising the minimum sill height "
        "to four feet. Buildings below the new minimum are declined as before.",
    )
    claims = practice_claims(reader, fields, manual, bulletin)
    assert [
        (c.text_id, [(x.field, x.operator, x.value) for x in c.conditions]) for c in claims
    ] == [
        ("m3", [("sill_height_in", "lt", 36)]),
        ("c2", [("sill_height_in", "lt", 48)]),
    ]
