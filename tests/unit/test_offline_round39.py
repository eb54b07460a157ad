"""Offline extraction round 39: "no." ends a sentence unless a number follows it.

Every field and sentence below is made up for these tests (a lapidary-workshop dictionary
no dataset has).
"""

from __future__ import annotations

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
