"""Offline, deterministic rule extraction (used when no LLM key is configured).

Run `python -m agents.offline.extractor DATASET_DIR` to score it against a dataset's
`knowledge.jsonl` / `rules.jsonl` (precision, recall, F1 and the missed gold rules).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from agents.offline import lexicon as lx
from agents.offline.assemble import RuleAssembler
from agents.offline.case_outcomes import furthest_approved
from agents.offline.clauses import ClauseAnalyzer, detect_action
from agents.offline.conditions import NumericHit
from agents.offline.definitions import with_definitions
from agents.offline.pipeline import TextReader
from agents.offline.placement import find_product
from agents.offline.relief import PRACTICE_KINDS, read_reliefs, relief_of
from agents.offline.textproc import Sentence, extract_source, split_sentences, strip_connectors
from agents.offline.texts import (
    decision_quality,
    expand_class_acronyms,
    header_product,
    listed_conditions,
    single_product,
    strip_case_ids,
)
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.consolidate import condition_key
from memory.underwriting.fieldlink.numbers import find_numbers
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.rules import SOURCE_TYPES, ExtractedRule

#: Words that make a sentence conditional ("if", "over", "without"): with an action cue,
#: the sentence reads like a rule.
_CONDITION_CUE = re.compile(
    r"\b(?:if|when|whenever|where|unless|over|above|under|below|more than|less than|"
    r"at least|at most|without|with|exceed\w*|older|newer|within|between)\b",
    re.I,
)


#: "accepted only from / only if / only when X": X is required, its absence the rule.
_ONLY_WITH = re.compile(r"\bonly\s+(?:if|when|where|from|for|after)\b", re.I)

#: "changed insurers more than twice in five years": a count of two (not "twice that").
#: "..., provided that the referral may be waived where X": a waiver, not a proviso ("but").
_PROVIDED_WAIVED = re.compile(
    r",\s*provided(?:\s+that)?\s+(?=(?:the|this|that|any|such)\s+(?:referral|decline|"
    r"declination|flag|exclusion|verification)s?\s+(?:may|can|could|will)\s+(?:still\s+)?be\s+"
    r"(?:waived|cleared|lifted|set aside)\b)",
    re.I,
)
#: "the guide wants anything under three years in business referred", "must have the
#: owner's background verified": what is to be done, said as a wish or a duty ("anything
#: under three years in business is referred").
_WANTS_DONE = re.compile(
    r"\b(?:wants?|wanted|would have|expects?|must have|must get|should have|shall have|"
    r"needs? to have|(?:is|are) to have)\s+"
    r"(?P<what>(?!to\b|it\b|them\b|been\b)[^.;:]{3,80}?)(?<!\sbe)\s+"
    r"(?P<done>referred|declined|flagged|verified|excluded)\b",
    re.I,
)
#: "write it with conditions: printers on a non-combustible surface, ...": the terms an
#: approval lists are no conditions of the risk.
_TERMS_LISTED = re.compile(
    r"\b(with (?:these |the following |some |two |three |a few )?conditions)\s*[:\u2013\u2014]"
    r"[^.\n\"]+",
    re.I,
)
#: What makes the words after "with conditions:" a rule of their own ("a cabled route longer
#: than three thousand feet needs ...", "when the peak crowd exceeds 8,000").
_STATES_A_RULE = re.compile(
    r"\b(?:if|when|whenever|where|than|exceeds?|is|are|over|above|under|below|more|less|"
    r"fewer|needs?|requires?)\b|\d",
    re.I,
)


def _only_terms(match: re.Match[str]) -> bool:
    """True when the words after "with conditions:" only list terms (no rule of their own)."""
    return _STATES_A_RULE.search(match.group(0)[len(match.group(1)) :]) is None


#: "a building valued under $100,000 but larger than 10,000 sq ft": two bounds of one
#: subject, both to hold ("and"), no contrast.
_BUT_BOUND = re.compile(
    r"(\b(?:under|over|below|above|than)\s+\$?\d[\d,.]*(?:\s*(?:%|[a-z]+\.?)){0,2})\s+but\s+"
    r"(?=(?:larger|smaller|bigger|taller|higher|lower|older|newer|longer|shorter|more|less|"
    r"fewer|over|under|above|below|at least|at most)\b)",
    re.I,
)
#: A log's short words for its outcomes: "ref'd", "appr'd", "Decl.", "w/ conds".
_SHORTHAND = (
    (re.compile(r"\bref['\u2019]d\b", re.I), "referred"),
    (re.compile(r"\bappr['\u2019]d\b", re.I), "approved"),
    (re.compile(r"\bdecl(?:['\u2019]d\b|\.(?=\s|$))", re.I), "declined."),
    (re.compile(r"\bw/\s*conds?\b\.?", re.I), "with conditions"),
)


#: "framing sheds over 8,000 sq ft referred": a bound and a bare participle, a log's way of
#: saying "are referred".
_BARE_DONE = re.compile(
    r"(\b(?:over|above|under|below|than|exceeding)\s+\$?\d[\d,.]*(?:\s*(?:%|[a-z]+\.?)){0,2})"
    r"\s+(?=(?:referred|declined|excluded|flagged|verified)\b)",
    re.I,
)


def _spelled_shorthand(text: str) -> str:
    """A log's shorthand for outcomes written out ("ref'd" is "referred")."""
    if "'" in text or "\u2019" in text or "/" in text or "ecl." in text:
        for pattern, word in _SHORTHAND:
            text = pattern.sub(word, text)
    return _BARE_DONE.sub(r"\1 is ", text)


