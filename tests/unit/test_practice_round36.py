"""Practice round 36: a case's own number is no figure of it ("Case 23-411"), a unit said
two ways ("9,500 lb of type" for the synonym "pounds of type"), an approval's terms said in
other words than a flag's synonym, cases named by a letter ("Renewal A (...): ..."), "we
referred rather than declined" is no refusal, the limit a case cites picks its rule among
products, and a text's own reading lends its mitigants to its own product's claim.

Every field and sentence below is made up for these tests (a bell-foundry dictionary no
dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'bell foundry')",
    },
    "metal_inventory_lbs": {
        "type": "float",
        "unit": "lbs",
        "synonyms": ["pounds of bronze", "bell metal on hand"],
        "description": "Weight of bell metal held on the premises, in pounds",
    },
    "tower_climbs_yr": {
        "type": "int",
        "unit": "climbs",
        "synonyms": ["tower climbs", "belfry visits"],
        "description": "Climbs into customers' bell towers a year",
    },
    "furnace_hours": {
        "type": "int",
        "unit": "hours",
        "synonyms": ["furnace hours", "hours on the furnace lining"],
        "description": "Hours the furnace lining has run since it was last relined",
    },
    "two_person_climbs": {
        "type": "bool",
        "synonyms": ["two-person climbs", "both riggers climb every tower"],
        "description": "Every tower climb is made by two riggers",
    },
    "lining_surveyed": {
        "type": "bool",
        "synonyms": ["lining surveyed", "refractory survey passed"],
        "description": "The furnace lining passed a refractory survey",
    },
    "lining_recertified": {
        "type": "bool",
        "synonyms": ["lining recertified", "maker recertified the lining"],
        "description": "The furnace maker recertified the lining after inspection",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)


def _text(id_: str, kind: str, day: str, text: str) -> KnowledgeText:
    return KnowledgeText(id=id_, text=text, source=f"Doc {id_}", source_type=kind, date=day)


def _soft(claims: list, text_id: str) -> list[tuple[str, str, float | None, list[str]]]:
    return sorted(
        (c.product_type, c.conditions[-1].field, c.soft_limit, c.mitigant_fields)
        for c in claims
        if c.text_id == text_id
    )


MANUAL = _text(
    "m1",
    "manual",
    "2024-01-10",
    "GL refers any foundry making more than twelve tower climbs a year. Property refers a "
    "foundry holding more than 8,000 pounds of bronze.",
)


def test_a_case_number_is_no_figure_and_other_words_name_the_terms() -> None:
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Case 23-411 (GL, bell foundry, Ohio): fourteen tower climbs a year, referred under "
        "the twelve-climb rule, approved with a subjectivity that two riggers make every "
        "climb. Outcome in line with desk practice.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    assert _soft(claims, "p1") == [("GL", "tower_climbs_yr", 14.0, ["two_person_climbs"])]


def test_a_unit_said_short_names_the_synonym_said_long() -> None:
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Case 23-438 (Property, bell foundry, Vermont): 9,500 lb of bronze against the 8,000 "
        "lb line. Approved after referral. Divergent from the stated limit.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    assert _soft(claims, "p1") == [("Property", "metal_inventory_lbs", 9500.0, [])]


def test_lettered_cases_bend_the_rule_whose_limit_each_cites() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Any foundry whose furnace lining has run more than 1,500 furnace hours is referred, "
        "whatever line it comes in on. GL declines a foundry whose lining has run more than "
        "2,500 furnace hours.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Renewal A (Property, foundry, Kentucky): lining at 1,700 furnace hours, over the "
        "all-lines fifteen-hundred-hour line. Referred and approved - the refractory survey "
        "came back clean. Renewal B (GL, the same foundry's second shop): 2,900 furnace "
        "hours, past the GL decline point of two thousand five hundred. We referred rather "
        "than declined because the maker recertified the lining, and the GL lead approved "
        "it. Divergent from the manual.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert _soft(claims, "p1") == [
        ("ALL", "furnace_hours", 1700.0, ["lining_surveyed"]),
        ("GL", "furnace_hours", 2900.0, ["lining_recertified"]),
    ]


def test_each_products_figure_keeps_the_protection_of_its_own_clause() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "BOP refers a foundry making more than ten tower climbs a year. GL refers a foundry "
        "making more than twelve tower climbs a year.",
    )
    sme = _text(
        "s1",
        "sme",
        "2024-06-02",
        "Q: Where do you really draw the line on tower climbs? A: On the package I'll go to "
        "fourteen climbs if both riggers climb every tower; on GL the book says twelve and "
        "I've signed as high as twenty climbs for a foundry with a long record.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, sme)
    assert ("GL", "tower_climbs_yr", 20.0, []) in _soft(claims, "s1")


def test_a_flag_a_known_rule_is_triggered_by_is_no_protection_of_a_case() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Property declines a foundry with a lining surveyed by its own staff only. Property "
        "refers a foundry whose furnace lining has run more than 1,500 furnace hours.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "File 25-204: lining at 1,700 furnace hours, lining surveyed last spring. Approved "
        "with conditions by the specialist.",
    )
    rules = EXTRACTOR.extract(manual.text, source_type="manual", text_id="m1")
    hazard = any(
        c.field == "lining_surveyed" and c.value is True for r in rules for c in r.conditions
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert hazard
    assert _soft(claims, "p1") == [("Property", "furnace_hours", 1700.0, [])]


def test_a_reply_that_says_yes_approve_is_an_approval() -> None:
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "From: D. Keane. To: T. Marsh. Subject: Hilltop foundry (GL) - 16 climbs. Sixteen "
        "tower climbs a year, above the twelve-climb point. Approve with conditions? --- "
        "From: T. Marsh. Yes, approve with conditions.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, log)
    assert _soft(claims, "p1") == [("GL", "tower_climbs_yr", 16.0, [])]


def test_a_withdrawn_part_named_between_dashes_withdraws_its_rule() -> None:
    text = (
        "Effective 14 October 2024, paragraph 5.1(c) of the Lessor's Risk Only Guidelines - "
        "referral of buildings leased to a bell foundry - is withdrawn."
    )
    (rule,) = EXTRACTOR.extract(text, source_type="compliance")
    assert (rule.product_type, rule.action, rule.withdrawn) == ("LRO", "refer", True)
    assert [(c.field, c.value) for c in rule.conditions] == [("occupancy", "bell foundry")]


FURNACE_MANUAL = _text(
    "m1",
    "manual",
    "2024-01-10",
    "Property refers a foundry whose furnace lining has run more than 1,500 furnace hours.",
)


def test_a_clause_of_another_kind_of_figure_keeps_the_case_whole() -> None:
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Case study. The maker recertified the lining after three inspections; it had run "
        "1,700 furnace hours, well past our 1,500-hour line. The underwriter approved it "
        "with conditions.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, FURNACE_MANUAL, log)
    assert _soft(claims, "p1") == [("Property", "furnace_hours", 1700.0, ["lining_recertified"])]


def test_a_count_of_the_approvals_is_no_figure_of_its_own_clause() -> None:
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "Property furnace referrals this year: nine foundries were referred for more than 1,500 "
        "furnace hours and seven were approved with conditions. Two of the approvals relied on "
        "a lining recertified by the maker; among the others, the highest approved was 1,800.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, FURNACE_MANUAL, log)
    assert _soft(claims, "p1") == [("Property", "furnace_hours", 1800.0, ["lining_recertified"])]


def test_a_flag_a_referral_is_triggered_by_may_still_protect_a_case() -> None:
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "Property refers a foundry making two-person climbs. Property refers a foundry whose "
        "furnace lining has run more than 1,500 furnace hours.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-02",
        "File 25-204: lining at 1,700 furnace hours, two-person climbs on every job. Approved "
        "with conditions by the specialist.",
    )
    rules = EXTRACTOR.extract(manual.text, source_type="manual")
    assert ("two_person_climbs", True) in [(c.field, c.value) for r in rules for c in r.conditions]
    claims = practice_claims(EXTRACTOR, DICTIONARY, manual, log)
    assert ("Property", "furnace_hours", 1700.0, ["two_person_climbs"]) in _soft(claims, "p1")
