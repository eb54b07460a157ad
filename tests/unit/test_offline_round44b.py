"""Offline extraction round 44, second part: what a later clause or text says again.

Every field and sentence below is made up for these tests (a kite-festival dictionary no
dataset has).
"""

from __future__ import annotations

from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import BASE_FIELDS, extractor_over, practice_claims, rule_triples

FIELDS = {
    **BASE_FIELDS,
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business", "class"],
        "description": "Business class, lower case (e.g. 'kite shop')",
    },
    "kite_line_count": {
        "type": "int",
        "unit": "lines",
        "synonyms": ["kite lines", "flying lines", "line positions"],
        "description": "Largest number of lines any kite flown by the insured is rigged with",
    },
    "pilot_flight_hours": {
        "type": "int",
        "unit": "hours",
        "synonyms": ["logged flight hours"],
        "description": "Fewest logged flight hours of any pilot of the insured",
    },
    "kiln_count": {
        "type": "int",
        "unit": "kilns",
        "synonyms": ["kilns", "firing kilns"],
        "description": "Number of firing kilns in the workshop",
    },
    "instructor_rated": {
        "type": "bool",
        "synonyms": ["flight instructor rating"],
        "description": "The least experienced pilot holds a flight instructor rating",
    },
    "festival_guests_count": {
        "type": "int",
        "unit": "guests",
        "synonyms": ["overnight guests", "sleeping guests"],
        "description": "Most guests sleeping on the festival ground in one night",
    },
    "warden_on_site": {
        "type": "bool",
        "synonyms": ["resident warden", "warden lives on site"],
        "description": "A warden lives on the festival ground and is there at night",
    },
    "construction_type": {
        "type": "str",
        "synonyms": ["construction"],
        "description": "Construction class, lower case: frame, joisted masonry, masonry",
    },
}
EXTRACTOR = extractor_over(FIELDS)


def test_more_of_the_field_than_that_is_past_the_figure_before() -> None:
    text = (
        "Only kites rigged with a dozen kite lines or fewer can be cleared at the desk. "
        "Anything with more line positions than that is a referral."
    )
    assert rule_triples(EXTRACTOR, text, "training") == [
        ("ALL", "refer", [("kite_line_count", "gt", 12)])
    ]


def test_short_of_an_accepted_figure_is_below_it() -> None:
    text = (
        "A kite troupe clears the rule only when every pilot has logged four hundred flight "
        "hours or more; short of that, the GL submission is a decline."
    )
    assert [
        [(c.field, c.operator, c.value) for c in r.conditions]
        for r in EXTRACTOR.extract(text, source_type="training")
    ] == [[("pilot_flight_hours", "lt", 400)]]


def test_a_class_named_with_company_keeps_it_and_a_flat_no_is_a_decline() -> None:
    assert rule_triples(EXTRACTOR, "Hot-air kite tour companies are a flat no on the BOP.") == [
        ("BOP", "decline", [("occupancy", "eq", "hot-air kite tour company")])
    ]


def test_a_wood_frame_workshop_s_bound_keeps_its_construction_past_it() -> None:
    text = (
        "A wood-frame studio may fire no more than two firing kilns; over two is a decline "
        "on Property."
    )
    assert rule_triples(EXTRACTOR, text) == [
        ("Property", "decline", [("construction_type", "eq", "frame"), ("kiln_count", "gt", 2)])
    ]


def test_a_class_said_again_in_other_words_is_the_known_class() -> None:
    def text(body: str, kind: str, tid: str, date: str) -> KnowledgeText:
        return KnowledgeText(id=tid, text=body, source="Desk", source_type=kind, date=date)  # type: ignore[arg-type]

    claims = practice_claims(
        EXTRACTOR,
        DataDictionary.model_validate({"fields": FIELDS}),
        text("Sky lantern release vendors are declined on the BOP.", "manual", "k1", "2024-01-02"),
        text(
            "Release outfits - the sky lantern vendors - are a flat no on the BOP.",
            "training",
            "k2",
            "2024-06-01",
        ),
    )
    assert [(c.text_id, [c2.value for c2 in c.conditions]) for c in claims] == [
        ("k1", ["sky lantern release vendor"]),
        ("k2", ["sky lantern release vendor"]),
    ]


def _text(body: str, kind: str, tid: str, date: str) -> KnowledgeText:
    return KnowledgeText(id=tid, text=body, source="Desk", source_type=kind, date=date)  # type: ignore[arg-type]


_HOURS_RULE = _text(
    "GL: a kite troupe whose pilots have fewer than 300 logged flight hours is declined.",
    "manual",
    "k1",
    "2024-01-02",
)


def _later(*texts: KnowledgeText) -> list[tuple[str, float | None, list[str]]]:
    claims = practice_claims(
        EXTRACTOR, DataDictionary.model_validate({"fields": FIELDS}), _HOURS_RULE, *texts
    )
    return [(c.text_id, c.soft_limit, c.mitigant_fields) for c in claims if c.text_id != "k1"]


