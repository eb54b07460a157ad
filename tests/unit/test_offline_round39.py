"""Offline extraction round 39: "no." ends a sentence unless a number follows it.

Every field and sentence below is made up for these tests (a lapidary-workshop dictionary
no dataset has).
"""

from __future__ import annotations

from agents.offline.plain_text import said_plainly
from agents.offline.practice_text import approved_outcome
from memory.underwriting.fieldlink.numbers import find_numbers
from tests.rules import BASE_FIELDS, extractor_over, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "tumbler_unattended_hours": {
        "type": "int",
        "unit": "hours",
        "synonyms": ["unattended running", "hours with nobody in the building"],
        "description": "Lapidary workshop: hours a week tumblers run with nobody present",
    },
    "tumbler_timer_cutoff": {
        "type": "bool",
        "synonyms": ["timer cut-off", "timer cutoff"],
        "description": "Lapidary workshop: every tumbler is wired through a timer cut-off",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_a_no_ending_a_sentence_keeps_the_next_sentence_apart() -> None:
    text = (
        "The forty hours in the guide is a referral point, not a no. I've approved with "
        "conditions at fifty hours where every tumbler is wired through a timer cut-off."
    )
    rules = rule_triples(EXTRACTOR, text, "sme")
    # the approval's protection is not a referral trigger of its own
    assert ("ALL", "refer", [("tumbler_timer_cutoff", "eq", True)]) not in rules
    assert [action for _, action, _ in rules] == ["approve_with_conditions"]


def test_no_before_a_number_stays_an_abbreviation() -> None:
    text = (
        "Workshops listed in No. 4 schedule with more than 40 hours of unattended running "
        "are referred."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "refer", [("tumbler_unattended_hours", "gt", 40)])
    ]


MORE = {
    "commission_cutting_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["commission cutting", "commission work"],
        "description": "Lapidary workshop: share of work cut on commission for clients",
    },
    "saw_breakages_5yr": {
        "type": "int",
        "unit": "breakages",
        "synonyms": ["saw breakages", "blade breakages"],
        "description": "Lapidary workshop: slab saw blade breakages in five years",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "frame, joisted masonry, non-combustible, fire resistive",
    },
    "bronze_frame_brazing": {
        "type": "bool",
        "synonyms": ["bronze frame brazing", "brazing on site"],
        "description": "Bronze frames are brazed on site",
    },
}
WIDER = extractor_over(FIELDS, MORE)


def test_a_restatement_the_next_speaker_denies_is_no_rule() -> None:
    text = (
        "TB: My notes say a lapidary workshop is declined once more than a quarter of its "
        "work is commission cutting. Is that right?\n"
        "RO: No, that's too strong. Over a quarter of commission work gets referred, not "
        "declined."
    )
    assert rule_triples(WIDER, text, "sme") == [
        ("ALL", "refer", [("commission_cutting_pct", "gt", 25.0)])
    ]


def test_a_restatement_the_next_speaker_agrees_with_stays() -> None:
    text = (
        "TB: My notes say a lapidary workshop is declined once more than a quarter of its "
        "work is commission cutting.\n"
        "RO: That's right, we have never written one."
    )
    assert [a for _, a, _ in rule_triples(WIDER, text, "sme")] == ["decline"]


def test_a_question_naming_a_field_gives_the_answers_bare_figure_its_field() -> None:
    text = (
        "TB: Commission work?\nRO: Over a quarter of commission work gets referred.\n"
        "TB: Saw breakages?\nRO: One in five years is bad luck. Two or more and I want to "
        "see the file - refer it."
    )
    assert ("ALL", "refer", [("saw_breakages_5yr", "gte", 2)]) in rule_triples(WIDER, text, "sme")


def test_a_bound_before_a_third_makes_it_a_share() -> None:
    assert [n.value for n in find_numbers("up to about a third commission work")] == [0.333333333]
    assert [n.value for n in find_numbers("more than a third of the work")] == [0.333333333]
    assert find_numbers("claims over a third party's goods") == []
    assert find_numbers("the third floor") == []


