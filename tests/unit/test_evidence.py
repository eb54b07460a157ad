"""Evidence spans: the sentences of a source text that state a rule, found from its content."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from memory.underwriting.evidence import Span, evidence_spans, highlight, sentence_spans
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import FieldSpec, load_data_dictionary
from schemas.rules import ExtractedRule

DATASETS = Path(__file__).parents[2].parent / "shared/datasets"
CONSOLIDATION = DATASETS / "consolidation/dev"
UNDERWRITING = DATASETS / "underwriting/dev"
#: (dataset folder, the file of rules or claims whose rows carry a `text_id`)
SETS = ((CONSOLIDATION, "claims.jsonl"), (UNDERWRITING, "rules.jsonl"))


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _rule(row: dict[str, Any]) -> ExtractedRule:
    """A rule from a dataset row (a consolidated rule's extra keys left out)."""
    return ExtractedRule.model_validate(
        {k: v for k, v in row.items() if k in ExtractedRule.model_fields}
    )


def _texts(folder: Path) -> dict[str, str]:
    return {str(row["id"]): str(row["text"]) for row in _rows(folder / "knowledge.jsonl")}


def _states(text: str, value: float) -> bool:
    """The text writes the number (digits, money, words; a percent or a sign may differ)."""
    for mention in find_numbers(text):
        scales = (1.0, 100.0, 0.01) if mention.unit == "percent" else (1.0,)
        if any(math.isclose(mention.value, abs(value) * k, rel_tol=1e-6) for k in scales):
            return True
    return False


def _threshold_rate(folder: Path, name: str) -> tuple[int, int]:
    """How many rules with a numeric threshold have it in their top span, of how many."""
    texts, fields = _texts(folder), load_data_dictionary(folder / "fields.json").fields
    hits = total = 0
    for row in _rows(folder / name):
        rule = _rule(row)
        value = rule.threshold.value if rule.threshold else None
        if rule.text_id not in texts or isinstance(value, bool | str | list) or value is None:
            continue
        text = texts[rule.text_id]
        spans = evidence_spans(text, rule, fields=fields)
        total += 1
        hits += bool(spans) and _states(text[spans[0].start : spans[0].end], float(value))
    return hits, total


@pytest.mark.skipif(
    not CONSOLIDATION.is_dir(), reason="the shared datasets are not beside the checkout"
)
@pytest.mark.parametrize(
    ("folder", "name"), SETS, ids=["consolidation-claims", "underwriting-rules"]
)
def test_the_top_span_states_the_threshold(folder: Path, name: str) -> None:
    hits, total = _threshold_rate(folder, name)
    rate = hits / total
    print(f"{folder.parent.name}/{name}: top span holds the threshold {hits}/{total} = {rate:.3f}")
    assert total >= 25
    assert rate >= 0.9


@pytest.mark.skipif(
    not CONSOLIDATION.is_dir(), reason="the shared datasets are not beside the checkout"
)
@pytest.mark.parametrize(
    ("folder", "name"), SETS, ids=["consolidation-claims", "underwriting-rules"]
)
def test_every_rule_has_evidence_in_its_text_and_rarely_elsewhere(folder: Path, name: str) -> None:
    texts, fields = _texts(folder), load_data_dictionary(folder / "fields.json").fields
    rules = [_rule(row) for row in _rows(folder / name)]
    found = sum(bool(evidence_spans(texts[r.text_id or ""], r, fields=fields)) for r in rules)
    assert found == len(rules)
    # A text none of whose rules reads a field this rule reads is about something else.
    read: dict[str, set[str]] = {}
    for rule in rules:
        read.setdefault(rule.text_id or "", set()).update(c.field for c in rule.conditions)
    pairs = [
        (rule, text)
        for rule in rules
        for tid, text in texts.items()
        if tid != rule.text_id and not read.get(tid, set()) & {c.field for c in rule.conditions}
    ]
    quiet = sum(not evidence_spans(text, rule, fields=fields) for rule, text in pairs)
    print(f"{folder.parent.name}/{name}: no evidence in unrelated texts {quiet}/{len(pairs)}")
    assert quiet / len(pairs) >= 0.9


@pytest.mark.skipif(
    not CONSOLIDATION.is_dir(), reason="the shared datasets are not beside the checkout"
)
def test_a_consolidated_rule_finds_evidence_in_every_text_it_rests_on() -> None:
    texts, fields = (
        _texts(CONSOLIDATION),
        load_data_dictionary(CONSOLIDATION / "fields.json").fields,
    )
    pairs = [
        (_rule(row), tid) for row in _rows(CONSOLIDATION / "rules.jsonl") for tid in row["text_ids"]
    ]
    assert pairs
    # An older text states the limit the rule had then: its words still find the sentence.
    assert all(evidence_spans(texts[tid], rule, fields=fields) for rule, tid in pairs)


def test_sentences_keep_numbers_abbreviations_and_semicolons_whole() -> None:
    text = (
        "Section 3 - Size. 3.1 Refer accounts over $1.5M per s. 8.3 of the guide; see also s.8.4. "
        "Insureds, e.g. bakeries in the U.S. market, pay 2.5% more. R. Okafor agrees! Why? "
        "Because.\n- first bullet\n- second bullet; same piece\n\nProgram | Cap\nBOP | 25"
    )
    pieces = [text[a:b] for a, b in sentence_spans(text)]
    assert pieces == [
        "Section 3 - Size.",
        "3.1 Refer accounts over $1.5M per s. 8.3 of the guide; see also s.8.4.",
        "Insureds, e.g. bakeries in the U.S. market, pay 2.5% more.",
        "R. Okafor agrees!",
        "Why?",
        "Because.",
        "- first bullet",
        "- second bullet; same piece",
        "Program | Cap",
        "BOP | 25",
    ]


def test_hard_wrapped_prose_stays_one_sentence() -> None:
    text = (
        "A building that has been vacant for more than sixty consecutive days is\n"
        "referred to the team lead with the owner's leasing plan.\nHeading\nNext one."
    )
    pieces = [text[a:b] for a, b in sentence_spans(text)]
    assert pieces[0].endswith("leasing plan.") and pieces[0].startswith("A building")
    assert pieces[1:] == ["Heading", "Next one."]
    assert sentence_spans("") == [] and sentence_spans("  \n ") == []


EMPLOYEES = ExtractedRule(
    rule_name="Headcount cap",
    risk_factor="Employee count",
    risk_category="eligibility",
    action="refer",
    threshold={"field": "employee_count", "operator": "gt", "value": 25000, "unit": "employees"},
    conditions=[{"field": "employee_count", "operator": "gt", "value": 25000}],
)
FIELDS = {"employee_count": FieldSpec(type="int", synonyms=["headcount", "staff"])}


LOSS = ExtractedRule(
    rule_name="Large loss",
    risk_factor="Largest loss",
    risk_category="eligibility",
    action="refer",
    threshold={"field": "largest_loss_usd", "operator": "gt", "value": 25000, "unit": "USD"},
    conditions=[{"field": "largest_loss_usd", "operator": "gt", "value": 25000}],
)


@pytest.mark.parametrize(
    ("rule", "number"),
    [
        (EMPLOYEES, "25,000 staff"),
        (EMPLOYEES, "25000 staff"),
        (EMPLOYEES, "twenty-five thousand staff"),
        (LOSS, "a $25k loss"),
        (LOSS, "a loss of $25,000"),
        (LOSS, "a loss of twenty-five thousand dollars"),
    ],
)
def test_the_rule_is_found_by_its_number_however_written(rule: ExtractedRule, number: str) -> None:
    text = (
        "Our program serves small firms. Loss runs are read for five years. "
        f"Accounts with {number} go to a team lead. Quotes expire in 30 days."
    )
    [span] = evidence_spans(text, rule, fields=FIELDS)
    assert text[span.start : span.end].startswith("Accounts with")
    assert span.score > 0


def test_words_find_a_rule_without_numbers_and_a_percent_reads_as_its_fraction() -> None:
    rule = ExtractedRule(
        rule_name="Low rate",
        risk_factor="Property rate",
        risk_category="pricing",
        action="refer",
        threshold={"field": "property_rate", "operator": "lt", "value": 0.0025},
        conditions=[{"field": "property_rate", "operator": "lt", "value": 0.0025}],
    )
    text = "Rates are filed each year. A property rate under 0.25% needs referral. Be kind."
    [span] = evidence_spans(text, rule)
    assert text[span.start : span.end] == "A property rate under 0.25% needs referral."
    state = ExtractedRule(
        rule_name="California out",
        risk_factor="California",
        risk_category="geographic_appetite",
        action="decline",
        conditions=[{"field": "state", "operator": "eq", "value": "CA"}],
    )
    text = "We write in most states. Submissions from California are declined at intake."
    assert [text[s.start : s.end] for s in evidence_spans(text, state)] == [
        "Submissions from California are declined at intake."
    ]


def test_nothing_relevant_gives_no_spans() -> None:
    text = "Cooking risks need a hood system. Jewelry stores need a central station alarm."
    assert evidence_spans(text, EMPLOYEES, fields=FIELDS) == []
    assert evidence_spans("", EMPLOYEES) == []
    assert evidence_spans("Accounts over 25,000 staff are referred.", EMPLOYEES, most=0) == []
    # A number alone in another unit is not the rule: "25,000 square feet" is no headcount.
    assert evidence_spans("Buildings over 25,000 square feet are rated.", EMPLOYEES) == []


def test_at_most_most_spans_best_first() -> None:
    text = (
        "Headcount over 25,000 staff is referred. Over 25,000 staff the lead reviews headcount "
        "and refers it. Staff counts include part-time staff. Rates change yearly."
    )
    spans = evidence_spans(text, EMPLOYEES, fields=FIELDS, most=2)
    assert len(spans) == 2
    assert spans[0].score >= spans[1].score
    assert len(evidence_spans(text, EMPLOYEES, fields=FIELDS, most=1)) == 1


@pytest.mark.parametrize(
    "spans",
    [
        [],
        [Span(0, 5, 1.0)],
        [Span(6, 11, 2.0), Span(0, 3, 1.0)],
        [Span(2, 8, 1.0), Span(4, 12, 1.0)],
        [Span(0, 40, 1.0)],
        [Span(5, 5, 1.0), Span(-3, 2, 1.0), Span(11, 99, 1.0)],
    ],
)
def test_highlight_covers_the_text_once_in_order(spans: list[Span]) -> None:
    text = "Hello brave new world"
    segments = highlight(text, spans)
    assert "".join(piece for piece, _ in segments) == text
    assert all(piece for piece, _ in segments)
    # marked and unmarked pieces alternate: overlapping or touching spans were merged
    assert all(a[1] != b[1] for a, b in zip(segments, segments[1:], strict=False))
    marked = {i for s in spans for i in range(max(0, s.start), min(len(text), s.end))}
    at = 0
    for piece, on in segments:
        assert all((i in marked) == on for i in range(at, at + len(piece)))
        at += len(piece)
    assert highlight("", spans) == []


def test_highlight_of_found_evidence() -> None:
    text = "Intro line. Accounts with more than 25,000 staff are referred. Outro."
    segments = highlight(text, evidence_spans(text, EMPLOYEES, fields=FIELDS))
    assert segments == [
        ("Intro line. ", False),
        ("Accounts with more than 25,000 staff are referred.", True),
        (" Outro.", False),
    ]
