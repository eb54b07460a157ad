"""Practice and statements round 33: "one" is a pronoun in a case line, a referral "the
way the guideline says" restates the rule, a decision under a numbered section cites no
figure, an aside between dashes hides no class, and a picture is no business.

Every field and sentence below is made up for these tests (an organ-builder dictionary no
dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, LRO"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'organ builder', 'bell ringer')",
    },
    "loading_dock_clearance_ft": {
        "type": "float",
        "unit": "ft",
        "synonyms": ["dock clearance", "loading dock clearance"],
        "description": "Clear height of the only loading dock door, in feet",
    },
    "crane_on_site": {
        "type": "bool",
        "synonyms": ["crane on site", "overhead crane"],
        "description": "An overhead crane is installed on site",
    },
    "pipe_voicing_events_year": {
        "type": "int",
        "unit": "events",
        "synonyms": ["voicing events", "public voicing sessions"],
        "description": "Public pipe-voicing sessions held a year",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)


def _dictionary(**extra: object) -> DataDictionary:
    """The organ-builder dictionary with other fields, or some replaced."""
    return DataDictionary.model_validate({"fields": {**FIELDS, **extra}})


def _reader(**extra: object) -> OfflineExtractor:
    return OfflineExtractor(_dictionary(**extra))


def _text(id_: str, kind: str, day: str, text: str) -> KnowledgeText:
    return KnowledgeText(id=id_, text=text, source=f"Doc {id_}", source_type=kind, date=day)


MANUAL = _text(
    "m1",
    "manual",
    "2024-01-10",
    "LRO buildings whose only loading dock clearance is under 12 ft are referred.",
)


def test_one_in_a_case_line_is_a_pronoun_not_a_figure() -> None:
    sme = _text(
        "s1",
        "sme",
        "2024-05-02",
        "Q: The twelve-foot dock rule. How hard is it?\nA: Softer than it reads. I have two in "
        "the book behind lower loading docks. One is a converted mill leased to an organ "
        "builder. The only dock is cleared at ten feet, but there's an overhead crane fifty "
        "feet from the building. Approved.",
    )
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, sme)
    soft = [c.soft_limit for c in claims if c.text_id == "s1"]
    assert soft == [10.0]


def test_a_referral_the_way_the_guideline_says_is_no_rule_of_its_own() -> None:
    said = (
        "LRO buildings whose only loading dock clearance is under 12 ft are referred. And "
        "without an overhead crane I refer it up the line the way the guideline says."
    )
    rules = EXTRACTOR.extract(said, source_type="sme")
    assert [[c.field for c in r.conditions] for r in rules] == [["loading_dock_clearance_ft"]]


def test_a_decision_under_a_numbered_section_cites_no_figure() -> None:
    said = (
        "GL-24-118 Pipeworks Ltd, organ builder; 24 voicing events last year. "
        "Referred under 3.8; approved."
    )
    rules = EXTRACTOR.extract(said, source_type="production")
    assert all(c.value != 3.8 for r in rules for c in r.conditions)


def test_an_aside_between_dashes_leaves_the_class() -> None:
    said = (
        "Any organ builder - one-person shop, church workshop, or a factory - is referred "
        "to a senior GL underwriter."
    )
    (rule,) = EXTRACTOR.extract(said, source_type="manual")
    assert [(c.field, c.value) for c in rule.conditions] == [("occupancy", "organ builder")]


def test_the_liability_picture_is_no_class() -> None:
    said = (
        "Where the only road into the location crosses a dock whose loading dock clearance "
        "is under 12 ft, a truck cannot reach the premises, and the liability picture "
        "changes as well (delayed deliveries). Such locations are referred to the senior "
        "underwriter."
    )
    (rule,) = EXTRACTOR.extract(said, source_type="manual")
    assert [(c.field, c.value) for c in rule.conditions] == [("loading_dock_clearance_ft", 12)]


def test_an_approval_back_on_the_ordinary_rules_is_no_rule() -> None:
    said = (
        "Bulletin OB-4 is withdrawn. Organ builders may again be quoted, subject to Chapter 9 "
        "of the manual like any other shop."
    )
    assert EXTRACTOR.extract(said, source_type="compliance") == []


def test_a_raised_cap_is_the_new_upper_bound() -> None:
    said = (
        "Effective 1 May 2025 the referral cap for organ builders is raised from 5 to 8 voicing "
        "events."
    )
    (rule,) = EXTRACTOR.extract(said, source_type="compliance")
    assert [(c.field, c.operator, c.value) for c in rule.conditions if c.field != "occupancy"] == [
        ("pipe_voicing_events_year", "gt", 8)
    ]


def test_a_raised_referral_point_says_no_side() -> None:
    said = "The referral point for voicing events is raised from 5 to 8."
    rules = EXTRACTOR.extract(said, source_type="compliance")
    assert all(c.operator != "gt" for r in rules for c in r.conditions)


def test_classes_told_in_a_list_then_pointed_at() -> None:
    text = (
        "Pipe voicers and canvas awning fabricators keep bolts of cloth on open racks. These "
        "occupancies are referred to a senior property underwriter."
    )
    (rule,) = EXTRACTOR.extract(text, source_type="manual")
    assert [(c.field, c.operator, sorted(c.value)) for c in rule.conditions] == [  # type: ignore[arg-type]
        ("occupancy", "in", ["canvas awning fabricator", "pipe voicer"])
    ]


def test_makers_of_goods_in_a_list_are_one_class() -> None:
    said = (
        "Canvas awning fabricators and makers of flags and banners are referred to a senior "
        "property underwriter."
    )
    (rule,) = EXTRACTOR.extract(said, source_type="manual")
    assert sorted(rule.conditions[0].value) == [  # type: ignore[arg-type]
        "canvas awning fabricator",
        "flag and banner maker",
    ]


def test_a_flag_a_trade_makes_is_no_flag_for_review() -> None:
    said = "Flag and banner makers keep bolts of nylon on open tables."
    assert EXTRACTOR.extract(said, source_type="manual") == []


def test_what_the_standards_say_names_no_class() -> None:
    said = "Q: The standards say anything under 12 ft of dock clearance goes to a senior. Why?"
    rules = EXTRACTOR.extract(said, source_type="sme")
    assert all(c.field != "occupancy" for r in rules for c in r.conditions)


def test_a_period_that_triggers_a_referral_is_no_class() -> None:
    said = (
        "The voicing period that triggers senior referral is shortened from eight events to "
        "six: organ builders with more than six voicing events continue to be referred."
    )
    rules = EXTRACTOR.extract(said, source_type="compliance")
    assert [[(c.field, c.value) for c in r.conditions] for r in rules] == [
        [("occupancy", "organ builder"), ("pipe_voicing_events_year", 6)]
    ]


_CHURCH = {
    "type": "float",
    "unit": "feet",
    "synonyms": ["distance to the church"],
    "description": "Distance to the nearest church, in feet",
}


def test_practice_told_in_yards_on_a_field_in_feet() -> None:
    reader = _reader(distance_to_church_ft=_CHURCH)
    text = (
        "An organ builder within one hundred yards of a church is referred. In practice we "
        "have approved down to seventy yards when the shop is quiet at service times."
    )
    (rule,) = reader.extract(text, source_type="sme")
    assert rule.soft_limit == 210.0


def test_yards_in_a_field_counted_in_feet() -> None:
    said = "An organ builder within one hundred yards of a church is referred."
    reader = _reader(distance_to_church_ft=_CHURCH)
    (rule,) = reader.extract(said, source_type="manual")
    assert [(c.field, c.operator, c.value) for c in rule.conditions][-1] == (
        "distance_to_church_ft",
        "lt",
        300.0,
    )


def test_the_following_classes_are_the_list_after_the_colon() -> None:
    said = "The following classes are referred to a team lead: organ builders, bell ringers."
    (rule,) = EXTRACTOR.extract(said, source_type="manual")
    assert rule.conditions[0].field == "occupancy"
    assert sorted(rule.conditions[0].value) == ["bell ringer", "organ builder"]  # type: ignore[arg-type]


def test_one_in_ten_is_a_share() -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    assert [(n.value, n.fraction) for n in find_numbers("one sale in ten")] == [(0.1, True)]
    assert [n.value for n in find_numbers("two losses in five years")] == [2, 5]


def test_a_listed_class_said_in_longer_words() -> None:
    reader = _reader(
        occupancy={
            **FIELDS["occupancy"],
            "description": "Business class (e.g. 'small hydro station')",
        },
        state={"type": "str", "synonyms": ["state"], "description": "Two-letter state"},
    )
    for said in (
        "No new Property business is to be written for small hydroelectric stations located "
        "in Vermont.",
        "New Property submissions for small hydroelectric stations in Vermont are declined.",
    ):
        (rule,) = reader.extract(said, source_type="compliance")
        assert ("occupancy", "small hydro station") in [(c.field, c.value) for c in rule.conditions]


def test_taken_off_the_referral_list_then_written_with_conditions() -> None:
    text = (
        "Organ builders are removed from the BOP referral list with effect from 3 November "
        "2025. They may be written at the desk and approved with conditions: a signed "
        "safety procedure on file."
    )
    rules = EXTRACTOR.extract(text, source_type="compliance")
    assert [(r.action, [(c.field, c.value) for c in r.conditions]) for r in rules] == [
        ("approve_with_conditions", [("occupancy", "organ builder")])
    ]


def test_taken_off_the_referral_list_ends_the_referral() -> None:
    said = "Organ builders are removed from the BOP referral list with effect from 3 November 2025."
    (rule,) = EXTRACTOR.extract(said, source_type="compliance")
    assert (rule.action, rule.withdrawn) == ("refer", True)


def test_watts_in_a_field_counted_in_milliwatts() -> None:
    reader = _reader(
        laser_output_mw={
            "type": "int",
            "unit": "mW",
            "synonyms": ["laser output", "projector output"],
            "description": "Output (milliwatts) of the strongest laser projector",
        },
    )
    said = "Laser projectors rated above half a watt (500 mW) are declined."
    (rule,) = reader.extract(said, source_type="manual")
    assert [(c.field, c.operator, c.value) for c in rule.conditions] == [
        ("laser_output_mw", "gt", 500)
    ]


def test_a_prefixed_number_word_is_no_figure() -> None:
    from memory.underwriting.fieldlink.numbers import find_numbers

    assert find_numbers("the sub-zero room") == []
    assert [n.value for n in find_numbers("twenty-one rooms")] == [21]


def test_a_field_named_with_an_action_word_states_no_action() -> None:
    reader = _reader(
        supplier_verification_program={
            "type": "bool",
            "synonyms": ["Supplier Verification Program"],
            "description": "A documented supplier verification program is in place",
        },
    )
    said = "Every organ builder must maintain a Supplier Verification Program."
    assert reader.extract(said, source_type="compliance") == []


def test_a_required_protection_said_again_by_its_head() -> None:
    reader = _reader(
        spray_booth_own={
            "type": "bool",
            "synonyms": ["spray booth", "own spray booth"],
            "description": "The shop operates its own spray booth",
        },
        booth_air_permit={
            "type": "bool",
            "synonyms": ["booth air permit", "air quality permit"],
            "description": "The shop holds an air quality permit for its booth",
        },
    )
    said = (
        "Shops that operate their own spray booth must hold an air quality permit, and a "
        "spray booth without a permit is referred."
    )
    (rule,) = reader.extract(said, source_type="compliance")
    assert [(c.field, c.value) for c in rule.conditions] == [
        ("spray_booth_own", True),
        ("booth_air_permit", False),
    ]


def test_a_table_number_counts_its_column_not_a_word_near_it() -> None:
    dictionary = _dictionary(
        pipes_in_shop={
            "type": "int",
            "unit": "pipes",
            "synonyms": ["pipes in the shop"],
            "description": "Organ pipes held in the shop",
        },
        monthly_organ_hauls={
            "type": "int",
            "unit": "hauls per month",
            "synonyms": ["organ hauls a month", "hauls per month"],
            "description": "Organ pickups and deliveries a month",
        },
    )
    reader = OfflineExtractor(dictionary)
    manual = _text(
        "m1",
        "manual",
        "2024-01-10",
        "BOP shops holding more than 12 pipes in the shop are referred. BOP shops making "
        "more than 30 organ hauls a month are referred.",
    )
    log = _text(
        "p1",
        "production",
        "2024-06-01",
        "Ref | Shop | Hauls / month | Decision\n"
        "BOP-1 | rebuild shop, Toledo | 31 | approved with conditions\n"
        "BOP-2 | restorer, Columbus | 34 | approved with conditions",
    )
    claims = practice_claims(reader, dictionary, manual, log)
    softened = {c.conditions[-1].field: c.soft_limit for c in claims if c.text_id == "p1"}
    assert softened == {"monthly_organ_hauls": 34.0}
