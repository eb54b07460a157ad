"""Round 2 of the offline extractor's generalisation: each failure class, on invented fields.

Every field and sentence below is made up for these tests (a marina / cold-storage /
ceramics dictionary no dataset has): the extractor must read them from the data
dictionary and general English alone.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.profile import parse_enum
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'marina', 'pottery studio')",
    },
    "dock_material": {
        "type": "str",
        "synonyms": ["dock material", "decking"],
        "description": "Dock decking, lower case: 'concrete', 'steel grate', 'treated timber'",
    },
    "kiln_brand": {
        "type": "str",
        "synonyms": ["kiln brand", "kiln maker"],
        "description": "Kiln manufacturer, lower case (e.g. 'ashvale', 'brontide', 'corvex')",
    },
    "pump_type": {
        "type": "str",
        "synonyms": ["bilge pump", "pump type"],
        "description": "Bilge pump, lower case: 'electric pump', 'manual pump', 'diesel pump'",
    },
    "slip_count": {
        "type": "int",
        "unit": "slips",
        "synonyms": ["slips", "boat slips"],
        "description": "Number of boat slips",
    },
    "freezer_distance_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["freezer distance", "distance to the freezer"],
        "description": "Distance from the kiln room to the blast freezer, in feet",
    },
    "fuel_dock_distance_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["fuel dock distance", "feet from the fuel dock"],
        "description": "Distance from the clubhouse to the fuel dock, in feet",
    },
    "hull_claims_5yr": {
        "type": "int",
        "unit": "claims",
        "synonyms": ["hull claims", "hull claims in the last five years"],
        "description": "Hull claims in the last 5 years",
    },
    "storm_rating": {
        "type": "int",
        "unit": "rating",
        "synonyms": ["storm rating"],
        "description": "Harbour storm rating, 1 (sheltered) to 6 (open water)",
    },
    "contents_value_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["contents value"],
        "description": "Value of the contents",
    },
    "harbour_master_letter": {
        "type": "bool",
        "synonyms": ["harbour master letter", "harbourmaster letter"],
        "description": "A signed harbour master letter is on file",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


# --- categorical values from the dictionary ---------------------------------------------


def test_quoted_values_of_a_closed_list_are_read_without_quotes() -> None:
    values, examples = parse_enum("Roof deck, lower case: 'slate', 'green roof', 'tar'")
    assert values == ["slate", "green roof", "tar"] and not examples


def test_value_of_a_closed_list_after_an_ordinal_label(extractor: OfflineExtractor) -> None:
    text = "Two things on docks. First, treated-timber decking: refer it. Concrete is fine."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert condition_set(rule) == {("dock_material", "eq", "treated timber")}  # no 'first' class


def test_values_of_an_example_list_name_the_field(extractor: OfflineExtractor) -> None:
    text = "Ashvale and Corvex kilns crack under load; a building with either one is declined."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"
    assert ("kiln_brand", "in", ("ashvale", "corvex")) in condition_set(rule)


def test_a_shared_head_noun_spreads_over_a_list(extractor: OfflineExtractor) -> None:
    text = "A marina whose only bilge pump is a manual or diesel pump is referred."
    rule = only_rule(extractor.extract(text))
    assert ("pump_type", "in", ("manual pump", "diesel pump")) in condition_set(rule)


def test_a_value_opening_a_hyphenated_compound(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Steel grate-style decking is excluded from the program."))
    assert ("dock_material", "eq", "steel grate") in condition_set(rule)


# --- numbers ---------------------------------------------------------------------------


def test_number_words_split_at_and() -> None:
    found = [m.value for m in find_numbers("between a hundred and three hundred feet")]
    assert found == [100.0, 300.0]
    assert [m.value for m in find_numbers("between ten and forty slips")] == [10.0, 40.0]
    assert [m.value for m in find_numbers("two hundred and fifty slips")] == [250.0]
    assert [m.value for m in find_numbers("three and a half miles")] == [3.5]


def test_a_share_of_a_scale_word() -> None:
    assert find_numbers("a quarter million dollars")[0].value == 250_000
    assert find_numbers("half a million")[0].value == 500_000


def test_range_words_are_not_units() -> None:
    mention = find_numbers("storm rating 3 through 6")[0]
    assert mention.unit is None


def test_an_unnamed_number_continues_the_compared_field(extractor: OfflineExtractor) -> None:
    text = (
        "Count hull claims over the last five years. Two or more hull claims are referred. "
        "Four or more are declined."
    )
    rules = extractor.extract(text)
    assert {(r.action, next(iter(condition_set(r)))) for r in rules} == {
        ("refer", ("hull_claims_5yr", "gte", 2)),
        ("decline", ("hull_claims_5yr", "gte", 4)),
    }


def test_the_unit_word_after_a_number_names_no_field(extractor: OfflineExtractor) -> None:
    text = (
        "A kiln room less than 40 feet from the blast freezer is referred. "
        "Under 10 feet is a decline."
    )
    rules = extractor.extract(text)
    assert ("decline", ("freezer_distance_ft", "lt", 10)) in {
        (r.action, next(iter(condition_set(r)))) for r in rules
    }


# --- actions and mitigants ---------------------------------------------------------------


def test_a_participle_coordinated_with_a_passive(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("A marina with more than 300 slips is rated and declined."))
    assert rule.action == "decline" and ("slip_count", "gt", 300) in condition_set(rule)


def test_a_purpose_clause_does_not_set_the_action(extractor: OfflineExtractor) -> None:
    text = (
        "Any marina operating more than 80 slips is flagged for review so the broker can "
        "confirm a hull schedule is in force."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "flag_for_review"
    assert condition_set(rule) == {("occupancy", "eq", "marina"), ("slip_count", "gt", 80)}


def test_past_tense_inside_a_condition_still_states_a_rule(extractor: OfflineExtractor) -> None:
    text = (
        "When the contents were appraised more than five years ago and the contents value "
        "is above $2M, the underwriter must verify the appraisal."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert ("contents_value_usd", "gt", 2_000_000) in condition_set(rule)


def test_a_signed_letter_that_satisfies_a_rule_is_its_mitigant(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "A marina with more than 150 slips must be referred. A harbour master letter "
        "satisfies the requirement, and the risk may then be bound with the letter on file."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert rule.mitigant_fields == ["harbour_master_letter"]


def test_case_narrative_is_no_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Case review - BOP, pottery studio with 3 kilns. The studio is fully alarmed, so the "
        "underwriter wrote it with conditions. A night watchman alone is not enough, and this "
        "file should have stayed a referral."
    )
    assert extractor.extract(text) == []


def test_a_scope_sentence_about_an_exclusion_is_no_rule(extractor: OfflineExtractor) -> None:
    text = "The exclusion applies to hull damage only and does not limit liability cover."
    assert extractor.extract(text) == []


# --- soft limits from practice --------------------------------------------------------------


@pytest.mark.parametrize(
    "practice",
    [
        "In practice we approve up to 240 slips without fuss.",
        "I've signed off up to 240 slips when the docks were concrete.",
        "QA: acceptable; the desk has written marinas up to 240 slips on concrete docks.",
    ],
)
def test_practice_beyond_a_threshold_is_a_soft_limit(
    extractor: OfflineExtractor, practice: str
) -> None:
    rule = only_rule(
        extractor.extract(f"A marina with more than 200 slips is referred. {practice}")
    )
    assert rule.action == "refer" and rule.soft_limit == 240
