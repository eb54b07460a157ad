"""Round 12: hazards a decline names, denied list values, described conditions, no false classes.

Every field and sentence below is made up for these tests (a beekeeping / ferry-dock
dictionary no dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'apiary', 'ferry dock', "
        "'candle workshop')",
    },
    "hive_heaters": {
        "type": "bool",
        "synonyms": ["hive heaters", "heated hives"],
        "description": "Electric heaters are installed inside the hives",
    },
    "sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklered", "sprinkler system"],
        "description": "The building is fully sprinklered",
    },
    "gangway_type": {
        "type": "str",
        "synonyms": ["gangway", "boarding ramp"],
        "description": "Gangway construction: 'steel', 'timber', 'aluminum'",
    },
    "queen_rearing": {
        "type": "bool",
        "synonyms": ["queen rearing"],
        "description": "Keepers graft larvae and raise queens for sale",
    },
    "locked_storage": {
        "type": "bool",
        "synonyms": ["locked honey store"],
        "description": "Honey is kept overnight in a locked and fenced store",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _read(extractor: OfflineExtractor, text: str) -> list[tuple[str, set[object]]]:
    return [(r.action, condition_set(r)) for r in extractor.extract(text, source_type="manual")]


def test_a_decline_of_a_flag_with_a_protective_word_names_the_hazard(
    extractor: OfflineExtractor,
) -> None:
    # "installed" in the description made the flag read as a protection: the decline was lost
    rule = only_rule(extractor.extract("Hive heaters are declined.", source_type="manual"))
    assert (rule.action, condition_set(rule)) == ("decline", {("hive_heaters", "eq", True)})
    assert rule.mitigant_fields == []


def test_an_exclusion_by_endorsement_names_its_hazard(extractor: OfflineExtractor) -> None:
    text = "Heated hives are excluded by endorsement; the rest of the apiary may still be written."
    assert ("exclude", {("hive_heaters", "eq", True)}) in _read(extractor, text)


def test_a_protection_a_decline_is_spared_by_stays_a_protection(
    extractor: OfflineExtractor,
) -> None:
    text = "Apiaries over the limit are declined unless sprinklered."
    assert all(("sprinklered", "eq", True) not in c for _, c in _read(extractor, text))
    text = "The decline removed a risk the manager might have written with a sprinkler plan."
    assert _read(extractor, text) == []


def test_values_a_list_denies_are_not_conditions(extractor: OfflineExtractor) -> None:
    text = "Timber gangway (no steel or aluminum frame): refer."
    assert _read(extractor, text) == [("refer", {("gangway_type", "eq", "timber")})]
    text = "Risks with a timber or aluminum gangway are referred."
    assert _read(extractor, text) == [("refer", {("gangway_type", "in", ("timber", "aluminum"))})]


def test_a_relative_clause_restating_a_flag_description_is_the_condition(
    extractor: OfflineExtractor,
) -> None:
    text = "Apiaries whose keepers graft larvae and raise queens for sale are referred."
    assert _read(extractor, text) == [
        ("refer", {("occupancy", "eq", "apiary"), ("queen_rearing", "eq", True)})
    ]


def test_a_denied_relative_clause_is_not_read_as_the_flag(extractor: OfflineExtractor) -> None:
    # "outside a locked and fenced store" restates the description but denies it
    text = "Any apiary that keeps honey overnight outside a locked and fenced store is referred."
    assert all(("locked_storage", "eq", True) not in c for _, c in _read(extractor, text))


@pytest.mark.parametrize(
    "text",
    [
        "Liability for swarm removal is excluded from the GL by endorsement.",
        "Claims from hive relocation are excluded from the GL by endorsement.",
    ],
)
def test_insurance_words_are_never_a_business_class(extractor: OfflineExtractor, text: str) -> None:
    assert all(cond[0] != "occupancy" for _, conds in _read(extractor, text) for cond in conds), (
        _read(extractor, text)
    )


CLASS_FIELDS = {
    **FIELDS,
    "dock_rate": {
        "type": "float",
        "unit": "rate",
        "synonyms": ["dock rate", "rate"],
        "description": "Property rate as a decimal (0.31% = 0.0031)",
    },
    "pier_depth_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["pier depth", "depth of the piers"],
        "description": "Depth of the deepest pier footing",
    },
    "pier_bracing": {
        "type": "str",
        "synonyms": ["pier bracing", "bracing method"],
        "description": "Bracing used on piers: 'cross brace', 'sheet pile', 'cribbing' or 'none'",
    },
}


@pytest.fixture(scope="module")
def docks() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": CLASS_FIELDS}))


def test_under_the_minimum_is_the_minimum_stated_before(docks: OfflineExtractor) -> None:
    text = (
        "Quoted dock rate 0.27% against the apiary minimum of 0.31%. "
        "Apiary rates under the minimum are referred."
    )
    assert ("refer", {("occupancy", "eq", "apiary"), ("dock_rate", "lt", 0.0031)}) in _read(
        docks, text
    )


def test_every_bracing_denied_is_the_fields_none_value(docks: OfflineExtractor) -> None:
    text = (
        "Ferry docks are written on GL. Any dock, in any class, with piers deeper than 12 feet "
        "and no bracing at all (no cross brace, no sheet pile, no cribbing) is declined."
    )
    assert _read(docks, text) == [
        ("decline", {("pier_depth_ft", "gt", 12.0), ("pier_bracing", "eq", "none")})
    ]


def test_a_modal_ends_the_subject(docks: OfflineExtractor) -> None:
    text = "Products liability cannot be written for a ferry dock without a harbour permit."
    assert all(
        c[0] != "occupancy" or c[2] == "ferry dock" for _, cs in _read(docks, text) for c in cs
    )


# --- round 12b: requirements, past events, enumerated classes, calendar years -----------------

INN_FIELDS = {
    **FIELDS,
    "keeper_on_site": {
        "type": "bool",
        "synonyms": ["keeper in residence", "keeper lives on site"],
        "description": "The lock keeper lives on the premises",
    },
    "keeper_changes_12mo": {
        "type": "int",
        "unit": "changes",
        "synonyms": ["keeper changes"],
        "description": "Changes of lock keeper in the last twelve months",
    },
    "gate_survey_age_years": {
        "type": "float",
        "unit": "years",
        "synonyms": ["gate survey age", "years since the gate survey"],
        "description": "Years since the last lock gate survey",
    },
}


def _inns(listed: list[str]) -> OfflineExtractor:
    fields = dict(INN_FIELDS)
    examples = ", ".join(f"'{c}'" for c in listed)
    fields["occupancy"] = {
        "type": "str",
        "synonyms": ["class of business"],
        "description": f"Class of business, lower case (e.g. {examples})",
    }
    return OfflineExtractor(DataDictionary.model_validate({"fields": fields}))


def test_the_action_after_a_requirement_is_for_the_risk_without_it() -> None:
    text = "The keeper must live on site; an absentee-run lock is declined on the GL."
    assert _read(_inns(["apiary"]), text) == [("decline", {("keeper_on_site", "eq", False)})]


def test_an_action_named_as_a_past_event_is_no_rule() -> None:
    text = (
        "Frequent keeper changes can point to carrier shopping after a declination, "
        "or to a dispute not yet disclosed."
    )
    assert _read(_inns(["apiary"]), text) == []


ENUMERATED = ["apiary", "ferry dock", "candle workshop", "lock keeper", "boat yard", "farrier"]


def test_a_class_a_dictionary_that_enumerates_its_classes_lacks_is_no_class() -> None:
    text = "A crossbow range with more than two keeper changes is referred."
    classes = {
        c[2]
        for _, conds in _read(_inns([*ENUMERATED, "glass studio", "canal museum"]), text)
        for c in conds
        if c[0] == "occupancy"
    }
    assert classes == set()
    # a dictionary of a few examples: the class named in the plural is read as written (one
    # business measured by a figure, "A crossbow range with ...", is the text's topic)
    plural = "Crossbow ranges with more than two keeper changes are referred."
    few = _read(_inns(ENUMERATED[:2]), plural)
    assert any(("occupancy", "eq", "crossbow range") in conds for _, conds in few), few


# --- round 12c: a table's rows take the class its heading is about ----------------------------

TABLE_TEXT = (
    "7.2 Ferry docking piers.\n"
    "Apply the table below to every pier written on Property.\n"
    "Trigger | Action\n"
    "Piers deeper than 12 feet | Refer\n"
    "Timber gangway | Decline\n"
)


def test_a_tables_rows_take_the_class_its_heading_names_in_other_words() -> None:
    read = _read(_inns([*ENUMERATED, "glass studio", "canal museum"]), TABLE_TEXT)
    assert ("decline", {("occupancy", "eq", "ferry dock"), ("gangway_type", "eq", "timber")}) in (
        read
    ), read


def test_a_tables_rows_take_no_heading_class_from_a_dictionary_of_examples() -> None:
    read = _read(_inns(ENUMERATED[:2]), TABLE_TEXT)
    assert ("decline", {("gangway_type", "eq", "timber")}) in read, read


def test_a_case_records_heading_names_the_case_not_the_rule() -> None:
    text = (
        "Decision log DL-2031-0042 - GL, ferry dock.\nTrigger | Action\nTimber gangway | Decline\n"
    )
    read = _read(_inns([*ENUMERATED, "glass studio", "canal museum"]), text)
    assert ("decline", {("gangway_type", "eq", "timber")}) in read, read


def test_instead_restating_the_rules_own_hazard_names_only_its_mitigant() -> None:
    text = (
        "An apiary that runs hive heaters is a decline; the only way back in is queen rearing "
        "in a separate yard, with heated hives kept only in winter - with that arrangement, "
        "refer to the apiary lead instead."
    )
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))
    rule = only_rule(extractor.extract(text, source_type="production"))
    assert (rule.action, rule.mitigant_fields) == ("decline", ["queen_rearing"])
