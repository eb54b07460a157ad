"""Round 28, extraction: "such" claims, ratios counted in times, tables of minimums.

Every field and sentence below is made up for these tests (an escape-room dictionary no
dataset has).
"""

from __future__ import annotations

import pytest

from agents.offline.tables import table_rows
from memory.underwriting.fieldlink.numbers import find_numbers
from tests.rules import condition_set, extractor_over

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'escape room')",
    },
    "lock_in_claims_5yr": {
        "type": "int",
        "unit": "claims",
        "synonyms": ["lock-in claims", "claims from locked rooms"],
        "description": "Claims from guests locked in a room, in the past five years",
    },
    "lease_cover_ratio": {
        "type": "float",
        "unit": "times rent",
        "synonyms": ["lease cover", "takings to rent"],
        "description": "Yearly takings divided by yearly rent (1.5 times is 1.5)",
    },
    "game_masters_per_10_rooms": {
        "type": "float",
        "unit": "game masters per 10 rooms",
        "synonyms": ["game masters per ten rooms", "game master ratio"],
        "description": "Game masters on duty at the busiest hour for every 10 rooms",
    },
}


@pytest.fixture(scope="module")
def extractor():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS)


def _summary(extractor, text: str, kind: str = "manual"):  # type: ignore[no-untyped-def]
    rules = extractor.extract(text, source="Escape Guide", source_type=kind)
    return [(r.action, r.product_type, condition_set(r)) for r in rules]


def test_one_or_more_such_claims_counts_the_claims(extractor) -> None:  # type: ignore[no-untyped-def]
    assert find_numbers("one or more such claims")[0].unit is None
    said = _summary(
        extractor,
        "One lock-in claim in five years is enough: any applicant with one or more such "
        "claims goes to the GL casualty underwriter for review.",
    )
    assert said == [("refer", "GL", {("lock_in_claims_5yr", "gte", 1)})]


def test_a_field_counted_in_times_reads_a_figure_of_times(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor,
        "Where lease cover - takings divided by rent - is below 1.5 times, refer the LRO "
        "submission to the team lead.",
    )
    assert said == [("refer", "LRO", {("lease_cover_ratio", "lt", 1.5)})]


def test_a_table_of_minimums_refers_what_falls_below_each(extractor) -> None:  # type: ignore[no-untyped-def]
    text = (
        "Game master staffing - quick reference.\n"
        "Program | Minimum game masters per 10 rooms at peak | Below the minimum\n"
        "Businessowners (BOP) | 1 | refer to the BOP team lead\n"
        "General Liability (monoline) | 2 | refer to the GL casualty underwriter\n"
        "Both programs count game masters on duty at the busiest hour."
    )
    said = _summary(extractor, text, kind="training")
    assert said == [
        ("refer", "BOP", {("game_masters_per_10_rooms", "lt", 1)}),
        ("refer", "GL", {("game_masters_per_10_rooms", "lt", 2)}),
    ]


def test_a_case_line_is_no_header_of_the_next() -> None:
    lines = [
        "ER-25-0311 | escape room, 3 rooms, a game master on each | approved with conditions.",
        "ER-25-0348 | escape room, 3 rooms, no game master | pending.",
    ]
    assert table_rows(lines) == lines


def test_a_class_status_table_reads_each_rows_standing_and_notes() -> None:
    fields = {
        **FIELDS,
        "sprinklered": {
            "type": "bool",
            "synonyms": ["sprinklered throughout"],
            "description": "The building is fully sprinklered",
        },
    }
    text = (
        "Appendix C - Specialty classes.\n"
        "| Class | BOP status | Notes |\n"
        "|---|---|---|\n"
        "| Escape room | Ineligible | |\n"
        "| Axe throwing venue | Refer | Line authority if sprinklered throughout |\n"
        "| Board game cafe | Eligible | |\n"
    )
    rules = extractor_over(fields).extract(text, source="Escape Guide", source_type="manual")
    said = [(r.action, r.product_type, condition_set(r), r.mitigant_fields) for r in rules]
    assert said == [
        ("decline", "BOP", {("occupancy", "eq", "escape room")}, []),
        ("refer", "BOP", {("occupancy", "eq", "axe throwing venue")}, ["sprinklered"]),
    ]


SMOKE = {
    "magnet_pull_lbs": {
        "type": "int",
        "unit": "lbs",
        "synonyms": ["magnet pull", "maglock strength"],
        "description": "Holding force of the strongest door magnet, in pounds",
    },
    "smoke_machine": {
        "type": "bool",
        "synonyms": ["smoke machines", "fog effects"],
        "description": "The rooms use smoke or fog machines",
    },
    "fixed_suppression": {
        "type": "bool",
        "synonyms": ["fixed suppression system", "fixed fire suppression"],
        "description": "A fixed fire suppression system protects the rooms",
    },
}


@pytest.fixture(scope="module")
def smoky():  # type: ignore[no-untyped-def]
    return extractor_over(FIELDS, SMOKE)


