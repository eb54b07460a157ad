"""Offline extraction round 35: tenants a building is "let to", "business on" a class in an
ambiguous state code ("in PA"), a building "older than" a calendar year, a causative
"has its value verified", and a listed class said with modifiers before it.

Every field and sentence below is made up for these tests (a pottery-and-glass studio
dictionary no dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "tenant class"],
        "description": "Business class, lower case (e.g. 'glass blower', 'raku pottery')",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "erected"],
        "description": "Calendar year the building was put up",
    },
}
EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _read(text: str, kind: str = "manual") -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Where a lessor's building is let to a raku pottery or to a glass blower, refer the "
        "submission to the LRO lead.",
        "From 1 May 2024, lessor's risk submissions where the building is let to a raku "
        "pottery or to a glass blower are declined.",
    ],
)
def test_the_tenants_a_building_is_let_to_are_the_classes(text: str) -> None:
    rules = _read(text)
    assert [conditions for _, conditions in rules] == [
        [("occupancy", "in", ["raku pottery", "glass blower"])]
    ]


def test_a_qualifier_that_narrows_the_tenant_still_holds_the_rule_back() -> None:
    said = "Submissions where the building is let to a raku pottery with a wood kiln are declined."
    assert _read(said) == []


def test_business_on_a_class_in_an_ambiguous_state_code() -> None:
    said = (
        "Pennsylvania potteries: no LRO business on raku potteries in PA, new or renewal; "
        "decline at the desk."
    )
    assert _read(said, "training") == [
        ("decline", [("occupancy", "eq", "raku pottery"), ("state", "eq", "PA")])
    ]


def test_a_building_older_than_a_year_was_built_before_it() -> None:
    said = "A building older than 1850 still has its value verified before we bind."
    assert _read(said) == [("verify", [("year_built", "lt", 1850)])]


def test_a_listed_class_with_modifiers_before_it_is_the_listed_class() -> None:
    said = "Revived Victorian glass blowers (gas furnaces, open demonstrations) are referred."
    assert _read(said) == [("refer", [("occupancy", "eq", "glass blower")])]
