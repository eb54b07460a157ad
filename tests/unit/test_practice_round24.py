"""Round 24, practice: how far a logged case says practice went, and what it accepted.

Every field and sentence below is made up for these tests (a glass-studio dictionary no
dataset has).
"""

from __future__ import annotations

from agents.ingestion.practice import read_approvals
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'glass studio')",
    },
    "square_feet": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["building area", "floor area"],
        "description": "Total floor area",
    },
    "unvented_area_sqft": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["unvented area", "area without fume extraction"],
        "description": "Floor area without fume extraction, in square feet",
    },
    "fume_wall": {
        "type": "bool",
        "synonyms": ["rated fume wall", "sealed fume barrier"],
        "description": "The unvented area is sealed off by a rated fume barrier",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})


def _log(body: str) -> KnowledgeText:
    return KnowledgeText(
        id="log", text=body, source="Case review", source_type="production", date="2025-03-10"
    )  # type: ignore[arg-type]


CASE = (
    "Case GS-23-3312, glass studio. Building 14,000 sq ft, vented throughout except the rear "
    "bench of 6,500 sq ft. Referred because the unvented area is over the 5,000 sq ft line. "
    "The team lead approved with conditions. Note for the desk: an unvented area sealed "
    "off by a rated fume wall has been accepted up to 6,500 sq ft."
)


def test_the_extent_practice_reached_is_the_number_after_up_to() -> None:
    known = [limit_rule("unvented_area_sqft", "gt", 5000)]
    claims = read_approvals(_log(CASE), known, DICTIONARY)
    assert [c.soft_limit for c in claims] == [6500.0]


def test_a_protection_in_the_sentence_of_the_extent_is_what_practice_accepted() -> None:
    known = [limit_rule("unvented_area_sqft", "gt", 5000)]
    claims = read_approvals(_log(CASE), known, DICTIONARY)
    assert [c.mitigant_fields for c in claims] == [["fume_wall"]]


def test_a_case_withdrawn_before_a_decision_teaches_nothing() -> None:
    known = [limit_rule("unvented_area_sqft", "gt", 5000)]
    log = _log(
        "GS-25-0391, a glass studio with 3,000 sq ft unvented area, was bound at the desk. "
        "A third file, a studio with a 9,000 sq ft unvented area, was withdrawn by the agent "
        "before a decision."
    )
    assert read_approvals(log, known, DICTIONARY) == []
