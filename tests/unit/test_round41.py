"""Round 41: capacities that fall short, subjects that are no class, hyphened classes,
reliefs to a committee and the protections of a flag rule's approved cases.

Every field and sentence below is made up for these tests (a sauna-hire and cheese-cave
dictionary no dataset has).
"""

from __future__ import annotations

from agents.ingestion.practice import with_practice
from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.rules import Condition
from tests.rules import BASE_FIELDS, knowledge_text, limit_rule, practice_claims, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "operations"],
        "description": "Occupancy / business class, lower case (e.g. 'cheese cave')",
    },
    "cave_chiller_runtime_hours": {
        "type": "float",
        "unit": "hours",
        "synonyms": ["chiller runtime", "backup chiller autonomy"],
        "description": "Hours the cave's chillers run on backup power",
    },
    "wheel_stack_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["stack height", "height of the wheel racks"],
        "description": "Height of the tallest rack of cheese wheels",
    },
    "firewood_stock_cords": {
        "type": "float",
        "unit": "cords",
        "synonyms": ["firewood on site", "stored firewood"],
        "description": "Firewood kept at the sauna site",
    },
    "public_exit_count": {
        "type": "int",
        "unit": "exits",
        "synonyms": ["public exits", "exits open to the public"],
        "description": "Exits the public may use",
    },
    "attendant_age_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["youngest attendant", "attendant age"],
        "description": "Age of the youngest sauna attendant",
    },
    "wood_fired_heaters_used": {
        "type": "bool",
        "synonyms": ["wood-fired heaters", "wood-burning stoves"],
        "description": "The saunas are heated by wood-fired stoves",
    },
    "stove_attendant_posted": {
        "type": "bool",
        "synonyms": ["stove attendant", "fire watch attendant"],
        "description": "A trained attendant watches the stoves while lit",
    },
    "cave_door_alarm_fitted": {
        "type": "bool",
        "synonyms": ["door alarm", "cave door alarm"],
        "description": "An alarm protects the cave door",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)


def test_a_supply_that_cannot_last_the_hours_fires_below_them() -> None:
    text = (
        "A cave whose backup supply cannot keep the chillers running for forty-eight hours "
        "is referred to the specialty underwriter."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("cave_chiller_runtime_hours", "lt", 48)])
    ]


def test_anything_beyond_that_names_no_class() -> None:
    text = (
        "Desk authority tops out at 12 cords of stored firewood. Anything beyond that is "
        "referred to the sauna underwriter."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("firewood_stock_cords", "gt", 12)])]


def test_the_measured_thing_compared_by_its_dimension_is_no_class() -> None:
    text = (
        "Only caves where the wheels sit at or below nine feet are within desk authority; "
        "stacks higher than that are referred to the cave lead."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("wheel_stack_height_ft", "gt", 9)])]


def test_a_hyphened_class_keeps_its_compound() -> None:
    text = "Pop-up sauna rentals operating in Maine are declined on the GL."
    assert rule_triples(EXTRACTOR, text) == [
        ("GL", "decline", [("occupancy", "eq", "pop-up sauna rental"), ("state", "eq", "ME")])
    ]


def test_a_class_after_the_bulletin_it_is_declined_under() -> None:
    text = (
        "Maine: under CB-2024-03, pop-up sauna rentals operating in Maine are still "
        "declined until compliance lifts the bulletin."
    )
    triples = rule_triples(EXTRACTOR, text, "training")
    assert [t[2] for t in triples] == [
        [("occupancy", "eq", "pop-up sauna rental"), ("state", "eq", "ME")]
    ]


def test_a_class_the_business_is_bound_for_while_operating_somewhere() -> None:
    text = (
        "Effective immediately, no GL business is to be bound for pop-up sauna rentals "
        "operating in Maine."
    )
    triples = rule_triples(EXTRACTOR, text, "compliance")
    assert [t[2] for t in triples] == [
        [("occupancy", "eq", "pop-up sauna rental"), ("state", "eq", "ME")]
    ]


def test_a_lone_compound_adjective_is_no_class() -> None:
    text = "A customer-facing premises with fewer than two public exits is referred."
    assert rule_triples(EXTRACTOR, text) == [("ALL", "refer", [("public_exit_count", "lt", 2)])]


MANUAL = knowledge_text(
    "k01", "Stored firewood over 12 cords is referred to the sauna underwriter.", "manual"
)


def test_a_log_sentence_with_a_remark_after_its_cases() -> None:
    log = knowledge_text(
        "k02",
        "Under the firewood rule, the manager approved with conditions a sauna barge holding "
        "14 cords and a lakeside sauna with 13 cords; a forest sauna with 30 cords was not "
        "taken. The barge also passed the fire brigade's own site check, which is a "
        "separate matter.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k01", None), ("k02", 14.0)]


