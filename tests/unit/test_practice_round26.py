"""Round 26, practice: what one case accepted, and how far practice went without field words.

Every field and sentence below is made up for these tests (a candle-workshop dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.ingestion.named_mitigants import asked_mitigants
from agents.ingestion.practice import read_approvals, with_practice
from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.rules import limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'candle workshop')",
    },
    "melt_pot_count": {
        "type": "int",
        "unit": "pots",
        "synonyms": ["wax melters", "melting pots"],
        "description": "Number of wax melt pots on the premises",
    },
    "unvented_pour_area_sqft": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["unvented pouring area"],
        "description": "Floor area where wax is poured without fume extraction",
    },
    "vented": {
        "type": "bool",
        "synonyms": ["fume extraction throughout"],
        "description": "The workshop has fume extraction",
    },
    "pot_cutoff": {
        "type": "bool",
        "synonyms": ["overtemperature cut-off", "high-limit cut-off"],
        "description": "Every melt pot has an overtemperature cut-off",
    },
    "wax_stock_value_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["wax stock"],
        "description": "Value of wax held in stock",
    },
    "wick_stock_units": {
        "type": "int",
        "unit": "units",
        "synonyms": ["wick units"],
        "description": "Wick spools held in stock",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


def _text(body: str, source_type: str = "production", text_id: str = "log") -> KnowledgeText:
    return KnowledgeText(
        id=text_id, text=body, source="Candle desk", source_type=source_type, date="2025-03-10"
    )  # type: ignore[arg-type]


def _pots_over(value: float) -> ExtractedRule:
    """The stated limit on melt pots, counted in the field's own unit."""
    limit = {"field": "melt_pot_count", "operator": "gt", "value": value, "unit": "pots"}
    return limit_rule("melt_pot_count", "gt", value, threshold=limit)


def test_the_protection_of_a_texts_one_approved_case_is_a_mitigant() -> None:
    known = [limit_rule("melt_pot_count", "gt", 6)]
    log = _text(
        "Case CW-24-101. Candle workshop, nine melt pots, above the 6-pot referral line. "
        "Referred; approved with conditions because every pot has an overtemperature cut-off."
    )
    claims = read_approvals(log, known, DICTIONARY)
    assert [(c.soft_limit, c.mitigant_fields) for c in claims] == [(9.0, ["pot_cutoff"])]


def test_a_protection_the_limits_own_field_names_is_no_mitigant() -> None:
    known = [limit_rule("unvented_pour_area_sqft", "gt", 500)]
    log = _text(
        "Case CW-24-107. Candle workshop, vented throughout except a pouring bench of 800 sq "
        "ft. Referred because the unvented pouring area is over 500 sq ft; approved."
    )
    claims = read_approvals(log, known, DICTIONARY)
    assert [(c.soft_limit, c.mitigant_fields) for c in claims] == [(800.0, [])]


def test_an_interviewer_asking_what_reassures_names_the_mitigant() -> None:
    talk = "Q: What reassures you?\nA: An overtemperature cut-off on every pot."
    assert asked_mitigants(talk, DICTIONARY) == ["pot_cutoff"]


def test_an_interviewer_asking_what_has_to_be_in_the_file_names_the_mitigant() -> None:
    talk = "Q: What has to be in the file?\nA: A high-limit cut-off on each pot."
    assert asked_mitigants(talk, DICTIONARY) == ["pot_cutoff"]


def test_an_answer_to_how_far_practice_went_needs_no_field_words() -> None:
    known = [limit_rule("melt_pot_count", "gt", 6)]
    talk = _text(
        "Q: The guide refers more than 6 melt pots. Is that firm?\n"
        "A: No, it's a guideline.\n"
        "Q: How far have you gone?\n"
        "A: Nine, for a church-candle maker.",
        "sme",
    )
    claims = read_approvals(talk, known, DICTIONARY)
    assert [c.soft_limit for c in claims] == [9.0]


def test_a_number_said_as_the_highest_approved_is_practices_extent() -> None:
    limit = {"field": "wax_stock_value_usd", "operator": "gt", "value": 2_000_000, "unit": "USD"}
    stock = limit_rule("wax_stock_value_usd", "gt", 2_000_000, threshold=limit)
    wicks = limit_rule("wick_stock_units", "gt", 500)
    talk = _text(
        "Q: The manual refers wax stock over two million dollars. Do you hold to that?\n"
        "A: Two point four million is the highest I've approved - a supplier whose wick "
        "units sit in a separate store.",
        "sme",
    )
    claims = read_approvals(talk, [stock, wicks], DICTIONARY)
    assert [(c.conditions[0].field, c.soft_limit) for c in claims] == [
        ("wax_stock_value_usd", 2_400_000.0)
    ]


def test_a_number_with_no_extent_word_and_no_field_words_binds_to_nothing() -> None:
    known = [limit_rule("melt_pot_count", "gt", 6)]
    talk = _text("The guide refers more than 6 melt pots.\nA workshop with 9 staff was approved.")
    assert read_approvals(talk, known, DICTIONARY) == []


def test_a_decimal_said_in_words_is_one_number() -> None:
    text = "Two point four million at most; two point one and two point two; at that point two"
    assert [n.value for n in find_numbers(text)] == [2_400_000.0, 2.1, 2.2, 2.0]


def test_an_approval_past_the_limit_outranks_a_revision_naming_no_extent() -> None:
    manual = _text("Candle workshops with more than six melt pots are referred.", "manual", "m")
    stated = limit_rule("melt_pot_count", "gt", 6, text_id="m", date="2025-01-02")
    talk = _text(
        "Interviewer: Shops with more than six melt pots come to you. What do you approve?\n"
        "Lead: When each pot has a cut-off I'll approve with conditions.\n"
        "Interviewer: What's the biggest you've taken?\n"
        "Lead: Nine pots, a church-candle maker.\n"
        "Interviewer: Is six a hard stop then?\n"
        "Lead: No, it's where my review starts.",
        "sme",
        "talk",
    )
    claims = with_practice([manual, talk], [stated], [], DICTIONARY)
    assert [c.soft_limit for c in claims if c.text_id == "talk"] == [9.0], claims


