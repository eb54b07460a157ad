"""Round 24: class initials, credentials that lapsed, "there is none", eased declines.

Every field and sentence below is made up for these tests (a glass-blowing dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.texts import expand_class_acronyms
from tests.rules import condition_set, extractor_over

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'hot glass studio', 'lamp shop')",
    },
    "furnace_count": {
        "type": "int",
        "unit": "furnaces",
        "synonyms": ["furnaces", "glory holes"],
        "description": "Gas-fired furnaces and glory holes on site",
    },
    "kiln_permit_current": {
        "type": "bool",
        "synonyms": ["kiln permit", "furnace permit"],
        "description": "The fire marshal's kiln permit is current",
    },
    "batch_log": {
        "type": "bool",
        "synonyms": ["batch log", "batch mixing log"],
        "description": "A written log of every silica batch mixed is kept",
    },
    "furnace_interlock": {
        "type": "bool",
        "synonyms": ["flame-failure interlock", "furnace interlock"],
        "description": "Every furnace has a flame-failure gas interlock",
    },
}


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return extractor_over(FIELDS)


def test_a_class_written_by_its_initials_is_that_class(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Every HGS with more than four furnaces is referred.", source_type="manual"
    )
    assert [condition_set(r) for r in rules] == [
        {("occupancy", "eq", "hot glass studio"), ("furnace_count", "gt", 4)}
    ]


def test_initials_a_text_defines_are_written_out_and_the_definition_dropped() -> None:
    text = "A lamp shop (LS) is written on the BOP. LSs with kilns are referred; so is GL."
    assert expand_class_acronyms(text, ["lamp shop", "hot glass studio"]) == (
        "A lamp shop is written on the BOP. lamp shops with kilns are referred; so is GL."
    )


def test_capitals_that_are_no_class_initials_stay() -> None:
    text = "The HVAC and GL desks refer an HGX file."
    assert expand_class_acronyms(text, ["hot glass studio"]) == text


def test_a_permit_that_has_lapsed_is_its_absence(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "An insured whose kiln permit has lapsed or been suspended is declined.",
        source_type="manual",
    )
    assert [condition_set(r) for r in rules] == [{("kiln_permit_current", "eq", False)}]


def test_a_required_program_said_to_be_missing_is_its_absence(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "Every insured is expected to keep a batch log; where the application says there is "
        "none, verify the mixing records before quoting.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("verify", {("batch_log", "eq", False)})
    ]


@pytest.mark.parametrize(
    "easing",
    [
        "If the insured has a furnace interlock, it comes to the desk as a referral rather "
        "than a decline.",
        "Where every furnace has a flame-failure interlock, the decline is lifted to a referral.",
        "The one softening: with a furnace interlock, do not decline outright; send it to "
        "the senior underwriter instead.",
    ],
)
def test_a_sentence_easing_the_decline_before_it_is_its_mitigant(
    extractor: OfflineExtractor, easing: str
) -> None:
    rules = extractor.extract(
        f"An account with more than six furnaces is declined. {easing}", source_type="manual"
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("decline", {("furnace_count", "gt", 6)}, ["furnace_interlock"])
    ]


def test_a_bound_then_above_it_after_a_comma_is_over_the_bound(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "The furnace limit reflects gas load: at four furnaces or fewer we are comfortable, "
        "above it we decline regardless of protection.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("decline", {("furnace_count", "gt", 4)})
    ]


@pytest.mark.parametrize(
    "held",
    [
        " - a studio burned in 2023 - and a studio that has one needs no referral.",
        "; with a flame-failure interlock on every furnace it's fine.",
        ". With a furnace interlock, the referral is cleared.",
    ],
)
def test_a_protection_the_referral_lacked_said_to_spare_it_mitigates_it(
    extractor: OfflineExtractor, held: str
) -> None:
    rules = extractor.extract(
        f"Any hot glass studio without a furnace interlock is referred{held}",
        source_type="manual",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("refer", {("occupancy", "eq", "hot glass studio")}, ["furnace_interlock"])
    ]


def test_a_protection_the_referral_did_not_lack_spares_nothing(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "Any hot glass studio without a furnace interlock is referred. A studio with a batch "
        "log needs no referral.",
        source_type="manual",
    )
    refer = [r for r in rules if r.action == "refer"]
    assert [(condition_set(r), r.mitigant_fields) for r in refer] == [
        ({("occupancy", "eq", "hot glass studio"), ("furnace_interlock", "eq", False)}, [])
    ]


def test_an_exclusion_is_not_spared_into_a_mitigant(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "A hot glass studio without a furnace interlock gets the gas explosion exclusion; "
        "with an interlock on every furnace it's fine.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("exclude", {("occupancy", "eq", "hot glass studio"), ("furnace_interlock", "eq", False)})
    ]


def test_a_purpose_clause_in_the_past_does_not_make_the_rule_a_story(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "On furnaces: any insured with more than four furnaces is referred, on any product, so "
        "the senior underwriter can confirm the gas line was inspected.",
        source_type="training",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("furnace_count", "gt", 4)})
    ]


def test_no_referral_needed_once_a_protection_holds_is_a_waiver(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "An insured with more than four furnaces is referred. If a furnace interlock has been "
        "fitted, no referral is needed.",
        source_type="training",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("refer", {("furnace_count", "gt", 4)}, ["furnace_interlock"])
    ]


def test_no_referral_needed_for_a_scope_is_no_waiver(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "An insured with more than four furnaces is referred. For GL accounts no referral is "
        "needed, but the gas exclusion is mandatory.",
        source_type="manual",
    )
    assert all(r.mitigant_fields == [] for r in rules)


def _with(more: dict[str, object]) -> OfflineExtractor:
    """An extractor over the dictionary above, with more fields or a field replaced."""
    return extractor_over(FIELDS, more)


SILICA = {
    "type": "float",
    "unit": "lbs",
    "synonyms": ["silica stock", "batch sand"],
    "description": "Pounds of silica batch sand stored",
}
CLEANING = {
    "type": "int",
    "unit": "weeks",
    "synonyms": ["flue cleaning interval"],
    "description": "Weeks between flue cleanings",
}


def test_pounds_written_out_measure_a_field_counted_in_lbs() -> None:
    rules = _with({"silica_lbs": SILICA, "flue_cleaning_weeks": CLEANING}).extract(
        "Flues should be cleaned every four weeks; where the flue cleaning interval is longer "
        "than four weeks, flag the file. 8.4 Silica. Dry sand is a dust hazard. An insured "
        "storing more than five thousand pounds is declined.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("flag_for_review", {("flue_cleaning_weeks", "gt", 4)}),
        ("decline", {("silica_lbs", "gt", 5000)}),
    ]


def test_a_value_inside_a_counted_thing_name_is_no_category() -> None:
    frames = {
        "type": "int",
        "unit": "frames",
        "synonyms": ["annealing frames"],
        "description": "Annealing frames in use",
    }
    construction = {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Construction class: 'frame', 'masonry', 'fire resistive'",
    }
    rules = _with({"annealing_frame_count": frames, "construction_type": construction}).extract(
        "An insured with three or more annealing frames is referred.", source_type="manual"
    )
    assert [condition_set(r) for r in rules] == [{("annealing_frame_count", "gte", 3)}]


def test_a_table_row_sparing_a_protection_mitigates_the_row_before(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "Appetite at a glance:\n| Feature | Position |\n| --- | --- |\n"
        "| Hot glass studios with no furnace interlock | Refer to the senior underwriter |\n"
        "| Furnaces fitted with a flame-failure interlock | Standard terms, no referral |\n",
        source_type="manual",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("refer", {("occupancy", "eq", "hot glass studio")}, ["furnace_interlock"])
    ]


def test_while_one_with_the_protection_is_standard_spares_the_referral(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "A hot glass studio without a furnace interlock goes to the senior underwriter, while one "
        "with interlocked furnaces is written at standard terms.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("refer", {("occupancy", "eq", "hot glass studio")}, ["furnace_interlock"])
    ]


def test_referring_to_someone_instead_of_declining_eases_the_decline(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "An insured with more than six furnaces is declined. But the studios that hold a "
        "furnace interlock are different: I tell the desk to refer them to me instead of "
        "declining.",
        source_type="sme",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("decline", {("furnace_count", "gt", 6)}, ["furnace_interlock"])
    ]


UNVENTED = {
    "type": "int",
    "unit": "sq ft",
    "synonyms": ["unvented floor area", "area without fume extraction"],
    "description": "Floor area of the studio without fume extraction, in square feet",
}
VENTED = {"type": "bool", "synonyms": ["vented", "fume extraction"], "description": "Vented"}
SQUARE_FEET = {
    "type": "int",
    "unit": "sq ft",
    "synonyms": ["floor area", "square footage"],
    "description": "Total floor area",
}


@pytest.mark.parametrize(
    "said",
    [
        "more than 15,000 square feet of unvented floor area",
        "an unvented floor area over 15,000 square feet",
        "more than 15,000 square feet of floor area lacking fume extraction",
    ],
)
def test_a_flag_word_inside_a_measured_field_name_is_no_flag(said: str) -> None:
    rules = _with(
        {"unvented_area_sqft": UNVENTED, "vented": VENTED, "square_feet": SQUARE_FEET}
    ).extract(f"An insured with {said} is declined.", source_type="manual")
    assert [condition_set(r) for r in rules] == [{("unvented_area_sqft", "gt", 15000)}]


@pytest.mark.parametrize(
    "said",
    [
        '"When the insured shows us a furnace interlock, that is the verification as far as I '
        'am concerned."',
        "If the insured has a furnace interlock, I clear those without a site visit.",
    ],
)
def test_practice_that_clears_a_check_for_a_protection_is_a_relief(
    extractor: OfflineExtractor, said: str
) -> None:
    rules = extractor.extract(
        f"On the furnace verification, Ruiz explained. {said}", source_type="sme"
    )
    assert [(r.conditions, r.mitigant_fields) for r in rules] == [([], ["furnace_interlock"])]


def test_a_rating_credit_is_no_business_class(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Interlock credit needs a current inspection tag dated within the last twelve months.",
        source_type="manual",
    )
    assert all(c.field != "occupancy" for r in rules for c in r.conditions)


def test_a_policy_issued_to_a_class_is_that_class_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Every GL policy issued to a lamp shop carries the glass breakage exclusion endorsement.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("exclude", {("occupancy", "eq", "lamp shop")})
    ]


def test_an_order_after_a_described_risk_acts_on_it(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Big shops: an insured with more than eight furnaces has a large gas load. On any "
        "product, verify the gas supplier's inspection before quoting.",
        source_type="training",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("verify", {("furnace_count", "gt", 8)})
    ]


def test_an_order_with_a_condition_of_its_own_is_its_own_rule(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "An insured with more than eight furnaces has a large gas load. Verify the kiln "
        "permit when the insured has a furnace interlock.",
        source_type="training",
    )
    assert all(("furnace_count", "gt", 8) not in condition_set(r) for r in rules)


VOLUNTEER = {
    "type": "bool",
    "synonyms": ["volunteer fire brigade"],
    "description": "The studio is protected only by a volunteer fire brigade",
}
KILN_DISTANCE = {
    "type": "float",
    "unit": "ft",
    "synonyms": ["distance to the kiln yard"],
    "description": "Distance to the nearest kiln yard, in feet",
}


def test_a_flag_saying_a_protection_is_the_only_one_is_a_hazard() -> None:
    rules = _with({"volunteer_brigade": VOLUNTEER}).extract(
        "A studio protected only by a volunteer fire brigade, with more than four furnaces, is "
        "referred.",
        source_type="manual",
    )
    assert [(condition_set(r), r.mitigant_fields) for r in rules] == [
        ({("volunteer_brigade", "eq", True), ("furnace_count", "gt", 4)}, [])
    ]


def test_inside_a_distance_is_closer_than_it() -> None:
    rules = _with({"kiln_yard_distance_ft": KILN_DISTANCE}).extract(
        "Inside one hundred feet of a kiln yard, though, we decline outright.",
        source_type="training",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("decline", {("kiln_yard_distance_ft", "lt", 100)})
    ]


def test_where_a_risk_really_belongs_is_not_the_rule_product(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "A GL glass account is supposed to be small. When an insured runs more than six "
        "furnaces, the guideline is a referral - it's really a BOP or Property account.",
        source_type="sme",
    )
    assert [(r.product_type, condition_set(r)) for r in rules] == [
        ("GL", {("furnace_count", "gt", 6)})
    ]


PRIOR_NONADMITTED = {
    "type": "bool",
    "synonyms": ["expiring policy non-admitted", "prior surplus lines placement"],
    "description": "The expiring policy was written by a surplus lines carrier",
}


def test_a_past_tense_in_a_condition_before_an_order_is_a_rule() -> None:
    rules = _with({"prior_nonadmitted": PRIOR_NONADMITTED}).extract(
        "If the expiring policy was written by a surplus lines (non-admitted) carrier, verify "
        "why the risk left the admitted market before quoting.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("verify", {("prior_nonadmitted", "eq", True)})
    ]


def test_a_protection_that_clears_the_flag_mitigates_it(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Insureds with more than six furnaces are flagged for review; a furnace interlock on "
        "every furnace clears the flag with a note to file.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("flag_for_review", {("furnace_count", "gt", 6)}, ["furnace_interlock"])
    ]


def test_what_clears_the_flag_in_the_rule_own_clause_keeps_the_rule(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "Flag for review any insured with more than six furnaces, unless they have a furnace "
        "interlock, which clears the flag.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("flag_for_review", {("furnace_count", "gt", 6)})
    ]


def test_a_policy_issued_only_once_papers_are_obtained_is_a_conditional_approval(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "Where the insured has a furnace interlock, the policy is issued only once the "
        "service contract is obtained; this is a condition of issuance, not a referral.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("approve_with_conditions", {("furnace_interlock", "eq", True)})
    ]


GAS_RATE = {
    "type": "float",
    "unit": "rate",
    "synonyms": ["gas rate"],
    "description": "Gas rate per $100 of value as a decimal (0.40% = 0.004)",
}


def test_a_floor_set_for_a_class_scopes_the_rule_and_practice_softens_it() -> None:
    rules = _with({"gas_rate": GAS_RATE}).extract(
        "The written floor for lamp shops is a gas rate of 0.40%, and anything below it is "
        "referred. Practice note: seniors routinely sign off lamp shops down to 0.35% when "
        "protection is strong; below that, the referral stands.",
        source_type="production",
    )
    assert [(condition_set(r), r.soft_limit) for r in rules] == [
        ({("occupancy", "eq", "lamp shop"), ("gas_rate", "lt", 0.004)}, 0.0035)
    ]


def test_after_a_count_of_events_is_no_threshold(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "After two furnace fires in the first half of the year, Section 3.2 is amended: the "
        "furnace referral point is lowered from eight furnaces to six. Insureds with more "
        "than 6 furnaces are referred.",
        source_type="compliance",
    )
    assert [condition_set(r) for r in rules] == [{("furnace_count", "gt", 6)}]


def test_after_a_year_is_still_a_threshold() -> None:
    built = {"type": "int", "unit": "year", "synonyms": ["year built"], "description": "Year"}
    rules = _with({"year_built": built}).extract(
        "Buildings built after 1990 are written with conditions.", source_type="manual"
    )
    assert [condition_set(r) for r in rules] == [{("year_built", "gt", 1990)}]


def test_the_businessowners_program_is_the_bop_not_a_class(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "Businessowners (BOP) accounts with more than six furnaces are referred.",
        source_type="manual",
    )
    assert [(r.product_type, condition_set(r)) for r in rules] == [
        ("BOP", {("furnace_count", "gt", 6)})
    ]


def test_an_exclusion_waived_for_a_protection_keeps_its_absence_as_condition(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "A hot glass studio without a furnace interlock gets the gas explosion exclusion on "
        "the GL. With a furnace interlock, no exclusion is needed.",
        source_type="training",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        (
            "exclude",
            {("occupancy", "eq", "hot glass studio"), ("furnace_interlock", "eq", False)},
            [],
        )
    ]


def test_a_past_said_of_every_case_is_a_rule(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Review of thirty files. The clearest pattern: an insured with more than six furnaces "
        "was declined in every case, whatever the class or line.",
        source_type="production",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("decline", {("furnace_count", "gt", 6)})
    ]


def test_a_past_said_of_one_case_is_a_story(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Review of one file. An insured with more than six furnaces was declined by the desk.",
        source_type="production",
    )
    assert rules == []


def test_tighter_than_a_required_distance_is_below_it() -> None:
    rules = _with({"kiln_yard_distance_ft": KILN_DISTANCE}).extract(
        "An insured must keep a distance to the kiln yard of at least 500 feet. A yard tighter "
        "than that is not eligible and the submission is declined.",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("decline", {("kiln_yard_distance_ft", "lt", 500)})
    ]


def test_a_standards_table_acts_on_what_falls_short() -> None:
    rules = _with({"kiln_yard_distance_ft": KILN_DISTANCE}).extract(
        "| Exposure | Standard | If not met |\n|---|---|---|\n"
        "| Kiln yard | distance to the kiln yard of 100 ft or more | Refer |\n",
        source_type="manual",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("refer", {("kiln_yard_distance_ft", "lt", 100)})
    ]


TOWERS = {
    "type": "int",
    "unit": "trucks",
    "synonyms": ["heavy-duty wreckers", "class 7-8 wreckers"],
    "description": "Number of heavy-duty (class 7-8) wreckers operated",
}


def test_a_kind_named_by_a_range_is_no_value_scale() -> None:
    rules = _with({"heavy_wrecker_count": TOWERS}).extract(
        "An insured running more than three heavy-duty wreckers (class 7 and 8 units) is declined.",
        source_type="manual",
    )
    assert [condition_set(r) for r in rules] == [{("heavy_wrecker_count", "gt", 3)}]


def test_a_risk_still_taken_on_a_condition_mitigates_the_referral(
    extractor: OfflineExtractor,
) -> None:
    rules = extractor.extract(
        "More than six furnaces goes to referral. I'll still take a bigger studio, though, "
        "provided that it has a furnace interlock; with an interlock I am comfortable "
        "writing it with conditions.",
        source_type="sme",
    )
    assert [(r.action, condition_set(r), r.mitigant_fields) for r in rules] == [
        ("refer", {("furnace_count", "gt", 6)}, ["furnace_interlock"])
    ]


def test_an_injury_is_no_business_class(extractor: OfflineExtractor) -> None:
    rules = extractor.extract(
        "Bodily injury to non-member participants is excluded from the general liability "
        "policy by endorsement.",
        source_type="training",
    )
    assert all(c.field != "occupancy" for r in rules for c in r.conditions)
