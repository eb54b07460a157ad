"""Reading one knowledge text sentence by sentence into rule drafts."""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from agents.offline import lexicon_subjects as lxs
from agents.offline.anaphora import Pending as _Pending
from agents.offline.anaphora import antecedent
from agents.offline.assemble import RuleDraft
from agents.offline.clauses import (
    ClauseAnalysis,
    ClauseAnalyzer,
    action_from_word,
)
from agents.offline.conditions import NumericHit, unit_fits
from agents.offline.scales import directed, inverted
from agents.offline.textproc import Sentence, split_clauses, subject_only
from agents.offline.texts import single_product
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import NumberMention, find_numbers
from schemas.rules import Condition

_CONTEXT_SENTENCES = 3


def find_product(text: str) -> str | None:
    """The product a text names: "ALL" for "every product", else the first product name."""
    if lxs.ALL_PRODUCTS.search(text):
        return "ALL"
    hits = [
        (m.start(), name) for name, pattern in lxs.PRODUCT_PATTERNS for m in pattern.finditer(text)
    ]
    return min(hits)[1] if hits else None


_INSTEAD = re.compile(r"\binstead\b", re.I)
_INSTEAD_OF = re.compile(r"\b(?:instead of|rather than)\s+(?:being\s+)?(\w+)", re.I)


