"""Offline extraction round 40: call notes, runs of named cases, case lines, table products.

Every field and sentence below is made up for these tests (a canal-boat-hire and
cider-press dictionary no dataset has).
"""

from __future__ import annotations

from agents.offline.tables import table_rows
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.rules import Condition
from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "boat_length_ft": {
        "type": "int",
        "unit": "ft",
        "synonyms": ["boat length", "length of the boat"],
        "description": "Canal boat hire: length of the longest hire boat",
    },
    "hires_per_month": {
        "type": "int",
        "unit": "hires/month",
        "synonyms": ["hires a month", "monthly hires"],
        "description": "Canal boat hire: hires let in a peak month",
    },
    "first_timer_hire_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["first-time hirers", "novice hirers"],
        "description": "Canal boat hire: share of hires to people who never steered a boat",
    },
    "mooring_depth_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["mooring depth", "water depth at the mooring"],
        "description": "Canal boat hire: water depth at the home mooring",
    },
    "boats_on_approval": {
        "type": "int",
        "unit": "boats",
        "synonyms": ["boats out on approval", "trial hires"],
        "description": "Canal boat hire: boats lent to buyers on approval",
    },
    "crew_size": {
        "type": "int",
        "unit": "people",
        "synonyms": ["crew", "yard crew"],
        "description": "Canal boat hire: people working the yard",
    },
    "diesel_stock_gal": {
        "type": "int",
        "unit": "gallons",
        "synonyms": ["diesel on site", "diesel stock"],
        "description": "Canal boat hire: diesel stored at the yard",
    },
    "lock_training_given": {
        "type": "bool",
        "synonyms": ["lock training", "lock handover"],
        "description": "Every hirer is walked through a lock before leaving",
    },
    "year_built": {
        "type": "int",
        "unit": "year",
        "synonyms": ["year built"],
        "description": "Year the yard building was built",
    },
    "pressings_per_year": {
        "type": "int",
        "unit": "pressings",
        "synonyms": ["pressings per year", "pressings a year"],
        "description": "Cider press: pressings run in a year",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def _soft(text: str, kind: str = "production") -> list[tuple[str, float | None]]:
    return [
        (r.conditions[0].field, r.soft_limit)
        for r in EXTRACTOR.extract(text, source_type=kind)
        if r.conditions
    ]


def test_a_question_answered_by_a_bare_verdict_is_a_rule() -> None:
    text = "Canal boat hire - call notes.\nBoats longer than 60 feet? Refer, GL. Shorter is fine."
    assert rule_triples(EXTRACTOR, text, "sme") == [("GL", "refer", [("boat_length_ft", "gt", 60)])]


def test_a_verdict_names_its_product_in_lower_case_or_as_the_next_sentence() -> None:
    lower = "Canal boat hire - call notes.\nDiesel on site over 500 gallons - refer, property."
    assert rule_triples(EXTRACTOR, lower, "sme") == [
        ("Property", "refer", [("diesel_stock_gal", "gt", 500)])
    ]
    apart = "Canal boat hire - call notes.\nBoats longer than 60 feet? Decline. GL."
    assert rule_triples(EXTRACTOR, apart, "sme") == [
        ("GL", "decline", [("boat_length_ft", "gt", 60)])
    ]


def test_a_product_list_after_a_verdict_is_no_product_of_it() -> None:
    text = "Boats longer than 60 feet on the GL are declined. BOP, Property and LRO are unaffected."
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        ("GL", "decline", [("boat_length_ft", "gt", 60)])
    ]


def test_a_run_of_named_cases_reaches_its_furthest_figure() -> None:
    text = (
        "The hire guide refers any yard where more than 20 percent of hires go to "
        "first-time hirers. This year we wrote Kestrel Cruisers at 24%, Lock Lane Boats at "
        "27% and Willow Wharf at 30% without referral."
    )
    assert _soft(text) == [("first_timer_hire_pct", 30.0)]


def test_a_run_below_a_lower_limit_reaches_its_lowest_figure() -> None:
    text = (
        "The hire guide refers any yard whose mooring depth is under 4 feet. The desk "
        "wrote three yards at 3, 3.5 and 3.8 feet without referral."
    )
    assert _soft(text) == [("mooring_depth_ft", 3.0)]


