"""Round 6 of the offline extractor, part A: actions, waivers, contrasts, anaphora.

Every field and sentence below is made up for these tests (a glass foundry / llama
trekking / rooftop apiary dictionary no dataset has). Each test pins one mechanism: a
waiver by "the referral can be closed / is cleared when X", an acceptance "within desk
authority" with "anything larger", "anything hotter" as the rest of an accepted range,
"written with X excluded" and "excluded from the BOP" as exclusions, "approve only with
the X endorsement", "any other X" as the complement of a list, and a sentence with its
own number (or a pronoun only inside a reason) that does not act on the sentence before.
"""

from __future__ import annotations

import pytest

from agents.offline.contrast import complement
from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.rules import Condition
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'glass foundry', "
        "'llama trekking', 'rooftop apiary')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "furnace_count": {
        "type": "int",
        "unit": "furnaces",
        "synonyms": ["furnaces", "furnace count"],
        "description": "Number of melting furnaces",
    },
    "trek_group_size": {
        "type": "int",
        "unit": "hikers",
        "synonyms": ["hikers", "group size"],
        "description": "Largest number of hikers on one trek",
    },
    "furnace_temp_f": {
        "type": "int",
        "unit": "degrees",
        "synonyms": ["furnace temperature"],
        "description": "Highest furnace temperature in degrees Fahrenheit",
    },
    "hive_lining": {
        "type": "str",
        "synonyms": ["hive lining", "lining"],
        "description": "Lining of the hive boxes, lower case (e.g. 'cedar', 'pine', 'plastic')",
    },
    "annealing_room": {
        "type": "bool",
        "synonyms": ["annealing room", "separate annealing room"],
        "description": "Annealing ovens sit in a separate fire-rated room",
    },
    "swarm_plan": {
        "type": "bool",
        "synonyms": ["swarm plan", "swarm response plan"],
        "description": "A written swarm response plan is on file",
    },
    "bee_sting_zone": {
        "type": "bool",
        "synonyms": ["sting zone"],
        "description": "The hives sit in a public sting zone",
    },
    "pack_animals_boarded": {
        "type": "bool",
        "synonyms": ["boards pack animals", "pack animal boarding"],
        "description": "Pack animals owned by others are boarded on site",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(extractor: OfflineExtractor, text: str) -> list:  # type: ignore[type-arg]
    return extractor.extract_with_coverage(text)[0]


def test_referral_closed_if_protection_is_a_mitigant(extractor: OfflineExtractor) -> None:
    text = (
        "Glass foundries running more than three furnaces are referred. That referral can "
        "be closed without a surcharge if the annealing ovens sit in a separate annealing "
        "room."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "refer"
    assert condition_set(rule) >= {("furnace_count", "gt", 3)}
    assert rule.mitigant_fields == ["annealing_room"]


def test_referral_cleared_when_protection_is_a_mitigant(extractor: OfflineExtractor) -> None:
    text = (
        "Glass foundries with more than three furnaces are referred; the referral is "
        "cleared when a separate annealing room is built."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "refer" and rule.mitigant_fields == ["annealing_room"]


def test_within_desk_authority_then_anything_larger(extractor: OfflineExtractor) -> None:
    text = (
        "A trek with 12 hikers or fewer stays within desk authority. Anything larger is referred."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "refer"
    assert condition_set(rule) == {("trek_group_size", "gt", 12)}


def test_anything_hotter_is_the_rest_of_an_accepted_range(extractor: OfflineExtractor) -> None:
    text = (
        "A furnace temperature of 2,100 degrees or less is acceptable. Anything hotter is declined."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "decline"
    assert condition_set(rule) == {("furnace_temp_f", "gt", 2100)}


def test_written_with_peril_excluded_is_an_exclusion(extractor: OfflineExtractor) -> None:
    text = "A rooftop apiary in a sting zone is written with sting injury excluded."
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "exclude"
    assert ("bee_sting_zone", "eq", True) in condition_set(rule)


def test_excluded_from_a_product_is_an_exclusion(extractor: OfflineExtractor) -> None:
    text = (
        "When a glass foundry runs more than six furnaces, the kiln stock is excluded from the BOP."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "exclude"
    assert ("furnace_count", "gt", 6) in condition_set(rule)


def test_approve_only_with_an_endorsement(extractor: OfflineExtractor) -> None:
    text = (
        "If a llama trekking outfit boards pack animals, we approve only with the care "
        "custody endorsement added."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "approve_with_conditions"
    assert ("pack_animals_boarded", "eq", True) in condition_set(rule)


def test_approved_with_a_change_as_a_condition(extractor: OfflineExtractor) -> None:
    text = (
        "A glass foundry with more than four furnaces is approved with a higher deductible "
        "as a condition."
    )
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "approve_with_conditions"


def test_any_other_value_is_the_complement_of_the_list(extractor: OfflineExtractor) -> None:
    text = (
        "Only cedar and pine hive linings hold up in the heat; a rooftop apiary using any "
        "other hive lining is referred."
    )
    rules = _rules(extractor, text)
    assert rules, "no rule read"
    for rule in rules:
        assert ("hive_lining", "in", ("cedar", "pine")) not in condition_set(rule)
    assert any(("hive_lining", "not_in", ("cedar", "pine")) in condition_set(r) for r in rules)


def test_complement_of_states_alone_makes_no_rule() -> None:
    states = [Condition(field="state", operator="in", value=["NM", "UT"])]
    assert complement(states, "state", "occupancy") == []
    with_class = [Condition(field="occupancy", operator="eq", value="rooftop apiary"), *states]
    out = complement(with_class, "state", "occupancy")
    assert [(c.field, c.operator) for c in out] == [("occupancy", "eq"), ("state", "not_in")]
    numbers = [Condition(field="furnace_count", operator="gt", value=3)]
    assert complement(numbers, "state", "occupancy") == []


def test_other_states_after_a_filing_list_is_no_state_only_rule(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The program is filed only in New Mexico and Utah. A submission in any other state "
        "cannot be written on this program and is declined."
    )
    for rule in _rules(extractor, text):
        assert ("state", "in", ("NM", "UT")) not in condition_set(rule)


def test_own_number_is_not_an_anaphor_of_the_sentence_before(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Three furnaces or fewer is a hobby shop. Seven and up is flagged for review, since "
        "at that size it is usually a production plant."
    )
    for rule in _rules(extractor, text):
        assert ("furnace_count", "lte", 3) not in condition_set(rule)


def test_pronoun_sentence_still_acts_on_the_sentence_before(
    extractor: OfflineExtractor,
) -> None:
    text = "Some apiaries keep hives in a public sting zone. I refer those."
    rule = only_rule(_rules(extractor, text))
    assert rule.action == "refer"
    assert ("bee_sting_zone", "eq", True) in condition_set(rule)
