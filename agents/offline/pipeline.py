"""Reading one knowledge text sentence by sentence into rule drafts."""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from agents.offline import lexicon_discourse as lxd
from agents.offline import lexicon_subjects as lxs
from agents.offline.anaphora import Pending as _Pending
from agents.offline.anaphora import antecedent, lacked_by_head, protected_outcome, required_of
from agents.offline.assemble import RuleDraft
from agents.offline.clauses import (
    ClauseAnalysis,
    ClauseAnalyzer,
    action_from_word,
    detect_action,
)
from agents.offline.completion import completed_conditions
from agents.offline.conditions import NumericHit
from agents.offline.contrast import (
    contrast,
    elaboration,
    instead,
    spared,
    spared_when_held,
    still_taken,
)
from agents.offline.field_choice import asked_field, counted_field
from agents.offline.guards import limit_changed, unread_absence, unread_qualifier
from agents.offline.placement import find_product, question_between, rule_product
from agents.offline.softlimits import (
    cited_limits,
    drop_restatements,
    practice_ceilings,
    soft_limit,
)
from agents.offline.textproc import (
    Sentence,
    answers_to,
    denied_turns,
    split_clauses,
    subject_only,
)
from agents.offline.texts import single_product
from agents.offline.topic_class import log_heading_speaks, scope_to_context
from agents.offline.vocab import FieldVocabulary
from agents.offline.waivers import CONSEQUENCE, read_waiver, waive
from schemas.rules import Condition

_CONTEXT_SENTENCES = 3
#: The terms an approval states: "provided a warranty is attached", "subject to ...".
_STATED_TERMS = re.compile(
    r"\b(?:provided|subject to|on condition)\b|\b(?:warranty|endorsement|sublimit)\b", re.I
)
#: The label of an interview's turn ("Q:", "Answer:"), which names no subject.
_SPEAKER_LABEL = re.compile(r"^(?:q|a|question|answer)$", re.I)
#: A finding that states the rule for every case: "QA: for any class, a report older than
#: eighteen months must be verified", "... is a decline on any product".
_STANDING = re.compile(
    r"\b(?:(?:for|in|on) (?:any|every|all) (?:class|classes|products?|lines?)|"
    r"regardless of (?:the )?class)\b",
    re.I,
)
__all__ = ["TextReader", "find_product", "single_product"]


