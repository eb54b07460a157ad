"""Practice round 37: an approval the speaker gives ("I'll sign it off"), a run of figures
whose end is about what its start is about ("between thirty-eight and forty-two"), and a
bare figure past the one limit its own sentence cites ("Under the new forty-mile-an-hour
point, I've let a chute go at forty-three").

Every field and sentence below is made up for these tests (a sledging-run dictionary no
dataset has).
"""

from __future__ import annotations

from agents.offline.extractor import OfflineExtractor
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from tests.rules import practice_claims

FIELDS = {
    "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL, Property"},
    "occupancy": {
        "type": "str",
        "synonyms": ["class of business"],
        "description": "Business class, lower case (e.g. 'sledging run')",
    },
    "radar_mph": {
        "type": "float",
        "unit": "mph",
        "synonyms": ["radar figure", "clocked"],
        "description": "Fastest radar figure of the season",
    },
    "straw_barrier": {
        "type": "bool",
        "synonyms": ["straw barrier", "straw bales at the bottom"],
        "description": "Straw bales stand at the bottom of the run",
    },
}
DICTIONARY = DataDictionary.model_validate({"fields": FIELDS})
EXTRACTOR = OfflineExtractor(DICTIONARY)
MANUAL = KnowledgeText(
    id="m1",
    text="Where the radar figure of a sledging run exceeds thirty miles per hour, "
    "refer the account on the GL.",
    source="Doc m1",
    source_type="manual",
    date="2024-01-10",
)


def _soft(*texts: KnowledgeText) -> list[tuple[str, float | None, list[str]]]:
    claims = practice_claims(EXTRACTOR, DICTIONARY, MANUAL, *texts)
    return sorted(
        (c.conditions[-1].field, c.soft_limit, c.mitigant_fields)
        for c in claims
        if c.text_id == texts[-1].id
    )


def test_an_sme_range_signed_off_reaches_its_far_end() -> None:
    sme = KnowledgeText(
        id="s1",
        text="Q: How hard is the thirty mile-an-hour line on sledging runs? A: It's a line on "
        "paper. In practice, if the season's log shows a radar figure anywhere between "
        "thirty-three and thirty-six, and the runout climbs uphill, I'll sign it off with "
        "conditions. Above thirty-six I haven't gone.",
        source="Doc s1",
        source_type="sme",
        date="2024-03-01",
    )
    assert _soft(sme) == [("radar_mph", 36.0, [])]


def test_a_bare_figure_past_the_limit_its_sentence_cites() -> None:
    sme = KnowledgeText(
        id="s2",
        text="Under the thirty-mile-an-hour point, I've let a sledging run go at thirty-four where "
        "it had straw bales at the bottom. Beyond thirty-four it's a no from me.",
        source="Doc s2",
        source_type="sme",
        date="2024-03-01",
    )
    assert _soft(sme) == [("radar_mph", 34.0, ["straw_barrier"])]


def test_a_run_that_opens_on_the_limit_itself_is_no_practice() -> None:
    sme = KnowledgeText(
        id="s3",
        text="Q: Since the bulletin, radar figures on the sledging runs at thirty and "
        "thirty-four come to you as referrals. What gets one approved? A: Straw bales at "
        "the bottom. If they are there, I approve with conditions.",
        source="Doc s3",
        source_type="sme",
        date="2024-03-01",
    )
    assert [soft for _, soft, _ in _soft(sme)] == [None]