#: The trade's name for an exclusion, whose commas are no clause breaks.
_CARE_CUSTODY = re.compile(r"\bcare,\s+custody,?\s+(?:and|&)\s+control\b", re.I)
_TWICE = re.compile(
    r"\b(more than|over|fewer than|less than|at least|at most|no more than|up to)\s+twice\b"
    r"(?!\s+(?:that|the|its|their|as|this)\b)",
    re.I,
)


#: "The referral in section 18.4 is amended: it now applies where ...": the rule named
#: before the colon is what now applies.
_AMENDED_TO = re.compile(
    r"\s+(?:is|are|has been|have been) (?:amended|revised|changed|updated)\s*[:;,]\s*"
    r"(?:it|they|this|the rule)\s+(?=(?:now\s+)?(?:applies|apply)\b)",
    re.I,
)

#: "paragraph 5.1(c) of the LRO Guidelines - referral of buildings leased to a meadery -
#: is withdrawn": the rule a withdrawn part of a document is, named between dashes.
_WITHDRAWN_PART = re.compile(
    r"\b(?:paragraph|section|rule|clause|item|part)\s+[\w.()-]+(?P<doc>\s+of\s+[^\u2013\u2014.;]{0,80}?)?"
    r"\s[-\u2013\u2014]\s(?P<what>[^\u2013\u2014.;]{5,120}?)\s[-\u2013\u2014]\s"
    r"(?=(?:is|are|has been|have been)\s+(?:withdrawn|rescinded|retired|removed|lifted|deleted|"
    r"discontinued|cancell?ed)\b)",
    re.I,
)


def _withdrawn_part(text: str) -> str:
    """Say a withdrawn document part as the rule it is: "the LRO referral of ... is withdrawn"."""

    def said(match: re.Match[str]) -> str:
        product = find_product(match.group("doc") or "")
        return f"the {product + ' ' if product else ''}{match.group('what')} "

    return _WITHDRAWN_PART.sub(said, text)


#: "Is any retaining wall taller than six feet? If so, and ..., refer it": the question's
#: words are the condition "If so" points back to.
_IF_SO = re.compile(r"\b(?:Is|Are|Does|Do|Has|Have)\s+(?P<body>[^?.!]{5,150})\?\s*(?P<so>If so\b)")


def _if_so(text: str) -> str:
    """Spell "If so" out as the yes-or-no question before it asked."""
    return _IF_SO.sub(
        lambda m: f"{m.group(0)[: m.start('so') - m.start()]}If {m.group('body')}", text
    )


def _said_plainly(body: str) -> str:
    """The body with what its sentences point at said in place.

    Case ids go; "is amended: it now applies where" states the rule; "provided that the
    referral may be waived" is "but the referral may be waived"; "wants X referred" says
    "X is referred"; the terms listed after "with conditions:" go; "care, custody and
    control" loses its commas; a withdrawn part named between dashes is the rule it is;
    "If so" repeats its question; "more than twice" is "more than two times"; a lead's
    bulleted conditions are a sentence each; "under X but larger than Y" is "and"; a log's
    shorthand ("ref'd") is spelled out.
    """
    text = _AMENDED_TO.sub(" ", strip_case_ids(_spelled_shorthand(body)))
    text = _PROVIDED_WAIVED.sub(", but ", text)
    text = _BUT_BOUND.sub(r"\1 and ", text)
    text = _TERMS_LISTED.sub(lambda m: m.group(1) if _only_terms(m) else m.group(0), text)
    text = _WANTS_DONE.sub(r"says \g<what> is \g<done>", text)
    text = listed_conditions(
        _if_so(_withdrawn_part(_CARE_CUSTODY.sub("care custody and control", text)))
    )
    return _TWICE.sub(r"\1 two times", text)


