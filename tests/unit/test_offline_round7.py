"""Round 7: banded grid tables, on an invented dictionary.

Every field and sentence below is made up for these tests (a kite-works / ferry-dock
dictionary no dataset has). A grid whose columns are bands of one quantity gives one rule
per run of equal actions; a cell that keeps the risk within authority states no rule; the
quantity named in the first band carries to the bands that leave it out. Practice that let
risks through "up to" a figure, or approvals "up to" it, sets a soft limit; a listed class
after "for" scopes the rule. A protection called a mitigant, or named in answer to "what do
you need to see?", is the mitigant of the rule before it (or, in practice with no rule, a
relief). A pronoun, a sentence adverb, a list of kinds of loss, a renewal or a bare yard
names no business class.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.ingestion.evidence import spoken_of
from agents.ingestion.practice import read_approvals
from agents.jsonl import read_objects
from agents.offline.extractor import OfflineExtractor
from agents.offline.relief import grants, is_relief
from agents.offline.subjects import SubjectReader
from agents.offline.tables import table_rows
from agents.offline.textproc import split_sentences
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import rate_fits
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.rules import Condition, ExtractedRule
from tests.rules import condition_set, knowledge_text

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'kite works', 'ferry dock', "
        "'bell foundry', 'rope walk', 'sailloft')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "dock_slips": {
        "type": "int",
        "unit": "slips",
        "synonyms": ["slips", "berths"],
        "description": "Number of boat slips at the dock",
    },
    "night_watch": {
        "type": "bool",
        "synonyms": ["night watch", "dock watchman"],
        "description": "A watchman guards the dock every night",
    },
    "spark_alarm": {
        "type": "bool",
        "synonyms": ["spark alarm", "spark detection"],
        "description": "A spark detection alarm is installed in the ductwork",
    },
    "serves_minors": {
        "type": "bool",
        "synonyms": ["customers under 18", "minors served"],
        "description": "The business serves customers under 18",
    },
    "harbour_exemption": {
        "type": "bool",
        "synonyms": ["harbour master exemption", "HM-12 exemption"],
        "description": "The harbour master has granted an HM-12 exemption for the dock",
    },
    "stories": {
        "type": "int",
        "unit": "stories",
        "synonyms": ["stories", "floors"],
        "description": "Number of stories of the insured building",
    },
    "mast_stories": {
        "type": "int",
        "unit": "stories",
        "synonyms": ["mast height", "rigging height in stories"],
        "description": "Height, in stories, of the tallest mast rigged",
    },
    "deck_rating_psf": {
        "type": "int",
        "unit": "psf",
        "synonyms": ["deck load rating"],
        "description": "Live-load rating of the dock deck, pounds per square foot",
    },
    "rope_stock_lbs": {
        "type": "float",
        "unit": "lb",
        "synonyms": ["pounds of rope", "rope stock"],
        "description": "Pounds of rope kept at the dock",
    },
    "face_shields": {
        "type": "bool",
        "synonyms": ["face shields for every rider", "full-face protection"],
        "description": "Every rider must wear a full-face shield",
    },
    "loft_heat": {
        "type": "str",
        "synonyms": ["loft heater", "heat source"],
        "description": "How the sail loft is heated, lower case: 'electric', 'wood-fired', 'gas'",
    },
    "annual_payroll_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["payroll", "annual payroll"],
        "description": "Annual payroll in USD",
    },
}

BANDED = """The grid below sets GL treatment by class and payroll.

