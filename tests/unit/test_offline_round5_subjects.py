"""Round 5 (subjects): business classes read and refused, and grid tables, on invented fields.

Every field and sentence below is made up for these tests (a cider-mill / boatyard /
clock-repair dictionary no dataset has). Each test pins one mechanism: a definition, a
sentence adverb, an abstract noun, a generic premises head, a comparative, a section code
or a field's own negated word is no business class; a list of classes after "issued to",
a tenant's class and a premises head with its modifier are; a grid table gives one rule
per cell that is more than a plain acceptance; a unit after a number names no field.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.subjects import SubjectReader
from agents.offline.tables import table_rows
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'cider mill', 'clock repair "
        "shop', 'ferry terminal')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "square_feet": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["square footage", "sq ft", "building area"],
        "description": "Building area",
    },
    "cellar_sqft": {
        "type": "int",
        "unit": "sq ft",
        "synonyms": ["cellar area", "cellar footprint"],
        "description": "Floor area of the cider cellar",
    },
    "press_count": {
        "type": "int",
        "unit": "presses",
        "synonyms": ["press centers", "presses"],
        "description": "Number of fruit presses",
    },
    "planking_thickness_in": {
        "type": "float",
        "unit": "inches",
        "synonyms": ["planking thickness"],
        "description": "Thickness of the hull planking",
    },
    "barrel_material": {
        "type": "str",
        "synonyms": ["barrel material", "cask type"],
        "description": "Barrel material, lower case: oak, chestnut, stainless",
    },
    "hull_sheathing": {
        "type": "str",
        "synonyms": ["hull sheathing", "bottom sheathing"],
        "description": "Hull sheathing, lower case: copper, fiberglass, bare wood",
    },
    "refrigerated_storage": {
        "type": "bool",
        "synonyms": ["refrigerated storage", "cold room"],
        "description": "Fruit is kept in refrigerated storage",
    },
    "sterile_bottling": {
        "type": "bool",
        "synonyms": ["sterile bottling", "aseptic filling"],
        "description": "Cider is bottled under sterile conditions",
    },
    "overnight_mooring": {
        "type": "bool",
        "synonyms": ["overnight mooring", "night berth"],
        "description": "Customer boats stay moored at the dock overnight",
    },
    "wasp_traps": {
        "type": "bool",
        "synonyms": ["wasp traps"],
        "description": "Wasp traps are set around the press house",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


@pytest.fixture(scope="module")
def reader() -> SubjectReader:
    return SubjectReader(FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS})))


# --- what is no business class -----------------------------------------------------------


def test_a_definition_names_no_class(reader: SubjectReader) -> None:
    assert reader.read("'pomace' means the pressed fruit left after juicing.") == []
    assert reader.read("Definitions: 'must' means juice bound for fermenting.") == []
    assert reader.read("Cider mills are referred.") == ["cider mill"]


def test_a_sentence_adverb_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("Regrettably, bottling sheds are declined.") == ["bottling shed"]
    assert reader.read("Unusually, policies for these carry the exclusion.") == []


def test_an_abstract_noun_or_a_piece_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("The concern is resolved when the yard is fenced.") == []
    assert reader.read("The biggest worry is declined outright.") == []
    assert reader.read("Parts for tractors carry products exposure we do not accept.") == []


def test_a_premises_head_alone_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("A fully alarmed store is not referred.") == []
    assert reader.read("Big centres are written with conditions.") == []


def test_a_counted_head_is_a_class_with_other_words(reader: SubjectReader) -> None:
    # "press centers" counts presses: "repair centers" is still a business class
    assert reader.read("Repair centers are referred.") == ["repair center"]
    assert reader.read("Press centers are referred.") == []


def test_a_premises_head_keeps_its_modifier(reader: SubjectReader) -> None:
    assert reader.read("Senior centers are referred.") == ["senior center"]
    assert reader.read("Senior underwriters confirm the account.") == []


def test_a_comparative_ends_the_subject(reader: SubjectReader) -> None:
    assert reader.read("Planking thinner than 2 inches is referred.") == []


def test_a_section_code_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("Part B-7 of the manual is withdrawn.") == []


def test_a_negated_field_word_is_no_class(reader: SubjectReader) -> None:
    # "non-sterile" is the field's own word negated, not a kind of business
    assert reader.read("Non-sterile bottling such as hand corking is referred.") == []


def test_a_plural_of_a_field_phrase_is_no_class(reader: SubjectReader) -> None:
    # "sheathings" is the plural of the field's "sheathing", not a business
    assert reader.read("Copper hull sheathings are referred.") == []


def test_a_discourse_noun_or_a_side_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("The outcome diverges from the manual.") == []
    assert reader.read("On the GL side, a cider mill is referred.") == ["cider mill"]


def test_a_pronoun_subject_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("Then it comes to me for a referral.") == []


# --- classes a clause names --------------------------------------------------------------


def test_policies_issued_to_a_list_of_classes(reader: SubjectReader) -> None:
    clause = "Policies issued to cider mills, boat sheds and ferry terminals carry the exclusion."
    assert reader.scope(clause) == ["cider mill", "boat shed", "ferry terminal"]
    assert reader.scope("Policies issued to insureds in Maine carry the exclusion.") == []


def test_issued_to_list_gives_one_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Independently, GL policies issued to cider mills, boat sheds and ferry terminals "
        "carry the wasp sting exclusion WS-01."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "exclude"
    assert condition_set(rule) == {
        ("occupancy", "in", ("cider mill", "boat shed", "ferry terminal"))
    }


def test_a_tenant_names_the_class(extractor: OfflineExtractor) -> None:
    text = "A building leased to a cider mill tenant is not acceptable on the LRO and is declined."
    rule = only_rule(extractor.extract(text))
    assert (rule.action, rule.product_type) == ("decline", "LRO")
    assert condition_set(rule) == {("occupancy", "eq", "cider mill")}


def test_a_two_word_flag_said_the_other_way_round(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("If the boatyard also moors boats overnight, refer it."))
    assert rule.action == "refer"
    assert ("overnight_mooring", "eq", True) in condition_set(rule)


# --- grid tables ------------------------------------------------------------------------

GRID = """Casks are written by cask type and cellar area, as shown in Table 2.
| Cask type | Under 500 sq ft | 500 sq ft and over |
| Oak | Write; wax seal inspection required | Refer to the GL manager |
| Chestnut | Write | Write |
| Stainless | Refer to the GL manager | Decline |
"""


def test_grid_rows_become_one_sentence_per_acting_cell() -> None:
    lines = table_rows(GRID.splitlines())
    assert lines[1:] == [
        "Cask type oak, under 500 sq ft: write subject to wax seal inspection.",
        "Cask type oak, 500 sq ft and over: Refer to the GL manager.",
        "Cask type stainless, under 500 sq ft: Refer to the GL manager.",
        "Cask type stainless, 500 sq ft and over: Decline.",
    ]


def test_grid_cells_give_two_condition_rules(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(GRID)
    got = {(r.action, frozenset(condition_set(r))) for r in rules}
    assert got == {
        (
            "approve_with_conditions",
            frozenset({("barrel_material", "eq", "oak"), ("cellar_sqft", "lt", 500)}),
        ),
        ("refer", frozenset({("barrel_material", "eq", "oak"), ("cellar_sqft", "gte", 500)})),
        (
            "refer",
            frozenset({("barrel_material", "eq", "stainless"), ("cellar_sqft", "lt", 500)}),
        ),
        (
            "decline",
            frozenset({("barrel_material", "eq", "stainless"), ("cellar_sqft", "gte", 500)}),
        ),
    }


def test_a_plain_table_is_not_a_grid() -> None:
    lines = ["Class | Action", "cider mill | refer", "ferry terminal | decline"]
    assert table_rows(lines) == ["cider mill: refer.", "ferry terminal: decline."]


# --- units ------------------------------------------------------------------------------


def test_the_unit_after_a_number_names_no_field(extractor: OfflineExtractor) -> None:
    text = "Our line is 2,500 square feet of cellar; above that the cider mill is referred."
    rule = only_rule(extractor.extract(text))
    assert ("cellar_sqft", "gt", 2500) in condition_set(rule)