def test_a_decline_taken_to_committee_instead_names_its_mitigant() -> None:
    text = (
        "The stove rule - wood-burning stoves and more than 12 cords on site - is a decline "
        "on paper, but if a stove attendant is posted, I take it to committee instead of "
        "declining it outright."
    )
    rules = EXTRACTOR.extract(text, source="SME interview", source_type="sme", text_id="k1")
    assert [r.mitigant_fields for r in rules if r.action == "decline"] == [
        ["stove_attendant_posted"]
    ]


FLAG_RULE = knowledge_text(
    "k01", "Wood-fired heaters on a GL sauna rental mean a referral to the lead.", "manual"
)


def test_a_flag_rules_approved_case_names_what_practice_accepted() -> None:
    log = knowledge_text(
        "k02",
        "Case SR-25-0815: a lakeside sauna with wood-burning stoves was referred under the "
        "wood-fired heater rule, and approved with conditions because a fire watch "
        "attendant was posted at the stoves.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, FLAG_RULE, log)
    assert [(c.text_id, c.action, c.mitigant_fields) for c in claims] == [
        ("k01", "refer", []),
        ("k02", "refer", ["stove_attendant_posted"]),
    ]


def test_a_flag_rules_case_approved_without_a_protection_claims_nothing() -> None:
    log = knowledge_text(
        "k02",
        "Case SR-25-0816: a forest sauna with wood-burning stoves was referred under the "
        "wood-fired heater rule and approved after review. A cave door alarm was noted "
        "on another account.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, FLAG_RULE, log)
    assert [c.text_id for c in claims] == ["k01"]


def test_an_asked_protection_the_text_gives_another_rule_stays_with_it() -> None:
    # As a model reads it: the interview bends the firewood limit (cameras) and names the
    # stove attendant for the wood-fired heater rule only.
    interview = knowledge_text(
        "k02",
        "Q: Is the twelve-cord line a wall? A: No. Last month I accepted one at fourteen "
        "cords. Q: What made you say yes? A: A stove attendant was posted.",
        "sme",
        date="2025-02-10",
    )
    firewood = limit_rule(
        "firewood_stock_cords", "gt", 12, soft_limit=14, threshold_type="soft", text_id="k02"
    )
    heaters = firewood.model_copy(
        update={
            "rule_name": "Heaters",
            "conditions": [Condition(field="wood_fired_heaters_used", operator="eq", value=True)],
            "threshold": None,
            "soft_limit": None,
            "threshold_type": "hard",
            "mitigant_fields": ["stove_attendant_posted"],
        }
    )
    claims = with_practice([interview], [firewood, heaters], [], DICTIONARY)
    assert {c.rule_name: c.mitigant_fields for c in claims} == {
        firewood.rule_name: [],
        "Heaters": ["stove_attendant_posted"],
    }


def test_a_floor_said_as_who_goes_through_without_a_referral() -> None:
    text = (
        "Only saunas whose youngest attendant is at least twenty-one go through without a "
        "referral; anyone younger on shift sends the file to the sauna lead."
    )
    assert rule_triples(EXTRACTOR, text, "training") == [
        ("ALL", "refer", [("attendant_age_years", "lt", 21)])
    ]


RUNTIME = knowledge_text(
    "k01", "A cave whose chiller runtime is under 48 hours is referred.", "manual"
)


def test_how_many_cases_were_written_is_no_figure_of_a_case() -> None:
    log = knowledge_text(
        "k02",
        "Comment: the guide refers caves with a chiller runtime under 48 hours, yet two were "
        "written on the specialist's authority; the shortest accepted was forty hours.",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, RUNTIME, log)
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k01", None), ("k02", 40.0)]


def test_a_note_after_a_logged_outcome_gives_no_figure_of_the_case() -> None:
    manual = knowledge_text(
        "k01", "Saunas whose youngest attendant is under 21 are referred.", "manual"
    )
    log = knowledge_text(
        "k02",
        "| Ref | Account | Referred because | Value | Outcome | Note |\n"
        "|---|---|---|---|---|---|\n"
        "| SR-1 | sauna barge | youngest attendant under 21 | 19 | approved | two-year "
        "clean record |\n"
        "| SR-2 | lakeside sauna | youngest attendant under 21 | 17 | declined | |",
        "production",
        date="2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k01", None), ("k02", 19.0)]


def test_a_logs_own_claim_on_a_flag_rule_takes_its_cases_protection() -> None:
    # As a model reads the log: a claim on the heater rule itself, without the attendant.
    log = knowledge_text(
        "k02",
        "Case SR-25-0815: a lakeside sauna with wood-burning stoves was referred under the "
        "wood-fired heater rule, and approved with conditions because a fire watch "
        "attendant was posted at the stoves.",
        "production",
        date="2024-09-01",
    )
    stated = EXTRACTOR.extract(FLAG_RULE.text, source="Guide", source_type="manual", text_id="k01")
    own = stated[0].model_copy(update={"text_id": "k02", "source_type": "production"})
    claims = with_practice([FLAG_RULE, log], [*stated, own], [], DICTIONARY)
    assert [(c.text_id, c.mitigant_fields) for c in claims] == [
        ("k01", []),
        ("k02", ["stove_attendant_posted"]),
    ]
