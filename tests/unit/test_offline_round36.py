"""Offline extraction round 36: a count per period in a field counting the period's units,
an opening that points back at the classes just listed ("For these three, ..."), a flag
denied by a prefix on any word of its phrase ("client files unencrypted"), a log's case
that shows a mitigant at work (no reach of practice), a conditional approval that is no
practice evidence, and practice's ceiling told after its figure ("six is the ceiling").

Every field and sentence below is made up for these tests (a bell-foundry and
rope-access dictionary no dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case: bell foundry, rope access, clock repairer",
    },
    "sprinklered": {
        "type": "bool",
        "synonyms": ["sprinklered", "sprinklers"],
        "description": "Automatic sprinklers throughout",
    },
    "fair_visitors_peak": {
        "type": "int",
        "unit": "people",
        "synonyms": ["peak attendance", "crowd size"],
        "description": "Visitors on the busiest day of the bell fair",
    },
    "fair_days": {
        "type": "int",
        "unit": "days",
        "synonyms": ["fair days", "event days"],
        "description": "Number of bell fair days held per year",
    },
    "casting_pits": {
        "type": "int",
        "unit": "pits",
        "synonyms": ["casting pits", "pits"],
        "description": "Casting pits on one premises",
    },
    "tin_share_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["tin content"],
        "description": "Share of tin in the bell metal",
    },
    "export_share_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["export sales", "exports"],
        "description": "Share of sales exported",
    },
    "ledgers_encrypted": {
        "type": "bool",
        "synonyms": ["ledgers encrypted", "encryption"],
        "description": "Client ledgers are held encrypted",
    },
    "tower_jobs_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["tower work"],
        "description": "Share of jobs done in bell towers",
    },
}
EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": FIELDS}))


def _read(text: str, kind: str = "manual") -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def _soft(text: str, kind: str = "production") -> list[tuple[str, float | None]]:
    return [
        (r.conditions[0].field, r.soft_limit) for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def test_days_a_year_fill_the_field_counting_days_not_the_crowd_before() -> None:
    text = (
        "The guide refers any fair whose busiest day draws more than 4,000 people. "
        "Fairs running more than three days a year are written with the night watch "
        "condition attached."
    )
    assert _read(text, "production") == [
        ("refer", [("fair_visitors_peak", "gt", 4000)]),
        ("approve_with_conditions", [("fair_days", "gt", 3)]),
    ]


def test_a_time_figure_does_not_continue_a_limit_on_people() -> None:
    text = (
        "The guide refers any fair whose busiest day draws more than 4,000 people. "
        "Anything open more than three days a week is written with the watch condition."
    )
    assert ("approve_with_conditions", [("fair_visitors_peak", "gt", 3)]) not in _read(text)


def test_for_these_three_scopes_the_rule_to_the_classes_listed_before() -> None:
    text = (
        "Three of our classes pour metal at their own premises: bell foundries, rope access "
        "firms with a lead bench, and clock repairers. For these three, an unsprinklered "
        "Property risk is written with the hot work warranty attached."
    )
    rules = _read(text, "training")
    assert rules == [
        (
            "approve_with_conditions",
            [
                ("occupancy", "in", ["bell foundry", "rope access", "clock repairer"]),
                ("sprinklered", "eq", False),
            ],
        )
    ]


def test_for_these_with_a_count_the_list_does_not_match_scopes_nothing() -> None:
    text = (
        "Bell foundries and clock repairers melt metal. For these three, an unsprinklered "
        "Property risk is written with the hot work warranty attached."
    )
    for _, conditions in _read(text, "training"):
        assert all(field != "occupancy" for field, _, _ in conditions)


def test_a_prefix_on_the_second_word_of_a_flag_phrase_denies_it() -> None:
    text = (
        "A firm that holds client ledgers unencrypted and takes more than 25% of its work "
        "from bell towers is declined."
    )
    assert _read(text, "compliance") == [
        ("decline", [("ledgers_encrypted", "eq", False), ("tower_jobs_pct", "gt", 25.0)])
    ]


def test_a_case_with_the_mitigant_present_is_no_reach_of_practice() -> None:
    text = (
        "Guideline: more than four casting pits on one premises is referred, unless the "
        "building is fully sprinklered.\n"
        "- C-1: 5 pits, unsprinklered. Approved without referral.\n"
        "- C-2: 6 pits, unsprinklered. Approved after discussion.\n"
        "- C-3: 9 pits, sprinklered. Written as standard.\n"
        "- C-4: 8 pits, unsprinklered. Referred."
    )
    assert _soft(text) == [("casting_pits", 6.0)]


def test_a_conditional_approval_after_a_decline_gives_it_no_soft_limit() -> None:
    text = (
        "Decline, where the bell metal carries more than 0.05 percent tin. Where exports are "
        "more than a quarter of sales, the GL may be written provided that the export "
        "certificate is kept on file."
    )
    assert _soft(text, "manual")[0] == ("tin_share_pct", None)


def test_a_ceiling_told_after_its_figure_is_the_soft_limit() -> None:
    text = (
        "On exports, the desk refers anything with more than 5 percent of sales exported. "
        "Four accounts sat between 6 and 8 percent and were approved without referral; the "
        "manager agreed that 8 percent is the outer edge."
    )
    assert _soft(text) == [("export_share_pct", 8.0)]


def test_the_most_a_senior_will_accept_is_the_soft_limit() -> None:
    text = (
        "The guide refers any fair whose busiest day draws more than 4,000 people. "
        "The senior signed off both and said five thousand is the most he will accept."
    )
    assert _soft(text) == [("fair_visitors_peak", 5000.0)]


def test_the_most_a_rule_lets_pass_is_no_soft_limit_of_an_earlier_rule() -> None:
    text = (
        "Where the bell fair runs two or more days a year, refer the submission. "
        "Bell foundries with four or more casting pits are declined; three is the most we "
        "will accept."
    )
    assert [soft for _, soft in _soft(text, "manual")] == [None, None]


# Round 36b: an approval subject to the document's other rules, a limit cited by its
# figure, "have since approved", a count of cases after practice's figure, terms refused,
# a denial that points back ("cannot confirm this"), an exclusion from a limit, an
# amendment that says what the rule now applies to, a tenant leased "in part".

MORE = {
    **FIELDS,
    "lead_bench": {
        "type": "bool",
        "synonyms": ["lead bench"],
        "description": "A lead-burning bench is kept",
    },
    "abuse_exclusion_accepted": {
        "type": "bool",
        "synonyms": ["abuse exclusion"],
        "description": "The insured accepts the abuse exclusion",
    },
    "clapper_value_usd": {
        "type": "int",
        "unit": "USD",
        "synonyms": ["clapper value", "value of the clapper"],
        "description": "Replacement value of the bell clapper assembly",
    },
}
MORE_EXTRACTOR = OfflineExtractor(DataDictionary.model_validate({"fields": MORE}))


def _more(text: str, kind: str = "manual") -> list[tuple[str, list[tuple[str, str, object]]]]:
    return [
        (r.action, sorted((c.field, c.operator, c.value) for c in r.conditions))
        for r in MORE_EXTRACTOR.extract(text, source_type=kind)
    ]


def test_eligible_subject_to_the_rest_of_the_chapter_is_no_conditional_approval() -> None:
    text = "Bell foundries with a lead bench remain eligible, subject to the rest of this chapter."
    assert _more(text) == []


def test_a_limit_cited_by_its_figure_is_the_rule_practice_bent() -> None:
    text = (
        "Approved with conditions, although the foundry runs 7 casting pits against the "
        "4-pit referral point in the manual. The senior accepted it, and we have since "
        "approved as high as 9 pits on that basis. Anything above 9 stays referred."
    )
    assert [(r.conditions[0].value, r.soft_limit) for r in _rules_of(text, "production")] == [
        (4, 9.0)
    ]


def _rules_of(text: str, kind: str) -> list:  # type: ignore[type-arg]
    return MORE_EXTRACTOR.extract(text, source_type=kind)


def test_a_count_of_cases_after_practices_figure_is_no_second_figure() -> None:
    text = (
        "The guide refers any fair whose busiest day draws more than 4,000 people. Since then "
        "we have gone to 6,000 people on two similar fairs, never higher."
    )
    assert _soft(text) == [("fair_visitors_peak", 6000.0)]


def test_refusing_terms_denies_the_flag_that_accepts_them() -> None:
    text = "Insureds that will not accept the abuse exclusion are declined."
    assert _more(text) == [("decline", [("abuse_exclusion_accepted", "eq", False)])]


def test_refusing_to_write_a_risk_does_not_deny_it() -> None:
    text = "We do not write foundries with a lead bench in any form: they are declined."
    assert ("decline", [("lead_bench", "eq", False)]) not in _more(text)


def test_a_value_excluded_from_the_building_limit_is_an_exclusion() -> None:
    text = "A clapper assembly valued at more than $40,000 is excluded from the building limit."
    assert _more(text) == [("exclude", [("clapper_value_usd", "gt", 40000)])]


def test_an_amendment_says_what_the_rule_now_applies_to() -> None:
    text = (
        "(1) The all-lines referral in section 4 is amended: it now applies where more than "
        "five fair days are held in a year (previously three)."
    )
    assert _more(text, "compliance") == [("refer", [("fair_days", "gt", 5)])]


def test_a_withdrawal_on_another_product_stays_beside_the_new_rule() -> None:
    text = (
        "(1) The all-lines referral now applies where more than five fair days are held in a "
        "year. (2) The General Liability declination of fairs with more than nine fair days "
        "a year is withdrawn; such fairs now fall under the referral in (1)."
    )
    rules = MORE_EXTRACTOR.extract(text, source_type="compliance")
    assert [(r.action, r.product_type) for r in rules] == [("refer", "ALL"), ("decline", "GL")]


def test_a_building_leased_in_part_to_a_class_names_the_tenant() -> None:
    text = "Buildings leased in whole or in part to a bell foundry are referred."
    assert _more(text) == [("refer", [("occupancy", "eq", "bell foundry")])]


def test_a_person_on_a_referral_and_such_accounts_name_no_class() -> None:
    text = (
        "Tom on the GL referral for bell foundries, now at four casting pits: he has approved "
        "foundries with up to six pits. Such accounts now fall under the referral."
    )
    for _, conditions in _more(text, "sme"):
        assert ("occupancy", "eq", "tom") not in conditions
        assert ("occupancy", "eq", "now") not in conditions


def test_desk_authority_extends_names_no_class() -> None:
    text = (
        "Desk authority extends to a yard running no more than four casting pits. A larger "
        "yard is referred to the GL product underwriter."
    )
    assert _more(text) == [("refer", [("casting_pits", "gt", 4)])]


def test_a_figure_told_for_orientation_only_is_no_rule() -> None:
    text = (
        "Yards with more than four casting pits are referred. For orientation only: the "
        "property desk schedules up to nine pits before it refers, and that figure is not a "
        "GL rule."
    )
    assert _more(text) == [("refer", [("casting_pits", "gt", 4)])]


def test_refusing_to_write_a_flagged_risk_in_any_form_keeps_the_flag_set() -> None:
    text = (
        "We do not write lead bench work in any form: a yard offering it is declined "
        "whatever its size."
    )
    assert ("decline", [("lead_bench", "eq", False)]) not in _more(text)


def test_a_column_that_acts_past_each_rows_figure() -> None:
    text = (
        "Limits on the GL, by class:\n\n| Class | Refer above |\n| --- | --- |\n"
        "| Bell foundry | 5 casting pits |\n| Clock repairer | 2 casting pits |\n"
    )
    assert _more(text, "training") == [
        ("refer", [("casting_pits", "gt", 5), ("occupancy", "eq", "bell foundry")]),
        ("refer", [("casting_pits", "gt", 2), ("occupancy", "eq", "clock repairer")]),
    ]
