"""Numbers read from underwriting text: the value, its unit and the words it spans.

Each row is a phrase an underwriting guideline or a submission note may hold, and what
the offline extractor must read from it: the value (money and scales applied, percents
as written), the unit, the text the mention covers with its unit, the text of the
number alone, and whether the unit was hyphen-attached ("36-unit": a count), written
with a plus ("10+ years") or a share in words ("a third of").
"""

from __future__ import annotations

import pytest

from memory.underwriting.fieldlink.numbers import canonical_unit, find_numbers
from memory.underwriting.fieldlink.stems import stem

Mention = tuple[float, str | None, str, str, bool, bool, bool]

READ: list[tuple[str, list[Mention]]] = [
    ("$1.5M in TIV", [(1500000.0, "usd", "$1.5M", "$1.5M", False, False, False)]),
    ("$250,000 limit", [(250000.0, "usd", "$250,000", "$250,000", False, False, False)]),
    ("$6 million", [(6000000.0, "usd", "$6 million", "$6 million", False, False, False)]),
    ("0.25% rate", [(0.25, "percent", "0.25%", "0.25%", False, False, False)]),
    (
        "50,000 square feet",
        [(50000.0, "sqft", "50,000 square feet", "50,000", False, False, False)],
    ),
    ("200ft from water", [(200.0, "ft", "200ft", "200", False, False, False)]),
    ("six stories", [(6.0, "stories", "six stories", "six", False, False, False)]),
    ("a quarter mile", [(0.25, "miles", "a quarter mile", "a quarter", False, False, True)]),
    (
        "a million and a quarter",
        [
            (
                1250000.0,
                None,
                "a million and a quarter",
                "a million and a quarter",
                False,
                False,
                False,
            )
        ],
    ),
    ("ten-plus years", [(10.0, "years", "ten-plus years", "ten", False, True, False)]),
    ("two-year-old building", [(2.0, "years", "two-year-old", "two", True, False, False)]),
    ("3/4 of the roof", [(0.75, None, "3/4", "3/4", False, False, True)]),  # a share, as in words
    ("1/0 nonsense", []),
    ("$2.5 billion", [(2500000000.0, "usd", "$2.5 billion", "$2.5 billion", False, False, False)]),
    ("5k employees", [(5000.0, "employee", "5k employees", "5k", False, False, False)]),
    ("5K", [(5000.0, None, "5K", "5K", False, False, False)]),
    # "35 mm hail": a spaced lower-case "mm" without money is millimetres
    ("3 mm", [(3.0, "mm", "3 mm", "3", False, False, False)]),
    ("$3mm", [(3000000.0, "usd", "$3mm", "$3mm", False, False, False)]),
    ("2 bn", [(2000000000.0, None, "2 bn", "2 bn", False, False, False)]),
    ("$4 b", [(4000000000.0, "usd", "$4 b", "$4 b", False, False, False)]),
    ("7 b", [(7.0, None, "7 b", "7 b", False, False, False)]),
    ("4 M units", [(4.0, "unit", "4 M units", "4 M", False, False, False)]),
    ("12 percent", [(12.0, "percent", "12 percent", "12 percent", False, False, False)]),
    ("12 per cent", [(12.0, "percent", "12 per cent", "12 per cent", False, False, False)]),
    (
        "$40 per square foot",
        [(40.0, "usd_per_sqft", "$40 per square foot", "$40", False, False, False)],
    ),
    ("$40/sf", [(40.0, "usd_per_sqft", "$40/sf", "$40", False, False, False)]),
    ("$40 a sq. ft.", [(40.0, "usd_per_sqft", "$40 a sq. ft", "$40", False, False, False)]),
    ("built in 1987", [(1987.0, "year", "1987", "1987", False, False, False)]),
    ("1,987 units", [(1987.0, "unit", "1,987 units", "1,987", False, False, False)]),
    ("1987 years", [(1987.0, "years", "1987 years", "1987", False, False, False)]),
    ("2100 widgets", [(2100.0, "year", "2100", "2100", False, False, False)]),
    ("2101 widgets", [(2101.0, "widget", "2101 widgets", "2101", False, False, False)]),
    ("1600 widgets", [(1600.0, "year", "1600", "1600", False, False, False)]),
    ("1599 widgets", [(1599.0, "widget", "1599 widgets", "1599", False, False, False)]),
    ("1987.5 widgets", [(1987.5, "widget", "1987.5 widgets", "1987.5", False, False, False)]),
    ("36-unit complex", [(36.0, "unit", "36-unit", "36", True, False, False)]),
    ("10+ years", [(10.0, "years", "10+ years", "10", False, True, False)]),
    ("5 or more employees", [(5.0, "employee", "5 or more employees", "5", False, False, False)]),
    ("5 and older", [(5.0, None, "5 and older", "5", False, False, False)]),
    (
        "twenty-five employees",
        [(25.0, "employee", "twenty-five employees", "twenty-five", False, False, False)],
    ),
    (
        "two hundred and fifty employees",
        [
            (
                250.0,
                "employee",
                "two hundred and fifty employees",
                "two hundred and fifty",
                False,
                False,
                False,
            )
        ],
    ),
    (
        "a hundred and two hundred",
        [
            (100.0, None, "a hundred", "a hundred", False, False, False),
            (200.0, None, "two hundred", "two hundred", False, False, False),
        ],
    ),
    (
        "ten and twenty",
        [
            (10.0, None, "ten", "ten", False, False, False),
            (20.0, None, "twenty", "twenty", False, False, False),
        ],
    ),
    (
        "two and a half stories",
        [(2.5, "stories", "two and a half stories", "two and a half", False, False, False)],
    ),
    ("a third party", []),
    ("a third of sales", [(0.3333, None, "a third", "a third", False, False, True)]),
    ("half the units", [(0.5, None, "half", "half", False, False, True)]),
    ("one half of sales", [(0.5, None, "one half", "one half", False, False, True)]),
    ("a dozen trucks", [(12.0, "truck", "a dozen trucks", "a dozen", False, False, False)]),
    ("a mile away", [(1.0, "miles", "a mile", "a", False, False, False)]),
    ("an hour", []),
    (
        "three quarters of revenue",
        [(0.75, None, "three quarters", "three quarters", False, False, True)],
    ),
    ("two thirds of revenue", [(0.6667, None, "two thirds", "two thirds", False, False, True)]),
    ("$ five million", [(5000000.0, "usd", "five million", "five million", False, False, False)]),
    (
        "one thousand two hundred",
        [
            (
                1200.0,
                None,
                "one thousand two hundred",
                "one thousand two hundred",
                False,
                False,
                False,
            )
        ],
    ),
    (
        "a quarter million",
        [(250000.0, None, "a quarter million", "a quarter million", False, False, False)],
    ),
    ("half a million", [(500000.0, None, "half a million", "half a million", False, False, False)]),
    (
        "one and a half million",
        [
            (
                1500000.0,
                None,
                "one and a half million",
                "one and a half million",
                False,
                False,
                False,
            )
        ],
    ),
    ("zero claims", [(0.0, "claim", "zero claims", "zero", False, False, False)]),
    ("and five", [(5.0, None, "five", "five", False, False, False)]),
    ("$five", [(5.0, "usd", "five", "five", False, False, False)]),
    (".5 acres", [(0.5, "acre", ".5 acres", ".5", False, False, False)]),
    ("5 employees", [(5.0, "employee", "5 employees", "5", False, False, False)]),
    (
        "5 to 10",
        [(5.0, None, "5", "5", False, False, False), (10.0, None, "10", "10", False, False, False)],
    ),
    ("3 years-old", [(3.0, "years", "3 years-old", "3", True, False, False)]),
    ("5-employees", [(5.0, "employee", "5-employees", "5", True, False, False)]),
    ("a half", [(0.5, None, "a half", "a half", False, False, True)]),
    (
        "two million three hundred thousand",
        [
            (
                2300000.0,
                None,
                "two million three hundred thousand",
                "two million three hundred thousand",
                False,
                False,
                False,
            )
        ],
    ),
    ("a hundred", [(100.0, None, "a hundred", "a hundred", False, False, False)]),
    ("hundred", [(100.0, None, "hundred", "hundred", False, False, False)]),
    ("a million", [(1000000.0, None, "a million", "a million", False, False, False)]),
    ("three thirds of", [(1.0, None, "three thirds", "three thirds", False, False, False)]),
    ("a half mile", [(0.5, "miles", "a half mile", "a half", False, False, True)]),
    ("twelve years-old dog", [(12.0, "years", "twelve years-old", "twelve", True, False, False)]),
    ("five -plus", [(5.0, None, "five", "five", False, False, False)]),
    ("3 or less claims", [(3.0, "claim", "3 or less claims", "3", False, False, False)]),
    ("nine hundred", [(900.0, None, "nine hundred", "nine hundred", False, False, False)]),
    ("ninety nine", [(99.0, None, "ninety nine", "ninety nine", False, False, False)]),
    (
        "in 2020 and 2021",
        [
            (2020.0, "year", "2020", "2020", False, False, False),
            (2021.0, "year", "2021", "2021", False, False, False),
        ],
    ),
    ("5 feet", [(5.0, "ft", "5 feet", "5", False, False, False)]),
    ("5 mi", [(5.0, "miles", "5 mi", "5", False, False, False)]),
    ("5 yrs", [(5.0, "years", "5 yrs", "5", False, False, False)]),
    ("6 weeks", [(6.0, "weeks", "6 weeks", "6", False, False, False)]),
    ("7 days", [(7.0, "days", "7 days", "7", False, False, False)]),
    ("8 months", [(8.0, "months", "8 months", "8", False, False, False)]),
    ("2 floors", [(2.0, "stories", "2 floors", "2", False, False, False)]),
    ("3 storeys", [(3.0, "stories", "3 storeys", "3", False, False, False)]),
    ("a year", [(1.0, "years", "a year", "a", False, False, False)]),
    ("a million two", [(1000002.0, None, "a million two", "a million two", False, False, False)]),
    (
        "one million and a half",
        [
            (
                1500000.0,
                None,
                "one million and a half",
                "one million and a half",
                False,
                False,
                False,
            )
        ],
    ),
    (
        "twenty thousand and five hundred",
        [
            (
                20500.0,
                None,
                "twenty thousand and five hundred",
                "twenty thousand and five hundred",
                False,
                False,
                False,
            )
        ],
    ),
    ("four stores", [(4.0, "stor", "four stores", "four", False, False, False)]),
    ("100 sqft", [(100.0, "sqft", "100 sqft", "100", False, False, False)]),
    ("100 sf", [(100.0, "sqft", "100 sf", "100", False, False, False)]),
    ("100 sq. ft.", [(100.0, "sqft", "100 sq. ft", "100", False, False, False)]),
    ("100 square footage", [(100.0, "sqft", "100 square footage", "100", False, False, False)]),
    ("a two-Year-Old roof", [(2.0, "years", "a two-Year-Old", "a two", True, False, False)]),
    (
        "a two-year-old roof on an old building",
        [(2.0, "years", "a two-year-old", "a two", True, False, False)],
    ),
    ("a 10-story building", [(10.0, "stories", "10-story", "10", True, False, False)]),
    ("1/0 then 5 units", [(5.0, "unit", "5 units", "5", False, False, False)]),
    ("6 million sq ft", [(6000000.0, "sqft", "6 million sq ft", "6 million", False, False, False)]),
    ("2 billion in sales", [(2000000000.0, None, "2 billion", "2 billion", False, False, False)]),
    (
        "3 thousand employees",
        [(3000.0, "employee", "3 thousand employees", "3 thousand", False, False, False)],
    ),
    (
        "between 5% and 7.5% of sales",
        [
            (5.0, "percent", "5%", "5%", False, False, False),
            (7.5, "percent", "7.5%", "7.5%", False, False, False),
        ],
    ),
    (
        "owners and five employees",
        [(5.0, "employee", "five employees", "five", False, False, False)],
    ),
    (
        "bakeries and cafes with five employees",
        [(5.0, "employee", "five employees", "five", False, False, False)],
    ),
    (
        "a third party with five trucks",
        [(5.0, "truck", "five trucks", "five", False, False, False)],
    ),
    (
        "$6 million TIV, 12 trucks",
        [
            (6000000.0, "usd", "$6 million", "$6 million", False, False, False),
            (12.0, "truck", "12 trucks", "12", False, False, False),
        ],
    ),
    ("million", [(1000000.0, None, "million", "million", False, False, False)]),
    # a log's cells: a whole number and a fraction, hours said short
    ("4 1/2 h", [(4.5, "hour", "4 1/2 h", "4 1/2", False, False, False)]),
    ("36 hrs", [(36.0, "hour", "36 hrs", "36", False, False, False)]),
    ("a 2 1/2 inch pipe", [(2.5, "inch", "2 1/2 inch", "2 1/2", False, False, False)]),
    # a roman grade only where it is compared, never a name ("Class IV beam shows")
    ("Class IV water or harder", [(4.0, None, "IV", "IV", False, False, False)]),
    ("Class IV beam shows", []),
    (
        "between two and a half and three stories",
        [
            (2.5, None, "two and a half", "two and a half", False, False, False),
            (3.0, "stories", "three stories", "three", False, False, False),
        ],
    ),
]


