"""A text reads against the rules in force on its own day, ended ones included."""

from __future__ import annotations

from typing import Any

from agents.ingestion.practice import with_practice
from memory.underwriting.history import amended_versions
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule


def _rule(product: str, value: int, action: str, **update: Any) -> ExtractedRule:
    base: dict[str, Any] = {
        "rule_name": f"{product} Owners Over {value}",
        "risk_factor": "Owners",
        "risk_category": "eligibility",
        "product_type": product,
        "action": action,
        "threshold": {"field": "owner_count", "operator": "gt", "value": value},
        "conditions": [{"field": "owner_count", "operator": "gt", "value": value}],
        "source": "Manual",
        "source_type": "manual",
        "text_id": "m1",
        "date": "2024-01-10",
        "valid_from": "2024-01-10",
    }
    return ExtractedRule.model_validate({**base, **update})


NOTE = KnowledgeText(
    id="t1",
    text="Quick reference: every line flags more than 25 owners; LRO refers more than 10.",
    source="Desk Handout",
    source_type="training",
    date="2024-11-12",
)


def _read(known: list[ExtractedRule], date: str | None) -> list[tuple[str, float | None]]:
    note = NOTE.model_copy(update={"date": date})
    claim = _rule(
        "ALL", 25, "flag_for_review", source="Desk Handout", source_type="training", text_id="t1"
    ).model_copy(update={"valid_from": None, "date": None})
    return [
        (c.product_type, c.threshold.value if c.threshold else None)
        for c in with_practice([note], [claim], known)
    ]


def test_a_note_read_again_after_a_withdrawal_still_speaks_of_the_rule_of_its_day() -> None:
    every_line = _rule("ALL", 25, "flag_for_review", valid_to="2025-09-02")  # withdrawn since
    lro = _rule("LRO", 10, "refer")
    # Its day knew the every-line rule: the note's every-line limit stays that rule's.
    assert _read([lro, every_line], "2024-11-12") == [("ALL", 25.0)]
    # A note of a day after the withdrawal knows only the LRO rule: read as about it.
    assert _read([lro, every_line], "2025-10-01") == [("LRO", 25.0)]
    # On the withdrawal's own day the every-line rule no longer holds; a note of no day
    # reads the rules in force now.
    assert _read([lro, every_line], "2025-09-02") == [("LRO", 25.0)]
    assert _read([lro, every_line], None) == [("LRO", 25.0)]
    # Without the ended rule known at all, even the note of 2024 was read as LRO's.
    assert _read([lro], "2024-11-12") == [("LRO", 25.0)]


BULLETIN = KnowledgeText(
    id="b1",
    text="From 13 January 2025 every line refers more than five owners (raised from 3).",
    source="Bulletin 7",
    source_type="compliance",
    date="2025-01-13",
)


def _versions(product: str, *limits: tuple[int, str, str | None]) -> list[ExtractedRule]:
    """A rule's versions: (limit, valid from, valid to), under the name of its first."""
    name = f"{product} Owners Over {limits[0][0]}"
    return [
        _rule(product, value, "refer", rule_name=name, valid_from=start, valid_to=end)
        for value, start, end in limits
    ]


# Every line: over 3, then over 5 (the bulletin's), then over 6 (a later bulletin's); GL:
# over 2, then over 3 from December 2025.
EVERY_LINE = _versions(
    "ALL", (3, "2024-01-10", "2025-01-13"), (5, "2025-01-13", "2025-06-01"), (6, "2025-06-01", None)
)
GL = _versions("GL", (2, "2024-01-10", "2025-12-01"), (3, "2025-12-01", None))


def _document(versions: list[ExtractedRule]) -> dict[str, Any]:
    """A Rule node's stored document: its last version, with every version beside it."""
    return {
        **versions[-1].model_dump(mode="json"),
        "versions": [v.model_dump(mode="json") for v in versions],
    }


def test_the_versions_current_rules_had_on_a_day_before_they_were_amended() -> None:
    documents = [_document(EVERY_LINE), _document(GL)]
    found = amended_versions(documents, ["2025-01-13"])
    assert [(r.product_type, r.threshold and r.threshold.value) for r in found] == [
        ("ALL", 5.0),
        ("GL", 2.0),
    ]
    # On a day both current versions held, the caller's current rules are all there is.
    assert amended_versions(documents, ["2025-12-02"]) == []


def test_a_bulletin_read_again_after_later_amendments_names_the_rule_of_its_day() -> None:
    # Read again, the bulletin's "raised from 3" names no rule of its day (every line was
    # at 5 since it, GL at 2): its every-line limit stays every line's. Read against the
    # current versions, it was taken for GL's amendment (GL refers over 3 since 2025-12).
    claim = _rule("ALL", 5, "refer", source="Bulletin 7", source_type="compliance", text_id="b1")
    claim = claim.model_copy(update={"valid_from": None, "date": "2025-01-13"})
    current = [EVERY_LINE[-1], GL[-1]]
    known = current + amended_versions([_document(EVERY_LINE), _document(GL)], [BULLETIN.date])
    assert [c.product_type for c in with_practice([BULLETIN], [claim], known)] == ["ALL"]