| Class | Payroll up to $400K | over $400K to $900K | over $900K |
| --- | --- | --- | --- |
| kite works, rope walk | within authority | refer | decline |
| ferry dock | within authority | refer | refer |
| bell foundry | refer | decline | decline |
"""


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def test_a_banded_grid_reads_one_sentence_per_run_of_equal_actions() -> None:
    lines = [line for line in table_rows(BANDED.splitlines()) if line.startswith("Class")]
    assert lines == [
        "Class kite works, rope walk, Payroll over $400K, Payroll up to $900K: refer.",
        "Class kite works, rope walk, Payroll over $900K: decline.",
        "Class ferry dock, Payroll over $400K: refer.",
        "Class bell foundry, payroll up to $400K: refer.",
        "Class bell foundry, Payroll over $400K: decline.",
    ]


def test_a_banded_grid_gives_class_and_band_rules(extractor: OfflineExtractor) -> None:
    got = {(r.action, frozenset(condition_set(r))) for r in extractor.extract(BANDED)}
    pair = ("kite works", "rope walk")
    assert got == {
        (
            "refer",
            frozenset(
                {
                    ("occupancy", "in", pair),
                    ("annual_payroll_usd", "gt", 400000),
                    ("annual_payroll_usd", "lte", 900000),
                }
            ),
        ),
        ("decline", frozenset({("occupancy", "in", pair), ("annual_payroll_usd", "gt", 900000)})),
        (
            "refer",
            frozenset({("occupancy", "eq", "ferry dock"), ("annual_payroll_usd", "gt", 400000)}),
        ),
        (
            "refer",
            frozenset({("occupancy", "eq", "bell foundry"), ("annual_payroll_usd", "lte", 400000)}),
        ),
        (
            "decline",
            frozenset({("occupancy", "eq", "bell foundry"), ("annual_payroll_usd", "gt", 400000)}),
        ),
    }


def test_a_row_of_acceptances_states_no_rule() -> None:
    grid = [
        "| Class | Payroll up to $400K | over $400K |",
        "| ferry dock | within authority | refer |",
        "| rope walk | within authority | standard |",
    ]
    assert table_rows(grid) == ["Class ferry dock, Payroll over $400K: refer."]


@pytest.mark.parametrize(
    "practice",
    [
        "I've let docks with up to forty-five slips through when the operator was established.",
        "Approvals up to 45 slips have been accepted where the harbour master signed off.",
    ],
)
def test_practice_up_to_a_figure_is_a_soft_limit(
    extractor: OfflineExtractor, practice: str
) -> None:
    text = f"Ferry docks with more than 30 slips are referred. {practice}"
    (rule,) = extractor.extract(text, source_type="sme")
    assert (rule.action, rule.soft_limit) == ("refer", 45)
    assert ("dock_slips", "gt", 30) in condition_set(rule)


def test_a_listed_class_after_for_scopes_the_rule(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract("Decline GL for rope walks in CA, NY and MA.")
    assert condition_set(rule) == {
        ("occupancy", "eq", "rope walk"),
        ("state", "in", ("CA", "NY", "MA")),
    }


def test_a_phrase_after_for_that_is_no_listed_class_scopes_nothing(
    extractor: OfflineExtractor,
) -> None:
    (rule,) = extractor.extract("Decline GL for a walk class in NY.")
    assert condition_set(rule) == {("state", "eq", "NY")}


SLIP_RULE = "Ferry docks with more than 30 slips are referred"


@pytest.mark.parametrize(
    "text",
    [
        f"{SLIP_RULE}; a night watch on the dock is the accepted mitigant.",
        f"{SLIP_RULE}. A night watch on the dock is a recognised mitigant.",
        f"{SLIP_RULE}.\nQ: What makes you comfortable past 30?\nA: A night watch on the dock.",
    ],
)
def test_a_protection_called_a_mitigant_or_asked_for_is_the_rules_mitigant(
    extractor: OfflineExtractor, text: str
) -> None:
    (rule,) = extractor.extract(text, source_type="manual")
    assert ("dock_slips", "gt", 30) in condition_set(rule)
    assert rule.mitigant_fields == ["night_watch"]


def test_an_answer_to_another_question_names_no_mitigant(extractor: OfflineExtractor) -> None:
    text = f"{SLIP_RULE}.\nQ: And the staff?\nA: A night watch on the dock."
    (rule,) = extractor.extract(text, source_type="manual")
    assert rule.mitigant_fields == []


def test_practice_naming_what_it_needs_to_see_mitigates_the_rule_asked_about(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: The manual refers docks past 30 slips. What do you need to see?\n"
        "A: A night watch on the dock. Those go through with conditions."
    )
    found = extractor.extract(text, source_type="sme")
    assert [(r.action, r.conditions, r.mitigant_fields) for r in found] == [
        ("refer", [Condition(field="dock_slips", operator="gt", value=30)], ["night_watch"])
    ], found


def test_practice_naming_what_it_needs_to_see_is_a_relief(extractor: OfflineExtractor) -> None:
    text = (
        "Q: What do you need to see on docks past 30 slips?\n"
        "A: A night watch on the dock. Those go through with conditions."
    )
    reliefs = [r for r in extractor.extract(text, source_type="sme") if is_relief(r)]
    assert [r.mitigant_fields for r in reliefs] == [["night_watch"]]


@pytest.fixture(scope="module")
def reader() -> SubjectReader:
    return SubjectReader(FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS})))


@pytest.mark.parametrize(
    "clause",
    [
        "Those go through with conditions.",
        "Independently of size, any dock closer than 30 feet to a fuel tank is referred.",
        "The collision, grounding and sinking exposure is outside appetite.",
        "All such submissions, new and renewal, are declined.",
        "A yard holding more than 200 coils of rope is referred.",
    ],
)
def test_words_that_name_no_business_class(reader: SubjectReader, clause: str) -> None:
    assert reader.read(clause) == []


def test_a_list_of_classes_is_still_read(reader: SubjectReader) -> None:
    assert reader.read("Kite works, rope walks and ferry docks are declined.") == [
        "kite works",
        "rope walk",
        "ferry dock",
    ]


def test_a_missing_protection_is_the_condition_of_an_approval(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Where spark detection is not installed, it may be written provided a warranty is attached."
    )
    (rule,) = extractor.extract(text)
    assert (rule.action, condition_set(rule)) == (
        "approve_with_conditions",
        {("spark_alarm", "eq", False)},
    )


def test_an_exclusion_named_with_an_apostrophe_is_an_exclusion(
    extractor: OfflineExtractor,
) -> None:
    (rule,) = extractor.extract(
        "Where customers under 18 are served, attach the minors' injury exclusion."
    )
    assert (rule.action, condition_set(rule)) == ("exclude", {("serves_minors", "eq", True)})


@pytest.mark.parametrize(
    "clause",
    [
        "On monoline GL, docks with more than 30 slips are referred.",
        "None of these is a reason to decline.",
        "The associate bound it with standard conditions.",
        "A copy of the permit in the file satisfies the verification.",
        "Most of these docks can be written with a warranty.",
        "QA reminder: attach the confirmation to every referral.",
    ],
)
def test_insurance_words_and_roles_name_no_business_class(
    reader: SubjectReader, clause: str
) -> None:
    assert reader.read(clause) == []


def test_a_word_ending_one_listed_one_word_class_names_it(reader: SubjectReader) -> None:
    assert reader.read("Lofts with more than 30 slips are referred.") == ["sailloft"]


def _rule(action: str, said: str) -> ExtractedRule:
    return ExtractedRule(
        rule_name="r",
        risk_factor="r",
        risk_category="eligibility",
        product_type="GL",
        action=action,  # type: ignore[arg-type]
        outcome_description=said,
        source="s",
        conditions=[Condition(field="night_watch", operator="eq", value=True)],
    )


def test_a_protection_that_bends_a_decline_is_a_relief_whatever_the_action() -> None:
    bends = "If the dock has a night watch, I don't let the desk decline it - it comes to me."
    assert grants(_rule("refer", bends))
    assert not grants(_rule("refer", "Docks with a night watch are referred."))
    assert not grants(_rule("refer", "If the dock has a night watch, I never approve it."))


def test_an_exemption_that_turns_a_decline_into_a_referral_is_a_relief(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: Big docks - still an automatic decline?\n"
        "A: Past 30 slips, yes. When the exemption is in the file, I tell the desk to refer "
        "it to me instead of declining."
    )
    reliefs = [r for r in extractor.extract(text, source_type="sme") if is_relief(r)]
    assert [r.mitigant_fields for r in reliefs] == [["harbour_exemption"]]


def test_one_condition_said_twice_is_one_condition(extractor: OfflineExtractor) -> None:
    text = "A dock with more than 30 slips - over 30 slips in all - is declined."
    (rule,) = extractor.extract(text)
    assert rule.conditions == [Condition(field="dock_slips", operator="gt", value=30)]


@pytest.mark.parametrize(
    "said",
    [
        "What makes me comfortable is a night watch on the dock.",
        "If a night watch walks the dock, I'm comfortable.",
        "If a night watch walks the dock, the referral is cleared with conditions.",
        "What matters most to me is a night watch on the dock.",
        "What moves her most is a night watch: 'If it walks the dock, I approve.' She has "
        "not written one without it.",
    ],
)
def test_practice_that_names_what_earns_relief_is_a_relief(
    extractor: OfflineExtractor, said: str
) -> None:
    text = f"Q: The manual refers docks past 30 slips - where do you start?\nA: {said}"
    reliefs = [r for r in extractor.extract(text, source_type="sme") if is_relief(r)]
    assert [r.mitigant_fields for r in reliefs] == [["night_watch"]]


def test_a_field_word_inside_another_word_does_not_speak_of_the_rule() -> None:
    rule = _rule("refer", "Docks with more than 30 slips are referred.").model_copy(
        update={"conditions": [Condition(field="dock_slips", operator="gt", value=30)]}
    )
    assert spoken_of(rule, "how many slips does it have?", [])
    assert not spoken_of(rule, "the haddock catch was poor this year", [])


def test_a_field_named_by_its_participle_is_named_by_the_verbs_stem() -> None:
    rule = _rule("decline", "Docks whose permit lapsed more than 30 days are declined.")
    rule = rule.model_copy(
        update={
            "product_type": "ALL",
            "conditions": [Condition(field="permit_lapsed_days", operator="gt", value=30)],
        }
    )
    log = knowledge_text("k9", "The longest lapse we have accepted is 52 days.", "production")
    (claim,) = read_approvals(log, [rule])
    assert claim.soft_limit == 52


def test_a_number_in_a_unit_several_fields_share_goes_to_the_plain_field(
    extractor: OfflineExtractor,
) -> None:
    (plain,) = extractor.extract("Buildings taller than eight stories are referred.")
    assert condition_set(plain) == {("stories", "gt", 8)}
    (mast,) = extractor.extract("A mast height over eight stories is referred.")
    assert condition_set(mast) == {("mast_stories", "gt", 8)}


def test_a_rule_after_an_until_clause_is_read(extractor: OfflineExtractor) -> None:
    (rule,) = extractor.extract("Until the new form is filed, GL docks in CA or NY are declined.")
    assert (rule.action, condition_set(rule)) == ("decline", {("state", "in", ("CA", "NY"))})


def test_a_bare_number_takes_the_unit_the_answer_gave_it(extractor: OfflineExtractor) -> None:
    text = (
        "Q: How tall a mast will you let a rigger step?\n"
        "A: Four stories on a mast rig. Anything above four, we decline."
    )
    (rule,) = extractor.extract(text, source_type="sme")
    assert (rule.action, condition_set(rule)) == ("decline", {("mast_stories", "gt", 4)})


def test_zero_of_a_count_is_an_exact_condition(extractor: OfflineExtractor) -> None:
    text = "A dock showing zero slips but payroll above $400,000 is flagged for review."
    (rule,) = extractor.extract(text)
    assert condition_set(rule) == {("dock_slips", "eq", 0), ("annual_payroll_usd", "gt", 400000)}


def test_a_rate_after_a_number_is_the_rate_field_not_its_first_word(
    extractor: OfflineExtractor,
) -> None:
    text = "A dock rated for less than 150 pounds per square foot is referred."
    (rule,) = extractor.extract(text)
    assert condition_set(rule) == {("deck_rating_psf", "lt", 150)}


@pytest.mark.parametrize(
    ("unit", "field_unit", "fits"),
    [
        ("pound per square foot", "psf", True),
        ("pound per square inch", "psi", True),
        ("mile per hour", "mph", True),
        ("vehicl per day", "vehicles/day", True),
        ("resident per caregiver", "residents per caregiver", True),
        ("pound per square foot", "lb", False),
        ("vehicl per day", "vehicles/week", False),
    ],
)
def test_a_rate_fits_a_unit_written_out_or_by_initials(
    unit: str, field_unit: str, fits: bool
) -> None:
    assert rate_fits(unit, field_unit) is fits


@pytest.mark.parametrize(
    ("text", "operator"),
    [
        ("A dock that takes boats faster than 30 slips an hour is declined.", "gt"),
        ("A dock with slips steeper than 30 is declined.", "gt"),
        ("A dock with slips shallower than 30 is declined.", "lt"),
    ],
)
def test_comparatives_of_more_and_of_less(
    extractor: OfflineExtractor, text: str, operator: str
) -> None:
    (rule,) = extractor.extract(text)
    assert condition_set(rule) == {("dock_slips", operator, 30)}


def test_an_adjective_after_the_noun_is_no_class(reader: SubjectReader) -> None:
    assert reader.read("A dock capable of berthing more than 30 slips is declined.") == []


def test_a_word_after_a_synonyms_preposition_does_not_name_the_protection(
    extractor: OfflineExtractor,
) -> None:
    mitigants = extractor.analyzer.mitigant_fields
    assert mitigants("Docks are written with the rider waiver endorsement.") == []
    assert mitigants("Every rider wears face shields.") == ["face_shields"]


def test_a_sentence_ends_after_its_closing_quote() -> None:
    text = "Her words were 'if it is there, I approve.' She has not written one since."
    assert [s.text for s in split_sentences(text)] == [
        "Her words were 'if it is there, I approve.'",
        "She has not written one since.",
    ]


def test_the_sentence_before_names_the_field_of_a_bare_number() -> None:
    """blind8's interview: "Anything that's an automatic no?" "Losses. Three or more ..."."""
    folder = Path(__file__).parents[2] / "agents" / "data" / "extraction" / "blind8"
    reader = OfflineExtractor(load_data_dictionary(folder / "fields.json"))
    [row] = [r for r in read_objects(folder / "knowledge.jsonl") if r["id"] == "k002"]
    rules = reader.extract(str(row["text"]), source_type="sme")
    declines = [condition_set(r) for r in rules if r.action == "decline"]
    # "on a pool store" names the interview's class by its head noun (round 8)
    assert declines == [{("occupancy", "eq", "pool supply store"), ("loss_count_3yr", "gte", 3)}]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A dock built later than 30 slips is verified.", ("dock_slips", "gt", 30)),
        (
            "Docks of 30 slips or smaller need nothing further. Anything bigger is referred.",
            ("dock_slips", "gt", 30),
        ),
    ],
)
def test_later_than_and_a_range_that_needs_nothing(
    extractor: OfflineExtractor, text: str, expected: tuple[str, str, int]
) -> None:
    (rule,) = extractor.extract(text)
    assert expected in condition_set(rule)


