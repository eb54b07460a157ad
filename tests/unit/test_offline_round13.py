"""Round 13: practice read from the cases it let through; denials and widenings in other words.

Every field and sentence below is made up for these tests (a climbing-gym / kayak-livery
dictionary no dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.extractor import OfflineExtractor
from agents.offline.tables import table_rows
from tests.rules import condition_set, extractor_over

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Class of business, lower case (e.g. 'climbing gym', 'kayak livery')",
    },
    "wall_height_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["wall height", "tallest wall"],
        "description": "Height of the tallest climbing wall",
    },
    "climbers_per_instructor": {
        "type": "int",
        "unit": "climbers",
        "synonyms": ["climbers per instructor", "belay ratio"],
        "description": "Climbers per instructor in a class",
    },
    "roof_age_years": {
        "type": "int",
        "unit": "years",
        "synonyms": ["roof age"],
        "description": "Age of the roof covering",
    },
    "permit_status_current": {
        "type": "bool",
        "synonyms": ["river permit status", "current launch permit"],
        "description": "The livery's river launch permit status is current",
    },
    "floor_monitor_on_duty": {
        "type": "bool",
        "synonyms": ["floor monitor on duty", "dedicated floor monitor"],
        "description": "A dedicated floor monitor who is not instructing is on duty",
    },
    "kayak_count": {
        "type": "int",
        "unit": "kayaks",
        "synonyms": ["kayaks", "rental boats"],
        "description": "Kayaks in the rental fleet",
    },
}


def _extractor(**more: dict[str, object]) -> OfflineExtractor:
    """An extractor over the dictionary above, with more fields or a field replaced."""
    return extractor_over(FIELDS, more)


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return _extractor()


def _rules(extractor: OfflineExtractor, text: str, source_type: str = "sme") -> list[tuple]:
    return [
        (r.action, condition_set(r), r.soft_limit, r.mitigant_fields)
        for r in extractor.extract(text, source_type=source_type)
    ]


@pytest.mark.parametrize(
    ("practice", "soft"),
    [
        ("we've signed off at five and six plenty of times when the group is experienced", 6),
        ("I have personally approved jobs at 45 and 50 feet", 50),
        ("we've bound several gyms at 42 to 48 feet without trouble", 48),
        ("the cap is effectively soft to 50", 50),
        ("up to 48 feet is accepted practice", 48),
    ],
)
def test_the_furthest_case_practice_let_through_is_the_soft_limit(
    extractor: OfflineExtractor, practice: str, soft: float
) -> None:
    field = "climbers_per_instructor" if soft < 10 else "wall_height_ft"
    limit = "four climbers per instructor" if soft < 10 else "40 feet of wall height"
    text = f"Climbing gyms over {limit} are referred. Honestly, {practice}."
    [rule] = _rules(extractor, text)
    assert rule[0] == "refer" and rule[2] == soft, rule
    assert any(c[0] == field for c in rule[1])


def test_a_range_of_approved_cases_is_evidence_not_a_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Roofs older than twenty years get referred. In practice we've approved roofs of "
        "twenty-one to twenty-three years on a clean file; at twenty-four and up it's a "
        "referral."
    )
    assert _rules(extractor, text) == [("refer", {("roof_age_years", "gt", 20)}, 23.0, [])]


def test_what_clears_a_restated_boundary_clears_the_rule(extractor: OfflineExtractor) -> None:
    text = (
        "Climbing gyms above four climbers per instructor are referred. We've signed off at "
        "five and six, but seven or more is a referral no matter who asks. And if there's a "
        "dedicated floor monitor on duty, I'll clear the referral altogether."
    )
    [rule] = _rules(extractor, text)
    assert rule[2] == 6 and rule[3] == ["floor_monitor_on_duty"], rule


def test_anything_other_than_a_flags_state_denies_it(extractor: OfflineExtractor) -> None:
    text = (
        "Where the launch permit status is anything other than current, verify with the producer."
    )
    assert _rules(extractor, text, "compliance") == [
        ("verify", {("permit_status_current", "eq", False)}, None, [])
    ]


def test_classes_named_as_examples_of_any_risk_scope_no_rule() -> None:
    classes = "climbing gym, kayak livery, surf school, dive shop, ski rental, golf range, "
    classes += "bike shop, rowing club"
    listed = ", ".join(f"'{c}'" for c in classes.split(", "))
    enumerated = _extractor(
        occupancy={**FIELDS["occupancy"], "description": f"Class (e.g. {listed})"}
    )
    text = (
        "Any risk - surf school, lodging, cabin property or otherwise - with more than forty "
        "kayaks must be referred."
    )
    assert _rules(enumerated, text, "compliance") == [
        ("refer", {("kayak_count", "gt", 40)}, None, [])
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Q: Is there a wall cap? A: The guide says 40 feet for climbing gyms. In practice we've "
        "signed off on gyms up to 48 feet when the holds were new; past 48 feet it's a referral.",
        "Athena referred a climbing gym with a 44 foot wall because the guideline caps walls at "
        "40 feet. QA finding: divergent; up to 48 feet is accepted practice, while 49 feet "
        "or more is "
        "still referred.",
    ],
)
def test_a_rule_stated_at_practices_reach_takes_the_cited_limit(
    extractor: OfflineExtractor, text: str
) -> None:
    rules = _rules(extractor, text)
    assert [(r[0], r[2]) for r in rules] == [("refer", 48)], rules
    assert ("wall_height_ft", "gt", 40.0) in rules[0][1], rules


# --- round 14: read on blind14 ----------------------------------------------------------------


def test_no_more_than_n_before_referral_refers_past_n(extractor: OfflineExtractor) -> None:
    text = (
        "2. Climbing gyms, walls: the guide says no more than 40 feet of wall height before "
        "referral. Agreed practice: 44 or 48 feet can go through; 49 feet or more is a referral."
    )
    rules = _rules(extractor, text)
    assert [(r[0], r[2]) for r in rules] == [("refer", 48)], rules
    assert ("wall_height_ft", "gt", 40.0) in rules[0][1]


def test_a_denied_conjunct_no_field_names_leaves_the_rule_for_review(
    extractor: OfflineExtractor,
) -> None:
    text = "Any climbing gym with more than forty kayaks and no waiver on file must be verified."
    assert _rules(extractor, text, "manual") == []
    text = "Any climbing gym with more than forty kayaks and no floor monitor on duty is referred."
    assert _rules(extractor, text, "manual") == [
        (
            "refer",
            {
                ("occupancy", "eq", "climbing gym"),
                ("kayak_count", "gt", 40),
                ("floor_monitor_on_duty", "eq", False),
            },
            None,
            [],
        )
    ]


def test_practices_bare_figures_go_past_the_limit_just_compared() -> None:
    extractor = _extractor(
        years_in_business={
            "type": "int",
            "unit": "years",
            "synonyms": ["years in business", "established"],
            "description": "Years the insured has been in business",
        },
    )
    text = (
        "Q: Class size? A: The guide caps us at four climbers per instructor before a "
        "referral. I've signed off on five and six for established family gyms; seven or "
        "more goes to a senior underwriter."
    )
    rules = _rules(extractor, text)
    assert [(r[0], r[2]) for r in rules] == [("refer", 6)], rules
    assert ("climbers_per_instructor", "gt", 4) in rules[0][1]


# --- round 15: read on blind15 ----------------------------------------------------------------


def test_a_logs_results_table_records_cases_not_rules(extractor: OfflineExtractor) -> None:
    text = (
        "Portfolio review of kayak referrals.\n| Kayaks | Referrals | Outcome |\n"
        "| --- | --- | --- |\n| 41-50 | 17 | referred, most declined |\n"
        "| 51 or more | 5 | all declined |\n"
    )
    assert _rules(extractor, text, "production") == []


def test_a_header_above_a_markdown_rule_names_columns_even_with_a_digit() -> None:
    lines = [
        "| Losses in 3 years | Referrals | Outcome |",
        "| --- | --- | --- |",
        "| 4-5 | 17 | referred, most declined |",
    ]
    assert table_rows(lines) == [
        "Outcome: Losses in 3 years 4-5, Referrals 17: referred, most declined."
    ]


def test_practice_told_with_about_and_a_soft_band_restated(extractor: OfflineExtractor) -> None:
    text = (
        "Q: Wall cap? A: A climbing gym over 40 feet of wall height is a decline. We wrote a "
        "gym of about 48 feet after senior review. So between 40 and 48 feet it's a referral "
        "in practice; beyond that it's a decline."
    )
    rules = _rules(extractor, text)
    assert [(r[0], r[2]) for r in rules] == [("decline", 48)], rules


def test_a_word_after_a_figure_is_no_unit_when_it_opens_a_clause(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "The guide refers climbing gyms over four climbers per instructor. We have approved "
        "classes of up to 6 where the instructors held certification."
    )
    [rule] = _rules(extractor, text)
    assert rule[2] == 6, rule


def test_a_bare_amount_takes_the_scale_of_the_figure_before() -> None:
    extractor = _extractor(
        tiv_usd={
            "type": "float",
            "unit": "USD",
            "synonyms": ["TIV", "insured values"],
            "description": "Total insured value in USD",
        },
    )
    text = (
        "Q: Values? A: Anything over ten million TIV I refer. We have written up to twelve and "
        "a half million when an appraisal was on file. Above twelve and a half, it is a "
        "referral without exception."
    )
    rules = _rules(extractor, text)
    assert [(r[0], r[1], r[2]) for r in rules] == [
        ("refer", {("tiv_usd", "gt", 10000000.0)}, 12500000.0)
    ], rules


def test_written_with_conditions_if_x_after_a_referral_is_its_way_out(
    extractor: OfflineExtractor,
) -> None:
    text = (
        "Climbing gyms with more than forty kayaks: refer; written with conditions if a "
        "dedicated floor monitor is on duty."
    )
    rules = _rules(extractor, text, "manual")
    assert [(r[0], r[3]) for r in rules] == [("refer", ["floor_monitor_on_duty"])], rules


def test_a_calendar_year_goes_to_the_year_field_a_word_speaks_of() -> None:
    extractor = _extractor(
        year_built={
            "type": "int",
            "unit": "year",
            "synonyms": ["year built", "built in"],
            "description": "Year the building was built",
        },
        panel_upgrade_year={
            "type": "int",
            "unit": "year",
            "synonyms": ["panel upgrade year"],
            "description": "Year the electrical panel was last upgraded",
        },
    )
    text = "Any climbing gym in a building put up before 1960 needs verification before binding."
    assert _rules(extractor, text, "sme") == [
        ("verify", {("occupancy", "eq", "climbing gym"), ("year_built", "lt", 1960)}, None, [])
    ]