def _read(text: str) -> list[Mention]:
    return [
        (
            round(m.value, 4),
            m.unit,
            text[m.start : m.end],
            text[m.start : m.num_end],
            m.attached,
            m.plus,
            m.fraction,
        )
        for m in find_numbers(text)
    ]


@pytest.mark.parametrize(("text", "expected"), READ, ids=[t for t, _ in READ])
def test_numbers_read_from_text(text: str, expected: list[Mention]) -> None:
    assert _read(text) == expected


def test_numbers_in_a_sentence_keep_their_places() -> None:
    text = "Decline if more than 25 employees, TIV over $1.5M, or built before 1950."
    assert [(m.value, m.unit, text[m.start : m.end]) for m in find_numbers(text)] == [
        (25.0, "employee", "25 employees"),
        (1_500_000.0, "usd", "$1.5M"),
        (1950.0, "year", "1950"),
    ]


@pytest.mark.parametrize(
    ("unit", "canonical"),
    [
        (None, None),
        ("", None),
        ("USD per sq ft", "usd_per_sqft"),
        ("$/sqft", "usd_per_sqft"),
        ("usd/ft", "usd_per_sqft"),
        ("$ per sq. foot", "usd_per_sqft"),
        (" USD ", "usd"),
        ("$", "usd"),
        ("dollars", "usd"),
        ("dollar", "usd"),
        ("Percent", "percent"),
        ("%", "percent"),
        ("pct", "percent"),
        ("percentage", "percent"),
        ("year", "year"),
        ("calendar year", "year"),
        ("sq ft", "sqft"),
        ("square feet", "sqft"),
        ("stories", "stories"),
        ("floors", "stories"),
        ("years", "years"),
        ("yrs", "years"),
        ("months", "months"),
        ("weeks", "weeks"),
        ("days", "days"),
        ("miles", "miles"),
        ("feet", "ft"),
        ("employees", "employee"),
        ("Trucks Owned", "truck"),
    ],
)
def test_a_fields_unit_and_a_word_after_a_number_meet_in_one_form(
    unit: str | None, canonical: str | None
) -> None:
    assert canonical_unit(unit) == canonical


