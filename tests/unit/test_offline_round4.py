"""Round 4 of the offline extractor's generalisation: mechanisms, on invented fields.

Every field and sentence below is made up for these tests (a glassblowing / bookbinding
/ kayak-outfitter dictionary no dataset has). Each test pins one mechanism that failed
on new wording: how negation reaches a flag, how a business class is recognised from
the dictionary's own examples, how a short sentence acts on the one before it, how a
fraction, a scope phrase or "any other state" is placed.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.textproc import content_tokens, split_sentences
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, LRO, GL"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'glassblowing studio', "
        "'kayak outfitter', 'bookbindery', 'puppet theatre', 'ice rink', 'annealing plant')",
    },
    "state": {"type": "str", "synonyms": ["state"], "description": "Two-letter US state"},
    "furnace_count": {
        "type": "int",
        "unit": "furnaces",
        "synonyms": ["furnaces", "glory holes"],
        "description": "Number of glass furnaces on site",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built", "construction year"],
        "description": "Year the building was built",
    },
    "annual_revenue_usd": {
        "type": "float",
        "unit": "usd",
        "synonyms": ["revenue", "annual sales"],
        "description": "Annual revenue in US dollars",
    },
    "gift_shop_revenue_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["gift shop sales", "gift shop revenue"],
        "description": "Share of revenue from the gift shop, in percent",
    },
    "night_warden": {
        "type": "bool",
        "synonyms": ["night warden", "resident warden"],
        "description": "A warden sleeps at the premises",
    },
    "cctv_monitoring": {
        "type": "bool",
        "synonyms": ["cctv monitoring", "remote cameras"],
        "description": "Remote camera monitoring of the yard",
    },
    "glue_vats": {
        "type": "bool",
        "synonyms": ["hot glue vats", "glue pots"],
        "description": "Hot animal-glue vats are used in the bindery",
    },
    "solvent_still": {
        "type": "bool",
        "synonyms": ["solvent still", "still", "solvent recovery"],
        "description": "A solvent recovery still runs on site",
    },
    "rescue_boat": {
        "type": "bool",
        "synonyms": ["rescue boat", "chase boat"],
        "description": "A rescue boat is on the water during tours",
    },
    "annealing_oven": {
        "type": "bool",
        "synonyms": ["annealing oven", "lehr"],
        "description": "An annealing oven is used",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


# --- negation --------------------------------------------------------------------------


def test_neither_nor_denies_both_flags(extractor: OfflineExtractor) -> None:
    text = "A kayak outfitter that has neither a night warden nor cctv monitoring is referred."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert {("night_warden", "eq", False), ("cctv_monitoring", "eq", False)} <= condition_set(rule)


def test_neither_nor_that_cures_nothing_is_still_no_trigger(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract("Neither a night warden nor cctv monitoring cures it.")
    assert not any(c.value is False for r in rules for c in r.conditions)


def test_cannot_confirm_denies_the_flag(extractor: OfflineExtractor) -> None:
    text = "A bookbindery that cannot confirm a rescue boat on every tour is declined."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"
    assert ("rescue_boat", "eq", False) in condition_set(rule)


# --- business classes from the dictionary ----------------------------------------------


def test_a_listed_class_is_read_though_its_head_names_another_field(
    extractor: OfflineExtractor,
) -> None:
    # "plant" is no business word on its own here, but "annealing plant" is an example
    rule = only_rule(
        extractor.extract("Every annealing plant is written subject to a kiln warranty.")
    )
    assert rule.action == "approve_with_conditions"
    assert condition_set(rule) == {("occupancy", "eq", "annealing plant")}


def test_an_adverb_is_no_business_class(extractor: OfflineExtractor) -> None:
    text = (
        "Glassblowing studios with more than 4 furnaces are declined. The only way off a "
        "decline is cctv monitoring, and even then it goes to referral."
    )
    rules = extractor.extract(text)
    assert not any(
        c.field == "occupancy" and c.value == "even" for r in rules for c in r.conditions
    )


def test_a_one_word_adverb_synonym_needs_its_phrase() -> None:
    vocab = FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS}))
    quoted = vocab.bool_mentions(content_tokens("If they have none, I'll still quote it."))
    assert not any(m.field == "solvent_still" for m in quoted)
    named = vocab.bool_mentions(content_tokens("A bindery running a solvent still is referred."))
    assert any(m.field == "solvent_still" for m in named)


def test_the_scope_of_an_endorsement_names_the_class(extractor: OfflineExtractor) -> None:
    text = "The puppet damage exclusion endorsement is attached to every puppet theatre policy."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "exclude"
    assert condition_set(rule) == {("occupancy", "eq", "puppet theatre")}


def test_an_exclusion_that_is_added_excludes(extractor: OfflineExtractor) -> None:
    text = "Where hot glue vats are used, the glue burn exclusion is added."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "exclude"
    assert condition_set(rule) == {("glue_vats", "eq", True)}


def test_classes_listed_in_parentheses_are_the_subject(extractor: OfflineExtractor) -> None:
    text = "Hobby submissions (puppet theatres, ice rinks) with glue pots are referred."
    rule = only_rule(extractor.extract(text))
    assert ("occupancy", "in", ("puppet theatre", "ice rink")) in condition_set(rule)


# --- actions ---------------------------------------------------------------------------


def test_a_causative_participle_is_an_action(extractor: OfflineExtractor) -> None:
    text = "A bookbindery in a building put up before 1930 needs its wiring verified."
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert ("year_built", "lt", 1930) in condition_set(rule)


def test_approved_on_condition_is_a_conditional_approval(extractor: OfflineExtractor) -> None:
    text = (
        "When glue pots are used, the quote is approved on condition that we receive the "
        "maintenance log."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "approve_with_conditions"
    assert ("glue_vats", "eq", True) in condition_set(rule)


def test_placing_a_class_on_a_product_is_no_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract("Ice rinks and puppet theatres may be written on the GL or the BOP.")
    assert rules == []


# --- sentences that lean on the one before ---------------------------------------------


@pytest.mark.parametrize(
    ("second", "action"),
    [
        ("Verify both.", "verify"),
        ("I refer those, unless cctv monitoring is in place.", "refer"),
        ("That's a decline: too much heat.", "decline"),
    ],
)
def test_a_pronoun_sentence_acts_on_the_conditions_before(
    extractor: OfflineExtractor, second: str, action: str
) -> None:
    text = f"Hot glue vats or an annealing oven mean a hot-work exposure. {second}"
    rules = extractor.extract(text)
    assert rules and all(r.action == action for r in rules)
    assert any(("glue_vats", "eq", True) in condition_set(r) for r in rules)


def test_a_pronoun_sentence_without_an_antecedent_makes_no_rule(
    extractor: OfflineExtractor,
) -> None:
    assert extractor.extract("Glassblowing is a craft. Verify both.") == []


def test_a_clause_before_a_colon_is_no_label() -> None:
    sentences = split_sentences("That's a decline: too much heat.")
    assert sentences[0].text.startswith("That's a decline")
    labelled = split_sentences("Furnaces: more than 4 are referred.")
    assert labelled[0].label == "Furnaces"


def test_instead_of_the_last_action_softens_the_rule_before(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Glassblowing studios with more than 4 furnaces are declined. Where cctv monitoring "
        "is in place, the account is referred instead of declined."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"
    assert "cctv_monitoring" in rule.mitigant_fields


# --- numbers and states ----------------------------------------------------------------


def test_a_fraction_is_a_share_not_an_amount(extractor: OfflineExtractor) -> None:
    text = "If more than half the revenue comes from the gift shop, flag it for review."
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {("gift_shop_revenue_pct", "gt", 50)}


def test_any_other_state_is_outside_the_states_named_before(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The kayak program is filed only in Maine, Oregon and Florida. A kayak outfitter "
        "located in any other state is declined."
    )
    rule = only_rule(extractor.extract(text))
    assert ("state", "not_in", ("ME", "OR", "FL")) in condition_set(rule)
    assert ("occupancy", "eq", "kayak outfitter") in condition_set(rule)


def test_any_other_state_without_a_subject_makes_no_rule(extractor: OfflineExtractor) -> None:
    text = "The program is filed only in Maine and Oregon. Anything in any other state is declined."
    assert not any(c.operator == "not_in" for r in extractor.extract(text) for c in r.conditions)


def test_a_synonym_with_its_own_negation_matches_any_negation(
    extractor_with_unstaffed: OfflineExtractor,
) -> None:
    for text in (
        "Any ice rink open without an attendant on the ice is flagged for review.",
        "An ice rink with no attendant is flagged for review.",
    ):
        rule = only_rule(extractor_with_unstaffed.extract(text))
        assert ("unattended_sessions", "eq", True) in condition_set(rule)


def test_that_points_at_the_clause_s_own_number(extractor: OfflineExtractor) -> None:
    text = "The guide says twelve furnaces, and a glassblowing studio above that is referred."
    rule = only_rule(extractor.extract(text))
    assert ("furnace_count", "gt", 12) in condition_set(rule)


def test_exceptions_reaching_a_value_are_the_soft_limit(extractor: OfflineExtractor) -> None:
    text = (
        "The guideline declines glassblowing studios with more than 6 furnaces. Review "
        "finding: the cap works as a soft limit, with exceptions granted up to 9 furnaces. "
        "Past 9 the decline stands."
    )
    rule = only_rule(extractor.extract(text, source_type="production"))
    assert ("furnace_count", "gt", 6) in condition_set(rule)
    assert rule.soft_limit == 9


def test_a_soft_limit_in_the_field_s_unit_word(extractor_with_unstaffed: OfflineExtractor) -> None:
    text = (
        "The guideline says 900 skaters a session, and an ice rink above that is referred. "
        "I've approved them up to 1,200 skaters when the stewards were trained. Past 1,200 "
        "I'd refer every time."
    )
    rule = only_rule(extractor_with_unstaffed.extract(text, source_type="sme"))
    assert ("skaters_per_session", "gt", 900) in condition_set(rule)
    assert rule.soft_limit == 1200


def test_the_rule_quoted_in_a_case_narrative_is_read(extractor: OfflineExtractor) -> None:
    text = (
        "The desk recommended referral for a studio with 7 furnaces, because the guideline "
        "refers studios running more than 5 furnaces."
    )
    rules = extractor.extract(text, source_type="production")
    assert any(
        r.action == "refer" and ("furnace_count", "gt", 5) in condition_set(r) for r in rules
    )


@pytest.fixture(scope="module")
def extractor_with_unstaffed() -> OfflineExtractor:
    fields = {
        **FIELDS,
        "unattended_sessions": {
            "type": "bool",
            "synonyms": ["unattended sessions", "no attendant"],
            "description": "The rink is open at times with no attendant on the ice",
        },
        "skaters_per_session": {
            "type": "int",
            "unit": "skaters/session",
            "synonyms": ["skaters per session", "session size"],
            "description": "Most skaters admitted in one session",
        },
    }
    return OfflineExtractor(DataDictionary.model_validate({"fields": fields}))


def test_still_doing_something_is_a_concession_not_a_continuation(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Up to $2 million of revenue, it goes on the standard form. Anything above $2 "
        "million, I'll still write it, but only with a quarterly revenue audit."
    )
    rules = extractor.extract(text)
    assert any(
        r.action == "approve_with_conditions"
        and ("annual_revenue_usd", "gt", 2_000_000) in condition_set(r)
        for r in rules
    )
    assert extractor.extract("Above 4 furnaces it stays a referral.") == []


# --- products and classes that decide whether a rule fires -----------------------------


def test_property_of_someone_is_no_product(extractor: OfflineExtractor) -> None:
    text = (
        "Bookbinderies with hot glue vats are referred on the LRO. Property of customers is "
        "never covered; the customer goods exclusion endorsement is attached to every "
        "bookbindery quote."
    )
    rules = extractor.extract(text)
    assert {r.product_type for r in rules} == {"LRO"}


def test_an_interview_answer_does_not_inherit_the_last_answer_s_product(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Q: Glue?\nA: Hot glue vats are out on the BOP. That's a decline.\n"
        "Q: Furnaces?\nA: More than 5 furnaces and I refer it."
    )
    rules = extractor.extract(text, source_type="sme")
    refer = only_rule([r for r in rules if r.action == "refer"])
    assert refer.product_type == "ALL"


def test_a_participle_after_anyone_ends_the_subject(extractor: OfflineExtractor) -> None:
    rules = extractor.extract("Anyone running glue pots, even small ones, is declined.")
    assert not any(c.field == "occupancy" for r in rules for c in r.conditions)


def test_a_lone_head_noun_measured_by_a_figure_is_the_text_s_own_business(
    extractor: OfflineExtractor,
) -> None:
    # the dictionary gives examples only: "a plant" is the business the text is about, not
    # the one example it ends (round 29 measured this reading on the consolidation sets)
    rule = only_rule(extractor.extract("A plant running more than 3 furnaces is referred."))
    assert not any(c.field == "occupancy" for c in rule.conditions)


def test_a_negation_stops_at_a_comma(extractor: OfflineExtractor) -> None:
    text = (
        "If a kayak outfitter has more than 3 furnaces, I want a rescue boat on the water. "
        "No boat, I refer it."
    )
    rules = extractor.extract(text, source_type="sme")
    refer = only_rule([r for r in rules if r.action == "refer"])
    assert ("furnace_count", "gt", 3) in condition_set(refer)
    assert ("rescue_boat", "eq", True) not in condition_set(refer)


def test_rules_of_a_class_placed_on_several_products_apply_to_all(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Ice rinks and puppet theatres may be written on the GL or the BOP. Rinks with more "
        "than 3 furnaces are referred."
    )
    rule = only_rule(extractor.extract(text, source="GL Class Guide - Rinks"))
    assert rule.product_type == "ALL"
    rule = only_rule(extractor.extract(text.split(". ")[1], source="GL Class Guide - Rinks"))
    assert rule.product_type == "GL"


def test_lacking_one_is_the_absence_of_the_flag_named_before(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "For an ice rink, cctv monitoring is what protects the yard. If they don't have one, "
        "I'll still quote, but subject to a theft sublimit."
    )
    rules = extractor.extract(text, source_type="sme")
    rule = only_rule([r for r in rules if r.action == "approve_with_conditions"])
    assert ("cctv_monitoring", "eq", False) in condition_set(rule)
    assert ("occupancy", "eq", "ice rink") in condition_set(rule)


def test_how_a_rule_is_met_after_a_colon_is_no_rule(extractor: OfflineExtractor) -> None:
    text = (
        "A bookbindery with revenue above $4 million must be verified before binding: stock "
        "and press layout are confirmed by a site visit."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "verify"
    assert ("annual_revenue_usd", "gt", 4_000_000) in condition_set(rule)


def test_a_pronoun_sentence_with_its_own_condition_borrows_nothing(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "A night warden on the premises. If someone sleeps above the bindery I will approve "
        "it with conditions whatever the size."
    )
    rules = extractor.extract(text, source_type="sme")
    assert not any(("night_warden", "eq", True) in condition_set(r) for r in rules)


def test_a_soft_limit_in_a_unit_the_field_does_not_use_is_no_soft_limit(
    extractor_with_unstaffed: OfflineExtractor,
) -> None:
    text = (
        "The guideline says 900 skaters a session, and an ice rink above that is referred. "
        "I've approved them up to 1,200 seats when the stewards were trained."
    )
    rule = only_rule(extractor_with_unstaffed.extract(text, source_type="sme"))
    assert ("skaters_per_session", "gt", 900) in condition_set(rule)
    assert rule.soft_limit is None  # seats are not what the field counts


def test_a_document_noun_is_no_business_class(extractor: OfflineExtractor) -> None:
    text = "The handbook limit is five furnaces; a sixth furnace means the file goes to a senior."
    rule = only_rule(extractor.extract(text, source_type="training"))
    assert condition_set(rule) == {("furnace_count", "gt", 5)}


def test_going_to_your_team_lead_is_a_referral(extractor: OfflineExtractor) -> None:
    text = "A studio running more than 5 furnaces goes to your team lead."
    assert only_rule(extractor.extract(text)).action == "refer"


def test_not_quoting_it_yourself_is_no_decline(extractor: OfflineExtractor) -> None:
    text = (
        "A studio running more than 5 furnaces goes to your team lead. "
        "Do not decline these at the desk, and do not quote them yourself either."
    )
    assert [r.action for r in extractor.extract(text)] == ["refer"]
    plain = "We do not quote studios running more than 5 furnaces."
    assert only_rule(extractor.extract(plain)).action == "decline"