def test_or_stronger_bounds_from_the_figure_up(smoky) -> None:  # type: ignore[no-untyped-def]
    said = _summary(smoky, "Rooms locked by magnets of 300 lbs or stronger are referred.")
    assert said == [("refer", "ALL", {("magnet_pull_lbs", "gte", 300)})]


def test_except_that_where_is_what_eases_the_rule(smoky) -> None:  # type: ignore[no-untyped-def]
    rules = smoky.extract(
        "Smoke machines remain in use at some older rooms. They are a decline, except that "
        "where a fixed suppression system covers the rooms the risk can be referred instead.",
        source="Escape Guide",
        source_type="manual",
    )
    said = [(r.action, condition_set(r), r.mitigant_fields) for r in rules]
    assert said == [("decline", {("smoke_machine", "eq", True)}, ["fixed_suppression"])]


def test_not_declined_but_referred_names_what_softens_the_decline(smoky) -> None:  # type: ignore[no-untyped-def]
    rules = smoky.extract(
        "Rooms with smoke machines are declined. Where the rooms are protected by a fixed "
        "suppression system, the risk is not declined but goes to referral instead.",
        source="Escape Guide",
        source_type="manual",
    )
    said = [(r.action, condition_set(r), r.mitigant_fields) for r in rules]
    assert said == [("decline", {("smoke_machine", "eq", True)}, ["fixed_suppression"])]


def test_a_table_of_rules_reads_its_results_as_actions(extractor) -> None:  # type: ignore[no-untyped-def]
    text = (
        "Two rules, two scopes.\n"
        "Rule | Applies to | Trigger | Result\n"
        "Company-wide lock-in history | every line | more than three lock-in claims | decline\n"
        "GL prior lock-ins | GL only | one or more lock-in claims | refer to the GL desk\n"
        "The same escape room quoted on monoline GL is a referral."
    )
    said = _summary(extractor, text, kind="training")
    assert said == [
        ("decline", "ALL", {("lock_in_claims_5yr", "gt", 3)}),
        ("refer", "GL", {("lock_in_claims_5yr", "gte", 1)}),
    ]


def test_a_table_whose_last_column_acts_above_the_limit(extractor) -> None:  # type: ignore[no-untyped-def]
    text = (
        "Training note - rooms per site.\n"
        "Program | Lock-in claims (limit) | What the desk does above the limit\n"
        "BOP package | 1 | refer to the BOP team lead\n"
        "General Liability, monoline | 3 | decline\n"
    )
    said = _summary(extractor, text, kind="training")
    assert said == [
        ("refer", "BOP", {("lock_in_claims_5yr", "gt", 1)}),
        ("decline", "GL", {("lock_in_claims_5yr", "gt", 3)}),
    ]


def test_the_class_a_policy_may_not_be_bound_for(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(
        extractor,
        "Effective today, no new Property policy may be bound for a zombie run course - "
        "including night runs.",
        kind="compliance",
    )
    assert said == [("decline", "Property", {("occupancy", "eq", "zombie run course")})]


def test_a_listed_class_opening_a_row_is_read_whole() -> None:
    listed = {
        **FIELDS,
        "occupancy": {
            "type": "str",
            "synonyms": ["class of business"],
            "description": "Business class, lower case: escape room, axe throwing venue, "
            "board game cafe, laser tag arena, document shredding service, karaoke bar, "
            "trampoline park, bowling alley",
        },
    }
    rules = extractor_over(listed).extract(
        "Document shredding service, lock-in claims above 2: decline.",
        source="Escape Guide",
        source_type="manual",
    )
    assert [condition_set(r) for r in rules] == [
        {("occupancy", "eq", "document shredding service"), ("lock_in_claims_5yr", "gt", 2)}
    ]


def test_we_will_not_insure_one_that_is_not_doing_it_needs_what_it_is_not_doing(
    extractor,  # type: ignore[no-untyped-def]
) -> None:
    said = _summary(
        extractor,
        "We will not insure an escape room that is not doing this drill: decline GL for any "
        "escape room without monthly lock-in drills.",
        kind="compliance",
    )
    assert ("decline", "GL", {("occupancy", "eq", "escape room")}) not in said


def test_either_state_is_the_states_named_just_before() -> None:
    fields = {**FIELDS, "state": {"type": "str", "synonyms": ["state"], "description": "Code"}}
    rules = extractor_over(fields).extract(
        "1. The company holds no certificate of authority in Hawaii or Alaska. Submissions "
        "with a risk location in either state are declined on every program.",
        source="Escape Guide",
        source_type="compliance",
    )
    assert [(r.action, condition_set(r)) for r in rules] == [
        ("decline", {("state", "in", ("HI", "AK"))})
    ]


def test_plus_joins_two_conditions_and_ends_the_subject(extractor) -> None:  # type: ignore[no-untyped-def]
    said = _summary(extractor, "Untreated props plus more than 3 lock-in claims is a decline.")
    assert said == [("decline", "ALL", {("lock_in_claims_5yr", "gt", 3)})]