class TextReader:
    """Reads the sentences of one text into rule drafts."""

    def __init__(self, analyzer: ClauseAnalyzer, vocab: FieldVocabulary) -> None:
        """Start an empty reading.

        Args:
            analyzer: The clause analyzer.
            vocab: The field vocabulary.
        """
        self.analyzer = analyzer
        self.vocab = vocab
        self.drafts: list[RuleDraft] = []
        self.last_conditions: list[Condition] = []
        self.last_numbers: list[NumericHit] = []
        self.topic: str | None = None  # the numeric field last compared ("more than 30 days")
        self.topic_value: float | None = None  # and the value it was compared with
        self.sentences: list[Sentence] = []
        self.used: set[int] = set()  # sentences that made, merged into or amended a rule
        self._current = -1
        self._accepted: _Pending | None = None  # the previous sentence's accepted range
        self._dangling: tuple[int, _Pending] | None = None  # conditions no clause acted on

    def read(self, sentences: list[Sentence]) -> list[RuleDraft]:
        """Read all sentences and return the drafts found.

        Args:
            sentences: The sentences of the text.

        Returns:
            Rule drafts in text order (duplicates merged, boundary restatements dropped).
        """
        self.sentences = sentences
        for sentence in sentences:
            context = " ".join(
                s.text
                for s in sentences[max(0, sentence.index - _CONTEXT_SENTENCES) : sentence.index]
            )
            if sentence.is_question:
                continue
            self._current = sentence.index
            if sentence.is_case_label or sentence.is_example:  # "QA: ... up to 14 feet"
                self._evidence(sentence)
                continue
            created = self._sentence(sentence, context)
            if lxs.APPLIES_TO.match(sentence.text) and self.drafts:
                product = find_product(sentence.text)
                if product and not self.drafts[-1].product_explicit:
                    self.drafts[-1].product = product
                    self.drafts[-1].product_explicit = True
            if not created:
                self._evidence(sentence)
        return self._drop_restatements()

    def _sentence(self, sentence: Sentence, context: str) -> bool:
        created = False
        under = lx.UNDER_THE_RULE.search(sentence.text) or lx.RULE_QUOTED.search(sentence.text)
        if under:
            action = action_from_word(under.group(1))
            found = self.analyzer.reader.read(under.group(2), context)
            if action and found.conditions:
                created |= self._add(action, found.conditions, sentence, sentence.text)
        pending: _Pending | None = self._accepted or self._antecedent(sentence)
        self._accepted = None
        self._dangling = None
        previous_mitigant = ""
        done: list[str] = []
        clauses = split_clauses(sentence.text)
        for i, clause in enumerate(clauses):
            if subject_only(clause, clauses[i + 1] if i + 1 < len(clauses) else None):
                clause = f"{clause} are"  # ends the subject noun phrase
            self.analyzer.reader.topic = self.topic
            self.analyzer.reader.topic_value = self.topic_value
            a = self.analyzer.analyze(clause, " ".join([context, *done]))
            done.append(clause)
            conditions = self._conditions(a, pending)
            lone_flag = (  # "Buildings without sprinklers are referred": the missing flag
                not conditions
                and pending is None
                and bool(a.protective_neg)
                and a.action not in {None, "approve_with_conditions"}
            )
            if a.action and (conditions or lone_flag) and not a.continuation:
                alternative = self._alternative(a, conditions, sentence)
                if alternative:
                    self._attach(alternative, [a.text])
                elif self._elaboration(a, conditions, sentence):
                    self._attach(a.mitigant_fields + a.protective_pos, [a.text])
                elif self._is_contrast(a, conditions) or self.analyzer.subjects.mitigated_outcome(
                    clause, previous_mitigant
                ):
                    self._attach(a.mitigant_fields + a.protective_pos, [a.text])
                else:
                    created |= self._add_from(a, conditions, pending, sentence)
            elif (
                not conditions
                and self.drafts
                and (
                    a.waivable
                    or a.mitigant_fields
                    or (a.protective_pos and (a.action or lx.MITIGANT_CUE.search(sentence.text)))
                )
            ):
                self._attach(a.mitigant_fields + a.protective_pos, [a.text])
            if conditions:
                self.last_conditions = conditions
            if conditions and not a.action:
                accepted = bool(lx.ACCEPTANCE.search(a.trigger))
                pending = _Pending(conditions, a.protective_neg, a.protective_pos, accepted)
            elif a.action:
                pending = None
            elif not conditions and pending is not None and pending.accepted:
                pending = None  # an accepted range reaches the next clause only
            if any(h.field for h in a.numbers):
                self.last_numbers = a.numbers
            compared = [h for h in a.numbers if h.operator]
            if compared:
                self.topic, self.topic_value = compared[-1].field, compared[-1].value
            previous_mitigant = " ".join(a.mitigant_texts) or previous_mitigant
        if pending is not None and pending.accepted:
            self._accepted = pending
        elif pending is not None and not created:
            self._dangling = (sentence.index, pending)
        return created

    def _antecedent(self, sentence: Sentence) -> _Pending | None:
        """The previous sentence's actionless conditions, when this one acts on them."""
        if self._dangling is None or self._dangling[0] != sentence.index - 1:
            return None
        return antecedent(sentence.text, self._dangling[1], self.analyzer, self.vocab)

    def _conditions(self, a: ClauseAnalysis, pending: _Pending | None) -> list[Condition]:
        """The clause's conditions, completed from pending clauses and anaphora."""
        conditions = list(a.conditions)
        occupancy = self.vocab.occupancy
        if a.occupancy and occupancy and not any(c.field == occupancy for c in conditions):
            value: str | list[str] = a.occupancy[0] if len(a.occupancy) == 1 else a.occupancy
            op = "eq" if isinstance(value, str) else "in"
            conditions.insert(0, Condition(field=occupancy, operator=op, value=value))  # type: ignore[arg-type]
        if a.action and not conditions and pending is not None and a.comparative:
            # "operations of up to 2,000 acres; larger operations are referred"
            conditions = directed(pending.conditions, a.comparative, pending.accepted)
        elif a.action and not conditions and pending is not None and pending.accepted:
            # "... at least 500 feet away is acceptable; anything closer is declined"
            if a.otherwise:
                conditions = inverted(pending.conditions)
        elif a.action and not conditions and pending is not None:
            conditions = list(pending.conditions)
            a.protective_neg = a.protective_neg + pending.protective_neg
            a.protective_pos = a.protective_pos + pending.protective_pos
        numeric = {n for n, i in self.vocab.fields.items() if i.kind == "numeric"}
        has_numeric = any(c.field in numeric for c in conditions)
        # "the guideline says 15,000 barrels, and a brewery above that is referred": the
        # anaphor points at the clause's own uncompared number first, else the last one.
        own = [h for h in a.numbers if h.field and not h.operator]
        if a.anaphor_op and not has_numeric and (own or self.last_numbers):
            hit = own[-1] if own else self.last_numbers[-1]
            conditions.append(
                Condition(
                    field=hit.field,
                    operator=a.anaphor_op,  # type: ignore[arg-type]
                    value=hit.value,
                )
            )
        elif a.anaphor_size and a.action and not has_numeric:
            fields = {c.field for c in conditions}
            conditions += [c for c in self.last_conditions if c.field not in fields]
        return conditions

    def _is_contrast(self, a: ClauseAnalysis, conditions: list[Condition]) -> bool:
        """True for "a sprinklered building may be written" after "unsprinklered ... referred"."""
        protective = a.protective_pos + a.mitigant_fields
        if not protective or not self.drafts:
            return False
        last = self.drafts[-1]
        if self._other_subject(conditions, last.conditions):
            return False  # another business class: a rule of its own, not a contrast
        negatives = {c.field for c in last.conditions if c.value is False}
        if any(f in last.mitigant_fields or f in negatives for f in a.protective_pos):
            return True
        # "Apartments with a pool are referred. Where the pool is fenced, the desk may
        # write it subject to ...": a conditional approval of the same subject, once a
        # protection is present, is the earlier rule's mitigant, not a rule of its own.
        return (
            a.action == "approve_with_conditions"
            and last.action != a.action
            and all(any(c == o for o in last.conditions) for c in conditions)
        )

    def _elaboration(
        self, a: ClauseAnalysis, conditions: list[Condition], sentence: Sentence
    ) -> bool:
        """True for how the rule before a colon is met, not a rule of its own.

        "... must be verified before binding: values and yard layout are confirmed by an
        inspection": the same action after a colon, on nothing but a phrase no dictionary
        lists as a business class.
        """
        if not self.drafts or not conditions:
            return False
        last = self.drafts[-1]
        if last.sentence_index != sentence.index or last.action != a.action:
            return False
        start = sentence.text.find(a.text[:20])
        if start <= 0 or ":" not in sentence.text[:start]:
            return False
        examples = self.analyzer.subjects.example_set
        return all(
            c.field == self.vocab.occupancy
            and not (isinstance(c.value, str) and c.value in examples)
            for c in conditions
        )

    def _alternative(
        self, a: ClauseAnalysis, conditions: list[Condition], sentence: Sentence
    ) -> list[str]:
        """Flags that soften the rule just read: "... is declined; where Y, refer it instead".

        Returns the boolean fields of a clause that says "instead" right after a rule of
        the same sentence and names nothing but flags that rule lacks ([] otherwise).
        """
        if not self.drafts or not _INSTEAD.search(a.text):
            return []
        last = self.drafts[-1]
        if last.action == a.action:
            return []
        replaced = _INSTEAD_OF.search(a.text)  # "... is referred instead of declined"
        names_last = replaced is not None and action_from_word(replaced.group(1)) == last.action
        if not (
            last.sentence_index == sentence.index
            or (names_last and last.sentence_index == sentence.index - 1)
        ):
            return []
        known = {c.field for c in last.conditions}
        flags = [c.field for c in conditions if c.value is True and c.field not in known]
        return flags if len(flags) == len(conditions) else []

    def _other_subject(self, conditions: list[Condition], before: list[Condition]) -> bool:
        """True when a clause names a business class the earlier rule does not."""

        def heads(conds: list[Condition]) -> set[str]:
            values = [
                v
                for c in conds
                if c.field == self.vocab.occupancy
                for v in (c.value if isinstance(c.value, list) else [c.value])
            ]
            return {str(v).split()[-1] for v in values if str(v).split()}

        mine = heads(conditions)
        return bool(mine) and not mine & heads(before)

    def _add_from(
        self,
        a: ClauseAnalysis,
        conditions: list[Condition],
        pending: _Pending | None,
        sentence: Sentence,
    ) -> bool:
        assert a.action is not None
        mitigants = list(a.mitigant_fields) + list(a.protective_pos)
        conditions = list(conditions)
        combined = bool(lx.COMBINATION.search(a.trigger))
        for name in a.protective_neg:
            if a.action in {"approve_with_conditions", "exclude"} or not conditions or combined:
                conditions.append(Condition(field=name, operator="eq", value=False))
            elif name not in mitigants:
                mitigants.append(name)
        texts = a.mitigant_texts + [
            f"{self.vocab.fields[n].spec.description}" for n in a.protective_neg if n in mitigants
        ]
        return self._add(a.action, conditions, sentence, a.text, mitigants, texts, a.withdrawn)

    def _add(
        self,
        action: str,
        conditions: list[Condition],
        sentence: Sentence,
        clause: str,
        mitigant_fields: list[str] | None = None,
        mitigant_texts: list[str] | None = None,
        withdrawn: bool = False,
    ) -> bool:
        """Create a draft, or merge into an identical earlier one. True when created."""
        product = find_product(clause) or find_product(sentence.raw)
        explicit = product is not None
        if product is None:
            product = self._question_product(sentence)
            explicit = product is not None
        if (
            product is None
            and self.drafts
            and self.drafts[-1].product_explicit
            and not self._question_between(self.drafts[-1].sentence_index, sentence.index)
        ):
            product, explicit = self.drafts[-1].product, True
        if product is None:
            # "Section 8.5 of the Property manual is amended: ... Any building more than
            # 4 miles ... is referred": the one product named before the rule.
            start = max(  # in an interview, the answer since the last question
                (s.index for s in self.sentences[: sentence.index] if s.is_question), default=0
            )
            product = single_product(
                " ".join(s.raw for s in self.sentences[start : sentence.index])
            )
        if product is None and self._placed_on_several_products():
            product = "ALL"  # "gyms may be written on the GL or the BOP": not the title's only
        draft = RuleDraft(
            action=action,
            conditions=conditions,
            sentence=sentence.text,
            sentence_index=sentence.index,
            product=product,
            product_explicit=explicit,
            hedged=bool(lx.SOFT_HEDGE.search(self._near_text(sentence))),
            withdrawn=withdrawn,
        )
        draft.add_mitigants(mitigant_fields or [], mitigant_texts or [])
        self.used.add(sentence.index)
        for old in self.drafts:
            if old.key() == draft.key():
                old.add_mitigants(draft.mitigant_fields, draft.mitigants)
                if not old.product_explicit and explicit:
                    old.product, old.product_explicit = product, True
                return False
        self.drafts.append(draft)
        return True

    def _near_text(self, sentence: Sentence) -> str:
        before = self.sentences[sentence.index - 1].text if sentence.index else ""
        return f"{before} {sentence.text}"

    def _placed_on_several_products(self) -> bool:
        """True when the text places its business on more than one product."""
        for sentence in self.sentences:
            match = lxs.PRODUCT_PLACEMENT.search(sentence.text)
            if match is None:
                continue
            rest = sentence.text[match.start() :]
            if sum(1 for _, pattern in lxs.PRODUCT_PATTERNS if pattern.search(rest)) > 1:
                return True
        return False

    def _question_between(self, first: int, last: int) -> bool:
        """True when a question opens a new topic between two sentences (an interview)."""
        return any(s.is_question for s in self.sentences[first + 1 : last])

    def _question_product(self, sentence: Sentence) -> str | None:
        for prev in reversed(self.sentences[max(0, sentence.index - 3) : sentence.index]):
            if prev.is_question:
                return find_product(prev.text)
        return None

    def _attach(self, fields: list[str], texts: list[str]) -> None:
        if self.drafts:
            self.drafts[-1].add_mitigants(fields, texts)
            if fields or texts:
                self.used.add(self._current)

    def _evidence(self, sentence: Sentence) -> None:
        """Exceptions, soft limits and mitigants stated after a rule."""
        if not self.drafts:
            return
        text = sentence.text
        exception = bool(lx.EXCEPTION_EVIDENCE.search(text))
        if exception or lx.MITIGANT_CUE.search(text):
            fields = self.analyzer.mitigant_fields(text)
            self._attach(fields, [text] if fields else [])
        if exception:
            self.used.add(sentence.index)
            target = self._soft_limit(text) or self.drafts[-1]
            if text not in target.historical:
                target.historical.append(text)

    def _soft_limit(self, text: str) -> RuleDraft | None:
        """Read "we've gone up to 23" / "written two-year-old businesses" evidence."""
        mentions: list[NumberMention] = []
        for match in lx.SOFT_LIMIT_CUE.finditer(text):
            found = find_numbers(text[match.end() : match.end() + 60])
            if found and found[0].start <= 2:
                mentions.append(found[0])
        for match in lx.AGE_EXCEPTION.finditer(text):
            found = find_numbers(match.group(0)[match.start(1) - match.start() :])
            if found:
                mentions.append(NumberMention(found[0].value, "years", 0, 0, 0))
        for mention in mentions:
            target = self._soft_target(mention)
            if target is not None:
                return target
        return None

    def _soft_target(self, mention: NumberMention) -> RuleDraft | None:
        for draft in reversed(self.drafts):
            for cond in draft.conditions:
                info = self.vocab.fields.get(cond.field)
                if info is None or info.kind != "numeric" or isinstance(cond.value, bool):
                    continue
                if not isinstance(cond.value, int | float) or cond.operator in {"eq", "in"}:
                    continue
                value = mention.value
                if info.unit == "rate" and mention.unit == "percent":
                    value /= 100.0
                if mention.unit not in (None, info.unit) and not unit_fits(mention.unit, info):
                    continue
                beyond = (
                    value > cond.value if cond.operator in {"gt", "gte"} else (value < cond.value)
                )
                if beyond and draft.soft_limit is None:
                    draft.soft_limit = float(value)
                    return draft
        return None

    def _drop_restatements(self) -> list[RuleDraft]:
        """Drop "past 45 we decline" when 45 is an earlier rule's soft limit.

        A withdrawal of a rule the same text states anew on the same fields ("referral
        ... is discontinued; ... is declined") is dropped too: the new statement replaces
        it, and a withdrawal of the same day would end the new rule as well.
        """
        stated = [{c.field for c in d.conditions} for d in self.drafts if not d.withdrawn]
        kept: list[RuleDraft] = []
        for draft in self.drafts:
            if draft.withdrawn and {c.field for c in draft.conditions} in stated:
                continue
            restated = any(
                old.soft_limit is not None
                and old.action == draft.action
                and any(
                    c.field == o.field
                    and isinstance(c.value, int | float)
                    and abs(float(c.value) - old.soft_limit) < 1e-9
                    for c in draft.conditions
                    for o in old.conditions
                )
                for old in kept
            )
            if not restated:
                kept.append(draft)
        return kept
