"""Round 5 of the offline extractor, part A: actions, waivers, mitigants, verification.

Every field and sentence below is made up for these tests (a pottery kiln / falconry /
houseboat dictionary no dataset has). Each test pins one mechanism: a waiver of the
rule before ("the referral is waived when X"), verification wording ("don't quote until
you have confirmed ..."), referral and decline idioms ("it comes to me"), conditional
approvals ("I'll write, but only with X as conditions"), one-word answers ("No."), and
"if they have X, fine; if not, it comes to me".
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'pottery studio', "
        "'falconry centre', 'houseboat marina')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "kiln_count": {
        "type": "int",
        "unit": "kilns",
        "synonyms": ["kilns", "kiln count"],
        "description": "Number of kilns on site",
    },
    "bird_count": {
        "type": "int",
        "unit": "birds",
        "synonyms": ["birds", "raptors"],
        "description": "Number of birds of prey kept",
    },
    "spark_arrestor": {
        "type": "bool",
        "synonyms": ["spark arrestor", "flue screen"],
        "description": "A spark arrestor is fitted to every kiln flue",
    },
    "kiln_sitter": {
        "type": "bool",
        "synonyms": ["kiln sitter", "automatic shut-off"],
        "description": "Kilns shut off automatically at the end of a firing",
    },
    "licensed_handler": {
        "type": "bool",
        "synonyms": ["licensed handler", "licensed falconer"],
        "description": "Birds are flown only by a licensed falconer",
    },
    "free_flying_shows": {
        "type": "bool",
        "synonyms": ["free-flying shows", "free flight displays"],
        "description": "Birds are flown untethered in front of the public",
    },
    "mooring_survey": {
        "type": "bool",
        "synonyms": ["mooring survey", "dock survey"],
        "description": "A mooring survey from the last 12 months is on file",
    },
    "sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklered", "sprinklers"],
        "description": "The building is fully sprinklered",
    },
    "glaze_lab": {
        "type": "bool",
        "synonyms": ["glaze lab", "glaze mixing"],
        "description": "Glazes are mixed on premises",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _flags(rules: list, value: bool) -> set[str]:
    return {c.field for r in rules for c in r.conditions if c.value is value}


# --- waivers of the rule before ---------------------------------------------------------


@pytest.mark.parametrize(
    "waiver",
    [
        "The referral is waived when a spark arrestor is fitted.",
        "The referral may be skipped when a spark arrestor is on file.",
        "If every flue has a spark arrestor, the referral is not required.",
        "A pottery studio with a spark arrestor does not need to be referred at all.",
    ],
)
def test_a_waived_referral_is_the_rule_s_mitigant(extractor: OfflineExtractor, waiver: str) -> None:
    text = f"Pottery studios with more than 3 kilns are referred. {waiver}"
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert ("kiln_count", "gt", 3) in condition_set(rule)
    assert rule.mitigant_fields == ["spark_arrestor"]


def test_a_waiver_goes_to_the_rule_with_the_action_it_waives(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Pottery studios with more than 3 kilns are referred. Studios mixing glazes in a "
        "glaze lab are flagged for review. The referral is waived when a kiln sitter is fitted."
    )
    rules = extractor.extract(text)
    refer = only_rule([r for r in rules if r.action == "refer"])
    flag = only_rule([r for r in rules if r.action == "flag_for_review"])
    assert refer.mitigant_fields == ["kiln_sitter"]
    assert flag.mitigant_fields == []


def test_a_waiver_without_a_rule_before_makes_no_rule(extractor: OfflineExtractor) -> None:
    assert extractor.extract("The referral is waived when a spark arrestor is fitted.") == []


def test_a_concern_answered_by_a_protection_and_its_consequence(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Pottery studios with more than 3 kilns must be sent to a senior underwriter. The "
        "concern is considered answered when every kiln has a kiln sitter; in that case "
        "the account may be bound on condition that the service log is on file."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert rule.mitigant_fields == ["kiln_sitter"]


# --- verification wording ----------------------------------------------------------------


def test_no_quote_until_confirmed_is_a_verification(extractor: OfflineExtractor) -> None:
    text = (
        "If a falconry centre keeps more than 12 birds, don't quote until you have "
        "confirmed the bird count with the agent."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert ("bird_count", "gt", 12) in condition_set(rule)


def test_obtained_and_checked_before_binding_is_a_verification(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "In Maine and Vermont the mooring register is kept locally; for marinas in those "
        "states, the register must be obtained and checked against the slip list before "
        "binding."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert ("state", "in", ("ME", "VT")) in condition_set(rule)


def test_a_check_acts_on_conditions_stated_before_a_comment(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "A pottery studio reporting fewer than 2 kilns. That figure is usually the "
        "number of wheels. So before anybody quotes it, the figure has to be confirmed "
        "with a site photo."
    )
    rule = only_rule(extractor.extract(text, source_type="sme"))
    assert rule.action == "verify"
    assert ("kiln_count", "lt", 2) in condition_set(rule)


def test_a_comment_does_not_carry_conditions_over_a_question(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: Big studios?\nA: Over 6 kilns it's a production pottery.\n"
        "Q: Anything you won't touch?\nA: Raku. We decline it outright."
    )
    rules = extractor.extract(text, source_type="sme")
    assert not any(("kiln_count", "gt", 6) in condition_set(r) for r in rules)


# --- referral and decline idioms ----------------------------------------------------------


def test_a_concession_opening_the_clause_leaves_the_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Regardless of product, a falconry centre running free-flying shows is not "
        "acceptable and the submission shall be declined."
    )
    rule = only_rule(extractor.extract(text, source="GL Manual"))
    assert rule.action == "decline"
    assert ("free_flying_shows", "eq", True) in condition_set(rule)
    assert rule.product_type == "ALL"  # "regardless of product", though the manual is GL


def test_it_comes_to_me_is_a_referral_and_no_business_class(
    extractor: OfflineExtractor,
) -> None:
    text = "Our line is 8 kilns; above that it comes to me."
    rule = only_rule(extractor.extract(text, source_type="sme"))
    assert rule.action == "refer"
    assert condition_set(rule) == {("kiln_count", "gt", 8)}


def test_going_to_a_named_desk_is_a_referral(extractor: OfflineExtractor) -> None:
    text = "Anything over 40 birds goes to the large-collection desk, licensed falconer or not."
    rule = only_rule(extractor.extract(text, source_type="sme"))
    assert rule.action == "refer"
    assert condition_set(rule) == {("bird_count", "gt", 40)}
    assert rule.mitigant_fields == []  # "X or not": whichever way the flag goes


def test_a_rule_restated_by_a_review_in_hindsight(extractor: OfflineExtractor) -> None:
    text = (
        "QA noted the studio mixes its own glazes; any glaze mixing on premises should "
        "have been flagged for loss control."
    )
    rule = only_rule(extractor.extract(text, source_type="production"))
    assert rule.action == "flag_for_review"
    assert ("glaze_lab", "eq", True) in condition_set(rule)


def test_hindsight_on_one_case_is_no_rule(extractor: OfflineExtractor) -> None:
    text = "The studio mixes its own glazes; the account should have been flagged for review."
    assert extractor.extract(text, source_type="production") == []


def test_no_reason_to_refer_is_no_referral(extractor: OfflineExtractor) -> None:
    text = "A glaze lab is not, by itself, a reason to refer."
    assert extractor.extract(text) == []


def test_not_covered_by_the_policy_is_an_exclusion(extractor: OfflineExtractor) -> None:
    text = "Free-flying shows at a falconry centre are not covered by the GL policy."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "exclude"
    assert ("free_flying_shows", "eq", True) in condition_set(rule)


# --- conditional approvals ---------------------------------------------------------------


def test_i_will_write_but_only_with_conditions(extractor: OfflineExtractor) -> None:
    text = (
        "A pottery studio with more than 5 kilns I'll write, but only with a kiln service "
        "contract and a fire watch as conditions of the quote."
    )
    rule = only_rule(extractor.extract(text, source_type="sme"))
    assert rule.action == "approve_with_conditions"
    assert ("kiln_count", "gt", 5) in condition_set(rule)


def test_a_reported_question_is_no_referral(extractor: OfflineExtractor) -> None:
    text = (
        "Studios with more than 5 kilns are written, but with a kiln service contract as a "
        "condition. Trainees ask whether that's a referral. It isn't."
    )
    rule = only_rule(extractor.extract(text, source_type="training"))
    assert rule.action == "approve_with_conditions"


# --- answers ---------------------------------------------------------------------------


def test_a_one_word_answer_does_not_negate_what_follows(extractor: OfflineExtractor) -> None:
    text = "Q: Shows?\nA: No. Free-flying shows - hawks, owls, eagles - we decline."
    rules = extractor.extract(text, source_type="sme")
    assert _flags(rules, True) == {"free_flying_shows"}
    assert not _flags(rules, False)


def test_no_followed_by_a_noun_still_negates(extractor: OfflineExtractor) -> None:
    rules = extractor.extract("Pottery studios with no kiln sitter are referred.")
    assert ("kiln_sitter", "eq", False) in condition_set(only_rule(rules))


def test_fine_with_a_protection_then_a_referral_of_the_rest(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Once a falconry centre keeps more than 20 birds, I need to see who flies them. "
        "If they use a licensed falconer, fine; if it's the owner's nephew, it comes to me "
        "for referral."
    )
    rule = only_rule(extractor.extract(text, source_type="sme"))
    assert rule.action == "refer"
    assert ("bird_count", "gt", 20) in condition_set(rule)
    assert rule.mitigant_fields == ["licensed_handler"]


def test_a_referral_after_fine_needs_the_sentence_before(extractor: OfflineExtractor) -> None:
    text = "If they use a licensed falconer, fine; if not, it comes to me for referral."
    assert not any(r.conditions for r in extractor.extract(text, source_type="sme"))