@pytest.mark.parametrize(
    ("words", "stem_of_all"),
    [
        (("company", "companies"), "company"),
        (("pie", "pies"), "pie"),
        (("tie", "ties"), "tie"),
        (("station", "stations"), "station"),
        (("location", "locations"), "location"),
        (("operate", "operated", "operating"), "operat"),
        (("park", "parked", "parking", "parks"), "park"),
        (("season", "seasons", "seasonal"), "season"),
        (("class", "classes"), "class"),
        (("box", "boxes"), "box"),
        (("church", "churches"), "church"),
        (("dish", "dishes"), "dish"),
        (("car", "cars", "Cars"), "car"),
        (("truck", "trucks", "'trucks'", "truck's", "truck’s"), "truck"),
        (("score", "scored", "scoring", "scores"), "scor"),
        (("fly", "flies"), "fly"),
        (("operation", "operations", "operate", "operating", "operated"), "operat"),
        (("decoration", "decorations"), "decorat"),
        (("location", "locations"), "location"),
        (("coast", "coasts", "coastal"), "coast"),
        (("use", "uses"), "use"),
        (("tree", "trees"), "tree"),
        (("eye", "eyes"), "eye"),
    ],
)
def test_every_form_of_a_word_shares_one_stem(words: tuple[str, ...], stem_of_all: str) -> None:
    assert {w: stem(w) for w in words} == dict.fromkeys(words, stem_of_all)


@pytest.mark.parametrize(
    "word",
    [
        "red",
        "sing",
        "total",
        "bus",
        "status",
        "basis",
        "gas",
        "glass",
        "was",
        "yes",
        "ace",
        "movie",
        "goodbye",
    ],
)
def test_short_words_and_words_that_only_look_inflected_are_kept(word: str) -> None:
    assert stem(word) == word


@pytest.mark.parametrize(("text", "values"), [("ten and", [10.0]), ("twenty and more", [20.0])])
def test_a_trailing_and_ends_the_number(text: str, values: list[float]) -> None:
    assert [m.value for m in find_numbers(text)] == values