def test_a_hedged_figure_after_a_practice_cue_is_the_soft_limit() -> None:
    text = (
        "Over a quarter of commission work is referred. In practice I've signed off shops "
        "running up to about 33 percent commission work."
    )
    rules = WIDER.extract(text, source_type="sme")
    assert [r.soft_limit for r in rules] == [33]


def test_gets_a_referral_is_a_clause_of_its_own() -> None:
    text = "Two or more saw breakages gets a referral, and at three or more it becomes a decline."
    assert rule_triples(WIDER, text) == [
        ("ALL", "refer", [("saw_breakages_5yr", "gte", 2)]),
        ("ALL", "decline", [("saw_breakages_5yr", "gte", 3)]),
    ]


def test_a_class_value_inside_a_flags_own_phrase_is_no_class() -> None:
    assert rule_triples(WIDER, "Where bronze frames are brazed on site, verify the hot work.") == [
        ("ALL", "verify", [("bronze_frame_brazing", "eq", True)])
    ]
    # the same word standing alone is the class
    assert rule_triples(WIDER, "Frame buildings with brazing on site are referred.") == [
        (
            "ALL",
            "refer",
            [("bronze_frame_brazing", "eq", True), ("construction_type", "eq", "frame")],
        )
    ]


def test_a_subject_without_a_flag_may_still_be_written() -> None:
    text = "Tumblers without timer cutoff may be written if the insured accepts a warranty."
    assert rule_triples(EXTRACTOR, text) == [
        ("ALL", "approve_with_conditions", [("tumbler_timer_cutoff", "eq", False)])
    ]


def test_i_put_one_through_is_an_approval() -> None:
    assert approved_outcome("I put one through at forty-six hours last winter.")
    assert not approved_outcome("I put it through to the referral desk.")


LOG_FIELDS = {
    **BASE_FIELDS,
    "kiln_burns_3yr": {
        "type": "int",
        "unit": "burns",
        "synonyms": ["burns at the kiln", "kiln injuries"],
        "description": "Glass studio: burns at the kiln in the last three years",
    },
    "pieces_fired_per_year": {
        "type": "int",
        "unit": "pieces",
        "synonyms": ["pieces fired", "firings"],
        "description": "Glass studio: pieces fired a year",
    },
    "kiln_room_peak_f": {
        "type": "float",
        "unit": "degrees F",
        "synonyms": ["kiln room temperature", "peak kiln-room temperature"],
        "description": "Glass studio: peak temperature of the kiln room",
    },
    "kiln_room_extraction": {
        "type": "bool",
        "synonyms": ["kiln room extraction", "mechanical extraction"],
        "description": "Glass studio: the kiln room has mechanical extraction",
    },
    "loaned_glass_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["customers' glass on loan", "loaned glass"],
        "description": "Glass studio: value of customers' glass on loan in the studio",
    },
    "gas_leak_drill_logged": {
        "type": "bool",
        "synonyms": ["gas leak drill", "leak drill log"],
        "description": "Glass studio: a gas leak drill is logged every month",
    },
    "kiln_unguarded": {
        "type": "bool",
        "synonyms": ["unguarded kiln", "kiln without a guard"],
        "description": "Glass studio: a kiln has no guard rail",
    },
    "gas_torches_count": {
        "type": "int",
        "unit": "torches",
        "synonyms": ["gas torches", "torches"],
        "description": "Glass studio: gas torches on the benches",
    },
}
GLASS = extractor_over(LOG_FIELDS)


def test_any_then_the_unit_a_count_field_counts_is_more_than_none() -> None:
    text = "Burns: any burn in the last three years means referral."
    assert rule_triples(GLASS, text) == [("ALL", "refer", [("kiln_burns_3yr", "gt", 0)])]


def test_a_limit_of_none_is_not_bent_to_thousands() -> None:
    text = (
        "Volume: the guide refers anything firing more than 2,500 pieces a year. Burns: any "
        "burn in the last three years means referral. Underwriters have approved up to "
        "3,000 on referral."
    )
    soft = {r.conditions[0].field: r.soft_limit for r in GLASS.extract(text, source_type="sme")}
    assert soft == {"kiln_burns_3yr": None, "pieces_fired_per_year": 3000}