def test_a_case_line_is_read_without_its_date_outcome_word_and_other_parts() -> None:
    text = (
        "Hire yards - decision log. The guide refers any yard letting more than 40 hires "
        "a month. Cases:\n"
        "- 19 Jul 2024 - Kestrel Cruisers, 46 a month at the summer peak, crew of nine "
        "- approved\n"
        "- 02 Aug 2024 - Lock Lane Boats, 70 a month - referred"
    )
    # "approved" is no word of "boats out on approval"; "crew of nine" no hires figure
    assert _soft(text) == [("hires_per_month", 46.0)]


def test_a_case_line_whose_line_names_the_limit_keeps_to_it() -> None:
    text = (
        "Hire yards - decision log. The guide refers any yard letting more than 40 hires "
        "a month. It refers any yard with more than 500 gallons of diesel on site.\n"
        "- Kestrel Cruisers, 44 hires a month. Approved at 44 - quiet stretch of canal.\n"
        "- Lock Lane Boats, 520 gallons of diesel on site - approved"
    )
    assert sorted(_soft(text)) == [("diesel_stock_gal", 520.0), ("hires_per_month", 44.0)]


def test_a_table_whose_action_column_names_its_product() -> None:
    lines = [
        "| Pressings per year | Property treatment |",
        "| --- | --- |",
        "| 2,000 or fewer | standard |",
        "| more than 2,000 | refer |",
    ]
    assert table_rows(lines)[-1] == "Pressings per year more than 2,000: refer on Property."
    rules = rule_triples(EXTRACTOR, "Cider presses.\n\n" + "\n".join(lines))
    assert rules == [("Property", "refer", [("pressings_per_year", "gt", 2000)])]


def test_thousands_after_a_unit_word_are_no_list_of_labels() -> None:
    text = "Cider presses with pressings per year 2,001 to 6,000: refer on Property."
    fields = {c[0] for _, _, conds in rule_triples(EXTRACTOR, text) for c in conds}
    assert fields == {"pressings_per_year"}  # no year_built in [2, 1, 6, 0]


def test_cases_told_in_parentheses_then_approved_bend_the_limit() -> None:
    text = (
        "The hire manual refers yards with more than 500 gallons of diesel on site. This "
        "season Kestrel Cruisers (540 gallons) and Lock Lane Boats (580 gallons) were "
        "approved without referral; a 700-gallon yard was referred."
    )
    assert _soft(text) == [("diesel_stock_gal", 580.0)]


def test_a_case_in_parentheses_with_the_protection_at_work_bends_nothing() -> None:
    text = (
        "Any yard with more than 500 gallons of diesel on site is referred on Property "
        "unless every hirer gets lock training. HB-330 (640 gallons, lock training given) "
        "was approved without referral, which was correct."
    )
    assert _soft(text) == [("diesel_stock_gal", None)]


def test_a_rule_given_as_a_cases_reason_is_a_rule() -> None:
    text = (
        "Athena missed that Kestrel held 900 gallons of diesel; the underwriter referred it "
        "on that basis, since any yard carrying more than 750 gallons of diesel on site "
        "goes to referral on Property."
    )
    assert rule_triples(EXTRACTOR, text, "production") == [
        ("Property", "refer", [("diesel_stock_gal", "gt", 750)])
    ]


def test_what_the_speaker_wants_checked_is_a_verification() -> None:
    text = (
        "Q: Anything on the property side? A: Diesel. Over five hundred gallons of diesel "
        "on site and I want someone to "
        "verify how it is stored before the property is bound."
    )
    assert rule_triples(EXTRACTOR, text, "sme") == [
        ("Property", "verify", [("diesel_stock_gal", "gt", 500)])
    ]


def test_a_case_lines_date_is_no_figure_of_it() -> None:
    text = (
        "Hire yards - decision log. The guide refers any yard letting more than 20 hires "
        "a month. Cases:\n- 28 Jul 2024 - Kestrel Cruisers, 24 a month - approved"
    )
    assert _soft(text) == [("hires_per_month", 24.0)]  # not the 28th day of July


def test_a_case_lines_outcome_word_names_no_field() -> None:
    text = (
        "Hire yards - decision log. The guide refers any yard letting more than 40 hires "
        "a month. Cases:\n- Kestrel Cruisers 46 approved"
    )
    assert _soft(text) == [("hires_per_month", 46.0)]  # no 46 boats out on approval


