"""Round 23: a rule on a field every class has, under a heading that names one class.

Every risk field and sentence below is made up for these tests (a kite-making dictionary
no dataset has); `employee_count` and `state` are fields of the packaged base dictionary,
which any submission carries whatever its class.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.ingestion.named_mitigants import asked_mitigants
from agents.ingestion.practice import with_practice
from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.stems import american as american_spelling
from memory.underwriting.fieldlink.stems import stem
from schemas.fields import DataDictionary, load_data_dictionary
from tests.rules import condition_set, extractor_over, knowledge_text, limit_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'kite workshop', 'sail loft')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter state code"},
    "employee_count": {
        "type": "int",
        "unit": "employees",
        "synonyms": ["employees", "headcount"],
        "description": "Number of employees",
    },
    "resin_drums": {
        "type": "int",
        "unit": "drums",
        "synonyms": ["resin drums", "drums of resin"],
        "description": "Drums of epoxy resin stored on site",
    },
}

#: A protection, for the tests that read its absence.
SPRINKLERED = {"type": "bool", "synonyms": ["sprinklers"], "description": "Sprinklered"}
#: A count named by synonyms whose words come in another order in the texts.
MILDEW_SWABS = {
    "type": "int",
    "unit": None,
    "synonyms": ["mildew positives", "positive cloth swabs"],
    "description": "Mildew-positive swabs of stored sail cloth in the last year",
}


def _extractor(more: dict[str, object]) -> OfflineExtractor:
    """An extractor over the dictionary above, with more fields or a field replaced."""
    return extractor_over(FIELDS, more)


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return extractor_over(FIELDS)


HEADED = (
    "4.2 Kite Workshops. 4.2.1 More than six drums of resin are referred. "
    "4.2.2 Workshops with more than twelve employees are declined."
)


def test_a_headcount_rule_under_a_class_heading_is_that_class_rule(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(HEADED, source_type="manual")
    headcount = [r for r in rules if any(c.field == "employee_count" for c in r.conditions)]
    assert len(headcount) == 1
    assert condition_set(headcount[0]) == {
        ("occupancy", "eq", "kite workshop"),
        ("employee_count", "gt", 12),
    }


def test_a_rule_on_the_class_own_field_stays_as_written(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(HEADED, source_type="manual")
    resin = [r for r in rules if any(c.field == "resin_drums" for c in r.conditions)]
    assert [condition_set(r) for r in resin] == [{("resin_drums", "gt", 6)}]


def test_a_case_record_heading_does_not_scope_its_rules(extractor: OfflineExtractor) -> None:
    text = (
        "DL-2025-0412 - kite workshop, Bend OR, BOP. Approved after review. "
        "The reviewers wrote up the rule: more than twelve employees is a decline."
    )
    rules = extractor.extract(text, source_type="production")
    assert [condition_set(r) for r in rules] == [{("employee_count", "gt", 12)}]


def test_a_rule_said_for_every_class_is_not_scoped(extractor: OfflineExtractor) -> None:
    text = (
        "4.2 Kite Workshops. 4.2.1 More than six drums of resin are referred. "
        "4.2.2 In every class, more than forty employees are declined."
    )
    rules = extractor.extract(text, source_type="manual")
    headcount = [r for r in rules if any(c.field == "employee_count" for c in r.conditions)]
    assert [condition_set(r) for r in headcount] == [{("employee_count", "gt", 40)}]


def test_case_lines_whose_ids_are_removed_do_not_read_as_a_table(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Case KW-2291 (kite workshop, AZ): four drums on site. The underwriter approved. "
        "The standing guideline is that more than three drums of resin are referred.\n"
        "Case KW-2304 (sail loft, OH): two drums; approved."
    )
    rules = extractor.extract(text, source_type="production")
    assert [condition_set(r) for r in rules] == [{("resin_drums", "gt", 3)}]


@pytest.mark.parametrize(
    "text",
    [
        "A kite workshop that isn't sprinklered is referred.",
        "A kite workshop that doesn't have sprinklers is referred.",
        "A kite workshop that is not sprinklered is referred.",
    ],
)
def test_a_contracted_negation_before_the_verb_leaves_the_action(
    text: str,
) -> None:
    extractor = _extractor({"sprinklered": SPRINKLERED})
    rules = extractor.extract(text, source_type="manual")
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("occupancy", "eq", "kite workshop"), ("sprinklered", "eq", False)})
    ]


def test_a_finding_that_states_the_rule_for_every_class_is_a_rule(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Review of May files. Eleven files had more than six drums of resin.\n"
        "QA: for any class, more than six drums of resin must be referred before binding.\n"
        "QA: the May file with eight drums should have been referred."
    )
    rules = extractor.extract(text, source_type="production")
    assert [(r.action, condition_set(r)) for r in rules] == [("refer", {("resin_drums", "gt", 6)})]


def test_a_missing_thing_nothing_reads_leaves_the_sentence_for_review(
    extractor: OfflineExtractor,
) -> None:
    text = "If the workshop stores resin drums and has no such plan, refer it."
    rules, uncovered = extractor.extract_with_coverage(text, source_type="sme")
    assert rules == []
    assert uncovered == [text]


def test_a_missing_thing_that_is_read_keeps_the_rule() -> None:
    extractor = _extractor({"sprinklered": SPRINKLERED})
    rules = extractor.extract(
        "If the workshop holds more than six resin drums and has no sprinklers, refer it.",
        source_type="sme",
    )
    assert [condition_set(r) for r in rules] == [
        {
            ("resin_drums", "gt", 6),
            ("sprinklered", "eq", False),
        }
    ]


def test_a_figure_under_a_reference_is_negative_when_the_dictionary_says_so() -> None:
    extractor = _extractor(
        {
            "premium_vs_floor_pct": {
                "type": "float",
                "unit": "percent",
                "synonyms": ["under the floor premium", "premium versus floor"],
                "description": "Premium relative to the floor premium, in percent; negative means "
                "below the floor (-15 = 15% under the floor)",
            },
        }
    )
    rules = extractor.extract(
        "More than twelve percent under the floor premium is a referral.", source_type="manual"
    )
    assert [condition_set(r) for r in rules] == [{("premium_vs_floor_pct", "lt", -12)}]


def test_a_past_tense_inside_a_relative_clause_is_a_condition(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "A kite workshop whose resin store was stocked with more than six drums of resin "
        "is referred.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("occupancy", "eq", "kite workshop"), ("resin_drums", "gt", 6)})
    ]


def test_a_business_class_field_with_its_values_listed_in_full_is_the_class() -> None:
    extractor = _extractor(
        {
            "occupancy": {
                "type": "str",
                "synonyms": ["business class", "type of operation"],
                "description": "Business class, lower case. Values used: kite workshop, sail loft, "
                "rope walk",
            },
        }
    )
    assert extractor.vocab.occupancy == "occupancy"
    rules = extractor.extract(
        "4.2 Kite Workshops. 4.2.2 More than twelve employees are declined.", source_type="manual"
    )
    assert [condition_set(r) for r in rules] == [
        {("occupancy", "eq", "kite workshop"), ("employee_count", "gt", 12)}
    ]


def test_a_rule_on_another_measure_for_the_protected_ones_is_a_rule_of_its_own() -> None:
    extractor = _extractor(
        {
            "resin_licence": {
                "type": "bool",
                "synonyms": ["resin licence", "licensed"],
                "description": "The workshop holds a resin handling licence (a protection)",
            },
        }
    )
    text = (
        "A kite workshop without a resin licence is declined. For licensed workshops, more "
        "than six drums of resin are referred."
    )
    rules = extractor.extract(text, source_type="manual")
    assert ("refer", {("resin_drums", "gt", 6)}) in [
        (r.action, condition_set(r) - {("occupancy", "eq", "kite workshop")}) for r in rules
    ]
    decline = next(r for r in rules if r.action == "decline")
    assert ("resin_licence", "eq", False) in condition_set(decline)


def test_a_comparative_the_description_gives_a_direction_compares() -> None:
    extractor = _extractor(
        {
            "thread_count": {
                "type": "int",
                "unit": "threads",
                "synonyms": ["thread count", "weave density"],
                "description": "Weave gauge of the sail cloth (lower = denser)",
            },
        }
    )
    rules = extractor.extract("Refer any cloth denser than 400 threads.", source_type="manual")
    assert [condition_set(r) for r in rules] == [{("thread_count", "lt", 400)}]


@pytest.mark.parametrize(
    ("british", "american"),
    [("licence", "license"), ("colours", "colors"), ("centre", "center"), ("storeys", "stories")],
)
def test_a_british_spelling_stems_like_the_american_one(british: str, american: str) -> None:
    assert stem(british) == stem(american)


@pytest.mark.parametrize("word", ["hour", "tour", "acre", "genre", "store"])
def test_words_that_only_look_british_are_kept(word: str) -> None:
    assert stem(word) == stem(word.upper())
    assert american_spelling(word) == word


def test_a_lapsed_credential_after_the_requirement_is_its_absence() -> None:
    extractor = _extractor(
        {
            "resin_license": {
                "type": "bool",
                "synonyms": ["state resin handling license"],
                "description": "The workshop holds a current state resin handling license",
            },
        }
    )
    text = (
        "We write general liability for a kite workshop only where the operator holds a "
        "current state resin handling licence. A workshop that is working under a suspended "
        "or lapsed licence is declined, whatever else the file shows."
    )
    rules = extractor.extract(text, source_type="manual")
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("decline", {("occupancy", "eq", "kite workshop"), ("resin_license", "eq", False)})
    ]


def test_a_log_restating_its_limit_higher_gives_the_soft_limit(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Case KW-2291 (kite workshop, AZ): seven drums on site, approved without referral. "
        "QA finding: partial. The standing guideline is that more than five drums of resin "
        "are referred. Seven sit within the exceptions we have granted, but eight or more "
        "drums of resin must always go to referral."
    )
    rules = extractor.extract(text, source_type="production")
    assert [(r.action, condition_set(r), r.soft_limit) for r in rules] == [
        ("refer", {("resin_drums", "gt", 5)}, 7)
    ]


def test_a_manual_with_two_tiers_of_one_action_keeps_both(extractor: OfflineExtractor) -> None:
    text = (
        "More than five drums of resin are referred to the desk. More than twenty drums of "
        "resin are referred to the regional manager."
    )
    rules = extractor.extract(text, source_type="manual")
    assert sorted(str(condition_set(r)) for r in rules) == sorted(
        [str({("resin_drums", "gt", 5)}), str({("resin_drums", "gt", 20)})]
    )


def test_a_counted_thing_named_in_another_word_order_is_more_than_none() -> None:
    extractor = _extractor({"mildew_positive_swabs": MILDEW_SWABS})
    rules = extractor.extract("Any positive mildew swab is a referral.", source_type="manual")
    assert [condition_set(r) for r in rules] == [{("mildew_positive_swabs", "gt", 0)}]


def test_a_log_row_naming_a_count_in_other_words_sets_no_threshold() -> None:
    extractor = _extractor({"mildew_positive_swabs": MILDEW_SWABS})
    rules = extractor.extract("Positive mildew swab reports are declined.", source_type="manual")
    assert rules == []


def test_a_rule_after_a_sentence_opening_on_a_product_is_on_that_product(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Case review, GL and Property. On the GL, a kite workshop with more than twelve "
        "employees is a GL referral.\n"
        "On Property, the insured reported nine drums of resin. More than six drums of resin "
        "are verified before binding."
    )
    rules = extractor.extract(text, source_type="production")
    verify = [r for r in rules if r.action == "verify"]
    assert [(r.product_type, condition_set(r)) for r in verify] == [
        ("Property", {("resin_drums", "gt", 6)})
    ]


def test_power_in_words_fits_a_field_counted_in_its_symbol() -> None:
    extractor = _extractor(
        {
            "kiln_load_mw": {
                "type": "float",
                "unit": "MW",
                "synonyms": ["kiln load", "connected load"],
                "description": "Connected electrical load of the kilns",
            },
        }
    )
    rules = extractor.extract(
        "Anything over six and a half megawatts is referred.", source_type="manual"
    )
    assert [condition_set(r) for r in rules] == [{("kiln_load_mw", "gt", 6.5)}]


def test_light_in_foot_candles_is_no_distance_and_a_named_desk_refers() -> None:
    extractor = _extractor(
        {
            "yard_footcandles": {
                "type": "float",
                "unit": "foot-candles",
                "synonyms": ["yard lighting level"],
                "description": "Average illumination of the drying yard, in foot-candles",
            },
            "fence_setback_ft": {
                "type": "float",
                "unit": "ft",
                "synonyms": ["fence setback"],
                "description": "Distance from the fence to the workshop, in feet",
            },
        }
    )
    rules = extractor.extract(
        "Where the yard averages below 1.0 foot-candle, the submission goes to the LRO team "
        "lead before a quote is released.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("yard_footcandles", "lt", 1.0)})
    ]


def test_now_that_opens_a_condition_not_a_business_class(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Now that drums arrive sealed, more than six drums of resin are referred.",
        source_type="compliance",
    )
    assert [condition_set(r) for r in rules] == [{("resin_drums", "gt", 6)}]


def test_a_past_tense_in_an_aside_after_the_action_leaves_the_rule(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "When a workshop stores more than six drums of resin, the underwriter verifies the "
        "storage room - drums that were kept in the open, or not at all, cause the fires.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [("verify", {("resin_drums", "gt", 6)})]


def test_what_practice_asked_for_may_be_said_in_the_sentence_after_a_short_answer() -> None:
    # A development set's interview ("What makes you comfortable? A: A service contract.
    # If a licensed alarm company inspects and services the panel every year under
    # contract, ..."): the flag is named only in the sentence after the short answer.
    folder = Path(__file__).parents[2] / "agents/data/consolidation/blind25"
    dictionary = load_data_dictionary(folder / "fields.json")
    texts = {r["id"]: r["text"] for r in map(json.loads, (folder / "knowledge.jsonl").open())}
    assert asked_mitigants(texts["k12"], dictionary) == ["panel_service_contract"]


def test_a_log_binds_only_to_rules_stated_by_its_day() -> None:
    fields = DataDictionary.model_validate({"fields": FIELDS})
    older = limit_rule("resin_drums", "gt", 6, rule_name="Resin Drums", date="2023-01-10")
    newer = limit_rule(
        "employee_count", "gt", 12, rule_name="Workshop Headcount", date="2025-09-09"
    )
    log = knowledge_text(
        "l1",
        "Case KW-23-0412, kite workshop: nine drums of resin and fourteen employees; "
        "the team lead approved it.",
        "production",
        "2024-03-01",
    )
    claims = with_practice([log], [], [older, newer], fields)
    assert {c.rule_name for c in claims} <= {"Resin Drums"}
