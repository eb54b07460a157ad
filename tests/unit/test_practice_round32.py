"""Practice and statements round 32: a class named after "on" / "of"; what other carriers
did is history; a relief binds to the class it names; a bulletin ends what its document
stated; another product's own limit is not this product's practice.

Every field and sentence below is made up for these tests (a bell-foundry dictionary no
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
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'bell foundry', 'carillon tuner')",
    },
    "refusals_3yr": {
        "type": "int",
        "unit": "refusals",
        "synonyms": ["prior refusals", "carrier refusals"],
        "description": "Times other carriers refused the applicant in three years",
    },
    "bronze_stock_tons": {
        "type": "float",
        "unit": "tons",
        "synonyms": ["bronze stock", "bronze on hand"],
        "description": "Tons of bronze held on site",
    },
    "casting_pit_separated": {
        "type": "bool",
        "synonyms": ["separate casting pit", "casting pit walled off"],
        "description": "The casting pit sits in a separate walled bay",
    },
    "years_casting": {
        "type": "int",
        "unit": "years",
        "synonyms": ["years in business", "years casting"],
        "description": "Years the foundry has been in business",
    },
    "casting_losses_3yr": {
        "type": "int",
        "unit": "losses",
        "synonyms": ["losses in three years", "claim count"],
        "description": "Losses in the last three years",
    },
    "bell_age_months": {
        "type": "int",
        "unit": "months",
        "synonyms": ["age grade", "age in months"],
        "description": "Youngest age, in months, a toy bell is graded for",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DICTIONARY)


def _claims(extractor: OfflineExtractor, *texts: KnowledgeText) -> list[ExtractedRule]:
    return practice_claims(extractor, DICTIONARY, *texts)


def _text(
    id_: str, kind: str, day: str, text: str, source: str = "Foundry Manual"
) -> KnowledgeText:
    return KnowledgeText(id=id_, text=text, source=source, source_type=kind, date=day)


def _shape(rule: ExtractedRule) -> list[tuple[str, object]]:
    return sorted((c.field, c.value) for c in rule.conditions)


def test_a_hold_on_a_class_names_the_class(extractor: OfflineExtractor) -> None:
    said = "The Oregon hold on bell foundries is in force: such submissions are declined."
    (rule,) = extractor.extract(said, source_type="training")
    assert _shape(rule) == [("occupancy", "bell foundry"), ("state", "OR")]


def test_makers_of_things_are_no_class_of_makers(extractor: OfflineExtractor) -> None:
    said = "Makers of toy bells for children younger than thirty-six months are declined."
    (rule,) = extractor.extract(said, source_type="manual")
    assert _shape(rule) == [("bell_age_months", 36)]


def test_a_report_of_referrals_is_no_rule(extractor: OfflineExtractor) -> None:
    said = "Quarterly review of bell foundry referrals."
    assert extractor.extract(said, source_type="production") == []


def test_what_other_carriers_did_is_no_action(extractor: OfflineExtractor) -> None:
    said = (
        "If an applicant has been declined by more than two carriers in the last three "
        "years, it goes to a senior underwriter."
    )
    (rule,) = extractor.extract(said, source_type="training")
    assert rule.action == "refer"
    assert _shape(rule) == [("refusals_3yr", 2)]


def test_a_relief_binds_to_the_class_it_names(extractor: OfflineExtractor) -> None:
    manual = _text(
        "m1",
        "manual",
        "2023-01-10",
        "Bell foundries are referred. Bronze stock above forty tons is referred.",
    )
    log = _text(
        "p1",
        "production",
        "2023-06-01",
        "Four bell foundries came through and all four were referred. Three were approved "
        "with conditions because the casting pit sits in a separate walled bay away from the "
        "bell stock. Learning: a separate casting pit is the deciding mitigant for this class.",
        source="Foundry decision log",
    )
    (claim,) = [c for c in _claims(extractor, manual, log) if c.text_id == "p1"]
    assert _shape(claim) == [("occupancy", "bell foundry")]
    assert claim.mitigant_fields == ["casting_pit_separated"]


def _oregon_bulletin() -> KnowledgeText:
    return _text(
        "c1",
        "compliance",
        "2024-04-02",
        "Effective 2 April 2024: bell foundries located in Oregon are declined.",
        source="Compliance Bulletin FB-24-07",
    )


def test_a_bulletin_ends_what_the_document_it_names_stated(extractor: OfflineExtractor) -> None:
    stated = _oregon_bulletin()
    ended = _text(
        "c2",
        "compliance",
        "2025-02-03",
        "FB-24-07 is withdrawn with effect from 3 February 2025. Foundries in Oregon may "
        "again be quoted under the normal rules.",
        source="Compliance Bulletin FB-25-01",
    )
    (claim,) = [c for c in _claims(extractor, stated, ended) if c.text_id == "c2"]
    assert claim.withdrawn
    assert _shape(claim) == [("occupancy", "bell foundry"), ("state", "OR")]


def test_a_bulletin_naming_another_document_ends_nothing_of_this_one(
    extractor: OfflineExtractor,
) -> None:
    stated = _oregon_bulletin()
    ended = _text(
        "c2",
        "compliance",
        "2025-02-03",
        "FB-24-09 is withdrawn with effect from 3 February 2025.",
        source="Compliance Bulletin FB-25-01",
    )
    assert [c for c in _claims(extractor, stated, ended) if c.text_id == "c2"] == []


def test_another_products_own_limit_is_not_this_products_practice(
    extractor: OfflineExtractor,
) -> None:
    manual = _text(
        "m1",
        "manual",
        "2023-01-10",
        "On the BOP, bronze stock above forty tons is referred. On Property, bronze stock "
        "above ninety tons is referred.",
    )
    talk = _text(
        "s1",
        "sme",
        "2023-06-01",
        "Q: The manual says forty tons of bronze on a BOP. How hard is that? A: It's a "
        "trigger, not a wall. I've signed off foundries at about sixty tons of bronze on hand "
        "when the casting pit is walled off. Q: And on Property? A: The Property people have "
        "their own number, a hundred tons I think, and I don't touch that one.",
        source="BOP interview",
    )
    (claim,) = [c for c in _claims(extractor, manual, talk) if c.text_id == "s1"]
    assert claim.product_type == "BOP"
    assert claim.soft_limit == 60


def test_what_a_referral_is_sent_with_is_no_mitigant(extractor: OfflineExtractor) -> None:
    said = (
        "A foundry holding more than forty tons of bronze on hand is referred to the regional "
        "manager with the pit layout and the separate casting pit drawings."
    )
    (rule,) = extractor.extract(said, source_type="manual")
    assert rule.mitigant_fields == []
    assert _shape(rule) == [("bronze_stock_tons", 40)]


def test_a_bare_lower_bound_takes_the_unit_of_the_upper(extractor: OfflineExtractor) -> None:
    said = "At least two but under three years: refer it."
    (rule,) = extractor.extract(said, source_type="training")
    assert sorted((c.field, c.operator, c.value) for c in rule.conditions) == [
        ("years_casting", "gte", 2),
        ("years_casting", "lt", 3),
    ]


def test_what_practice_never_went_past_is_its_soft_limit(extractor: OfflineExtractor) -> None:
    manual = _text("m1", "manual", "2023-01-10", "Bronze stock above forty tons is referred.")
    talk = _text(
        "s1",
        "sme",
        "2023-06-01",
        "The forty-ton line for bronze stock is a guideline. I have taken bigger foundries "
        "when the casting pit is walled off. I have never gone past sixty tons.",
        source="Foundry interview",
    )
    (claim,) = [c for c in _claims(extractor, manual, talk) if c.text_id == "s1"]
    assert claim.soft_limit == 60
