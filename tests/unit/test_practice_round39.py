"""Practice round 39: a log's outcome labels part its sentences, and the next case of a line
in the unit of the case before it is about the same limit.

Every field and sentence below is made up for these tests (a workshop dictionary no dataset
has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from tests.rules import BASE_FIELDS, knowledge_text, practice_claims

FIELDS = {
    **BASE_FIELDS,
    "years_in_business": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years trading", "trading history", "years of trading"],
        "description": "Years the business has been trading",
    },
    "guild_certificate": {
        "type": "bool",
        "synonyms": ["guild certificate", "journeyman's certificate"],
        "description": "The owner holds a guild certificate",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)
MANUAL = knowledge_text(
    "k01", "An applicant with a trading history of fewer than three years is referred.", "manual"
)


def test_outcome_labels_part_a_log_and_the_next_case_keeps_the_unit() -> None:
    log = knowledge_text(
        "k02",
        "Twelve new-venture referrals this quarter. Approved with conditions: a jeweler with "
        "two full years of trading (NV-311) and, for the first time, a carver with only one "
        "year of trading whose owner holds a guild certificate (NV-327). Declined: a gilder "
        "trading for five months with no certificate (NV-340).",
        "production",
        "2024-09-01",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    practice = [c for c in claims if c.text_id == "k02"]
    assert [(c.soft_limit, c.mitigant_fields) for c in practice] == [(1, ["guild_certificate"])]


POTS = {
    **BASE_FIELDS,
    "glue_pot_count": {
        "type": "int",
        "unit": "pots",
        "synonyms": ["glue pots", "pots"],
        "description": "Hide glue pots heated on the premises",
    },
    "pots_heated_outdoors": {
        "type": "bool",
        "synonyms": ["heated outdoors", "heated outside"],
        "description": "All glue is heated outdoors",
    },
    "freeboard_in": {
        "type": "float",
        "unit": "inches",
        "synonyms": ["freeboard", "loaded freeboard"],
        "description": "Loaded freeboard of the boats",
    },
    "buoyancy_fitted": {
        "type": "bool",
        "synonyms": ["buoyancy chambers", "buoyancy tanks"],
        "description": "Every hull has buoyancy chambers",
    },
}
POT_DICTIONARY = DataDictionary.model_validate({"fields": POTS})
POT_READER = OfflineExtractor(POT_DICTIONARY)


def _practice(manual: str, said: str) -> list[tuple[float | None, list[str]]]:
    texts = (
        knowledge_text("k01", manual, "manual"),
        knowledge_text("k02", said, "sme", "2024-09-01"),
    )
    claims = practice_claims(POT_READER, POT_DICTIONARY, *texts)
    return [(c.soft_limit, c.mitigant_fields) for c in claims if c.text_id == "k02"]


def test_i_signed_a_case_is_an_approval() -> None:
    said = (
        "Two is the manual. But I signed a bookbinder with four glue pots last autumn because "
        "all of the glue is heated outdoors. Four is as far as I have gone."
    )
    assert _practice("More than two glue pots is referred.", said) == [
        (4, ["pots_heated_outdoors"])
    ]


def test_a_bare_once_opens_the_answer_and_the_case_follows() -> None:
    said = (
        "Q: Freeboard under eight inches is a decline in the manual. Have you written below "
        "it?\nA: Once. A punt company with seven inches loaded, buoyancy chambers in every "
        "hull. It went through after a referral."
    )
    assert _practice("A loaded freeboard under eight inches is declined.", said) == [
        (7, ["buoyancy_fitted"])
    ]


OIL = {
    **BASE_FIELDS,
    "linseed_gallons": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["linseed oil", "gallons of linseed oil"],
        "description": "Gallons of linseed oil kept on the premises",
    },
    "nightly_fire_round": {
        "type": "bool",
        "synonyms": ["fire round", "documented fire round"],
        "description": "The last person out makes a documented fire round every night",
    },
}


def test_a_protection_to_be_treated_as_mitigated_is_the_amended_rules_mitigant() -> None:
    dictionary = DataDictionary.model_validate({"fields": OIL})
    texts = (
        knowledge_text("k01", "More than fifteen gallons of linseed oil is referred.", "manual"),
        knowledge_text(
            "k02",
            "1. The referral point rises from fifteen to twenty gallons of linseed oil. 2. A "
            "workshop where the last person out makes a documented fire round every night is "
            "to be treated as mitigated.",
            "compliance",
            "2025-02-03",
        ),
    )
    claims = practice_claims(OfflineExtractor(dictionary), dictionary, *texts)
    amended = [c for c in claims if c.text_id == "k02"]
    assert [(c.conditions[0].value, c.mitigant_fields) for c in amended] == [
        (20, ["nightly_fire_round"])
    ]


def test_a_figure_in_a_known_limits_unit_is_not_converted_for_another() -> None:
    seasons = {
        **FIELDS,
        "months_closed": {
            "type": "int",
            "unit": "months",
            "synonyms": ["months closed", "dark months"],
            "description": "Months a year the premises stand closed",
        },
    }
    dictionary = DataDictionary.model_validate({"fields": seasons})
    texts = (
        knowledge_text(
            "k01",
            "An applicant with a trading history of fewer than three years is referred. "
            "Premises closed more than six months a year are referred.",
            "manual",
        ),
        knowledge_text(
            "k02",
            "BOP-5519 - a jeweler, two years trading, owner previously twelve years at a "
            "major workshop: referred and approved with conditions.",
            "production",
            "2024-10-14",
        ),
    )
    claims = practice_claims(OfflineExtractor(dictionary), dictionary, *texts)
    practice = {c.conditions[0].field: c.soft_limit for c in claims if c.text_id == "k02"}
    assert practice == {"years_in_business": 2}
