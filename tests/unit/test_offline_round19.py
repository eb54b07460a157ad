"""Round 19: lists a denied noun names, colloquial figures, prefixed years.

Every field and sentence below is made up for these tests (a juice-plant dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary
from tests.rules import condition_set

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built"],
        "description": "Year built",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Construction, lower case: frame, masonry, steel",
    },
    "pasteurizing_method": {
        "type": "str",
        "synonyms": ["pasteurizing step", "heat treatment method"],
        "description": "Pasteurizing step before bottling, lower case: hpp, flash, tunnel, none",
    },
    "largest_order_usd": {
        "type": "float",
        "unit": "usd",
        "synonyms": ["largest single order"],
        "description": "Largest single wholesale order",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(extractor: OfflineExtractor, text: str, source_type: str = "manual") -> list[tuple]:
    return [(r.action, condition_set(r)) for r in extractor.extract(text, source_type=source_type)]


def test_values_a_denied_noun_lists_in_parentheses_are_its_none(
    extractor: OfflineExtractor,
) -> None:
    text = "Plants with no pasteurizing step (hpp, flash or tunnel) are declined."
    [rule] = _rules(extractor, text)
    assert rule == ("decline", {("pasteurizing_method", "eq", "none")}), rule


def test_values_in_a_parenthesis_after_a_plain_noun_stay_named(
    extractor: OfflineExtractor,
) -> None:
    text = "Plants with a heat treatment method (flash or tunnel) are referred."
    [rule] = _rules(extractor, text)
    assert rule == ("refer", {("pasteurizing_method", "in", ("flash", "tunnel"))}), rule


@pytest.mark.parametrize(("text", "value"), [("six-fifty", 650), ("one twenty", 120)])
def test_units_then_tens_is_hundreds(text: str, value: int) -> None:
    assert [m.value for m in find_numbers(text)] == [value]


def test_twenty_five_is_still_twenty_five() -> None:
    assert [m.value for m in find_numbers("twenty-five")] == [25]


def test_a_figure_said_short_after_its_amount_restates_it(extractor: OfflineExtractor) -> None:
    text = (
        "Q: Is there a size limit? A: The guide refers any plant whose largest single order is "
        "over five hundred thousand dollars. I've signed off on orders up to $650,000. Past "
        "six-fifty it goes to referral, no exceptions."
    )
    rules = extractor.extract(text, source_type="sme")
    assert [(r.action, condition_set(r), r.soft_limit) for r in rules] == [
        ("refer", {("largest_order_usd", "gt", 500000.0)}, 650000.0)
    ], rules


def test_a_prefixed_year_is_a_bound_on_the_year_built(extractor: OfflineExtractor) -> None:
    text = "Pre-1950 frame buildings must be verified before quoting."
    [rule] = _rules(extractor, text)
    assert ("year_built", "lt", 1950) in rule[1], rule


def test_a_section_number_is_no_figure(extractor: OfflineExtractor) -> None:
    text = (
        "Our appetite line sits at five hundred thousand dollars of largest single order: "
        "anything above it is referred, exactly as Manual Section 5.4 says."
    )
    rules = extractor.extract(text, source_type="training")
    assert [condition_set(r) for r in rules] == [{("largest_order_usd", "gt", 500000.0)}], rules
