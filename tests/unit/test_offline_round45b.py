"""Offline extraction round 45, second part: what practice's figures are about.

Every field and sentence below is made up for these tests (a windmill-and-apiary
dictionary no dataset has).
"""

from __future__ import annotations

from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import BASE_FIELDS, extractor_over, practice_claims, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case (e.g. 'windmill museum')",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "built in"],
        "description": "Year the main building was built",
    },
    "mill_output_kw": {
        "type": "float",
        "unit": "kilowatts",
        "synonyms": ["nameplate output", "installed capacity"],
        "description": "Total nameplate generating capacity of the mill",
    },
    "brake_tested": {
        "type": "bool",
        "synonyms": ["sail brake test", "brake function-tested"],
        "description": "The sail brake has been function-tested within the last year",
    },
    "hive_count": {
        "type": "int",
        "unit": "hives",
        "synonyms": ["hives run", "hive inventory"],
        "description": "Bee hives the insured runs at peak season",
    },
    "youngest_guide_age": {
        "type": "int",
        "unit": "years",
        "synonyms": ["minimum guide age", "age floor for guides"],
        "description": "Youngest age at which the museum lets a volunteer guide the climb",
    },
    "guides_per_docent": {
        "type": "float",
        "unit": "guides",
        "synonyms": ["docent coverage ratio", "guides watched by each docent"],
        "description": "Volunteer guides on shift divided by docents on shift",
    },
    "sails_turning_indoors": {
        "type": "bool",
        "synonyms": ["sails turning", "turning sails"],
        "description": "The sails turn while visitors are inside the mill",
    },
    "unguarded_grinding": {
        "type": "bool",
        "synonyms": ["open grinding", "unguarded millstones"],
        "description": "Millstone grinding is done outside a guarded bay",
    },
    "sail_lock_fitted": {
        "type": "bool",
        "synonyms": ["sail lock", "sail brake lock"],
        "description": "A sail lock that holds the sails still is fitted on the cap",
    },
}
EXTRACTOR = extractor_over(FIELDS)
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


def _text(body: str, kind: str, tid: str, date: str) -> KnowledgeText:
    return KnowledgeText(id=tid, text=body, source="Desk", source_type=kind, date=date)  # type: ignore[arg-type]


def _claims(*texts: KnowledgeText) -> list[tuple[str, list[tuple[str, str, object]], object]]:
    return [
        (c.text_id or "", [(x.field, x.operator, x.value) for x in c.conditions], c.soft_limit)
        for c in practice_claims(EXTRACTOR, DICTIONARY, *texts)
    ]


def test_a_year_that_names_an_event_is_no_year_built() -> None:
    text = (
        "The hive review point stays at eighteen hundred hives, but accounts above it are now "
        "declined rather than referred, following the 2024 swarm losses."
    )
    assert rule_triples(EXTRACTOR, text) == [("ALL", "decline", [("hive_count", "gt", 1800)])]


def test_a_figure_in_kw_is_about_a_limit_in_kilowatts() -> None:
    claims = _claims(
        _text(
            "Mills with a nameplate output over 500 kW are referred.", "manual", "k1", "2024-01-02"
        ),
        _text(
            "The desk referred a mill rated 640 kW. Engineering approved it with conditions; "
            "the sail brake had been function-tested in the spring.",
            "production",
            "k2",
            "2024-06-01",
        ),
    )
    assert ("k2", [("mill_output_kw", "gt", 500)], 640.0) in claims


def test_a_chapter_s_number_and_the_sentence_before_are_no_case_s_figure() -> None:
    claims = _claims(
        _text(
            "A museum whose youngest guide is under 14 years is referred. Museums with more "
            "than 3 guides per docent are declined.",
            "manual",
            "k1",
            "2024-01-02",
        ),
        _text(
            "Q: Chapter 12 sends anything under fourteen to you. How strict is that? A: It's "
            "a guideline. We've bound museums whose guides are twelve-year-olds, one guide, "
            "one docent. Twelve is as young as I've gone on the age alone.",
            "sme",
            "k2",
            "2024-06-01",
        ),
    )
    assert [c for c in claims if c[0] == "k2"] == [("k2", [("youngest_guide_age", "lt", 14)], 12.0)]


def test_what_practice_routinely_approves_up_to_is_its_reach() -> None:
    claims = _claims(
        _text("Any account running more than 600 hives is referred.", "manual", "k1", "2024-01-02"),
        _text(
            "Six hundred hives is a soft line for us. We routinely approve beekeepers up to "
            "seven hundred.",
            "sme",
            "k2",
            "2024-06-01",
        ),
    )
    assert ("k2", [("hive_count", "gt", 600)], 700.0) in claims


def test_outside_the_place_a_name_denies_says_the_name() -> None:
    assert rule_triples(
        EXTRACTOR,
        "Separately: millstone grinding outside a guarded bay is a decline on Property.",
    ) == [("Property", "decline", [("unguarded_grinding", "eq", True)])]


def test_going_to_referral_where_a_protection_is_had_is_the_decline_s_mitigant() -> None:
    rules = EXTRACTOR.extract(
        "If the sails turn while visitors are inside the mill, it's a decline. We've gone to "
        "referral only where a sail lock is fitted on the cap.",
        source_type="sme",
    )
    assert [(r.action, r.mitigant_fields) for r in rules] == [("decline", ["sail_lock_fitted"])]
