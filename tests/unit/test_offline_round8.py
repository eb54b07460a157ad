"""Round 8: the dictionary read as written, and classes named by their head noun.

Every field and sentence below is made up for these tests (a glass-blowing / canal-lock
dictionary no dataset has). An apostrophe inside a description ("the building's tenant")
opens no quoted example, so the listed business classes stay readable.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.profile import parse_enum
from schemas.fields import DataDictionary
from tests.rules import condition_set

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case; for LRO the class of the building's "
        "tenant (e.g. 'glass studio', 'lock keeper', 'canal boat yard', 'farrier')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "furnace_count": {
        "type": "int",
        "unit": "furnaces",
        "synonyms": ["furnaces", "glory holes"],
        "description": "Number of glass furnaces on the premises",
    },
    "annealer_alarm": {
        "type": "bool",
        "synonyms": ["annealer alarm", "kiln over-temperature alarm"],
        "description": "An over-temperature alarm is fitted to every annealer",
    },
    "farrier_certified": {
        "type": "bool",
        "synonyms": ["certified farrier"],
        "description": "Every farrier on staff holds a guild certificate",
    },
    "employee_count": {
        "type": "int",
        "unit": "employees",
        "synonyms": ["employees", "staff"],
        "description": "Number of employees",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def test_an_apostrophe_in_a_description_opens_no_quoted_example() -> None:
    values, examples = parse_enum(FIELDS["occupancy"]["description"])  # type: ignore[arg-type]
    assert examples
    assert values == ["glass studio", "lock keeper", "canal boat yard", "farrier"]
    values, _ = parse_enum("Trade, lower case (e.g. 'farmer's market', 'smith')")
    assert values == ["farmer's market", "smith"]


def test_a_class_listed_after_an_apostrophe_scopes_its_rule(extractor: OfflineExtractor) -> None:
    # "farrier" is also a word of another field's name: only the listed class makes it one
    rules = extractor.extract("Farriers with more than 3 employees are referred.")
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("occupancy", "eq", "farrier"), ("employee_count", "gt", 3)})
    ]