def test_a_case_counts_the_plural_noun_after_a_modifier() -> None:
    pots = _pots_over(6)
    log = _text("Case CW-25-1107: a candle workshop with 7 melt pots was approved.")
    claims = read_approvals(log, [pots], DICTIONARY)
    assert [(c.conditions[0].field, c.soft_limit) for c in claims] == [("melt_pot_count", 7.0)]


def test_a_speakers_line_naming_a_product_binds_to_that_products_limit() -> None:
    bop = limit_rule("melt_pot_count", "gt", 6, rule_name="BOP pots")
    prop = limit_rule("melt_pot_count", "gt", 10, product_type="Property", rule_name="Prop pots")
    talk = _text(
        "Notes from the roundtable.\n"
        "Ames: On the BOP, six melt pots is where I look. The biggest shop I've approved "
        "had 8 melt pots.\n"
        "Berg: On monoline property I've approved several past ten. The largest was a "
        "chandler at 14 melt pots.",
        "sme",
    )
    claims = read_approvals(talk, [bop, prop], DICTIONARY)
    assert sorted((c.product_type, c.soft_limit) for c in claims) == [
        ("BOP", 8.0),
        ("Property", 14.0),
    ]


def test_the_biggest_approved_said_before_a_number_is_practices_extent() -> None:
    known = [limit_rule("melt_pot_count", "gt", 6)]
    talk = _text(
        "The guide refers more than 6 melt pots, but it isn't a wall. The biggest shop I've "
        "approved was nine, a church-candle maker.",
        "sme",
    )
    assert [c.soft_limit for c in read_approvals(talk, known, DICTIONARY)] == [9.0]


def test_the_thinnest_ive_signed_is_practices_extent() -> None:
    known = [_pots_over(6)]
    talk = _text(
        "Q: The guide refers more than 6 melt pots. Is that firm?\n"
        "A: No. Nine is the most I've signed, for a church-candle maker.",
        "sme",
    )
    assert [c.soft_limit for c in read_approvals(talk, known, DICTIONARY)] == [9.0]


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("a wall rated an hour and a half", 1.5, "hour"),
        ("a mile and a half from the shore", 1.5, "miles"),
        ("set at twenty miles an hour", 20.0, "mile per hour"),
    ],
)
def test_a_unit_and_a_half_is_one_number(text: str, value: float, unit: str) -> None:
    [number] = find_numbers(text)
    assert (number.value, number.unit) == (value, unit)


def test_a_conditional_approval_of_a_class_is_a_relief_of_the_class_rule() -> None:
    manual = _text("Candle workshops are referred to the GL specialty desk.", "manual", "m")
    stated = ExtractedRule.model_validate(
        {
            **limit_rule("melt_pot_count", "gt", 6).model_dump(),
            "rule_name": "GL candle workshops",
            "product_type": "GL",
            "threshold": None,
            "conditions": [{"field": "occupancy", "operator": "eq", "value": "candle workshop"}],
            "text_id": "m",
        }
    )
    pots = limit_rule("melt_pot_count", "gt", 6, product_type="GL", text_id="m")
    talk = _text(
        "Q: Candle workshops all come to you now. Do you send any back to the desk?\n"
        "A: When every pot has an overtemperature cut-off, I tell the desk to write a candle "
        "workshop with conditions. Most claims come from a pot left on overnight.",
        "sme",
        "talk",
    )
    read = OfflineExtractor(DICTIONARY).extract(
        talk.text, source=talk.source, source_type="sme", text_id="talk"
    )
    claims = with_practice([manual, talk], [stated, pots, *read], [], DICTIONARY)
    mine = [c for c in claims if c.text_id == "talk"]
    assert [(c.conditions[0].field, c.mitigant_fields) for c in mine] == [
        ("occupancy", ["pot_cutoff"])
    ], mine


def test_a_case_counting_a_synonyms_head_noun_is_about_the_field() -> None:
    fields = {
        **FIELDS,
        "melt_pot_count": {**FIELDS["melt_pot_count"], "synonyms": ["wax melters", "melt kettles"]},
    }
    dictionary = DataDictionary.model_validate({"fields": fields})
    known = [_pots_over(6)]
    log = _text("Case CW-25-1107: a candle workshop with 7 melt kettles was approved.")
    assert [c.soft_limit for c in read_approvals(log, known, dictionary)] == [7.0]
    talk = _text(
        "Q: The guide refers more than 6 melt pots. What is the most you have accepted?\n"
        "A: Nine kettles, for a church-candle maker.",
        "sme",
    )
    assert [c.soft_limit for c in read_approvals(talk, known, dictionary)] == [9.0]


def test_a_count_is_no_share_whatever_synonym_it_ends() -> None:
    fields = {
        **FIELDS,
        "wax_share_pct": {
            "type": "float",
            "unit": "percent",
            "synonyms": ["paraffin kettles", "share of paraffin"],
            "description": "Share of wax that is paraffin, in percent",
        },
    }
    dictionary = DataDictionary.model_validate({"fields": fields})
    limit = {"field": "wax_share_pct", "operator": "gt", "value": 10, "unit": "percent"}
    known = [limit_rule("wax_share_pct", "gt", 10, threshold=limit)]
    log = _text("Case CW-25-1107: a wax workshop with 48 kettles was approved.")
    assert read_approvals(log, known, dictionary) == []