class TextReader:
    """Reads the sentences of one text into rule drafts."""

    def __init__(
        self, analyzer: ClauseAnalyzer, vocab: FieldVocabulary, *, cases: bool = False
    ) -> None:
        """Start an empty reading.

        Args:
            analyzer: The clause analyzer.
            vocab: The field vocabulary.
            cases: The text records cases (a production log): its heading is a case's.
        """
        self.analyzer = analyzer
        self.vocab = vocab
        self.cases = cases
        self.drafts: list[RuleDraft] = []
        self.last_conditions: list[Condition] = []
        self.last_numbers: list[NumericHit] = []
        self.heard: list[tuple[NumericHit, str]] = []  # every field's number, with its clause
        self.topic: str | None = None  # the numeric field last compared ("more than 30 days")
        self.topic_value: float | None = None  # and the value it was compared with
        self.sentences: list[Sentence] = []
        self._class_heading = False  # a log whose heading names its class, not a case
        self.used: set[int] = set()  # sentences that made, merged into or amended a rule
        self.waived: set[int] = set()  # sentences that waive an earlier rule's action
        self._current = -1
        self._accepted: _Pending | None = None  # the previous sentence's accepted range
        self._dangling: tuple[int, _Pending] | None = None  # conditions no clause acted on
        self._bridged: _Pending | None = None  # dangling conditions kept over a comment
        self._answers: set[int] = set()  # answers to "what lets the rule give way?"

    def read(self, sentences: list[Sentence]) -> list[RuleDraft]:
        """Read all sentences and return the drafts found.

        Args:
            sentences: The sentences of the text.

        Returns:
            Rule drafts in text order (duplicates merged, boundary restatements dropped).
        """
        self.sentences = sentences
        self._class_heading = bool(sentences) and log_heading_speaks(sentences[0].raw)
        self._answers = answers_to(sentences, lxd.ASKS_MITIGANT)
        denied = denied_turns(sentences, lxd.DENIES_TURN)
        for sentence in sentences:
            context = " ".join(
                s.text
                for s in sentences[max(0, sentence.index - _CONTEXT_SENTENCES) : sentence.index]
            )
            if sentence.label and not _SPEAKER_LABEL.match(sentence.label):
                context = f"{context} {sentence.label}."  # "In-home drips: ... forty percent"
            if sentence.is_question:
                self._asked(sentence, context)
                if not sentence.text.rstrip().endswith("?") and sentence.index not in denied:
                    # "Q: Since May, fleets over 15 mph are declined.": the rule asked about
                    self._sentence(sentence, context)
                continue
            if sentence.index in denied:
                continue  # "My notes say X is declined. Is that right?" "No, ..."
            self._current = sentence.index
            counted = counted_field(sentence.text, self.vocab)
            if counted:  # "Count the melting units. Up to six is ...": the figures' field
                self.topic, self.topic_value = counted, None
            if sentence.index in self._answers:  # "What do you need to see?" "Hold-harmless ..."
                fields = self.analyzer.mitigant_fields(sentence.text)
                self._attach(fields, [sentence.text] if fields else [])
            if (sentence.is_case_label and not _STANDING.search(sentence.text)) or (
                sentence.is_example
            ):  # "QA: ... up to 14 feet"
                self._evidence(sentence)
                continue
            if self._softens(sentence):
                continue
            if lx.NOT_OUR_RULE.search(f"{sentence.label or ''} {sentence.text}"):
                continue  # "for orientation only: the auto desk refers above twenty"
            created = self._sentence(sentence, context)
            if created and (
                lx.SOFT_LIMIT_CUE.search(sentence.text)
                or lx.PRACTICE_AFTER.search(sentence.text)
                or lx.PRACTICE_CEILING.search(sentence.text)
                or lx.AGE_EXCEPTION.search(sentence.text)  # "; we approved two-year-old shops"
            ):
                # "the guide refers over 40%, but she has approved up to 45%": practice in
                # the rule's own sentence
                soft_limit(sentence.text, self.drafts, self.vocab)
            if lxs.APPLIES_TO.match(sentence.text) and self.drafts:
                product = find_product(sentence.text)
                if product and not self.drafts[-1].product_explicit:
                    self.drafts[-1].product = product
                    self.drafts[-1].product_explicit = True
            if not created and sentence.index not in self.waived:
                self._evidence(sentence)
        drafts = still_taken(drop_restatements(self.drafts))
        if self.cases:  # a log: a higher limit of the same rule is where practice stops
            drafts = practice_ceilings(drafts)
        return cited_limits(drafts, self.heard)

    def _but_written(self, a: ClauseAnalysis, sentence: Sentence, clause: str) -> bool:
        """True for "X are referred, but a licensed one may be written subject to ...".

        A conditional approval of the holders of a protection, right after a referral or
        check of the same sentence, is what clears it.
        """
        last = self.drafts[-1] if self.drafts else None
        return (
            last is not None
            and a.action == "approve_with_conditions"
            and last.sentence_index == sentence.index
            and last.action in {"refer", "verify", "flag_for_review"}
            and bool(re.search(r"\bbut\s+" + re.escape(clause[:20]), sentence.text))
        )

    def _sentence(self, sentence: Sentence, context: str) -> bool:
        created = self._quoted_rule(sentence, context)
        pending: _Pending | None = self._accepted or self._antecedent(sentence)
        if pending is not None:
            pending.carried = True  # said in a sentence before this one
        self._accepted = None
        kept, self._dangling = self._dangling, None
        stated = waived = False  # a clause stated an action or condition / waived one
        fine: list[str] = []  # protections a clause of this sentence accepted
        previous_mitigant = ""
        done: list[str] = []
        clauses = split_clauses(sentence.text)
        for i, clause in enumerate(clauses):
            if subject_only(clause, clauses[i + 1] if i + 1 < len(clauses) else None):
                clause = f"{clause} are"  # ends the subject noun phrase
            done.append(clause)
            if self.drafts and lxd.NAMED_MITIGANT.search(clause):
                fields = self.analyzer.mitigant_fields(clause)
                if fields:  # "...; a fenced yard is the accepted mitigant"
                    self._attach(fields, [clause])
                    continue
                if lxd.SOFTENED_ACTION.search(clause):
                    continue  # "heat pumps turn the decline into a referral": no rule
            if self._waiver(clause, sentence, waived):
                pending, waived = None, True
                continue
            waived = False
            self.analyzer.reader.topic = self.topic
            self.analyzer.reader.topic_value = self.topic_value
            a = self.analyzer.analyze(clause, " ".join([context, *done[:-1]]))
            if a.action and not a.occupancy and _FOLLOWING_CLASSES.match(clause):
                # "The following classes are referred to a team lead: ice sculpture studios"
                listed = clauses[i + 1] if i + 1 < len(clauses) else ""
                if _lists_for(clauses, i + 1, sentence.text):
                    a.occupancy = self.analyzer.subjects.listed_classes(listed)
            if _written_before_exclusion(a, clauses[i + 1 :]):
                continue  # "the insured may be written, but X is excluded": X's exclusion
            conditions = scope_to_context(  # the class the context names (topic_class)
                completed_conditions(
                    a, pending, self.vocab, (self.last_numbers, self.last_conditions)
                ),
                a.trigger,
                (self.sentences, sentence),
                self.analyzer.subjects,
                headed=not self.cases or self._class_heading,
                acting=a.action == "exclude" and pending is None,
                deciding=a.action is not None and pending is None,
            )
            if a.action and conditions:  # "... must hold a permit, and one without a permit"
                known = {c.field for c in conditions}
                conditions = conditions + [
                    Condition(field=f, operator="eq", value=False)
                    for f in lacked_by_head(a.trigger, pending, self.vocab)
                    if f not in known
                ]
            flags = [c.field for c in conditions if c.value is True]
            named = [c for c in conditions if c.field != self.vocab.occupancy]
            # "... may be written without referral", "... may write the site on the standard
            # warranty without that referral" (terms, yet no rule of its own)
            approving = a.action in (None, "approve_with_conditions")
            if (
                flags
                and approving
                and len(flags) == len(named)
                and (spared(self.drafts, a) or self._but_written(a, sentence, clause))
            ):
                self._attach(flags, [clause])
                continue
            before = pending.conditions if pending is not None and not conditions else []
            held = (
                spared_when_held(self.drafts, a, clause, before) if len(flags) == len(named) else []
            )
            if held:  # "... and a kennel that has one needs no referral"
                self._attach(held, [clause])
                continue
            if not a.action and len(flags) == len(conditions) and lxd.FINE.search(a.trigger):
                # "If they use X, fine; if not, I refer it": X is what the referral spares
                fine, conditions = flags + a.protective_pos, []
            elif a.action and not conditions and fine and kept and kept[0] == sentence.index - 1:
                conditions = list(kept[1].conditions)  # the sentence before says what "it" is
                a.mitigant_fields = a.mitigant_fields + fine
            stated |= bool(a.action or conditions or a.protective_pos or a.protective_neg)
            if not conditions and a.action and self.drafts and protected_outcome(clause):
                missing = [c.field for c in self.drafts[-1].conditions if c.value is False]
                if missing:  # "...; with it, they may be written": the protection mitigates
                    self._attach(missing, [clause])
                    continue
            last = self.drafts[-1] if self.drafts else None
            if (
                a.action
                and not conditions
                and last is not None
                and last.withdrawn
                and last.sentence_index == sentence.index - 1
                and _THEY.match(clause)
            ):  # "X are removed from the referral list. They may be written with conditions"
                conditions = list(last.conditions)
            created |= self._act(a, conditions, pending, sentence, (clause, previous_mitigant))
            if conditions:
                self.last_conditions = conditions
            flags = a.protective_pos + [c.field for c in conditions if isinstance(c.value, bool)]
            required = required_of(a.trigger, flags, self.vocab)
            lacked_next = i + 1 < len(clauses) and bool(lxd.LACKS_ONE.search(clauses[i + 1]))
            if not a.action and (
                conditions or ((required or lacked_next) and len(a.protective_pos) == 1)
            ):
                # "Staff must have documented training; a center without it is referred"
                accepted = bool(lx.ACCEPTANCE.search(a.trigger))
                if pending is not None and _lists_for(clauses, i, sentence.text):
                    # "For X that do Y, the following states are closed: MA, CT ...": the
                    # list completes the conditions the clause before the colon set
                    own = {c.field for c in conditions}
                    kept_before = [c for c in pending.conditions if c.field not in own]
                    conditions = [*kept_before, *conditions]
                pending = _Pending(conditions, a.protective_neg, a.protective_pos, accepted)
                pending.required = required
            elif a.action:
                pending = None
            elif not conditions and pending is not None and pending.accepted:
                pending = None  # an accepted range reaches the next clause only
            self._note_numbers(a)
            previous_mitigant = " ".join(a.mitigant_texts) or previous_mitigant
        self._close(sentence, pending, created, stated, kept)
        return created

    def _quoted_rule(self, sentence: Sentence, context: str) -> bool:
        """The written rule a case narrative quotes ("declined it under the X rule")."""
        under = lx.UNDER_THE_RULE.search(sentence.text) or lx.RULE_QUOTED.search(sentence.text)
        if not under:
            return False
        action = action_from_word(under.group(1))
        found = self.analyzer.reader.read(under.group(2), context)
        if not (action and found.conditions):
            return False
        return self._add(action, found.conditions, sentence, sentence.text)

    def _waiver(self, clause: str, sentence: Sentence, waived: bool) -> bool:
        """True for a clause that waives an earlier rule's action (or follows one).

        "The referral is waived when X; in that case ...": X goes to the rule waived,
        and neither clause is a rule of its own.
        """
        waiver = read_waiver(clause, self.analyzer)
        if waiver is None and not (waived and CONSEQUENCE.match(clause)):
            return False
        if waiver is not None and waive(waiver, self.drafts, sentence.index, log=self.cases):
            self.used.add(sentence.index)
        self.waived.add(sentence.index)
        return True

    def _act(
        self,
        a: ClauseAnalysis,
        conditions: list[Condition],
        pending: _Pending | None,
        sentence: Sentence,
        said: tuple[str, str],
    ) -> bool:
        """Make the clause's rule, or attach what it says to the rule before. True if made.

        `said` is the clause as written and the mitigant text of the clause before it.
        """
        lone_flag = (  # "Buildings without sprinklers are referred": the missing flag
            not conditions
            and (pending is None or not pending.conditions)
            and bool(a.protective_neg)
            and a.action is not None
            # "Where X is not installed, it may be written provided a warranty is attached":
            # X missing is the condition of an approval that states its own conditions
            and (
                a.action != "approve_with_conditions"
                or (not a.protective_pos and bool(_STATED_TERMS.search(a.text)))
            )
        )
        # "Where nobody can explain the lapse, the decline stands": a missing protection
        # keeps a rule the text states with its figure, no rule of its own
        kept = a.standing and all(isinstance(c.value, bool) for c in conditions)
        if a.protective_pos and self.drafts and _STANDS_IN.search(a.text):
            # "An appraisal no more than three years old can stand in for that verification":
            # what may replace the check is its mitigant (its own figures describe it)
            self._attach(a.mitigant_fields + a.protective_pos, [a.text])
            return False
        if a.action and (conditions or lone_flag) and not (a.continuation or kept):
            alternative = instead(self.drafts, a, conditions, sentence.index)
            if alternative:
                self._attach(alternative, [a.text])
            elif (
                elaboration(self.drafts, a, conditions, sentence, self.analyzer)
                or contrast(self.drafts, a, conditions, self.vocab.occupancy)
                or self.analyzer.subjects.mitigated_outcome(*said)
            ):
                self._attach(a.mitigant_fields + a.protective_pos, [a.text])
            elif self._restates_mitigant(a, conditions):
                self.used.add(self._current)  # "With that in the file I'll write it with
                # conditions": the mitigant just named, no rule of its own
            else:
                return self._add_from(a, conditions, pending, sentence)
        elif not a.action and self._settles(a, conditions, sentence):
            # "verify the location; a dated storefront photo resolves it": what answers the
            # check just made is its mitigant
            self._attach([c.field for c in conditions], [a.text])
        elif not a.action and self._colon_bound(conditions, sentence, said[0]):
            # "Big churrascarias get referred: anything seating more than 250 covers"
            self.drafts[-1].conditions += conditions
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
        return False

    def _restates_mitigant(self, a: ClauseAnalysis, conditions: list[Condition]) -> bool:
        """True for an approval on the protections the rule before already has as mitigants."""
        if a.action != "approve_with_conditions" or not conditions or not self.drafts:
            return False
        if not lxd.WITH_THAT.search(a.text):  # "With that in the file": the protection named
            return False
        return all(
            c.value is True and c.field in self.drafts[-1].mitigant_fields for c in conditions
        )

    def _not_cured(self, fields: list[str]) -> list[str]:
        """A log's remedy ("Insured installed leg sensors and poured a dike"), less what it cured.

        A protection whose absence the last rule is conditioned on was put right (the rule
        no longer fires), and one an earlier rule already has as its mitigant is that rule's.
        """
        last = self.drafts[-1]
        cured = {c.field for c in last.conditions if c.value is False}
        owned = {f for d in self.drafts[:-1] for f in d.mitigant_fields}
        return [f for f in fields if f not in cured | owned]

    def _settles(self, a: ClauseAnalysis, conditions: list[Condition], sentence: Sentence) -> bool:
        """True for a clause naming flags that settle the rule its sentence just made."""
        return (
            bool(conditions and self.drafts)
            and all(c.value is True for c in conditions)
            and self.drafts[-1].sentence_index == sentence.index
            and bool(_SETTLES.search(a.text))
        )

    def _colon_bound(self, conditions: list[Condition], sentence: Sentence, clause: str) -> bool:
        """True when a clause after a colon bounds the class rule its sentence just made."""
        if not conditions or not self.drafts:
            return False
        last, occupancy = self.drafts[-1], self.vocab.occupancy
        at = sentence.text.find(clause)
        return (
            last.sentence_index == sentence.index
            and bool(last.conditions)
            and all(c.field == occupancy for c in last.conditions)
            and all(c.field != occupancy for c in conditions)
            and at > 0
            and sentence.text[:at].rstrip().endswith(":")
        )

    def _asked(self, sentence: Sentence, context: str) -> None:
        """A question makes no rule, but the field it compares is the topic of the answer.

        "Q: Section 5.6 refers stores with bolt storage above 40 percent. How do you
        handle them? A: Forty is a guideline ... well beyond forty": the bare "forty" is
        the bolt share the question named.
        """
        a = self.analyzer.analyze(sentence.text, context)
        compared = [h for h in a.numbers if h.operator and h.field]
        if compared:
            self.topic, self.topic_value = compared[-1].field, compared[-1].value
        elif named := asked_field(sentence.text, self.vocab):  # "Form blowouts?"
            self.topic, self.topic_value = named, None

    def _note_numbers(self, a: ClauseAnalysis) -> None:
        """Remember the clause's numbers (for "above that") and its compared field."""
        if any(h.field for h in a.numbers):
            self.last_numbers = a.numbers
            self.heard += [(h, a.text) for h in a.numbers if h.field]
        self.heard += a.cited  # "because the guideline caps the class at twenty"
        compared = [h for h in a.numbers if h.operator]
        bound = {h.field for h in a.numbers if h.field}
        if compared:
            self.topic, self.topic_value = compared[-1].field, compared[-1].value
        elif len(bound) == 1 and self.topic not in bound and _ACCEPTED.search(a.text):
            # "One or two charcoal grills in a hall are acceptable; more than two is a
            # referral": the field a clause counts is the topic, compared or not
            self.topic, self.topic_value = bound.pop(), a.numbers[-1].value

    def _close(
        self,
        sentence: Sentence,
        pending: _Pending | None,
        created: bool,
        stated: bool,
        kept: tuple[int, _Pending] | None,
    ) -> None:
        """Keep what the next sentence may act on: an accepted range, dangling conditions."""
        if pending is not None and pending.accepted:
            self._accepted = pending
        elif pending is not None and not created:
            self._dangling = (sentence.index, pending)
        elif (
            not stated
            and kept is not None
            and kept[1] is not self._bridged
            and not question_between(self.sentences, kept[0], sentence.index)
        ):
            self._dangling, self._bridged = (sentence.index, kept[1]), kept[1]  # one comment

    def _antecedent(self, sentence: Sentence) -> _Pending | None:
        """The previous sentence's actionless conditions, when this one acts on them."""
        if self._dangling is None or self._dangling[0] != sentence.index - 1:
            return None
        return antecedent(sentence.text, self._dangling[1], self.analyzer, self.vocab)

    def _add_from(
        self,
        a: ClauseAnalysis,
        conditions: list[Condition],
        pending: _Pending | None,
        sentence: Sentence,
    ) -> bool:
        assert a.action is not None
        if unread_qualifier(a, conditions, self.vocab.occupancy):
            return False  # "a mover that relocates masonry buildings": not every mover
        if unread_absence(a, conditions):
            return False  # "if the shop fills tanks and has no such policy": not every shop
        if limit_changed(a, conditions, self.vocab.occupancy):
            return False  # "the referral point for leech farms drops from 40 to 30": a change
        mitigants = list(a.mitigant_fields) + list(a.protective_pos)
        lacking = a.protective_neg or any(c.value is False for c in conditions)
        if a.protective_pos and lacking and _BOTH_SAID.match(a.trigger):
            # "Where vans use onboard generators and the grinders have no spark enclosure,
            # refer": both are the trigger's, the one present as much as the one missing
            conditions = [
                *conditions,
                *(Condition(field=n, operator="eq", value=True) for n in a.protective_pos),
            ]
            mitigants = list(a.mitigant_fields)
        # "Stores that aren't sprinklered and over 8,000 sq ft are referred": a missing
        # protection is a condition; the protected risk is not referred at all, unless a
        # clause after says what it gets ("with it, they may be written ...")
        missing = [Condition(field=n, operator="eq", value=False) for n in a.protective_neg]
        if missing and not conditions:  # "a distillery building without sprinklers": scoped
            missing = scope_to_context(
                missing, a.trigger, (self.sentences, sentence), self.analyzer.subjects
            )
        conditions = [*conditions, *missing]
        return self._add(
            a.action, conditions, sentence, a.text, mitigants, a.mitigant_texts, a.withdrawn
        )

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
        product, explicit = rule_product(clause, sentence, self.sentences, self.drafts)
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
            if old.key() == draft.key() and not (
                explicit and old.product_explicit and old.product != product
            ):  # a table's row per product: the same limit on two products is two rules
                old.add_mitigants(draft.mitigant_fields, draft.mitigants)
                if not old.product_explicit and explicit:
                    old.product, old.product_explicit = product, True
                return False
        scoped = self._scoped_earlier(draft)
        if scoped is not None:  # the rule said again without its class: the same rule
            scoped.add_mitigants(draft.mitigant_fields, draft.mitigants)
            return False
        cleared = self._cleared_earlier(draft)
        if cleared is not None:  # "where that lookup has not been done, send it back"
            lacking = draft.conditions[0]
            cleared.mitigant_fields = [f for f in cleared.mitigant_fields if f != lacking.field]
            cleared.conditions = [*cleared.conditions, lacking]
            return False
        self.drafts.append(draft)
        return True

    def _scoped_earlier(self, draft: RuleDraft) -> RuleDraft | None:
        """The one earlier rule this classless one repeats with its class and product.

        A log's "For commercial laundry on Property, refer above 50,000 lbs/week" and its
        reviewer's "weekly volume above 50,000 lbs ... treat the Property volume referral
        as soft": one rule, not one per class and one for every class.
        """
        occupancy = self.vocab.occupancy
        if not occupancy or any(c.field == occupancy for c in draft.conditions):
            return None
        own = sorted(repr(c) for c in draft.conditions)
        same = [
            old
            for old in self.drafts
            if old.action == draft.action
            and old.product == draft.product
            and own
            and sorted(repr(c) for c in old.conditions if c.field != occupancy) == own
            and [c.operator for c in old.conditions if c.field == occupancy] == ["eq"]
        ]
        return same[0] if len(same) == 1 else None

    def _cleared_earlier(self, draft: RuleDraft) -> RuleDraft | None:
        """The check of the same sentence this one says again as the lack of what clears it.

        "... must be confirmed against the board's lookup before binding; where that lookup
        has not been done, send the file back for verification": one check, on a file whose
        lookup is not done (a condition, no longer a mitigant).
        """
        occupancy = self.vocab.occupancy
        if len(draft.conditions) != 1 or draft.conditions[0].value is not False:
            return None
        if occupancy and any(c.field == occupancy for c in draft.conditions):
            return None
        lacking = draft.conditions[0].field
        same = [
            old
            for old in self.drafts
            if old.action == draft.action
            and old.sentence_index == draft.sentence_index
            and lacking in old.mitigant_fields
        ]
        return same[0] if len(same) == 1 else None

    def _near_text(self, sentence: Sentence) -> str:
        before = self.sentences[sentence.index - 1].text if sentence.index else ""
        return f"{before} {sentence.text}"

    def _softens(self, sentence: Sentence) -> bool:
        """A sentence that eases the decline before it is that rule's mitigant.

        "If the center holds a transfer agreement, the decline is lifted to a referral":
        the protection it names mitigates the decline just made (a mitigated decline
        is referred), it states no rule of its own.
        """
        if not (self.drafts and self.drafts[-1].action == "decline"):
            return False
        if not lxd.SOFTENED_ACTION.search(sentence.text):
            return False
        fields = self.analyzer.mitigant_fields(sentence.text)
        self._attach(fields, [sentence.text] if fields else [])
        return bool(fields)

    def _attach(self, fields: list[str], texts: list[str]) -> None:
        if self.drafts and self.cases and any(_REMEDIED.search(t) for t in texts):
            fields = self._not_cured(fields)
        if self.drafts:
            self.drafts[-1].add_mitigants(fields, texts)
            if fields or texts:
                self.used.add(self._current)

    def _evidence(self, sentence: Sentence) -> None:
        """Exceptions, soft limits and mitigants stated after a rule."""
        text = sentence.text
        if not self.drafts:
            if lx.SOFT_LIMIT_CUE.search(text):  # practice's reach before the rule it bends
                a = self.analyzer.analyze(text, "")
                self.heard += [(h, a.text) for h in a.numbers if h.field and h.soft_evidence]
            return
        exception = bool(
            lx.EXCEPTION_EVIDENCE.search(text)
            or lx.SOFT_LIMIT_CUE.search(text)
            or lx.PRACTICE_CEILING.search(text)  # "six thousand is the most he will accept"
        )
        cue = lx.MITIGANT_CUE.search(text) and not lxd.NOTHING_FURTHER.search(text)
        if exception or cue:
            fields = self.analyzer.mitigant_fields(text)
            self._attach(fields, [text] if fields else [])
        if exception:
            self.used.add(sentence.index)
            target = soft_limit(text, self.drafts, self.vocab) or self.drafts[-1]
            if text not in target.historical:
                target.historical.append(text)


