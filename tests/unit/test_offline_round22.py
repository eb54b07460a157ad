"""Round 22: a class-only rule from a subject that narrows the class, postposed comparators.

Every field and sentence below is made up for these tests (a glass-blowing and kiln
dictionary no dataset has). Its business classes are examples, not a closed list.
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from tests.rules import condition_set, only_rule

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'glass studio', 'kiln repairer')",
    },
    "furnace_count": {
        "type": "int",
        "unit": "furnaces",
        "synonyms": ["number of furnaces", "glory holes"],
        "description": "Number of glass furnaces on site",
    },
    "annealer_age_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["annealer age", "age of the annealing oven"],
        "description": "Age of the oldest annealing oven in years",
    },
    "gas_shutoff_installed": {
        "type": "bool",
        "synonyms": ["gas shutoff", "automatic gas valve"],
        "description": "An automatic gas shutoff valve is installed",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


# --- a subject that narrows its class ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "A glass studio that rents bench time to hobbyists is referred.",
        "Any glass studio with a recall in the last five years is referred.",
        "A glass studio doing that work is declined.",
    ],
)
def test_an_unread_narrowing_of_the_subject_makes_no_class_wide_rule(
    extractor: OfflineExtractor, text: str
) -> None:
    rules, uncovered = extractor.extract_with_coverage(text)
    assert rules == []  # not "every glass studio is referred"
    assert uncovered  # the sentence waits for a person


def test_a_class_named_alone_is_still_a_rule(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Glass studios are referred to the arts underwriter."))
    assert rule.action == "refer"
    assert condition_set(rule) == {("occupancy", "eq", "glass studio")}


def test_a_narrowing_the_reader_understands_keeps_the_rule(
    extractor: OfflineExtractor,
) -> None:
    rule = only_rule(extractor.extract("Glass studios with more than 4 furnaces are referred."))
    assert condition_set(rule) == {
        ("occupancy", "eq", "glass studio"),
        ("furnace_count", "gt", 4),
    }


# --- comparators after a noun phrase -------------------------------------------------------


def test_or_more_after_a_two_word_noun_bounds_the_number(extractor: OfflineExtractor) -> None:
    rule = only_rule(extractor.extract("Risks with six glass furnaces or more are referred."))
    assert condition_set(rule) == {("furnace_count", "gte", 6)}


def test_an_accepted_range_after_a_noun_phrase_sets_the_rule_beyond_it(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Risks with a dozen glass furnaces or fewer are fine for the desk; thirteen or "
        "more get flagged for review."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "flag_for_review"
    assert condition_set(rule) == {("furnace_count", "gte", 13)}


def test_written_without_it_is_no_rule(extractor: OfflineExtractor) -> None:
    text = (
        "A risk whose annealer is more than ten years old must carry the annealer "
        "breakdown exclusion. Annealers ten years old or newer are written without it. "
        "The exclusion applies to the oven only."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "exclude"
    assert condition_set(rule) == {("annealer_age_years", "gt", 10)}


# --- a flag named in the subject's own words -----------------------------------------------

LOOSE_FIELDS = {
    **FIELDS,
    "kiln_permit_current": {
        "type": "bool",
        "synonyms": ["kiln operating permit", "fire marshal kiln permit"],
        "description": "The fire marshal's kiln operating permit is current",
    },
    "rooftop_kiln_venting": {
        "type": "bool",
        "synonyms": ["kiln vents through the roof", "roof kiln vent"],
        "description": "Kiln exhaust is vented through the roof",
    },
    "mismatch_kiln_count": {
        "type": "bool",
        "synonyms": ["kiln count mismatch"],
        "description": "The kiln count on the application differs from the inspection",
    },
}


@pytest.fixture(scope="module")
def loose() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": LOOSE_FIELDS}))


def test_a_missing_flag_said_in_other_words_is_the_condition(loose: OfflineExtractor) -> None:
    rule = only_rule(loose.extract("An applicant without a current permit is declined."))
    assert rule.action == "decline"
    assert condition_set(rule) == {("kiln_permit_current", "eq", False)}


def test_a_denying_prefix_says_the_flag_is_missing(loose: OfflineExtractor) -> None:
    rule = only_rule(loose.extract("An applicant with a noncurrent kiln permit is referred."))
    assert condition_set(rule) == {("kiln_permit_current", "eq", False)}


def test_a_hazard_said_in_other_words_is_the_condition(loose: OfflineExtractor) -> None:
    rule = only_rule(loose.extract("Venting kilns out through the roof is referred."))
    assert condition_set(rule) == {("rooftop_kiln_venting", "eq", True)}


def test_the_words_of_the_order_name_no_flag(loose: OfflineExtractor) -> None:
    rules, _ = loose.extract_with_coverage("Refer it (the permit can clear the referral).")
    assert all(c.field != "kiln_permit_current" for r in rules for c in r.conditions)


def test_a_denied_negative_name_is_left_for_review(loose: OfflineExtractor) -> None:
    rules, _ = loose.extract_with_coverage("Where the kiln count does not match, verify it.")
    assert all(c.field != "mismatch_kiln_count" for r in rules for c in r.conditions)


# --- blind23's readings (developed on it after its first score) ----------------------------

MORE_FIELDS = {
    **FIELDS,
    "crane_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["crane height", "hoist above the floor"],
        "description": "Height of the overhead crane hook above the floor, in feet",
    },
    "kiln_location": {
        "type": "str",
        "synonyms": ["where the kiln stands", "kiln placement"],
        "description": "Where the kiln is kept: 'kiln room', 'fire-rated closet' or 'open floor'",
    },
    "open_flame_demos": {
        "type": "bool",
        "synonyms": ["open flame demonstrations", "torch demos"],
        "description": "Open-flame demonstrations are given to the public",
    },
    "enclosed_demo_booth": {
        "type": "bool",
        "synonyms": ["enclosed demo booth", "glazed demonstration booth"],
        "description": "Demonstrations are given inside an enclosed booth",
    },
}


@pytest.fixture(scope="module")
def more() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": MORE_FIELDS}))


def test_a_height_above_the_floor_is_no_floor_price(more: OfflineExtractor) -> None:
    text = (
        "The guide says twelve feet above the floor for the crane, and anything higher is referred."
    )
    rule = only_rule(more.extract(text))
    assert condition_set(rule) == {("crane_height_ft", "gt", 12)}


def test_values_after_rather_than_are_the_ones_left_out(more: OfflineExtractor) -> None:
    text = (
        "Kilns standing on the open floor, rather than in a kiln room or in a fire-rated "
        "closet, are flagged for review."
    )
    rule = only_rule(more.extract(text))
    assert condition_set(rule) == {("kiln_location", "eq", "open floor")}


def test_what_may_be_written_without_referral_mitigates_the_referral(
    more: OfflineExtractor,
) -> None:
    text = (
        "Open flame demonstrations are referred. Studios that demonstrate only in an enclosed "
        "demo booth may be written without referral."
    )
    rule = only_rule(more.extract(text))
    assert condition_set(rule) == {("open_flame_demos", "eq", True)}
    assert rule.mitigant_fields == ["enclosed_demo_booth"]


def test_a_counted_thing_named_without_a_figure_is_more_than_none() -> None:
    fields = {
        **FIELDS,
        "apprentice_count": {
            "type": "int",
            "unit": "apprentices",
            "synonyms": ["glassblowing apprentices", "apprentices in training"],
            "description": "Number of apprentices working the furnaces",
        },
    }
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = "A glass studio that trains glassblowing apprentices is declined."
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {
        ("occupancy", "eq", "glass studio"),
        ("apprentice_count", "gt", 0),
    }


# --- round 22, second part (blind23 developed on) ------------------------------------------

LATER_FIELDS = {
    **FIELDS,
    "bar_sales_pct": {
        "type": "int",
        "unit": "percent",
        "synonyms": ["bar receipts", "bar sales"],
        "description": "Percent of total sales from the bar",
    },
    "llc_status_inactive": {
        "type": "bool",
        "synonyms": ["inactive with the state", "dissolved entity"],
        "description": "The applicant entity is inactive or dissolved with the state",
    },
    "kiln_inspection_age_months": {
        "type": "int",
        "unit": "months",
        "synonyms": ["last kiln inspection", "kiln inspection age"],
        "description": "Months since the last kiln inspection",
    },
    "studio_liability_policy": {
        "type": "bool",
        "synonyms": ["studio liability policy", "separate studio liability"],
        "description": "A separate studio liability policy is in force",
    },
    "sells_torches": {
        "type": "bool",
        "synonyms": ["sells torches", "torch sales"],
        "description": "The studio sells torches to the public",
    },
}


@pytest.fixture(scope="module")
def later() -> OfflineExtractor:
    return OfflineExtractor(DataDictionary.model_validate({"fields": LATER_FIELDS}))


def test_once_a_share_passes_a_figure_it_is_compared(later: OfflineExtractor) -> None:
    rule = only_rule(later.extract("Once bar receipts pass sixty percent, the risk is declined."))
    assert condition_set(rule) == {("bar_sales_pct", "gt", 60)}


def test_a_denial_of_what_a_negative_name_denies_sets_the_flag(later: OfflineExtractor) -> None:
    rule = only_rule(later.extract("Where the LLC isn't active with the state, verify it."))
    assert condition_set(rule) == {("llc_status_inactive", "eq", True)}


def test_more_than_n_months_ago_is_a_compared_age(later: OfflineExtractor) -> None:
    text = "A last kiln inspection more than 24 months ago: verify a current inspection."
    rule = only_rule(later.extract(text))
    assert condition_set(rule) == {("kiln_inspection_age_months", "gt", 24)}


def test_where_it_isnt_acts_on_the_requirement_before(later: OfflineExtractor) -> None:
    text = "A separate studio liability policy should be in force. Where it isn't, verify it."
    rule = only_rule(later.extract(text))
    assert rule.action == "verify"
    assert condition_set(rule) == {("studio_liability_policy", "eq", False)}


def test_when_they_do_acts_on_what_the_sentence_before_says_some_do(
    later: OfflineExtractor,
) -> None:
    text = "Some studios sell torches. When they do, torch products liability is excluded."
    rule = only_rule(later.extract(text))
    assert rule.action == "exclude"
    assert condition_set(rule) == {("sells_torches", "eq", True)}


def test_or_under_before_a_noun_is_no_comparator(extractor: OfflineExtractor) -> None:
    text = (
        "When a risk keeps more than twenty glass furnaces indoors or under canopy, it is "
        "declined. At twenty glass furnaces or fewer, rate it as a standard risk."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "decline"
    assert condition_set(rule) == {("furnace_count", "gt", 20)}


def test_the_figure_a_change_replaces_is_no_condition(extractor: OfflineExtractor) -> None:
    text = (
        "With effect from 1 April, the referral threshold moves from more than 25 to more "
        "than 40 glass furnaces. Risks with forty or fewer may be written at the desk."
    )
    rule = only_rule(extractor.extract(text))
    assert rule.action == "refer"
    assert condition_set(rule) == {("furnace_count", "gt", 40)}


def test_a_rate_keeps_its_per_past_a_postposed_comparator() -> None:
    fields = {
        **FIELDS,
        "visitors_per_guide": {
            "type": "float",
            "unit": "visitors/guide",
            "synonyms": ["visitors per guide", "group size per guide"],
            "description": "Visitors per glassblowing demonstration guide",
        },
        "gallery_capacity": {
            "type": "int",
            "unit": "visitors",
            "synonyms": ["gallery seating"],
            "description": "Seated visitors in the gallery",
        },
        "minors_wear_goggles": {
            "type": "bool",
            "synonyms": ["visitors under 16 wear goggles", "goggles for minors"],
            "description": "Visitors under sixteen must wear safety goggles",
        },
    }
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = (
        "Tours with eight visitors or fewer per guide are acceptable; anything larger is "
        "referred. Studios that do not require goggles for visitors under sixteen may be "
        "written subject to the demonstration warning endorsement."
    )
    rules = extractor.extract(text)
    read = {
        (r.action, frozenset(c for c in condition_set(r) if c[0] != "occupancy")) for r in rules
    }
    assert read == {
        ("refer", frozenset({("visitors_per_guide", "gt", 8)})),
        ("approve_with_conditions", frozenset({("minors_wear_goggles", "eq", False)})),
    }
    assert all(r.soft_limit is None for r in rules)


def test_a_missing_protection_under_a_class_heading_is_scoped_to_the_class() -> None:
    fields = {
        **FIELDS,
        "occupancy": {
            "type": "str",
            "synonyms": ["class of business"],
            "description": "Business class, lower case (e.g. 'art glass studio', 'kiln repairer')",
        },
        "sprinklered": {
            "type": "bool",
            "synonyms": ["automatic sprinklers", "sprinklers"],
            "description": "Building is fully sprinklered",
        },
    }
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = (
        "Section 22 - Art Glass Studios. A studio building without automatic sprinklers may "
        "still be written, subject to a hot-work permit program."
    )
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {
        ("occupancy", "eq", "art glass studio"),
        ("sprinklered", "eq", False),
    }


def test_at_least_a_share_but_not_all_stops_short_of_the_whole() -> None:
    fields = {
        **FIELDS,
        "certified_blower_pct": {
            "type": "float",
            "unit": "percent",
            "synonyms": ["certified glassblowers", "share of blowers certified"],
            "description": "Percent of glassblowers holding a safety certificate",
        },
    }
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    text = (
        "Where at least 75% but not all certified glassblowers are on staff, the policy may be "
        "bound subject to a supervision warranty."
    )
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {
        ("certified_blower_pct", "gte", 75),
        ("certified_blower_pct", "lt", 100),
    }


# --- round 22, read on blind24 after its first score ----------------------------------------


def test_a_dictionary_may_list_a_fields_values_apart_from_its_description() -> None:
    fields = {
        **FIELDS,
        "occupancy": {
            "type": "str",
            "synonyms": ["class of business"],
            "description": "Business class, lower case (e.g. 'sheet metal shop', 'glass studio')",
        },
        "roof_covering": {
            "type": "str",
            "synonyms": ["roof cover", "roofing material"],
            "description": "Roof covering material, lower case.",
            "enum": ["asphalt shingle", "metal", "wood shake"],
        },
    }
    extractor = OfflineExtractor(DataDictionary.model_validate({"fields": fields}))
    rule = only_rule(extractor.extract("Wood shake roofs are declined."))
    assert condition_set(rule) == {("roof_covering", "eq", "wood shake")}
    # a value inside a class's name is the class, not the value: "sheet metal shops"
    rules, _ = extractor.extract_with_coverage(
        "For every sheet metal shop, guarding must be verified before binding."
    )
    assert all(c.field != "roof_covering" for r in rules for c in r.conditions)


def test_no_more_than_n_before_we_refer_sets_the_rule_past_n(extractor: OfflineExtractor) -> None:
    text = "The guide says no more than sixty glass furnaces before we refer."
    rule = only_rule(extractor.extract(text))
    assert condition_set(rule) == {("furnace_count", "gt", 60)}


def test_without_the_thing_the_sentence_before_wants_is_its_absence(
    later: OfflineExtractor,
) -> None:
    text = (
        "Q: What do you look for first? A: A separate studio liability policy. A studio that "
        "opens without a policy is a referral."
    )
    rules = [r for r in later.extract(text) if r.action == "refer"]
    assert [condition_set(r) - {("occupancy", "eq", "glass studio")} for r in rules] == [
        {("studio_liability_policy", "eq", False)}
    ]
