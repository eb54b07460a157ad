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
