"""Practice round 30: counted things named by a synonym's head, offered terms, list items,
manual sections, standing outcomes, people and causes that open a sentence.

Every field and sentence below is made up for these tests (a lantern-maker dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class of the applicant, lower case",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "lamp_oil_stock": {
        "type": "int",
        "unit": "bottles",
        "synonyms": ["oil flasks on the shelf", "lamp oil in stock"],
        "description": "Number of bottles of lamp oil held at the location",
    },
    "wick_trimmer_count": {
        "type": "int",
        "unit": "trimmers",
        "synonyms": ["wick trimmers", "trimming stations"],
        "description": "Number of wick trimming stations in the workshop",
    },
    "glass_kiln_age_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["kiln age"],
        "description": "Age of the oldest glass kiln in years",
    },
    "kiln_guard_fitted": {
        "type": "bool",
        "synonyms": ["kiln guard", "guarded kiln"],
        "description": "A guard is fitted around every glass kiln",
    },
    "wiring_study_done": {
        "type": "bool",
        "synonyms": ["wiring study", "electrical wiring study on file"],
        "description": "An electrical wiring study of the workshop is on file",
    },
    "sale_explained": {
        "type": "bool",
        "synonyms": ["gap explained by a sale"],
        "description": "The lapse fell while the business was being sold",
    },
    "lapse_months": {
        "type": "int",
        "unit": "months",
        "synonyms": ["lapse in cover", "months uninsured"],
        "description": "Longest period without insurance in the past three years",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _text(body: str, source_type: str, text_id: str, date: str) -> KnowledgeText:
    return KnowledgeText(
        id=text_id, text=body, source="Lantern desk", source_type=source_type, date=date
    )  # type: ignore[arg-type]


def _claims(extractor: OfflineExtractor, *texts: KnowledgeText) -> list[ExtractedRule]:
    return practice_claims(extractor, DICTIONARY, *texts)


def _of(claims: list[ExtractedRule], text_id: str) -> list[ExtractedRule]:
    return [c for c in claims if c.text_id == text_id]


MANUAL = _text(
    "Property: where a lantern maker keeps more than 400 bottles of lamp oil on the shelf, "
    "refer the risk to the senior underwriter.",
    "manual",
    "m1",
    "2024-01-10",
)


def test_a_case_counts_what_a_synonym_names_before_its_link_word(
    extractor: OfflineExtractor,
) -> None:
    log = _text(
        "Case LM-25-0311, lantern maker on the coast. The stock count showed 520 oil flasks "
        "against the 400 referral point in the Property manual. The senior underwriter "
        "approved with conditions.",
        "production",
        "p1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, MANUAL, log), "p1")
    assert claim.soft_limit == 520  # "oil flasks" are what "oil flasks on the shelf" counts


def test_terms_offered_past_a_limit_are_an_approval(extractor: OfflineExtractor) -> None:
    log = _text(
        "LM-25-0427, lantern maker. 480 oil flasks, above the 400 at which the Property "
        "manual refers. The underwriter offered terms anyway because the stock sits in a "
        "steel cabinet.",
        "production",
        "p1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, MANUAL, log), "p1")
    assert claim.soft_limit == 480


def test_a_list_item_number_is_no_case(extractor: OfflineExtractor) -> None:
    manual = _text(
        "GL: a workshop with fewer than 3 wick trimmers is referred.",
        "manual",
        "m1",
        "2024-01-10",
    )
    log = _text(
        "Two files from the sample.\n"
        "(1) LM-24-0419, wick trimmer workshop, 14 staff. It runs 2 wick trimmers, well "
        "under the 3 in the GL manual. Approved with conditions by the casualty lead.",
        "production",
        "p1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, manual, log), "p1")
    assert claim.soft_limit == 2  # not the item's (1)


def test_a_products_manual_section_is_no_case(extractor: OfflineExtractor) -> None:
    manual = _text(
        "GL: a glass kiln older than 12 years is referred.", "manual", "m1", "2024-01-10"
    )
    sme = _text(
        "Some context on the 12-year kiln line in GL 31.2. I have accepted workshops whose "
        "kiln age was 14 years when a kiln guard was fitted.",
        "sme",
        "s1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, manual, sme), "s1")
    assert claim.soft_limit == 14  # not the section's 31.2


def test_a_standing_outcome_without_its_protection_is_no_rule(
    extractor: OfflineExtractor,
) -> None:
    sme = _text(
        "The Property manual declines a lapse in cover of more than twelve months. Where "
        "nobody can show a gap explained by a sale, the decline stands.",
        "sme",
        "s1",
        "2025-03-02",
    )
    claims = _of(_claims(extractor, sme), "s1")
    assert [[c.field for c in claim.conditions] for claim in claims] == [["lapse_months"]]


def test_a_standing_outcome_with_its_own_figure_is_a_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "GL: kilns older than twelve years are referred. Past twenty years the referral "
        "stands whatever the guard.",
        source_type="manual",
    )
    assert any(
        c.field == "glass_kiln_age_years" and c.value == 20 for r in rules for c in r.conditions
    )


def test_an_underwriter_is_no_business_class(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Once a lantern maker holds more than 400 bottles of lamp oil, the file is referred "
        "to a senior underwriter; a junior underwriter does not quote it.",
        source_type="training",
    )
    values = [c.value for r in rules for c in r.conditions if c.field == "occupancy"]
    assert "junior" not in values and "junior underwriter" not in values


def test_a_cause_opening_a_sentence_is_no_business_class(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "Following flooding in the river valley and the state's emergency declaration, no new "
        "Property business is to be written for lantern makers located in Oregon until "
        "further notice. Such submissions are to be declined.",
        source_type="compliance",
    )
    assert rule.action == "decline"
    assert all("following" not in str(c.value).lower() for c in rule.conditions)
    assert ("state", "OR") in [(c.field, c.value) for c in rule.conditions]


def test_a_document_part_heading_gives_no_figure(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Part 9 - Kiln workshops. Brokers who subcontract the firing are not eligible under "
        "this section.",
        source_type="manual",
    )
    assert not any(
        c.field == "glass_kiln_age_years" and c.value == 9 for r in rules for c in r.conditions
    )


def test_an_underwriters_grade_is_no_limit(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "Where a lantern maker keeps more than 400 bottles of lamp oil, the account is "
        "referred to a Property underwriter of grade 3 or above.",
        source_type="manual",
    )
    assert [(c.field, c.value) for c in rule.conditions if c.field != "occupancy"] == [
        ("lamp_oil_stock", 400)
    ]


def test_a_recommended_approval_is_practice(extractor: OfflineExtractor) -> None:
    sme = _text(
        "The 400-bottle line starts a conversation; it isn't a wall. I've recommended "
        "approval on shops as high as 480 bottles of lamp oil where the owner had signed a "
        "contract.",
        "sme",
        "s1",
        "2025-03-02",
    )
    claims = _of(_claims(extractor, MANUAL, sme), "s1")
    assert [(c.action, c.soft_limit) for c in claims] == [("refer", 480)]


def test_referrals_routinely_approved_are_no_referral_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "A typical approval was a shop with 450 bottles of lamp oil, where the owner had "
        "commissioned a wiring study; where a wiring study is on file, these referrals have "
        "routinely been approved.",
        source_type="training",
    )
    assert not [r for r in rules if r.action == "refer"]


def test_where_practice_stops_is_no_approved_case(extractor: OfflineExtractor) -> None:
    sme = _text(
        "The 400-bottle trigger in the manual is fine. When the owner keeps the stock in a "
        "steel cabinet, I approve 450 bottles of lamp oil. Five hundred is where I stop.",
        "sme",
        "s1",
        "2025-03-02",
    )
    (claim,) = _of(_claims(extractor, MANUAL, sme), "s1")
    assert claim.soft_limit == 450


def test_a_text_opening_on_one_product_bends_its_rule_not_the_all_lines_one(
    extractor: OfflineExtractor,
) -> None:
    every_line = _text(
        "Whatever the product, a lantern maker keeping more than 300 bottles of lamp oil is "
        "verified.",
        "manual",
        "m0",
        "2024-01-01",
    )
    sme = _text(
        "On the Property lamp-oil referrals: I've cleared lantern makers with 480 bottles of "
        "lamp oil when the stock sat in a steel cabinet.",
        "sme",
        "s1",
        "2025-03-02",
    )
    claims = _of(_claims(extractor, every_line, MANUAL, sme), "s1")
    assert [(c.product_type, c.action, c.soft_limit) for c in claims] == [
        ("Property", "refer", 480)
    ]


def test_a_result_clause_with_a_figure_is_the_rule(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "An LRO workshop whose shelving has been extended so that more than 400 bottles of "
        "lamp oil are stored is not eligible for the program: decline the submission.",
        source_type="manual",
    )
    assert (rule.action, [(c.field, c.value) for c in rule.conditions]) == (
        "decline",
        [("lamp_oil_stock", 400)],
    )


def test_a_connector_is_no_business_class(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract(
        "For the BOP program, however, where a workshop runs more than 3 wick trimmers, refer "
        "the submission to a team lead.",
        source_type="manual",
    )
    assert [c.field for c in rule.conditions] == ["wick_trimmer_count"]


def test_a_table_whose_last_column_names_its_trigger(extractor: OfflineExtractor) -> None:
    text = (
        "Special classes are written within the limits shown; past the trigger the file is "
        "referred.\n"
        "| Class | Measure | Referral trigger |\n"
        "| --- | --- | --- |\n"
        "| Glass moss studio | Wick trimming stations | more than 3 trimmers |\n"
    )
    rules = extractor.extract(text, source_type="manual")
    assert ("refer", [("wick_trimmer_count", 3)]) in [
        (r.action, [(c.field, c.value) for c in r.conditions if c.field != "occupancy"])
        for r in rules
    ]