@pytest.mark.parametrize("said", ["a wood-burning stove", "a wood stove", "wood-fired heaters"])
def test_a_fuel_fired_value_said_another_way(extractor: OfflineExtractor, said: str) -> None:
    (rule,) = extractor.extract(f"A sail loft heated by {said} is declined.")
    assert ("loft_heat", "eq", "wood-fired") in condition_set(rule)


def test_either_state_points_back_to_the_two_states_named(extractor: OfflineExtractor) -> None:
    text = "Utah and Hawaii ban kites: a kite works located in either state is declined."
    (rule,) = extractor.extract(text)
    assert ("state", "in", ("UT", "HI")) in condition_set(rule)


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("We accept docks only from owners who keep a night watch on the dock.", 0),
        ("Docks are written with conditions only if a spark alarm is fitted.", 0),
        ("Docks where customers under 18 are served are written with conditions.", 1),
    ],
)
def test_an_approval_that_only_requires_protections_is_no_rule(
    extractor: OfflineExtractor, text: str, rules: int
) -> None:
    assert len(extractor.extract(text, source_type="manual")) == rules


def test_a_requirement_read_as_an_approval_is_dropped() -> None:
    """blind9's bulletin: "We may accept business only from producers licensed in ..."."""
    folder = Path(__file__).parents[2] / "agents" / "data" / "extraction" / "blind9"
    reader = OfflineExtractor(load_data_dictionary(folder / "fields.json"))
    [row] = [r for r in read_objects(folder / "knowledge.jsonl") if r["id"] == "k023"]
    rules = reader.extract(str(row["text"]), source_type="compliance")
    assert rules and not any(r.action == "approve_with_conditions" for r in rules)