def test_a_recommendation_on_a_named_rule_is_a_case_not_a_rule() -> None:
    text = (
        "Athena recommended decline on the unguarded kiln rule and the underwriter agreed. "
        "The rule: a studio with more than two burns at the kiln is declined."
    )
    assert rule_triples(GLASS, text, "production") == [
        ("ALL", "decline", [("kiln_burns_3yr", "gt", 2)])
    ]


def test_an_approval_on_the_mitigant_just_named_is_no_rule_of_its_own() -> None:
    text = (
        "If a studio has more than six gas torches, I refer it. If they log a gas leak drill "
        "every month, that's the mitigant. With that in the file I'll write it with "
        "conditions."
    )
    rules = GLASS.extract(text, source_type="sme")
    assert [(r.action, r.mitigant_fields) for r in rules] == [("refer", ["gas_leak_drill_logged"])]


def test_at_or_under_includes_the_figure() -> None:
    assert rule_triples(
        GLASS, "At or under six gas torches is fine; anything more is referred."
    ) == [("ALL", "refer", [("gas_torches_count", "gt", 6)])]
    assert rule_triples(GLASS, "At or above 90 °F of kiln room temperature is declined.") == [
        ("ALL", "decline", [("kiln_room_peak_f", "gte", 90)])
    ]


def test_a_degree_sign_is_a_unit_of_degrees() -> None:
    assert [(n.value, n.unit) for n in find_numbers("80 °F or higher; 5°C")] == [
        (80, "degree"),
        (5, "degree"),
    ]
    text = (
        "Peak kiln-room temperature 95 °F or higher: decline (Property); referral instead "
        "if the room has mechanical extraction."
    )
    rules = GLASS.extract(text)
    assert [(r.action, r.conditions[0].value, r.mitigant_fields) for r in rules] == [
        ("decline", 95, ["kiln_room_extraction"])
    ]


def test_cases_over_a_named_line_state_that_line_as_a_rule() -> None:
    text = (
        "Weekly summary. Two studios this week, both over the $40,000 BOP line for "
        "customers' glass on loan: we bound one at $44,000 and another at $46,000 after "
        "referral."
    )
    rules = GLASS.extract(text, source_type="production")
    assert [(r.product_type, r.action, r.conditions[0].value, r.soft_limit) for r in rules] == [
        ("BOP", "refer", 40000, 46000)
    ]


def test_if_it_doesnt_after_ask_whether_is_the_flag_missing() -> None:
    text = (
        "Ask whether the studio has a gas leak drill logged. If it doesn't, we still write "
        "the BOP, but with the gas warranty attached."
    )
    assert rule_triples(GLASS, text, "training") == [
        ("BOP", "approve_with_conditions", [("gas_leak_drill_logged", "eq", False)])
    ]
    text = "Check whether the studio has a gas leak drill logged. If not, refer the BOP."
    assert rule_triples(GLASS, text, "training") == [
        ("BOP", "refer", [("gas_leak_drill_logged", "eq", False)])
    ]


def test_an_approval_on_a_mitigant_not_pointed_at_stays_a_rule() -> None:
    text = (
        "Studios with more than six gas torches are referred unless a gas leak drill is "
        "logged. Whenever a gas leak drill is logged, the desk writes the account subject "
        "to a monthly drill condition."
    )
    actions = [a for _, a, _ in rule_triples(GLASS, text)]
    assert actions == ["refer", "approve_with_conditions"]


CLASSES = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case: glass studio, kite shop, bell foundry, "
        "puppet theatre",
    },
    "central_alarm": {
        "type": "bool",
        "synonyms": ["central station alarm", "monitored alarm"],
        "description": "A central station alarm protects the premises",
    },
    "exposure_monitored": {
        "type": "bool",
        "synonyms": ["exposure monitoring", "monitors exposure"],
        "description": "The shop monitors its workers' solvent exposure",
    },
}
SHOPS = extractor_over(CLASSES)
WITHOUT_ALARM = ("central_alarm", "eq", False)


