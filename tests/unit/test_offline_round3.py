"""Round 3 of the offline extractor's generalisation: each failure class, on invented fields.

Every field and sentence below is made up for these tests (an apiary / orchard /
glasshouse dictionary no dataset has): the extractor must read them from the data
dictionary and general English alone. Most classes are precision guards: a sentence
that is no rule of ours (a case record, a worked example, what other carriers do, a
change of limit, an exemption) must yield no rule.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.subjects import SubjectReader
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary
from schemas.rules import ExtractedRule
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'apiary', 'cider mill', "
        "'falconry centre', 'apiary supply store', 'orchardist')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "heater_type": {
        "type": "str",
        "synonyms": ["heater", "heater type"],
        "description": "Glasshouse heater, lower case: 'paraffin heater', 'gas heater', "
        "'electric heater'",
    },
    "hive_count": {
        "type": "int",
        "unit": "hives",
        "synonyms": ["hives", "hive count"],
        "description": "Number of hives kept on site",
    },
    "glasshouse_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["glasshouse height", "tall glasshouses"],
        "description": "Height of the tallest glasshouse, in feet",
    },
    "orchard_acres": {
        "type": "float",
        "unit": "acres",
        "synonyms": ["orchard size", "orchard acreage"],
        "description": "Orchard area, in acres",
    },
    "spray_interval_days": {
        "type": "int",
        "unit": "days",
        "synonyms": ["spray interval", "spraying"],
        "description": "Days between two orchard sprays",
    },
    "customer_records": {
        "type": "int",
        "unit": "records",
        "synonyms": ["customer records"],
        "description": "Customer records held",
    },
    "frost_rating": {
        "type": "int",
        "unit": "rating",
        "synonyms": ["frost rating"],
        "description": "Frost exposure rating, 1 (mild) to 8 (severe)",
    },
    "pesticide_log": {
        "type": "bool",
        "synonyms": ["pesticide log", "spray log"],
        "description": "A pesticide spray log is kept",
    },
    "apiary_fence": {
        "type": "bool",
        "synonyms": ["fenced apiary", "fenced"],
        "description": "The apiary is fenced",
    },
    "remote_alarm": {
        "type": "bool",
        "synonyms": ["remote alarm"],
        "description": "A remote alarm is installed and monitored",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _values(rules: list[ExtractedRule]) -> set[object]:
    return {c.value for r in rules for c in r.conditions if not isinstance(c.value, list)}


# --- numbers ---------------------------------------------------------------------------


def test_a_multiple_of_the_value_just_compared(extractor: OfflineExtractor) -> None:
    text = (
        "Glasshouses taller than 30 feet are referred, and glasshouses above one and a half "
        "times that height are declined."
    )
    rules = extractor.extract(text)
    assert 1.5 not in _values(rules)
    decline = only_rule([r for r in rules if r.action == "decline"])
    assert condition_set(decline) == {("glasshouse_height_ft", "gt", 45)}


def test_a_multiplier_with_nothing_before_is_no_threshold(extractor: OfflineExtractor) -> None:
    rules = extractor.extract("Glasshouses above twice the usual height are declined.")
    assert 2 not in _values(rules)


def test_a_capital_m_glued_to_a_number_is_a_million() -> None:
    assert find_numbers("over 2M customer records")[0].value == 2_000_000
    assert find_numbers("a 5 m mast")[0].value == 5  # a spaced m may be metres


def test_a_million_records_decline(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Above 2M customer records the cider mill is declined."))
    assert ("customer_records", "gt", 2_000_000) in condition_set(rule)


def test_a_list_at_the_top_of_a_stated_scale_is_open_ended(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Orchards with a frost rating of 7 or 8 are declined."))
    assert condition_set(rule) == {("frost_rating", "gte", 7)}
    rule = only_rule(extractor.extract("Frost rating 7 to 8: decline."))
    assert condition_set(rule) == {("frost_rating", "gte", 7)}
    rule = only_rule(extractor.extract("Frost rating 1 or 2 orchards are written with a warranty."))
    assert ("frost_rating", "lte", 2) in condition_set(rule)


def test_a_list_off_the_scale_ends_is_no_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract("Frost ratings of 4 or 5, I usually approve with conditions.")
    assert not any(c.operator == "in" for r in rules for c in r.conditions)


def test_a_change_of_limit_is_no_range(extractor: OfflineExtractor) -> None:
    text = (
        "The referral point is raised from 40 to 60 hives. Apiaries with more than 60 hives "
        "are referred to the bee desk."
    )
    rule = only_rule(extractor.extract(text))
    assert ("hive_count", "gt", 60) in condition_set(rule)
    assert not any(c.operator in {"gte", "lte"} for c in rule.conditions)


# --- actions ---------------------------------------------------------------------------


def test_coverage_removed_by_an_endorsement_is_an_exclusion(extractor: OfflineExtractor) -> None:
    text = (
        "Where a pesticide log is not kept, the spray drift coverage part is excluded by "
        "endorsement; the rest of the policy may be written."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "exclude"
    assert condition_set(rule) == {("pesticide_log", "eq", False)}


def test_outside_appetite_declines(extractor: OfflineExtractor) -> None:
    rule = only_rule(
        extractor.extract("Above 90 hives the apiary is outside appetite and declined.")
    )
    assert rule.action == "decline" and ("hive_count", "gt", 90) in condition_set(rule)


def test_not_an_eligible_class_declines(extractor: OfflineExtractor) -> None:
    rule = only_rule(
        extractor.extract("A state-licensed falconry centre is not an eligible class.")
    )
    assert rule.action == "decline"
    assert condition_set(rule) == {("occupancy", "eq", "falconry centre")}


def test_a_negated_flag_ends_before_the_action(extractor: OfflineExtractor) -> None:
    text = (
        "An apiary with more than 40 hives that is not fenced is flagged for review by the "
        "bee specialist, whatever the hive type."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "flag_for_review"
    assert ("hive_count", "gt", 40) in condition_set(rule)


def test_what_we_can_verify_is_no_verification(extractor: OfflineExtractor) -> None:
    text = (
        "Orchards above 500 acres are declined: no frost work we can verify at underwriting "
        "changes that."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"


def test_an_agent_that_refers_is_no_business_class(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("The portal refers any apiary over 50 hives."))
    assert rule.action == "refer"
    # the portal is no class; the apiary the clause names is (round 8)
    assert condition_set(rule) == {("occupancy", "eq", "apiary"), ("hive_count", "gt", 50)}


# --- inverted and comparative ranges ---------------------------------------------------


def test_a_bare_comparative_takes_the_complement(extractor: OfflineExtractor) -> None:
    text = "The program is built for orchards of up to 400 acres; larger orchards are referred."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert condition_set(rule) == {("orchard_acres", "gt", 400)}


def test_a_comparative_that_disagrees_yields_nothing(extractor: OfflineExtractor) -> None:
    text = (
        "Spraying every 10 days or more often is acceptable; a longer spray interval is referred."
    )
    assert extractor.extract(text) == []


def test_anything_inside_an_accepted_range(extractor: OfflineExtractor) -> None:
    text = "A spray interval of 14 days or more is fine; anything inside that is a referral."
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {("spray_interval_days", "lt", 14)}


def test_no_longer_requires_then_a_comparative(extractor: OfflineExtractor) -> None:
    text = (
        "An orchard of 300 acres or less no longer requires a referral; larger orchards "
        "continue to be referred."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert condition_set(rule) == {("orchard_acres", "gt", 300)}


# --- sentences that are no rule of ours ------------------------------------------------


def test_what_other_carriers_do_is_no_rule(extractor: OfflineExtractor) -> None:
    assert extractor.extract("Many carriers decline paraffin heaters outright; we do not.") == []


def test_case_record_lines_are_evidence_not_rules(extractor: OfflineExtractor) -> None:
    text = (
        "Hive log, spring.\n"
        "AP-24-101 | apiary, 60 hives | approved with conditions | QA: aligned\n"
        "AP-24-102 | cider mill, fenced | declined\n"
        "#GH-24-7: 35-foot glasshouse, paraffin heater - referred; declined."
    )
    assert extractor.extract(text) == []


def test_a_worked_example_is_no_rule(extractor: OfflineExtractor) -> None:
    text = "Worked example: a cider mill with a paraffin heater needs a team-lead referral."
    assert extractor.extract(text) == []


def test_an_exemption_is_no_rule(extractor: OfflineExtractor) -> None:
    assert extractor.extract("The moratorium does not apply to glasshouses under 10 feet.") == []


def test_a_wish_not_to_decline_is_no_decline(extractor: OfflineExtractor) -> None:
    text = "When the cider mill has a remote alarm, I don't want the desk declining it."
    assert not any(r.action == "decline" for r in extractor.extract(text))


def test_process_words_are_no_business_class(extractor: OfflineExtractor) -> None:
    for text in (
        "Neither cap is a decline.",
        "The senior confirms that the hives were inspected.",
        "The answer is a decline - a team lead can no longer approve it.",
    ):
        rules = extractor.extract(text)
        assert not any(c.field == "occupancy" for r in rules for c in r.conditions), text


def test_a_state_code_inside_a_form_number_is_no_state(extractor: OfflineExtractor) -> None:
    text = (
        "Where no pesticide log is kept, the spray drift coverage is excluded: attach "
        "exclusion CA-EX-01."
    )
    rules = extractor.extract(text)
    assert rules and not any(c.field == "state" for r in rules for c in r.conditions)


def test_a_bare_prefix_does_not_snap_onto_an_example() -> None:
    vocab = FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS}))
    reader = SubjectReader(vocab)
    assert reader._canonical("orch") == "orch"  # not "orchardist"
    assert reader._canonical("apiar supply store") == "apiary supply store"


def test_a_participle_with_its_object_ends_the_subject(extractor: OfflineExtractor) -> None:
    rule = only_rule(
        extractor.extract("A cider mill pressing more than 90 hives of honey is declined.")
    )
    assert not any(c.field == "occupancy" and "pressing" in str(c.value) for c in rule.conditions)


def test_a_descriptive_aside_carries_no_trigger(extractor: OfflineExtractor) -> None:
    text = "A paraffin heater, common in glasshouses built between 1960 and 1975, is referred."
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {("heater_type", "eq", "paraffin heater")}


def test_a_number_with_a_time_word_no_field_uses_is_dropped(extractor: OfflineExtractor) -> None:
    text = "When more than 20 hives are moved for stays of under 30 nights, the apiary is referred."
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {("occupancy", "eq", "apiary"), ("hive_count", "gt", 20)}


def test_a_counted_number_is_no_share() -> None:
    fields = {
        "occupancy": FIELDS["occupancy"],
        "hive_count": FIELDS["hive_count"],
        "rented_hives_pct": {
            "type": "float",
            "unit": "percent",
            "synonyms": ["rented hives"],
            "description": "Share of hives rented out, in percent",
        },
    }
    ex = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    rules = ex.extract("Apiaries whose rented hives stay out for more than 12 weeks are referred.")
    assert not any(c.field == "rented_hives_pct" for r in rules for c in r.conditions)


def test_a_table_with_one_column_per_action(extractor: OfflineExtractor) -> None:
    text = (
        "Desk authority by class:\n"
        "| Class | Refer when hives are above | Decline when hives are above |\n"
        "|---|---|---|\n"
        "| Falconry centre | 40 | 90 |\n"
        "| Cider mill | 10 | - |\n"
    )
    found = {(r.action, frozenset(condition_set(r))) for r in extractor.extract(text)}
    assert found == {
        ("refer", frozenset({("occupancy", "eq", "falconry centre"), ("hive_count", "gt", 40)})),
        ("decline", frozenset({("occupancy", "eq", "falconry centre"), ("hive_count", "gt", 90)})),
        ("refer", frozenset({("occupancy", "eq", "cider mill"), ("hive_count", "gt", 10)})),
    }


def test_a_slash_separates_alternative_classes(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Cider mill / falconry centre risks are declined."))
    assert condition_set(rule) == {("occupancy", "in", ("cider mill", "falconry centre"))}


def test_a_verb_of_duration_names_the_duration_field() -> None:
    fields = {
        "occupancy": FIELDS["occupancy"],
        "fair_days": {
            "type": "int",
            "unit": "days",
            "synonyms": ["fair days", "fair duration"],
            "description": "Number of days the honey fair runs",
        },
        "fair_notice_days": {
            "type": "int",
            "unit": "days",
            "synonyms": ["notice", "days before the fair"],
            "description": "Days between the application and the fair",
        },
    }
    ex = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = (
        "Before 2020 fairs were quoted on the day. Fairs lasting more than four days are referred."
    )
    rule = only_rule(ex.extract(text))
    assert condition_set(rule) == {("fair_days", "gt", 4)}


def test_an_alternative_outcome_is_the_rules_mitigant(extractor: OfflineExtractor) -> None:
    text = (
        "An apiary with more than 90 hives is declined; where it has a remote alarm, refer it "
        "instead."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"
    assert "remote_alarm" in rule.mitigant_fields


def test_a_parenthesis_inside_the_subject(extractor: OfflineExtractor) -> None:
    text = (
        "Desk authority by class:\n"
        "| Class | Refer when hives are above | Decline when hives are above |\n"
        "|---|---|---|\n"
        "| Cider mill (farm presses, co-ops) | 10 | 30 |\n"
    )
    rules = extractor.extract(text)
    assert len(rules) == 2
    assert all(("occupancy", "eq", "cider mill") in condition_set(r) for r in rules)


def test_closer_than_that_after_an_accepted_distance() -> None:
    fields = {
        "occupancy": FIELDS["occupancy"],
        "hive_on_site": {
            "type": "bool",
            "synonyms": ["hive on site", "hive"],
            "description": "Hives are kept on site",
        },
        "hive_distance_ft": {
            "type": "float",
            "unit": "ft",
            "synonyms": ["hive distance", "distance to the nearest hive"],
            "description": "Distance from the hives to the nearest dwelling, in feet",
        },
    }
    ex = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = (
        "A hive with 40 feet or more of clear ground to the nearest dwelling is acceptable; "
        "a hive closer than that is referred."
    )
    rule = only_rule(ex.extract(text))
    assert rule.action == "refer"
    assert ("hive_distance_ft", "lt", 40) in condition_set(rule)


def test_a_lifted_rule_is_a_withdrawal(extractor: OfflineExtractor) -> None:
    text = (
        "Bulletin 7. The moratorium on apiaries with more than 90 hives is lifted. Those "
        "apiaries return to normal underwriting."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.withdrawn and rule.action == "decline"
    assert condition_set(rule) == {("occupancy", "eq", "apiary"), ("hive_count", "gt", 90)}


def test_a_withdrawal_restated_in_the_same_text_is_dropped(extractor: OfflineExtractor) -> None:
    text = (
        "Referral of apiaries with more than 90 hives is discontinued. From this date an "
        "apiary with more than 90 hives is declined."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline" and not rule.withdrawn


def test_table_header_words_are_no_business_class(extractor: OfflineExtractor) -> None:
    text = (
        "Check | Program | Trigger | Action\n"
        "Hives | BOP | more than 40 hives | refer to the bee desk\n"
    )
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {("hive_count", "gt", 40)}


def test_an_absolute_phrase_is_no_subject(extractor: OfflineExtractor) -> None:
    text = (
        "With several swarms active in the county, new business is suspended for apiaries "
        "with more than 20 hives."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"
    assert not any("swarm" in str(c.value) for c in rule.conditions)


def test_what_a_person_does_is_no_trigger(extractor: OfflineExtractor) -> None:
    text = (
        "Cider mills are referred to the farm underwriter, who checks the ID scanning and "
        "the frost rating 8 history."
    )
    rule = only_rule(extractor.extract(text))
    assert not any(c.field in {"state", "frost_rating"} for c in rule.conditions)


def test_a_missing_protection_alone_is_the_trigger(extractor: OfflineExtractor) -> None:
    text = "Whenever the application answers no to the remote alarm question, the desk verifies it."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert condition_set(rule) == {("remote_alarm", "eq", False)}


def test_a_missing_protection_alone_is_no_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    assert extractor.extract("Without a remote alarm, the desk may write it.") == []


def test_what_is_verified_is_the_mitigant(extractor: OfflineExtractor) -> None:
    text = "Before binding any apiary with more than 40 hives, verify that a pesticide log is kept."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert not any(c.field == "pesticide_log" for c in rule.conditions)
    assert rule.mitigant_fields == ["pesticide_log"]


def test_a_synonym_ending_in_a_window_word_names_the_field() -> None:
    fields = {
        "occupancy": FIELDS["occupancy"],
        "inspection_days": {
            "type": "int",
            "unit": "days",
            "synonyms": ["hives inspected within", "inspection cycle"],
            "description": "Days within which every hive is inspected",
        },
    }
    ex = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = "Hives inspected within 14 days are acceptable, anything slower is referred."
    rule = only_rule(ex.extract(text))
    assert rule.action == "refer"
    assert condition_set(rule) == {("inspection_days", "gte", 14)}


def test_a_singular_modifier_shares_the_plural_head(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Cider or perry mills are declined."))
    assert condition_set(rule) == {("occupancy", "in", ("cider mill", "perry mill"))}
    rule = only_rule(extractor.extract("Falconry centres or cider mills are declined."))
    assert condition_set(rule) == {("occupancy", "in", ("falconry centre", "cider mill"))}
