"""Offline extraction round 45, seventh part: how far practice went, said tersely.

Every field and sentence below is made up for these tests (a lighthouse-keeper dictionary
no dataset has).
"""

from __future__ import annotations

from tests.rules import BASE_FIELDS, extractor_over

FIELDS = {
    **BASE_FIELDS,
    "loss_count_3yr": {
        "type": "int",
        "unit": "losses",
        "synonyms": ["losses in three years", "claim count"],
        "description": "Number of losses in the last three years",
    },
    "keeper_headcount": {
        "type": "int",
        "unit": "people",
        "synonyms": ["payroll headcount"],
        "description": "People on the payroll",
    },
    "tower_climb_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["tower height", "climb height"],
        "description": "Height of the tallest tower the keepers climb, in feet",
    },
    "lamp_oil_value_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["lamp oil in store"],
        "description": "Value of lamp oil kept in store",
    },
    "keeper_payroll_usd": {
        "type": "float",
        "unit": "USD",
        "synonyms": ["gross payroll"],
        "description": "Gross annual payroll of the keepers",
    },
    "fog_signal_alarm": {
        "type": "bool",
        "synonyms": ["fog signal alarm", "foghorn alarm"],
        "description": "The fog signal raises an alarm at the keeper's house when it fails",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def _soft(text: str, kind: str) -> list[tuple[str, float | None, list[str]]]:
    return [
        (r.action, r.soft_limit, r.mitigant_fields)
        for r in EXTRACTOR.extract(text, source_type=kind)
    ]


def test_a_case_s_figure_borrowing_another_figure_s_word_is_no_case_of_that_limit() -> None:
    text = (
        "Decision log.\n- 2025-01-14: keepers 22, four losses in three years. Declined.\n"
        "- 2025-02-11: keepers 18, two losses in three years. Bound.\n"
        "Takeaway: three or more losses in three years is a decline."
    )
    assert _soft(text, "production") == [("decline", None, [])]


def test_have_bound_to_a_figure_is_practice_s_reach() -> None:
    text = (
        "- Climb: guideline 150'. Higher towers -> refer.\n- Have bound to 180 ft w/ two keepers."
    )
    assert _soft(text, "sme") == [("refer", 180.0, [])]


def test_going_higher_until_it_tops_out_is_practice_s_reach() -> None:
    text = (
        "Lamp oil in store above three hundred thousand dollars is referred. I'll go higher "
        "when the oil sits in a locked, alarmed vault, but that tops out at $350k."
    )
    assert _soft(text, "sme") == [("refer", 350000.0, [])]


def test_nothing_above_a_figure_with_a_decimal_point_is_practice_s_reach() -> None:
    text = (
        "The manual refers any keeper with gross payroll above $2.0M. Nothing above $2.4M "
        "has been signed off."
    )
    assert _soft(text, "production") == [("refer", 2400000.0, [])]
