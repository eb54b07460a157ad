"""What round 3 of the offline extractor added to the reading of one clause.

The companion of `test_offline_conditions_behaviour.py` and
`test_offline_conditions_values.py`, for `agents.offline.conditions` after extraction
round 3: multiples of the value last compared ("two times that"), changes of limit
("raised from 40 to 60"), numbers with a unit word kept out of shares, a field synonym
ending in a time-window word, lists of numbers next to a comparison, and state codes
inside form numbers. Fields and wording are invented (a harbour dictionary no dataset
has); expected values are written out from the clause.
"""

from __future__ import annotations

import pytest

from agents.offline.conditions import ConditionReader
from agents.offline.vocab import FieldVocabulary
from schemas.fields import DataDictionary
from tests.harbour import harbour_fields
from tests.rules import Triple, read_set

FIELDS = harbour_fields(
    "berth_length_ft",
    "tow_distance_miles",
    "crew_count",
    "salt_index",
    "glaze_loss_ratio",
    "drift_pct",
    "slip_check_days",
    "harbour_state",
    drift_pct={"description": "Hull drift against the survey, in percent"},
)


def _reader() -> ConditionReader:
    """A reader over the harbour dictionary, with no topic set."""
    return ConditionReader(FieldVocabulary(DataDictionary.model_validate({"fields": FIELDS})))


@pytest.fixture(scope="module")
def harbour() -> ConditionReader:
    """A reader over the harbour dictionary."""
    return _reader()


# --- a multiple of the value last compared ---------------------------------------------


def _on_topic(field: str, value: float) -> ConditionReader:
    """A reader whose text has just compared `field` with `value`."""
    reader = _reader()
    reader.topic, reader.topic_value = field, value
    return reader


def test_a_multiple_of_the_topic_value_is_a_threshold_on_the_topic() -> None:
    reader = _on_topic("berth_length_ft", 25.0)  # "Berths over 25 feet are referred."
    text = "Berths above one and a half times that are declined."
    # 1.5 x 25 = 37.5, not rounded to a whole foot
    assert read_set(reader, text) == {("berth_length_ft", "gt", 37.5)}
    (hit,) = reader.numbers(text)
    # "one and a half times" starts after "Berths above " and ends after "times"
    assert (hit.field, hit.value, hit.operator, hit.start, hit.end) == (
        "berth_length_ft",
        37.5,
        "gt",
        13,
        33,
    )


def test_a_multiple_keeps_the_type_of_the_topic_field() -> None:
    (whole,) = _on_topic("berth_length_ft", 25.0).read("Above two times that.").conditions
    assert type(whole.value) is float and whole.value == 50.0  # a float field stays float
    (count,) = _on_topic("crew_count", 12).read("More than three times that.").conditions
    assert type(count.value) is int and count.value == 36  # an int field gets an int


def test_a_multiple_is_rounded_to_six_places() -> None:
    reader = _on_topic("tow_distance_miles", 1 / 3)  # "a third of a mile"
    # 2 x 0.333333... = 0.666667 (to six places)
    assert read_set(reader, "A tow yard over two times that.") == {
        ("tow_distance_miles", "gt", 0.666667)
    }


@pytest.mark.parametrize(
    ("topic", "value", "text"),
    [
        # a multiple of something other than "that": no value to multiply
        ("berth_length_ft", 25.0, "Above two times the usual length is declined."),
        # a topic with no value compared yet, or no topic at all
        ("berth_length_ft", None, "Above two times that is declined."),
        (None, 25.0, "Above two times that is declined."),
        # a multiple with no comparison is no threshold
        ("berth_length_ft", 25.0, "Some berths are two times that."),
    ],
)
def test_a_multiple_with_nothing_to_multiply_is_no_threshold(
    topic: str | None, value: float | None, text: str
) -> None:
    reader = _reader()
    reader.topic, reader.topic_value = topic, value
    assert reader.numbers(text) == []
    assert read_set(reader, text) == set()


def test_a_new_reader_has_no_topic_and_no_topic_value() -> None:
    reader = _reader()
    reader.topic = "berth_length_ft"  # the topic is set, no value compared on it yet
    assert read_set(reader, "Above two times that is declined.") == set()
    reader = _reader()
    reader.topic_value = 25.0  # a value, but no field it was compared on
    assert read_set(reader, "Above two times that is declined.") == set()


def test_the_numbers_after_a_multiple_are_read() -> None:
    reader = _on_topic("berth_length_ft", 25.0)
    assert read_set(reader, "Above two times that, or more than 12 deckhands.") == {
        ("berth_length_ft", "gt", 50.0),
        ("crew_count", "gt", 12),
    }
    # with no value to multiply the multiple is skipped, the next number still read
    assert read_set(_reader(), "Above two times that, or more than 12 deckhands.") == {
        ("crew_count", "gt", 12)
    }