def test_a_case_line_that_names_one_limit_bends_no_other() -> None:
    text = (
        "Hire yards - decision log. The guide refers any yard letting more than 40 hires "
        "a month. It refers boats longer than 30 feet.\n"
        "- Kestrel Cruisers, monthly hires, 44 - approved"
    )
    assert _soft(text) == [("hires_per_month", 44.0), ("boat_length_ft", None)]


def test_a_case_practice_watched_go_through_bends_the_limit() -> None:
    text = (
        "Canal boat hire - call notes.\nBoats longer than 60 feet? Refer, GL. Seen 66 go "
        "through, mind."
    )
    assert _soft(text, "sme") == [("boat_length_ft", 66.0)]


def test_a_memo_states_the_rule_with_the_figure_it_now_reads() -> None:
    text = (
        "MEMO. Re: Hire Guide, section 3. Section 3 currently says that a yard holding more "
        "than 500 gallons of diesel on site is referred on Property. Following the fire "
        "marshal's guidance, the 500 in section 3 now reads 400. Nothing else changes."
    )
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        ("Property", "refer", [("diesel_stock_gal", "gt", 400)])
    ]


def test_what_other_markets_write_is_no_reach_of_ours() -> None:
    text = (
        "Yards letting boats longer than 60 feet are referred. Some specialty markets will "
        "write boats up to 80 feet, which is not our appetite."
    )
    assert _soft(text, "manual") == [("boat_length_ft", None)]


def test_a_run_joined_by_and_with_reaches_its_last_figure() -> None:
    text = (
        "The 40-hire figure is a guideline. I've written yards with 44 and with 48 hires a "
        "month where every hirer gets lock training."
    )
    rules = EXTRACTOR.extract(
        "Yards letting more than 40 hires a month are referred. " + text, source_type="sme"
    )
    assert [(r.conditions[0].field, r.soft_limit) for r in rules] == [("hires_per_month", 48.0)]


def test_a_long_protection_name_said_in_another_order_and_word_form() -> None:
    extractor = extractor_over(
        BASE_FIELDS,
        {
            "waterways_guild_qualified": {
                "type": "bool",
                "synonyms": [
                    "society qualified",
                    "qualified hull fitter",
                    "boatwright society qualification",
                ],
                "description": "The skipper holds a recognised waterways guild qualification",
            },
            "hull_repairs": {
                "type": "bool",
                "synonyms": ["hull repairs"],
                "description": "Hull repairs done",
            },
        },
    )
    clause = (
        "a fitter qualified through a recognised boatwright society may be written "
        "without the referral"
    )
    assert extractor.analyzer.analyze(clause, "").conditions == [
        Condition(field="waterways_guild_qualified", operator="eq", value=True)
    ]


def test_hours_and_minutes_are_one_time_in_minutes() -> None:
    def read(text: str) -> list[tuple[float, str | None]]:
        return [(n.value, n.unit) for n in find_numbers(text)]

    assert read("one walk at an hour and forty-five minutes") == [(1.0, "walk"), (105.0, "minut")]
    assert read("2 hours, 30 minutes a day")[0] == (150.0, "minut")
    assert read("an hour and a half") == [(1.5, "hour")]  # a share of the hour, as before
    assert read("for an hour and then") == []  # "an hour" alone is no number


def test_another_forms_limit_in_an_aside_is_no_rule_of_ours() -> None:
    text = (
        "Yards with more than 500 gallons of diesel on site are referred on Property. (The "
        "marine dealers' floater, which this program does not write, has its own 300 gallon "
        "limit for diesel away from the premises; do not apply it here.)"
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("Property", "refer", [("diesel_stock_gal", "gt", 500)])
    ]


def test_oregon_said_as_or_before_the_clauses_verb() -> None:
    text = "Canal boat yards in OR are declined on the BOP until further notice."
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        ("BOP", "decline", [("state", "eq", "OR")])
    ]


def test_a_requirement_then_the_ones_with_less_are_declined() -> None:
    text = (
        "The mooring depth has to be at least 4 feet; a yard with less depth is declined on "
        "Property."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("Property", "decline", [("mooring_depth_ft", "lt", 4)])
    ]