def test_classes_excepted_are_every_class_but_those() -> None:
    for text in (
        "Except for kite shops and puppet theatres, a Property submission without a central "
        "station alarm is referred.",
        "A Property submission without a central station alarm is referred, except for kite "
        "shops and puppet theatres.",
        "For every class other than kite shops or puppet theatres, a Property submission "
        "without a central station alarm is referred.",
    ):
        assert rule_triples(SHOPS, text) == [
            (
                "Property",
                "refer",
                [WITHOUT_ALARM, ("occupancy", "not_in", ["kite shop", "puppet theatre"])],
            )
        ], text


def test_a_requirement_said_not_to_apply_to_classes_holds_every_other_class() -> None:
    text = (
        "The alarm requirement does not apply to kite shops or puppet theatres: their stock "
        "sits in someone else's hall. Every other class in the program is subject to it - a "
        "Property submission without a central station alarm is referred."
    )
    assert rule_triples(SHOPS, text) == [
        (
            "Property",
            "refer",
            [WITHOUT_ALARM, ("occupancy", "not_in", ["kite shop", "puppet theatre"])],
        )
    ]


def test_if_it_does_not_is_never_read_as_if_it_does() -> None:
    said = said_plainly("Ask whether the studio has an alarm. If it does not, refer it.")
    assert "If the studio does not have an alarm, refer it." in said
    # no auxiliary to deny: the text stays as written, never turned into "If it does"
    said = said_plainly("Ask whether the studio monitors exposure. If it does not, refer it.")
    assert "If it does not, refer it." in said


def test_let_a_few_go_at_a_figure_is_practices_reach() -> None:
    text = "More than six gas torches is referred. I've let a few go at eight torches."
    assert [r.soft_limit for r in GLASS.extract(text, source_type="sme")] == [8]


COURSES = {
    **BASE_FIELDS,
    "blade_course_days_yr": {
        "type": "int",
        "unit": "days/year",
        "synonyms": ["blade course days", "days with blades in participants' hands"],
        "description": "Course days a year on which participants handle knives or axes",
    },
    "tuition_share_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["tuition", "teaching income"],
        "description": "Share of revenue from tuition",
    },
}
SCHOOLS = extractor_over(COURSES)


def test_days_in_the_year_are_days_a_year() -> None:
    assert [(n.value, n.unit) for n in find_numbers("forty days in the year")] == [
        (40, "day per year")
    ]
    assert [n.unit for n in find_numbers("ten days in the year 2019")] == ["days", "year"]
    text = (
        "A school that puts blades into participants' hands on more than forty days in the "
        "year is referred."
    )
    assert rule_triples(SCHOOLS, text) == [("ALL", "refer", [("blade_course_days_yr", "gt", 40)])]


def test_a_rule_named_by_its_section_with_its_terms_in_parentheses_is_withdrawn() -> None:
    text = (
        "Effective 30 June 2025, the all-lines referral in General Manual Section 4.6 "
        "(tuition above half of revenue) is withdrawn."
    )
    rules = SCHOOLS.extract(text, source_type="compliance")
    assert [(r.action, r.withdrawn, r.conditions[0].field) for r in rules] == [
        ("refer", True, "tuition_share_pct")
    ]


def test_both_is_no_business_class() -> None:
    subjects = SHOPS.analyzer.subjects
    assert subjects.read("Both are declined") == []
    assert subjects.read("Kite shops are declined") == ["kite shop"]


def test_has_been_accepted_with_conditions_tells_practice_not_a_rule() -> None:
    boats = extractor_over(
        BASE_FIELDS,
        {
            "boat_lights": {
                "type": "bool",
                "synonyms": ["navigation lights", "boat navigation lights"],
                "description": "Every swan boat carries navigation lights",
            }
        },
    )
    text = (
        "Where every swan boat carries navigation lights, evening hire has been accepted "
        "with conditions."
    )
    rules = rule_triples(boats, text, "production")
    assert ("ALL", "approve_with_conditions", [("boat_lights", "eq", True)]) not in rules
    said = (
        "Where every swan boat carries navigation lights, evening hire is written with conditions."
    )
    assert rule_triples(boats, said) == [
        ("ALL", "approve_with_conditions", [("boat_lights", "eq", True)])
    ]
