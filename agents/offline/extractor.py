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
from agents.offline.case_outcomes import furthest_approved, logged_cases
from agents.offline.class_pairs import pointed_classes
from agents.offline.clauses import ClauseAnalyzer, detect_action
from agents.offline.conditions import NumericHit
from agents.offline.definitions import with_definitions
from agents.offline.ordinals import ordinal_counts
from agents.offline.pipeline import TextReader
from agents.offline.plain_text import said_plainly
from agents.offline.relief import PRACTICE_KINDS, read_reliefs, relief_of
from agents.offline.textproc import Sentence, extract_source, split_sentences, strip_connectors
from agents.offline.texts import (
    decision_quality,
    expand_class_acronyms,
    header_product,
    single_product,
)
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.consolidate import condition_key
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.stems import stem
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
        occupancy = self.vocab.fields.get(self.vocab.occupancy or "")
        #: The business classes the dictionary lists (none when it lists none).
        self._classes: list[str] | None = occupancy.values if occupancy else None
        #: Stems of the numeric fields' units: what an ordinal may count ("a third caster").
        self._count_units = {stem(i.unit) for i in self.vocab.of_kind("numeric") if i.unit}

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
        if source_type == "production":  # "Decisions: a ... - bound; a ... - declined"
            body = logged_cases(body)  # "2,300 acres against the 2,000-acre guideline"
        sentences = split_sentences(with_definitions(self._spelled_out(said_plainly(body))))
        reader = TextReader(self.analyzer, self.vocab, cases=source_type == "production")
        drafts = reader.read(sentences)
        # "a pump house at either class": the classes the sentence before named
        pointed_classes(drafts, self.vocab.occupancy, self._classes or [])
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
        """The text with its classes' short names written out and its ordinal counts said.

        "a third caster" is said "more than 2 casters" (see `ordinal_counts`).
        """
        body = expand_class_acronyms(body, self._classes) if self._classes is not None else body
        return ordinal_counts(body, self._count_units) if self._count_units else body

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