#: A log's line on what the insured did about the findings: "Insured installed leg sensors
#: and poured a containment dike".
_REMEDIED = re.compile(
    r"\b(?:insured|applicant|owner|they)\s+(?:has\s+|had\s+|then\s+)?(?:installed|poured|"
    r"added|fitted|replaced|upgraded|retrofitted|put in)\b",
    re.I,
)
#: "a dated storefront photo resolves it": what answers the check or referral just made.
_SETTLES = re.compile(
    r"\b(?:settles?|resolves?|answers|cures?|satisf(?:y|ies)|clears?)\s+(?:it|that|this|"
    r"the\s+(?:check|question|matter|verification|referral|decline))\b",
    re.I,
)
#: A protection that replaces the check or referral just stated.
_STANDS_IN = re.compile(
    r"\b(?:can|may|will|could)\s+(?:\w+\s+)?(?:stand in for|substitute for|replace|take the "
    r"place of)\s+(?:that|this|the)\s+(?:verification|check|inspection|referral|review|"
    r"requirement|condition)\b",
    re.I,
)
#: A conditional whose parts are joined by "and": "Where A and B lacks C, refer".
_BOTH_SAID = re.compile(r"^\W*(?:where|if|when|whenever)\b[^,;:]*\band\b[^,;:]*,", re.I)


#: A subject pointing back at the one named before: "They may be written ...".
_THEY = re.compile(r"^\W*(?:they|these risks|such risks|these accounts)\b", re.I)
#: A clause that accepts what it counts ("one or two grills in a hall are acceptable").
_ACCEPTED = re.compile(r"\b(?:acceptable|are fine|is fine|are normal|is normal|routine)\b", re.I)
#: A clause whose subject is the list after its colon: "The following classes are ...:".
_FOLLOWING_CLASSES = re.compile(
    r"^\W*(?:\d+(?:\.\d+)*\s+)?the following (?:classes|occupancies|businesses|trades|risks)\b",
    re.I,
)


def _lists_for(clauses: list[str], i: int, sentence: str) -> bool:
    """True when clause `i` is the list a colon after the clause before introduces."""
    return i > 0 and f"{clauses[i - 1].rstrip()}:" in sentence


def _written_before_exclusion(a: ClauseAnalysis, after: list[str]) -> bool:
    """True for "may be written" with no condition of its own before an exclusion."""
    return (
        a.action == "approve_with_conditions"
        and not a.conditions
        and not a.protective_pos
        and any(detect_action(c) == "exclude" for c in after)
    )