def test_putting_one_s_name_to_a_case_past_the_floor_is_how_far_practice_went() -> None:
    said = _text(
        "Q: Is the three-hundred-hour floor firm? A: It's the book number, but it is not a "
        "wall. I've put my name to troupes whose junior pilot sat at two hundred and fifty "
        "hours. What gets me there is a flight instructor rating.",
        "sme",
        "k2",
        "2024-05-01",
    )
    assert _later(said) == [("k2", 250, ["instructor_rated"])]


def test_a_case_narrative_s_terms_per_day_are_no_figure_of_the_case() -> None:
    said = _text(
        "Kite troupe, Outer Banks. The lead pilot has 1,900 hours, but the second pilot had "
        "only two hundred and twenty flight hours, under the 300-hour floor that normally "
        "means a decline. The underwriter approved with conditions: the second pilot flies "
        "no more than one show a day for the first season.",
        "production",
        "k2",
        "2024-05-01",
    )
    assert _later(said) == [("k2", 220, [])]


def test_a_limit_said_in_the_dictionary_s_words_is_the_one_a_bare_figure_passes() -> None:
    claims = practice_claims(
        EXTRACTOR,
        DataDictionary.model_validate({"fields": FIELDS}),
        _text(
            "A frame building with more than two firing kilns is declined on Property.",
            "manual",
            "k1",
            "2024-01-02",
        ),
        _text(
            "The decline on more than two firing kilns is sensible, but I'll take a frame "
            "building with three, and I have taken four.",
            "sme",
            "k2",
            "2024-05-01",
        ),
    )
    assert [(c.text_id, c.soft_limit) for c in claims] == [("k1", None), ("k2", 4)]


def test_a_value_said_twice_in_a_clause_is_one_value() -> None:
    text = "A frame building (wood-frame walls) with more than two kilns is declined on Property."
    assert rule_triples(EXTRACTOR, text) == [
        ("Property", "decline", [("construction_type", "eq", "frame"), ("kiln_count", "gt", 2)])
    ]


def test_an_aside_opening_a_bulletin_item_is_no_subject() -> None:
    text = (
        "2. For the avoidance of doubt, sky lantern release vendors remain ineligible for "
        "the businessowners package and are declined."
    )
    assert rule_triples(EXTRACTOR, text, "compliance") == [
        ("BOP", "decline", [("occupancy", "eq", "sky lantern release vendor")])
    ]


def test_a_package_that_says_no_outright_declines() -> None:
    text = (
        "Festivals on the package: only festivals at or under twelve sleeping guests are fine "
        "for the BOP; above that the package says no outright, with no referral."
    )
    assert rule_triples(EXTRACTOR, text, "training") == [
        ("BOP", "decline", [("festival_guests_count", "gt", 12)])
    ]


def test_the_guide_figure_and_how_far_practice_goes_on_what_terms() -> None:
    claims = practice_claims(
        EXTRACTOR,
        DataDictionary.model_validate({"fields": FIELDS}),
        _text(
            "GL: a festival with more than 20 overnight guests is referred.",
            "manual",
            "k1",
            "2024-01-02",
        ),
        _text(
            "Twenty overnight guests is the guide figure for GL festivals. We go up to "
            "twenty-six sleeping guests when a resident warden is there at night.",
            "sme",
            "k2",
            "2024-05-01",
        ),
    )
    assert [(c.text_id, c.soft_limit, c.mitigant_fields) for c in claims] == [
        ("k1", None, []),
        ("k2", 26, ["warden_on_site"]),
    ]


def test_a_paragraph_every_class_but_one_is_subject_to_spares_that_class() -> None:
    fields = {
        **FIELDS,
        "occupancy": {
            "type": "str",
            "synonyms": ["class"],
            "description": "Business class (e.g. 'kite shop', 'stunt kite repair service')",
        },
        "cover_gap_days": {
            "type": "int",
            "unit": "days",
            "synonyms": ["break in prior insurance", "break in cover"],
            "description": "Longest break in prior insurance, in days",
        },
    }
    text = (
        "1.2 Continuity. Every class except stunt kite repair services is subject to this "
        "paragraph; repairers close for the winter. A break in prior insurance of more than "
        "45 days is referred. 1.3 Losses. A kite shop with more than 45 days of break in "
        "cover is declined."
    )
    assert rule_triples(extractor_over(fields), text) == [
        (
            "ALL",
            "refer",
            [("cover_gap_days", "gt", 45), ("occupancy", "neq", "stunt kite repair service")],
        ),
        ("ALL", "decline", [("cover_gap_days", "gt", 45), ("occupancy", "eq", "kite shop")]),
    ]


def test_a_spared_paragraph_is_said_sentence_by_sentence() -> None:
    from agents.offline.plain_text import said_plainly

    text = (
        "1.2 Gaps. Every class except kite shops is subject to this paragraph; shops close. "
        "Refer a gap of more than 45 days. A gap of 120 days is declined. 1.3 Losses."
    )
    assert said_plainly(text) == (
        "1.2 Gaps. Except for kite shops, refer a gap of more than 45 days. Except for kite "
        "shops, a gap of 120 days is declined. 1.3 Losses."
    )
