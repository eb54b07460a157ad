"""Offline extraction round 38: how far practice "flexed" or "stretched" a limit, a count
"a few times" after its figure, cases a log lists inline ("Decisions: a ... - bound; ...")
or letters ("(a) ... (b) ..."), a count named by its words over a field that only shares its
unit, a duration compared after "for" ("for ninety days or longer"), revenue said as a verb
("turning over"), "in total" beside a field named "total ...", a negation reaching over
a flag's own words, "less often than every N days", a share of a period restated in a
parenthesis, a flag whose description ends on a figure, "a seventh X means ...", a risk
asked and answered ("X? That one is a decline"), a count of one told beside a figure
("and one at thirteen hundred"), a person who waives a rule or treats it as a formality,
past approvals of "those" told in an interview, and an adjective between a count and
what it counts.

Every field and sentence below is made up for these tests (a bell-foundry and kite-shop
dictionary no dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "state": {"type": "str", "synonyms": ["state"], "description": "US state, two letters"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case: bell foundry, kite shop",
    },
    "employee_count": {
        "type": "int",
        "unit": "employees",
        "synonyms": ["employees", "headcount", "staff"],
        "description": "Number of employees",
    },
    "loss_count_3yr": {
        "type": "int",
        "unit": "losses",
        "synonyms": ["claims in three years", "number of claims"],
        "description": "Number of claims or losses in the past three years",
    },
    "crucible_burn_claims_3yr": {
        "type": "int",
        "unit": "claims",
        "synonyms": ["burn claims", "crucible claims"],
        "description": "Crucible burn claims in the past three years",
    },
    "prior_carrier_nonrenewal": {
        "type": "bool",
        "synonyms": ["prior carrier non-renewal", "non-renewed"],
        "description": "The prior carrier non-renewed the account",
    },
    "vacancy_days": {
        "type": "int",
        "unit": "days",
        "synonyms": ["vacant", "empty", "vacancy"],
        "description": "Days the building has been vacant",
    },
    "annual_revenue_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["annual revenue", "turnover", "sales"],
        "description": "Annual gross revenue in USD",
    },
    "tiv_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["TIV", "total insured value"],
        "description": "Total insured value in USD",
    },
    "kite_stock_value_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["stock value", "kites and lines value"],
        "description": "Replacement value of kites, lines and reels in USD",
    },
    "bell_weight_lb": {
        "type": "float",
        "unit": "lb",
        "synonyms": ["bell weight", "heaviest bell"],
        "description": "Weight of the heaviest bell cast, in pounds",
    },
    "casting_pit_fume_hood": {
        "type": "bool",
        "synonyms": ["bronze fume extraction", "enclosed pit hood"],
        "description": "The casting pit has an enclosed hood with fume extraction",
    },
    "sand_sieve_interval_days": {
        "type": "int",
        "unit": "days",
        "synonyms": ["sand sieving interval", "moulding sand sieved every"],
        "description": "Days between sievings of the moulding sand",
    },
    "kite_festival_weeks": {
        "type": "int",
        "unit": "weeks",
        "synonyms": ["festival weeks", "weeks of kite festivals"],
        "description": "Weeks a year the shop runs kite festivals",
    },
    "online_sales_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["online sales", "web orders"],
        "description": "Share of sales made online",
    },
    "teaches_children_under_10": {
        "type": "bool",
        "synonyms": ["junior classes", "kite classes for children"],
        "description": "The shop teaches kite flying to children under ten",
    },
    "bell_tuning_grade": {
        "type": "str",
        "synonyms": ["tuning grade", "tuner grade"],
        "description": "Grade the tuner gave the heaviest casting, one letter A-E",
    },
    "lacquer_booth": {
        "type": "bool",
        "synonyms": ["listed spray booth", "spray booth"],
        "description": "Kite shop: lacquer is sprayed only inside a listed spray booth",
    },
    "carries_town_liability": {
        "type": "bool",
        "synonyms": ["assumed municipal liability", "hold harmless for the town"],
        "description": "Street guard firm: contracts assume the municipality's own liability",
    },
}
EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _rules(text: str, kind: str = "manual") -> list[tuple[str, str, list[tuple[str, str, object]]]]:
    return [
        (r.product_type, r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def _soft(text: str, kind: str = "production") -> list[tuple[str, float | None]]:
    return [
        (r.conditions[-1].field, r.soft_limit) for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def test_a_limit_flexed_to_a_figure_in_practice_is_soft_to_it() -> None:
    text = (
        "Stated rule: bells heavier than 2,000 lb are referred. QA view: the 2,000 lb rule "
        "has flexed to 2,400 lb in practice, and above that it has held."
    )
    assert _soft(text) == [("bell_weight_lb", 2400.0)]


def test_a_limit_stretched_it_to_a_figure_is_soft_to_it() -> None:
    text = (
        "Above forty staff, refer. I've stretched it to forty-eight when the foundry was "
        "new, never past that."
    )
    assert _soft(text, "sme") == [("employee_count", 48.0)]


def test_a_figure_a_few_times_has_no_unit_of_few() -> None:
    assert find_numbers("gone to forty a few times")[0].unit is None
    text = (
        "The BOP caps us at thirty-five employees; above that it's a referral. We've gone "
        "to forty a few times for seasonal crews."
    )
    assert _soft(text, "sme") == [("employee_count", 40.0)]


def test_inline_cases_give_the_furthest_approved_figure_and_no_rule() -> None:
    text = (
        "Rule as written: bells heavier than 2,000 lb are referred on the GL. Decisions: "
        "an Ohio foundry casting 2,300 lb - bound without referral, QA accepted; a Texas "
        "foundry at 2,600 lb - bound after senior review; a second Ohio foundry at 3,400 lb "
        "- referred and declined. Above 2,600 nothing has been bound."
    )
    assert _rules(text, "production") == [("GL", "refer", [("bell_weight_lb", "gt", 2000.0)])]
    assert _soft(text) == [("bell_weight_lb", 2600.0)]


def test_a_line_that_flexes_up_to_a_figure_is_soft_to_it() -> None:
    text = (
        "Guideline: shops with more than twenty staff are referred. The twenty-staff line "
        "flexes up to 24 in practice, but beyond that it holds."
    )
    assert _soft(text) == [("employee_count", 24.0)]


def test_lettered_cases_give_the_furthest_approved_figure() -> None:
    text = (
        "Guideline: shops with more than twenty staff are referred. Cases: (a) 18 staff, "
        "Dayton - bound normally. (b) 23 staff, Tulsa - bound by an associate without "
        "referral. (c) 31 staff, Reno - referred and declined. Learned: it holds past 23."
    )
    assert _soft(text) == [("employee_count", 23.0)]


def test_inline_items_without_outcomes_stay_one_sentence() -> None:
    text = (
        "Notes: bells heavier than 2,000 lb are referred; foundries with more than forty "
        "staff are referred."
    )
    assert [c[0][0] for _, _, c in _rules(text, "production")] == [
        "bell_weight_lb",
        "employee_count",
    ]


def test_a_count_named_by_its_words_beats_a_field_sharing_only_its_unit() -> None:
    text = (
        "Anything with a prior carrier non-renewal and two or more claims in the last three "
        "years is a decline."
    )
    assert _rules(text) == [
        ("ALL", "decline", [("loss_count_3yr", "gte", 2), ("prior_carrier_nonrenewal", "eq", True)])
    ]
    burns = "Two or more burn claims in three years are referred."
    assert _rules(burns) == [("ALL", "refer", [("crucible_burn_claims_3yr", "gte", 2)])]


def test_a_duration_compared_after_for_is_a_threshold() -> None:
    text = "Buildings that have sat empty for ninety days or longer are referred."
    assert _rules(text) == [("ALL", "refer", [("vacancy_days", "gte", 90)])]


def test_revenue_said_as_turning_over_is_the_revenue_field() -> None:
    text = "BOP accounts turning over more than $4 million a year are referred."
    assert _rules(text) == [("BOP", "refer", [("annual_revenue_usd", "gt", 4_000_000.0)])]


def test_in_total_does_not_name_the_total_insured_value() -> None:
    text = (
        "Where the kites are worth more than $90,000 in total, refer for an inland marine floater."
    )
    assert _rules(text) == [("ALL", "refer", [("kite_stock_value_usd", "gt", 90_000.0)])]


def test_a_negation_reaches_over_the_flags_own_words() -> None:
    text = (
        "If there is no enclosed casting hood with fume extraction for the bronze, verify "
        "how the fumes are controlled."
    )
    assert _rules(text) == [("ALL", "verify", [("casting_pit_fume_hood", "eq", False)])]


def test_less_often_than_every_n_days_is_an_interval_longer_than_n() -> None:
    text = "Where the moulding sand is sieved less often than every 30 days, verify the logs."
    assert _rules(text) == [("ALL", "verify", [("sand_sieve_interval_days", "gt", 30)])]
    often = "Where the moulding sand is sieved more often than every 5 days, flag it."
    assert _rules(often) == [("ALL", "flag_for_review", [("sand_sieve_interval_days", "lt", 5)])]


def test_a_share_of_the_year_restated_in_a_parenthesis_is_that_figure() -> None:
    text = (
        "If kite festivals run for more than half the year (call it 26 weeks), flag it for review."
    )
    assert _rules(text) == [("ALL", "flag_for_review", [("kite_festival_weeks", "gt", 26)])]


def test_half_the_year_is_no_share_of_a_percent_field() -> None:
    text = "If the shop trades online sales for more than half the year, flag it for review."
    assert all(c[0][0] != "online_sales_pct" for _, _, c in _rules(text))


def test_a_figure_ending_a_flags_description_bounds_nothing() -> None:
    text = (
        "Where a shop runs kite classes for children under ten, the GL carries the junior "
        "exclusion."
    )
    assert _rules(text) == [("GL", "exclude", [("teaches_children_under_10", "eq", True)])]


def test_a_seventh_one_means_past_the_range_said() -> None:
    text = (
        "A shop may run with no more than six staff and stay within desk authority; a seventh "
        "employee means the account is referred."
    )
    assert _rules(text) == [("ALL", "refer", [("employee_count", "gt", 6)])]


def test_a_risk_asked_then_answered_is_a_rule() -> None:
    text = "Bell foundry without a casting fume hood? That one is a decline on the BOP."
    assert _rules(text, "training") == [
        (
            "BOP",
            "decline",
            [("casting_pit_fume_hood", "eq", False), ("occupancy", "eq", "bell foundry")],
        )
    ]


def test_a_count_of_one_beside_a_figure_is_no_part_of_it() -> None:
    said = "written three at around twelve hundred and one at thirteen hundred pounds"
    assert [m.value for m in find_numbers(said)] == [3.0, 1200.0, 1.0, 1300.0]
    assert [m.value for m in find_numbers("twelve hundred and one pounds")] == [1201.0]


def test_a_rule_a_person_waives_or_treats_as_a_formality_is_no_rule() -> None:
    waived = "Where the foundry has a bronze fume extraction, I waive the bell-weight referral."
    formality = (
        "When the pit has bronze fume extraction I treat the bell-weight referral as close to "
        "a formality."
    )
    assert _rules(waived, "sme") == []
    assert _rules(formality, "sme") == []
    text = "Bells heavier than 2,000 lb are referred. " + formality
    assert [sorted(r.mitigant_fields) for r in EXTRACTOR.extract(text, source_type="sme")] == [
        ["casting_pit_fume_hood"]
    ]


def test_approvals_of_those_told_in_an_interview_are_no_rule() -> None:
    text = (
        "Where the foundry has a bronze fume extraction, I have accepted owners with bigger "
        "bells, and we approved those with conditions."
    )
    # at most a relief (the protection practice accepts), never a rule on the protection
    assert [c for _, _, c in _rules(text, "sme")] in ([], [[]])


def test_an_adjective_between_a_count_and_its_noun_is_no_unit() -> None:
    assert [m.unit for m in find_numbers("two formal inspections")] == ["inspection"]
    assert [m.unit for m in find_numbers("three full years")] == ["years"]
    assert [(m.value, m.unit) for m in find_numbers("two formal walk-rounds")] == [(2.0, None)]


def test_a_span_of_letters_in_a_description_lists_the_values() -> None:
    text = "Where the tuning grade is D or E, decline."
    assert _rules(text) == [("ALL", "decline", [("bell_tuning_grade", "in", ["D", "E"])])]


def test_anywhere_other_than_inside_denies_the_flag_on_the_property() -> None:
    text = "Spraying lacquer anywhere other than inside a listed spray booth is a property decline."
    assert _rules(text) == [("Property", "decline", [("lacquer_booth", "eq", False)])]


def test_a_class_label_in_a_description_makes_no_flag_protective() -> None:
    text = "A street guard firm that has assumed municipal liability is referred."
    assert _rules(text) == [("ALL", "refer", [("carries_town_liability", "eq", True)])]


def test_except_where_located_in_states_excludes_them() -> None:
    text = (
        "Except where the risk is located in Texas, Oklahoma or Louisiana, a firm that has "
        "assumed the municipality's liability is referred."
    )
    assert _rules(text) == [
        (
            "ALL",
            "refer",
            [("carries_town_liability", "eq", True), ("state", "not_in", ["TX", "OK", "LA"])],
        )
    ]


def test_a_line_labelled_case_records_a_case_not_a_rule() -> None:
    text = (
        "Case LR-25-1984: LRO building let to a kite shop; the shop has no spray booth; "
        "referred, and the referral underwriter declined to quote."
    )
    assert _rules(text, "production") == []


def test_a_count_ordered_after_a_lead_names_the_field_of_the_bare_figure() -> None:
    text = (
        "If the heaviest bell is more than 2,000 lb, refer. For shops that teach on their own "
        "premises, count the staff on the floor in a single session; where there are more "
        "than twelve, refer to the team lead."
    )
    assert [c for _, _, c in _rules(text)] == [
        [("bell_weight_lb", "gt", 2000.0)],
        [("employee_count", "gt", 12)],
    ]


def test_the_team_lead_sees_the_file_is_a_referral() -> None:
    text = "If the heaviest bell is more than 2,000 lb, the BOP team lead sees the file."
    assert _rules(text) == [("BOP", "refer", [("bell_weight_lb", "gt", 2000.0)])]


def test_reinsurers_are_no_business_class() -> None:
    text = (
        "Our reinsurers have asked us to tighten the referral point. Refer any foundry "
        "whose heaviest bell is more than 1,500 lb."
    )
    assert all(
        c[0] != "occupancy" or c[2] == "bell foundry" for _, _, cs in _rules(text) for c in cs
    )
    assert len(_rules(text)) == 1


def test_nothing_above_a_figure_was_approved_is_practices_reach() -> None:
    text = "Refer bells heavier than 2,000 lb. Nothing above 2,600 lb was approved."
    assert _soft(text) == [("bell_weight_lb", 2600.0)]


def test_a_cases_reference_between_figures_keeps_the_run() -> None:
    text = (
        "Refer bells heavier than 2,000 lb. Approved with conditions at 2,300 lb "
        "(PR-25-0107) and at 2,450 lb (PR-25-0151)."
    )
    assert _soft(text) == [("bell_weight_lb", 2450.0)]


def test_a_form_this_company_does_not_write_states_no_rule() -> None:
    text = (
        "Refer bells heavier than 2,000 lb. The museum form, which this company does not "
        "write, tolerates up to 3,000 lb."
    )
    assert _rules(text) == [("ALL", "refer", [("bell_weight_lb", "gt", 2000.0)])]
    told = (
        "Refer bells heavier than 2,000 lb. The museum form allows 3,000 lb and refers above "
        "it; that figure has no standing here."
    )
    assert _rules(told) == [("ALL", "refer", [("bell_weight_lb", "gt", 2000.0)])]


def test_put_through_with_a_figure_is_practices_reach() -> None:
    text = (
        "Refer bells heavier than 2,000 lb. With a bronze fume extraction I have put bells "
        "through with 2,250 lb, and I would do it again."
    )
    assert _soft(text, "sme") == [("bell_weight_lb", 2250.0)]


def test_we_bound_it_with_conditions_tells_a_case() -> None:
    text = (
        "The guide says bells heavier than 2,000 lb are referred. The Dayton foundry (OH) "
        "cast 2,300 lb last year and we bound it with conditions."
    )
    assert _rules(text, "production") == [("ALL", "refer", [("bell_weight_lb", "gt", 2000.0)])]


def test_the_practical_ceiling_and_nothing_gotten_through_are_practices_reach() -> None:
    ceiling = "Refer bells heavier than 2,000 lb. 2,500 lb is the practical ceiling."
    through = "Refer bells heavier than 2,000 lb. Nothing above 2,400 lb has gotten through."
    assert _soft(ceiling) == [("bell_weight_lb", 2500.0)]
    assert _soft(through) == [("bell_weight_lb", 2400.0)]


def test_an_action_label_over_what_it_acts_on_is_a_rule() -> None:
    text = "2.2 Referred: any risk with fewer than forty staff that has already had a loss."
    assert _rules(text) == [
        ("ALL", "refer", [("employee_count", "lt", 40), ("loss_count_3yr", "gte", 1)])
    ]


def test_a_case_told_against_its_guideline_states_the_guideline() -> None:
    text = (
        "BL-2024-0901: Kite shop, Dayton OH, 14 staff against the 10-staff guideline on the "
        "BOP; the underwriter approved because four are seasonal. BL-2024-0933: Kite shop, "
        "Akron OH, 16 staff, approved by the senior - the largest we have written. "
        "BL-2024-0958: Kite shop, 22 staff, referred and placed elsewhere."
    )
    assert _rules(text, "production") == [("BOP", "refer", [("employee_count", "gt", 10)])]
    assert _soft(text) == [("employee_count", 16.0)]


def test_the_most_we_have_approved_reaches_the_cases_figure_before_it() -> None:
    text = (
        "RR-2025-014. The shop runs 14 staff against our BOP guideline of ten; the "
        "underwriter approved because four of them are seasonal, and that is the most we "
        "have approved."
    )
    assert _rules(text, "production") == [("BOP", "refer", [("employee_count", "gt", 10)])]
    assert _soft(text) == [("employee_count", 14.0)]