class OfflineExtractor:
    """Extracts structured underwriting rules from raw text without an LLM.

    Everything field-specific (names, synonyms, units, allowed values) comes from the
    data dictionary; the extractor itself only knows generic English and insurance
    vocabulary (action verbs, hedges, comparators, products, US states).
    """

    def __init__(self, fields: DataDictionary) -> None:
        """Index the data dictionary.

        Args:
            fields: The dataset's data dictionary.
        """
        self.vocab = FieldVocabulary(fields)
        self.analyzer = ClauseAnalyzer(self.vocab)
        self.assembler = RuleAssembler(self.vocab)

    def extract(
        self,
        text: str,
        *,
        source: str | None = None,
        source_type: str | None = None,
        text_id: str | None = None,
    ) -> list[ExtractedRule]:
        """Extract every rule stated in a knowledge text.

        Args:
            text: Manual excerpt, SME note, training note, case review or bulletin.
            source: Document name; defaults to a trailing "Source: ..." line.
            source_type: manual, training, sme, production or compliance.
            text_id: Id of the text, copied to each rule.

        Returns:
            The rules, in text order, with names unique within this call.
        """
        rules, _ = self.extract_with_coverage(
            text, source=source, source_type=source_type, text_id=text_id
        )
        return rules

    def extract_with_coverage(
        self,
        text: str,
        *,
        source: str | None = None,
        source_type: str | None = None,
        text_id: str | None = None,
    ) -> tuple[list[ExtractedRule], list[str]]:
        """`extract`, plus the sentences that read like rules but yielded none.

        A sentence reads like a rule when it holds an action cue (decline, refer,
        exclude, ...) and a condition cue (a field value, a number, "if", "over",
        "without", ...). Listing the ones that produced no rule tells a user what the
        offline extractor may have missed.

        Returns:
            The rules and the uncovered sentences, in text order.
        """
        if not text or not text.strip():
            return [], []
        body, found_source = extract_source(text)
        source = source or found_source
        if source_type not in SOURCE_TYPES:
            source_type = None
        sentences = split_sentences(with_definitions(self._spelled_out(_said_plainly(body))))
        reader = TextReader(self.analyzer, self.vocab, cases=source_type == "production")
        drafts = reader.read(sentences)
        if source_type == "production":  # "- 14 rigs. Approved at 14.": the furthest case
            furthest_approved(body, drafts, self._case_numbers, self.vocab.flags_present)
        default = single_product(source) or header_product(sentences) or "ALL"
        meta = {
            "source": source,
            "source_type": source_type,
            "text_id": text_id,
            "decision_quality": decision_quality(body, source_type, sentences),
        }
        taken: set[str] = set()
        rules: list[ExtractedRule] = []
        for draft in drafts:
            draft.product = draft.product or default
            rules.append(self.assembler.build(draft, meta, taken))
        rules = [k for r in rules if (k := self._protections_only(r, source_type)) is not None]
        rules = _without_partial_twins(rules)
        if source_type in PRACTICE_KINDS:  # a protection practice accepts: bound later
            rules += read_reliefs(self.analyzer, sentences, reader.used, meta, default)
        uncovered = [s.raw for s in sentences if s.index not in reader.used and self._rule_like(s)]
        return rules, uncovered

    def _case_numbers(self, line: str, topic: str | None = None) -> list[NumericHit]:
        """The field-bound numbers of one case line, read apart from the text around it.

        Args:
            line: The case line.
            topic: The field a figure no word of the line places continues, if any.
        """
        reader = self.analyzer.reader
        kept = reader.topic, reader.topic_value
        reader.topic, reader.topic_value = topic, None
        try:
            return reader.read(line).numbers
        finally:
            reader.topic, reader.topic_value = kept

    def _spelled_out(self, body: str) -> str:
        """The text with its business classes' short names written out."""
        info = self.vocab.fields.get(self.vocab.occupancy or "")
        return expand_class_acronyms(body, info.values) if info else body

    def _protections_only(
        self, rule: ExtractedRule, source_type: str | None
    ) -> ExtractedRule | None:
        """An approval whose only conditions are protections present is no rule.

        "We accept business only from licensed producers" read as "approve with
        conditions when licensed" would put every good risk under conditions. In practice
        it is a relief (bound to the rule the text speaks of, or dropped); elsewhere, none.
        """
        if rule.action != "approve_with_conditions" or not rule.conditions:
            return rule
        flags = all(c.value is True for c in rule.conditions)
        protective = all(
            (info := self.vocab.fields.get(c.field)) is not None and info.protective
            for c in rule.conditions
        )
        # "we accept business only from licensed producers": a requirement, not an approval
        required = bool(_ONLY_WITH.search(rule.outcome_description or ""))
        if not (flags and (protective or required)):
            return rule
        return relief_of(rule) if source_type in PRACTICE_KINDS else None

    def _rule_like(self, sentence: Sentence) -> bool:
        """An action cue and a condition cue, in a sentence that is not a case narrative."""
        if sentence.is_question or sentence.is_case_label:
            return False
        text = strip_connectors(sentence.text)
        if lx.NARRATIVE.search(text) or detect_action(text) is None:
            return False
        found = self.analyzer.reader.read(text)
        return bool(
            found.conditions
            or found.protective_neg
            or find_numbers(text)
            or _CONDITION_CUE.search(text)
            or self.analyzer.subjects.read(text)
        )


