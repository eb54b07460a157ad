"""Round 6 (subjects, part B): flags named by their description and "those states".

Every field and sentence below is made up for these tests (a falconry-school / apiary /
climbing-wall dictionary no dataset has). Each test pins one mechanism: a rule that
restates a flag's description names the flag (negated when a negation opens it), a
passing overlap of a few words does not, and "those (N) states" points back to the list
of states a sentence before names, only when its count agrees.
"""

from __future__ import annotations

import pytest

from agents.offline.conditions import ConditionReader
from agents.offline.descriptions import description_run
from agents.offline.extractor import OfflineExtractor
from agents.offline.states import those_states
from agents.offline.textproc import content_tokens
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule, read_set

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'falconry school', 'apiary', "
        "'climbing gym')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "birds_tethered": {
        "type": "bool",
        "synonyms": ["tethering", "jesses"],
        "description": "Birds tethered to a perch by swivel and leash between flights",
    },
    "hive_rotation": {
        "type": "bool",
        "synonyms": ["rotated hives"],
        "description": "Hives are moved weekly and logged by a registered keeper",
    },
    "mews_heated": {
        "type": "bool",
        "synonyms": ["heated mews"],
        "description": "Bird housing heated",
    },
    "hive_count": {
        "type": "int",
        "unit": "hives",
        "synonyms": ["hives", "colonies"],
        "description": "Number of hives kept",
    },
}


@pytest.fixture
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


@pytest.fixture
def reader() -> ConditionReader:
    return ConditionReader(FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS})))


def _words(field: str) -> frozenset[str]:
    vocab = FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS}))
    return vocab.fields[field].desc_words


def test_a_restated_description_names_a_negated_flag(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "A falconry school that does not keep its birds tethered to a perch by swivel and "
        "leash between flights is referred.",
        source="Manual",
        source_type="manual",
    )
    rule = only_rule(rules)
    assert rule.action == "refer"
    assert ("birds_tethered", "eq", False) in condition_set(rule)


def test_the_description_words_may_come_in_another_order(reader: ConditionReader) -> None:
    found = read_set(
        reader, "An apiary without its hives logged and moved weekly by a registered keeper"
    )
    assert ("hive_rotation", "eq", False) in found


def test_a_passing_overlap_names_no_flag(reader: ConditionReader) -> None:
    found = read_set(reader, "An apiary whose keeper is not registered in the state")
    assert not any(field == "hive_rotation" for field, _, _ in found)


def test_a_short_description_is_never_matched() -> None:
    tokens = content_tokens("the bird housing is not heated")
    assert description_run(tokens, _words("mews_heated")) is None


def test_a_run_with_too_many_foreign_words_is_refused() -> None:
    tokens = content_tokens(
        "birds tethered on weekends only, otherwise loose in the yard, with a perch, swivel "
        "and leash between flights"
    )
    assert description_run(tokens, _words("birds_tethered")) is None


def test_those_states_points_back_to_the_list(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Vermont, Oregon and Iowa have no falconry permit statute. Falconry school "
        "submissions located in those three states are referred.",
        source="Bulletin",
        source_type="compliance",
    )
    rule = only_rule(rules)
    assert ("state", "in", ("VT", "OR", "IA")) in condition_set(rule)
    assert ("occupancy", "eq", "falconry school") in condition_set(rule)


def test_a_count_that_disagrees_with_the_list_gives_no_state() -> None:
    context = "Vermont, Oregon and Iowa have no falconry permit statute."
    assert those_states("Schools in those five states are referred.", context, "state") == []
    assert those_states("Schools in those states are referred.", context, "state")


def test_those_states_after_an_exception_gives_no_state() -> None:
    context = "Every state except Vermont and Iowa licenses falconers."
    assert those_states("Schools in those states are referred.", context, "state") == []


def test_a_qualified_those_states_gives_no_state() -> None:
    context = "Vermont, Oregon and Iowa have no falconry permit statute."
    found = those_states("Schools in those coastal states are referred.", context, "state")
    assert found == []