# --- a change of limit is no range -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a change verb before "from": an old and a new limit, even at the very start
        ("Raised from 40 to 60 deckhands.", [("crew_count", 40, None), ("crew_count", 60, None)]),
        (
            "The crew limit is raised from 40 to 60 deckhands.",
            [("crew_count", 40, None), ("crew_count", 60, None)],
        ),
        # a falling pair is a change too, with or without a verb
        ("Cut from 9 to 5 deckhands.", [("crew_count", 9, None), ("crew_count", 5, None)]),
        ("A crew of 9 to 5 deckhands.", [("crew_count", 9, None), ("crew_count", 5, None)]),
        # a rising pair with no change verb is a range
        ("A crew of 40 to 60 deckhands.", [("crew_count", 40, "gte"), ("crew_count", 60, "lte")]),
    ],
)
def test_a_change_of_limit_is_no_range(
    harbour: ConditionReader, text: str, expected: list[tuple[str, object, str | None]]
) -> None:
    assert [(h.field, h.value, h.operator) for h in harbour.numbers(text)] == expected


def test_a_change_of_limit_gives_no_condition(harbour: ConditionReader) -> None:
    assert read_set(harbour, "Raised from 40 to 60 deckhands.") == set()
    assert read_set(harbour, "A crew of 40 to 60 deckhands.") == {
        ("crew_count", "gte", 40),
        ("crew_count", "lte", 60),
    }


# --- a number with a unit word is no share ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # with no unit word the share fields take the number
        ("Hull drift of more than 3 is referred.", {("drift_pct", "gt", 3.0)}),
        ("Glaze loss of more than 3 is declined.", {("glaze_loss_ratio", "gt", 3.0)}),
        # "3 knots", "3 kilns": counted things, neither a percent nor a rate
        ("Hull drift of more than 3 knots is referred.", set()),
        ("Glaze loss of more than 3 kilns is declined.", set()),
        # a percent still goes to them
        ("Hull drift of more than 3% is referred.", {("drift_pct", "gt", 3.0)}),
        ("Glaze loss of more than 3% is declined.", {("glaze_loss_ratio", "gt", 0.03)}),
    ],
)
def test_a_counted_number_is_no_share(
    harbour: ConditionReader, text: str, expected: set[Triple]
) -> None:
    assert read_set(harbour, text) == expected


# --- a field synonym that ends in a time-window word -----------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "checked within" names the field: the number is no time window
        ("Hulls checked within 14 days are fine.", [("slip_check_days", 14)]),
        # ... also across a line break or runs of spaces
        ("Hulls checked\nwithin 14 days are fine.", [("slip_check_days", 14)]),
        ("Hulls  checked   within 14 days are fine.", [("slip_check_days", 14)]),
        # a window not named by a synonym is still skipped
        ("Repairs within 14 days are fine.", []),
    ],
)
def test_a_synonym_ending_in_a_window_word_names_the_field(
    harbour: ConditionReader, text: str, expected: list[tuple[str, object]]
) -> None:
    assert [(h.field, h.value) for h in harbour.numbers(text)] == expected


# --- numbers listed next to a comparison -----------------------------------------------


def test_a_list_at_a_scale_end_is_open_ended(harbour: ConditionReader) -> None:
    # the salt index runs 1 to 9: "8 or 9" reaches the top
    assert read_set(harbour, "A salt index of 8 or 9 is declined.") == {("salt_index", "gte", 8)}


def test_a_list_next_to_a_comparison_of_its_field_is_no_condition(
    harbour: ConditionReader,
) -> None:
    # "8 or 9" are examples of the range compared, not a second condition
    assert read_set(harbour, "A salt index over 6, such as 8 or 9, is referred.") == {
        ("salt_index", "gt", 6)
    }


# --- state codes inside form numbers ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Attach form TX-PX to the file.", set()),
        ("Attach form PX-TX to the file.", set()),
        ("Attach form PX-TX-01 to the file.", set()),
        ("Attach form PX-TX for boats in TX.", {("harbour_state", "eq", "TX")}),
        ("Boats in TX are referred.", {("harbour_state", "eq", "TX")}),
    ],
)
def test_a_state_code_inside_a_form_number_is_no_state(
    harbour: ConditionReader, text: str, expected: set[Triple]
) -> None:
    assert read_set(harbour, text) == expected


# --- a fraction is a share ---------------------------------------------------------------

_FEES = {
    "dock_fees_usd": {
        "type": "float",
        "unit": "usd",
        "synonyms": ["dock fees", "fee revenue"],
        "description": "Annual dock fee revenue, in US dollars",
    },
    "charter_share_pct": {
        "type": "float",
        "unit": "percent",
        "synonyms": ["charter share", "share of fee revenue from charters"],
        "description": "Share of fee revenue from charters, in percent",
    },
}


def _fees_reader(*names: str) -> ConditionReader:
    fields = {name: _FEES[name] for name in names}
    return ConditionReader(FieldVocabulary(DataDictionary.model_validate({"fields": fields})))


def test_a_fraction_goes_to_the_share_field_not_the_amount_it_names() -> None:
    reader = _fees_reader("dock_fees_usd", "charter_share_pct")
    assert read_set(reader, "more than half the dock fees") == {("charter_share_pct", "gt", 50.0)}
    assert read_set(reader, "more than two thirds of dock fees") == {
        ("charter_share_pct", "gt", 66.6667)
    }


def test_a_fraction_with_no_share_field_is_no_threshold() -> None:
    # "half the dock fees" is never dock fees over 0.5 dollars
    assert read_set(_fees_reader("dock_fees_usd"), "more than half the dock fees") == set()
    # a plain number still reads as the amount
    assert read_set(_fees_reader("dock_fees_usd"), "dock fees over 5000") == {
        ("dock_fees_usd", "gt", 5000.0)
    }