def _without_partial_twins(rules: list[ExtractedRule]) -> list[ExtractedRule]:
    """The rules, less any one a fuller reading of its own sentence contains.

    "New Jersey requires the pollution exclusion on roll-off accounts: every roll-off
    dumpster service located in New Jersey is written with the exclusion attached" reads
    the state alone before the colon and the class and the state after it; one rule was
    said, the fuller one.
    """
    keys = [{condition_key(c) for c in r.conditions} for r in rules]
    kept = []
    for i, rule in enumerate(rules):
        partial = any(
            j != i
            and other.action == rule.action
            and other.product_type == rule.product_type
            and other.outcome_description == rule.outcome_description
            and keys[i] < keys[j]
            for j, other in enumerate(rules)
        )
        if not partial:
            kept.append(rule)
    return kept


def evaluate_dataset(dataset: str | Path) -> tuple[object, list[ExtractedRule]]:
    """Extract every text of a dataset and score against its gold rules.

    Args:
        dataset: A folder with fields.json, knowledge.jsonl and rules.jsonl.

    Returns:
        The `ExtractionScore` and the extracted rules.
    """
    from agents.evaluation import score_extraction
    from agents.jsonl import load_rules, read_objects

    folder = Path(dataset)
    extractor = OfflineExtractor(load_data_dictionary(folder / "fields.json"))
    extracted: list[ExtractedRule] = []
    for row in read_objects(folder / "knowledge.jsonl"):
        extracted += extractor.extract(
            str(row["text"]),
            source=str(row.get("source") or "") or None,
            source_type=str(row.get("source_type") or "") or None,
            text_id=str(row.get("id") or "") or None,
        )
    gold = load_rules(folder / "rules.jsonl")
    return score_extraction(gold, extracted), extracted


def main(argv: list[str] | None = None) -> int:
    """Print precision / recall / F1 of the offline extractor on a dataset folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("dataset", help="folder with fields.json, knowledge.jsonl, rules.jsonl")
    parser.add_argument("--show", action="store_true", help="also print the extracted rules")
    args = parser.parse_args(argv)
    score, extracted = evaluate_dataset(args.dataset)
    if args.show:
        for rule in extracted:
            conds = ", ".join(f"{c.field} {c.operator} {c.value!r}" for c in rule.conditions)
            print(
                f"{rule.text_id} | {rule.rule_name} | {rule.action} | {rule.product_type} | "
                f"{conds} | mit={rule.mitigant_fields} | soft={rule.soft_limit}"
            )
    print(f"precision {score.precision:.3f} ({score.matched_extracted}/{score.total_extracted})")  # type: ignore[attr-defined]
    print(f"recall    {score.recall:.3f} ({score.matched_gold}/{score.total_gold})")  # type: ignore[attr-defined]
    print(f"f1        {score.f1:.3f}")  # type: ignore[attr-defined]
    for name in score.missed:  # type: ignore[attr-defined]
        print(f"missed: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
