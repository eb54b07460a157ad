"""Field linking and query reading on a data dictionary unlike the dev set's (marine)."""

from __future__ import annotations

import datetime as dt

import pytest

from agents.offline import OfflineExtractor
from memory.embedders import WordLlamaEmbedder
from memory.underwriting.fieldlink import FieldLinker, QueryReader, profile_of
from schemas.fields import DataDictionary

MARINE = DataDictionary.model_validate(
    {
        "fields": {
            "product_type": {"type": "str", "description": "Product: BOP, LRO, Property, GL"},
            "berth_state": {"type": "str", "description": "Two-letter US state code of the berth"},
            "vessel_use": {
                "type": "str",
                "synonyms": ["type of business", "operation"],
                "description": "Class of business, lower case (e.g. 'marina', 'water taxi')",
            },
            "hull_material": {
                "type": "str",
                "synonyms": ["hull", "hull construction"],
                "description": "Hull: fiberglass, aluminum, steel, wood plank",
            },
            "engine_type": {
                "type": "str",
                "synonyms": ["engine", "propulsion"],
                "description": "Propulsion: inboard diesel, outboard, jet drive",
            },
            "vessel_length_ft": {
                "type": "float",
                "unit": "ft",
                "synonyms": ["length overall", "LOA", "vessel length"],
                "description": "Length of the vessel",
            },
            "passenger_capacity": {
                "type": "int",
                "unit": "passengers",
                "synonyms": ["passengers", "guests aboard"],
                "description": "Most passengers carried",
            },
            "build_year": {
                "type": "int",
                "unit": "year",
                "synonyms": ["built", "model year"],
                "description": "Year the vessel was built",
            },
            "charter_revenue_pct": {
                "type": "float",
                "unit": "percent",
                "synonyms": ["charter revenue", "charter income"],
                "description": "Share of revenue from charters, in percent",
            },
            "incidents_3yr": {
                "type": "int",
                "unit": "incidents",
                "synonyms": ["incidents", "groundings"],
                "description": "Incidents in the last 3 years",
            },
            "licensed_captain": {
                "type": "bool",
                "synonyms": ["licensed captain", "USCG license"],
                "description": "A licensed captain is aboard on every trip",
            },
            "night_operations": {
                "type": "bool",
                "synonyms": ["night trips", "after dark"],
                "description": "The vessel operates after dark",
            },
        }
    }
)
TODAY = dt.date(2030, 6, 1)


@pytest.fixture(scope="module")
def reader() -> QueryReader:
    known = {"vessel_use": ["water taxi", "fishing charter", "marina"]}
    return QueryReader(profile_of(MARINE), known, WordLlamaEmbedder().embed, today=TODAY)


def test_profile_reads_kinds_units_and_listed_values() -> None:
    profile = profile_of(MARINE)
    assert profile.fields["hull_material"].kind == "enum"
    assert profile.fields["hull_material"].values == (
        "fiberglass",
        "aluminum",
        "steel",
        "wood plank",
    )
    assert profile.fields["vessel_use"].kind == "occupancy"
    assert profile.state == "berth_state"
    assert profile.fields["passenger_capacity"].unit == "passenger"
    assert profile_of(MARINE) is profile  # built once per dictionary


def test_query_states_numbers_values_and_flags(reader: QueryReader) -> None:
    values = reader.read(
        "a 32-foot aluminum water taxi built 12 years ago? no: 10 years old, "
        "carrying twelve passengers without a licensed captain"
    )
    assert values["vessel_length_ft"] == 32.0
    assert values["hull_material"] == "aluminum"
    assert values["vessel_use"] == "water taxi"
    assert values["passenger_capacity"] == 12
    assert values["licensed_captain"] is False


def test_query_reads_ages_shares_comparators_and_skips_time_windows(reader: QueryReader) -> None:
    assert reader.read("a boat 40 years old")["build_year"] == 1990
    assert reader.read("two thirds of its charter revenue")["charter_revenue_pct"] == pytest.approx(
        66.67, abs=0.01
    )
    over = reader.read("more than 3 incidents in the last five years")
    assert over == {"incidents_3yr": 4}  # "over 3" is past 3; "five years" is a window
    assert reader.read("berthed in Florida, operates after dark") == {
        "berth_state": "FL",
        "night_operations": True,
    }


def test_values_by_meaning_only_with_a_clear_lead(reader: QueryReader) -> None:
    scored = reader.read_scored("a fiberglass boat run as a charter fishing outfit")
    assert scored["hull_material"] == ("fiberglass", 1.0)
    assert scored["vessel_use"] == ("fishing charter", 0.5)  # by meaning: half confidence
    # a fragment of a known value is not that value
    assert "vessel_use" not in reader.read("a taxi rank nearby")


def test_linker_names_the_field_of_a_phrase() -> None:
    linker = FieldLinker(profile_of(MARINE))
    assert [h.value for h in linker.values_in("Wood plank hulls and jet drives")] == [
        "wood plank",
        "jet drive",
    ]
    linked = linker.link("hull construction details")
    assert linked is not None and linked.name == "hull_material"
    assert linker.link("the weather") is None


def test_extractor_links_other_categorical_values_and_tables() -> None:
    extractor = OfflineExtractor(MARINE)
    text = (
        "Vessel guide (GL)\n"
        "- Wood plank hulls: decline.\n"
        "- Jet drive vessels - refer to a senior underwriter.\n"
        "Use          | Passengers    | Action\n"
        "water taxi   | more than 49  | refer\n"
    )
    rules = extractor.extract(text, text_id="m1")
    found = {(r.action, tuple((c.field, c.operator, c.value) for c in r.conditions)) for r in rules}
    assert ("decline", (("hull_material", "eq", "wood plank"),)) in found
    assert ("refer", (("engine_type", "eq", "jet drive"),)) in found
    assert any(
        r.action == "refer"
        and ("passenger_capacity", "gt", 49)
        in {(c.field, c.operator, c.value) for c in r.conditions}
        for r in rules
    )
    # no value of another field, no heading, no carrier noun ("vessels", a word the
    # dictionary describes its fields with) becomes a business class
    assert not any(
        c.field == "vessel_use" and c.value != "water taxi" for r in rules for c in r.conditions
    )


def test_coverage_lists_rule_like_sentences_that_yield_nothing() -> None:
    extractor = OfflineExtractor(MARINE)
    text = (
        "Vessels longer than 60 feet are referred. "
        "Owing to the survey backlog, the company does not insure anything when the "
        "surveyor is away. "
        "Thanks for reading."
    )
    rules, uncovered = extractor.extract_with_coverage(text, text_id="m2")
    assert [r.action for r in rules] == ["refer"]
    assert uncovered == [
        "Owing to the survey backlog, the company does not insure anything when the "
        "surveyor is away."
    ]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("two and a half miles", [2.5]),
        ("one and a half years", [1.5]),
        ("a million and a quarter", [1_250_000.0]),
        ("half a mile", [0.5]),
        ("two hundred and fifty", [250.0]),
        ("twenty-five employees", [25.0]),
    ],
)
def test_numbers_in_words_with_a_share(text: str, values: list[float]) -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    assert [m.value for m in find_numbers(text)] == values


def test_a_range_of_number_words_with_and_inside_each() -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    text = "between two hundred and fifty and three hundred employees"
    assert [m.value for m in find_numbers(text)] == [250.0, 300.0]
