"""Practice round 4: logs of several cases on one line, limits disowned by practice.

The dictionary and texts are made up for these tests (a carnival lot).
"""

from __future__ import annotations

from typing import Any

import pytest

from agents.ingestion.practice import read_approvals, with_practice
from agents.offline.extractor import OfflineExtractor
from agents.offline.practice_text import read_limits
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule
from tests.rules import knowledge_text as text
from tests.rules import limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'carnival', 'fairground')",
    },
    "generator_fuel_gallons": {
        "type": "float",
        "unit": "gallons",
        "synonyms": ["generator fuel", "fuel stored", "fuel on the lot"],
        "description": "Gallons of generator fuel stored on the lot",
    },
    "midway_length_ft": {
        "type": "int",
        "unit": "ft",
        "synonyms": ["midway length", "length of the midway"],
        "description": "Length of the midway from gate to far end",
    },
    "fenced_midway": {
        "type": "bool",
        "synonyms": ["fenced midway", "midway fencing"],
        "description": "The midway is fenced with controlled gates",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


def _with_field(name: str, spec: dict[str, Any]) -> DataDictionary:
    """The dictionary above with one more field."""
    return DataDictionary.model_validate({"fields": {**FIELDS, name: spec}})


def rule(field: str, op: str, value: float, **update: Any) -> ExtractedRule:
    return limit_rule(field, op, value, **{"product_type": "GL", **update})


FUEL = rule("generator_fuel_gallons", "gt", 200)


def test_one_refused_case_on_a_line_no_longer_hides_the_approved_ones() -> None:
    log = text(
        "log",
        "CL-24-101: county fair, 260 gallons of generator fuel, approved with conditions. "
        "CL-24-115: church fete, fuel stored 240 gallons, approved with conditions. "
        "CL-24-130: 400 gallons of generator fuel in open drums, not approved.",
        "production",
    )
    [claim] = read_approvals(log, [FUEL], DICTIONARY)
    assert claim.soft_limit == 260 and claim.rule_name == FUEL.rule_name


def test_a_line_of_one_case_is_still_read_whole() -> None:
    log = text(
        "log",
        "CL-24-101: county fair with 400 gallons of generator fuel. Not approved.",
        "production",
    )
    assert read_approvals(log, [FUEL], DICTIONARY) == []


@pytest.mark.parametrize(
    "body",
    [
        "Q: The guide refers midways over 300 feet. Is that absolute? A: It reads like one, "
        "but we've written column-free midways up to 380 feet.",
        "Q: How do you treat the 300-foot midway rule? A: It's a trigger for a second look, "
        "not a cap. I've signed off midways up to 380 feet.",
    ],
)
def test_practice_after_a_limit_calls_it_soft(body: str) -> None:
    [reading] = read_limits(body)
    assert (reading.value, reading.soft_limit) == (300, 380)


def test_an_answer_that_keeps_the_limit_calls_nothing_soft() -> None:
    body = "Q: The guide refers midways over 300 feet. Is that absolute? A: Yes, it is."
    assert all(r.soft_limit is None for r in read_limits(body))


def test_a_protection_binds_to_the_one_rule_the_text_bends() -> None:
    known = [
        rule("midway_length_ft", "gt", 300),
        rule("generator_fuel_gallons", "gt", 200, product_type="Property", action="decline"),
    ]
    body = (
        "Q: How do you treat the 300-foot midway rule? A: It's a trigger for a second look, "
        "not a cap. I've signed off midways up to 380 feet. Q: What makes you comfortable? "
        "A: Midway fencing with controlled gates. When the midway is fenced I approve with "
        "conditions. Q: And generator fuel over 200 gallons? A: Not my area."
    )
    sme = text("sme", body)
    extracted = OfflineExtractor(DICTIONARY).extract(
        body, source=sme.source, source_type="sme", text_id="sme"
    )
    claims = with_practice([sme], extracted, known, DICTIONARY)
    bent = [c for c in claims if c.conditions[0].field == "midway_length_ft"]
    assert bent and all(c.soft_limit == 380 for c in bent)
    assert any("fenced_midway" in c.mitigant_fields for c in bent), claims
    fuel = [c for c in claims if c.conditions and c.conditions[0].field == "generator_fuel_gallons"]
    assert all("fenced_midway" not in c.mitigant_fields for c in fuel)


RATIO = rule("cover_ratio", "lt", 1.2, product_type="LRO")
RATIO_FIELDS = _with_field(
    "cover_ratio",
    {
        "type": "float",
        "unit": "ratio",
        "synonyms": ["coverage ratio", "owner's cover"],
        "description": "Owner's income over debt service",
    },
)


def test_the_fields_unit_word_names_it_in_an_answer_about_practice() -> None:
    body = (
        "Q: The guide refers owners with a coverage ratio under 1.20. Is that firm?\n"
        "A: No, it's a trigger for a conversation.\n"
        "Q: Lowest ratio you've approved?\n"
        "A: 0.95, on a flex building whose lender escrowed the taxes."
    )
    [claim] = read_approvals(text("sme", body), [RATIO], RATIO_FIELDS)
    assert claim.soft_limit == 0.95


def test_the_highest_signed_a_few_sentences_after_a_guideline_is_its_soft_limit() -> None:
    body = (
        "Q: The guide refers midways over 300 feet. How do you handle them? A: Three hundred "
        "is a guideline. Length tells you how far the crowd spreads, but fencing changes the "
        "picture. Q: So fencing decides it? A: For me, yes. If the midway is fenced, I let "
        "the desk approve with conditions. The highest I've signed was 380 feet."
    )
    [reading] = read_limits(body)
    assert (reading.value, reading.soft_limit) == (300, 380)


MONEY = rule("fuel_stock_usd", "gt", 750000, product_type="BOP")
MONEY_FIELDS = _with_field(
    "fuel_stock_usd",
    {
        "type": "float",
        "unit": "usd",
        "synonyms": ["fuel stock value", "fuel stock"],
        "description": "Value of the fuel stock on the lot",
    },
)


def test_a_log_of_one_money_limit_lists_its_cases_by_amount() -> None:
    log = text(
        "log",
        "BOP referral log - fuel stock above the $750K threshold.\n"
        "FS-24-031 Chicago | fuel stock $820,000 | fenced | approved with conditions\n"
        "FS-24-047 Boston | $900,000 | fenced, new gates | approved with conditions\n"
        "FS-24-052 Denver | $1.1 million | open lot | not approved",
        "production",
    )
    [claim] = read_approvals(log, [MONEY], MONEY_FIELDS)
    assert claim.soft_limit == 900000


def test_a_product_named_only_in_a_question_is_not_the_texts() -> None:
    body = (
        "Q: Section 8.5 refers midways over 300 feet. Is that firm? A: The manual says refer "
        "and I leave it alone, but in practice I have written midways up to 380 feet. Q: Does "
        "the BOP team do the same? A: I only speak for the GL."
    )
    [reading] = read_limits(body)
    assert (reading.product, reading.value, reading.soft_limit) == ("GL", 300, 380)


def test_a_guideline_said_after_is_that_a_hard_line_is_soft() -> None:
    body = (
        "Q: GL Manual 12.3 refers midways over 300 feet. Is that a hard line for you? "
        "A: It's a guideline. I've approved up to 380 feet when the midway is fenced."
    )
    [reading] = read_limits(body)
    assert (reading.value, reading.soft_limit) == (300, 380)


def test_the_largest_written_above_the_limit_answers_what_was_written_above_it() -> None:
    body = (
        "Q: The guide sends any lot with more than 200 gallons of generator fuel to you. "
        "Is that a ceiling?\nA: A trigger for a closer look.\n"
        "Q: What have you actually written above it?\n"
        "A: The largest was a county fair with about 260 gallons of generator fuel on hand."
    )
    [claim] = read_approvals(text("sme", body), [FUEL], DICTIONARY)
    assert claim.soft_limit == 260


def test_a_case_past_a_cited_limit_speaks_of_that_products_rule_only() -> None:
    bop = limit_rule("haul_tons_month", "gt", 10, action="decline")
    gl = limit_rule("haul_tons_month", "gt", 60, product_type="GL", rule_name="GL haul")
    log = text(
        "log",
        "Case HL-7. A hauler averaging 75 haul tons a month, above the 60-ton referral "
        "line. Referred; approved with conditions.",
        "production",
    )
    claims = read_approvals(log, [bop, gl])
    assert [(c.product_type, c.soft_limit) for c in claims] == [("GL", 75.0)], claims
