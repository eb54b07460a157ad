"""A text's claims in the form of the known rules they restate or amend.

Two texts about one rule rarely write it the same way. A training note says "two or
more violations" where the manual said "more than one"; a bulletin says "a laundromat
with more than 24 dryers ... (the previous trigger of twenty no longer applies)" of a
rule the handbook wrote on the dryer count alone, or names no product for a rule the
manual set on one. Read as written, each is a rule of its own: the handbook's stays
current beside it. Here a claim takes the form of the known rule it speaks of, so the
consolidation policy (`memory.underwriting.consolidate`) sees the same rule:

* **integer steps**: on a whole-number field (`int` in the data dictionary) `gte 2`
  is `gt 1` and `lte 9` is `lt 10`; a claim written the other way than a known rule
  of its signature, on the same limit, is written the rule's way;
* **a list of withdrawals** ("The following are withdrawn: (1) the referral of ...")
  ends each known rule the text restates exactly;
* **a withdrawal** that names a rule by what it does ("Part C-11 (decline of locations
  with more than one retort) is withdrawn") ends the one known rule whose limit field
  and value it names, whatever the reading of its own conditions;
* **an earlier figure named**: a statement that names the figure it replaces ("the
  earlier figure of four", "the previous trigger of twenty", "raised from 20")
  amends the one known rule with that limit on the claim's field and direction: it
  takes that rule's product and its other conditions (a condition both have must
  agree, else it is a rule of its own);
* **the rule replaced**: "the referral over 30 stalls is replaced" names the old rule
  (its numbers are earlier figures); read as a claim beside the new limit, it is dropped;
* **a restatement with no product**: a text that says it restates a rule ("nothing has
  changed") and names no product restates the one known rule with that limit;
* **an amendment**: a statement that says it amends or replaces ("Section 9.4 is
  amended") is about the known rules on its limit's field and direction when they
  all have one shape: it takes that shape.

Generic English only; the fields come from the data dictionary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from agents.ingestion.amendments import moves_a_figure
from agents.ingestion.class_names import class_said_again
from agents.ingestion.evidence import best_spoken, evidenced, field_share
from agents.ingestion.matching import direction_of, limit_value, text_claim
from agents.offline import lexicon as lx
from agents.offline.pipeline import find_product
from agents.offline.practice_text import CITED, SQFT
from agents.offline.texts import single_product
from memory.underwriting.consolidate import condition_key, is_statement, signature
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.profile import field_kind
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import Condition, ExtractedRule, Operator, Threshold

_STEP: dict[str, tuple[Operator, int]] = {
    "gte": ("gt", -1),
    "gt": ("gte", 1),
    "lte": ("lt", 1),
    "lt": ("lte", -1),
}
#: Words just before a number that make it the figure a statement replaces.
_EARLIER = re.compile(
    r"(?:\b(?:previous(?:ly)?|earlier|former(?:ly)?|prior|old|original)\b[\w\s,-]{0,30}?"
    r"|\b(?:raised|lowered|increased|reduced|decreased|moved|changed|cut)\s+from\s+"
    r"|\binstead of\s+|\((?:was|previously)\s+)"
    r"(?:the\s+|a\s+|of\s+|at\s+|was\s+|is\s+)*$",
    re.I,
)
_WINDOW = 45  # characters before a number in which its "earlier" words must sit
#: A statement that says it changes rules already written ("Section 9.4 is amended").
_AMENDS = re.compile(
    r"\b(?:is|are|has been|have been|was|were)\s+(?:hereby\s+|now\s+)?(?:amended|replaced|"
    r"superseded|revised|updated|raised|lowered)\b|\b(?:amends|replaces|supersedes)\b",
    re.I,
)


#: "The referral for barns with more than 30 stalls is replaced": the subject names the
#: rule a statement replaces, so its numbers are earlier figures.
_REPLACED = re.compile(
    r"(?:[^.;:]|[.:](?=\d))*?\b(?:is|are|has been|have been)\s+(?:hereby\s+|now\s+)?"
    r"(?:replaced|superseded)\b",
    re.I,
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATE_AFTER = re.compile(rf"^\s*(?:{_MONTH}\b|[/-]\d)", re.I)
_DATE_BEFORE = re.compile(rf"(?:\b{_MONTH}|\d[/-])\s*$", re.I)
#: "The following are withdrawn ...": the rules the text goes on to name end.
_LIST_WITHDRAWN = re.compile(
    r"\b(?:the following|these (?:rules|provisions|referrals|sections))\b[^.:;]{0,40}?"
    r"\b(?:is|are|has been|have been)\s+(?:hereby\s+|now\s+)?(?:discontinued|withdrawn|"
    r"rescinded|lifted|repealed|retired|revoked)\b",
    re.I,
)
#: A text that says it restates a rule ("This is the ... rule restated; nothing has changed").
_RESTATED = re.compile(
    r"\b(?:restated|restates|restating|unchanged|nothing (?:has )?changed|"
    r"(?:has|have)(?: not|n't) changed|as before|same (?:rule|limit|threshold|line|trigger))\b",
    re.I,
)


def _figure(text: str, start: int, end: int) -> bool:
    """True when the number at [start, end) is a figure: not a document part or a date."""
    return not (
        CITED.search(text[:start])  # "Part 3", "Section 9.4" name no figure
        or _DATE_AFTER.match(text[end:])
        or _DATE_BEFORE.search(text[:start])
        or re.fullmatch(r"(?:19|20)\d\d", text[start:end].strip())
    )


def earlier_figures(text: str) -> list[float]:
    """The figures a text says it replaces ("the earlier figure of four" -> 4.0)."""
    found = [
        n.value
        for n in find_numbers(text)
        if _EARLIER.search(text[max(0, n.start - _WINDOW) : n.start])
        and _figure(text, n.start, n.num_end)
    ]
    for match in _REPLACED.finditer(text):
        subject = match.group(0)
        found += [
            n.value
            for n in find_numbers(subject)
            if _figure(text, match.start() + n.start, match.start() + n.num_end)
        ]
    return list(dict.fromkeys(found))


def changes_known(text: str) -> bool:
    """True when a statement says it changes rules already written (so they must be read)."""
    return bool(
        _AMENDS.search(text)
        or lx.WITHDRAWN.search(text)
        or earlier_figures(text)
        or moves_a_figure(text)  # "the trigger moves from 30% to 20%"
    )


def _stepped(condition: Condition) -> Condition | None:
    """The same whole-number condition written with the other strictness."""
    if condition.operator not in _STEP or isinstance(condition.value, bool | list | str):
        return None
    operator, step = _STEP[condition.operator]
    return Condition(field=condition.field, operator=operator, value=condition.value + step)


def _with_conditions(claim: ExtractedRule, conditions: list[Condition]) -> ExtractedRule:
    """The claim with other conditions (its threshold follows its field's condition)."""
    threshold = claim.threshold
    if threshold is not None:
        same = [c for c in conditions if c.field == threshold.field and direction_of(c.operator)]
        if same and isinstance(same[0].value, int | float):
            threshold = Threshold(
                field=threshold.field,
                operator=same[0].operator,
                value=float(same[0].value),
                unit=threshold.unit,
            )
    return claim.model_copy(update={"conditions": conditions, "threshold": threshold})


def _integer_steps(
    claim: ExtractedRule, shapes: Mapping[str, list[ExtractedRule]], fields: DataDictionary
) -> ExtractedRule:
    """The claim with each whole-number limit written as the known rule of its signature has it.

    `shapes` holds the known rules by signature.
    """
    rules = shapes.get(signature(claim.product_type, claim.conditions), [])
    if not rules:
        return claim
    theirs = {condition_key(c) for k in rules for c in k.conditions}
    conditions = list(claim.conditions)
    for at, condition in enumerate(conditions):
        spec = fields.fields.get(condition.field)
        other = _stepped(condition) if spec is not None and spec.type == "int" else None
        if (
            other is not None
            and condition_key(condition) not in theirs
            and condition_key(other) in theirs
        ):
            conditions[at] = other
    return claim if conditions == claim.conditions else _with_conditions(claim, conditions)


def _limit_of(rule: ExtractedRule, field: str, direction: str) -> float | None:
    return next((v for f, d, v in _limits(rule) if (f, d) == (field, direction)), None)


def _agrees(claim: ExtractedRule, rule: ExtractedRule, field: str) -> bool:
    """True when every other condition both rules have is the same."""
    mine = {c.field: (c.operator, c.value) for c in claim.conditions if c.field != field}
    theirs = {c.field: (c.operator, c.value) for c in rule.conditions if c.field != field}
    return all(mine[f] == theirs[f] for f in mine.keys() & theirs.keys())


def _amended(
    claim: ExtractedRule, known: Sequence[ExtractedRule], figures: Sequence[float] | None
) -> ExtractedRule:
    """The claim as an amendment of the one known rule (shape) it changes.

    With `figures`, the rule whose limit the text says it replaces; without, the one
    shape of the known rules on the claim's limit field and direction.
    """
    for condition in claim.conditions:
        direction = direction_of(condition.operator)
        if direction is None:
            continue
        targets = {
            signature(k.product_type, k.conditions): k
            for k in known
            if (limit := _limit_of(k, condition.field, direction)) is not None
            and (figures is None or limit in figures)
            and claim.product_type in ("ALL", k.product_type)
            and _agrees(claim, k, condition.field)
        }
        if len(targets) != 1:
            continue
        [rule] = targets.values()
        others = [c for c in rule.conditions if c.field != condition.field]
        at = [c.field for c in rule.conditions].index(condition.field)
        conditions = [*others[:at], condition, *others[at:]]
        return _with_conditions(claim, conditions).model_copy(
            update={"product_type": rule.product_type}
        )
    return claim


def _named_rule(text: str, product: str, known: Sequence[ExtractedRule]) -> ExtractedRule | None:
    """The one known rule (shape) a text names by its limit field's words and value."""
    words = SQFT.sub("sqft", text).lower()
    numbers = {n.value for n in find_numbers(words)}  # the field's words tell the unit
    named = [
        k
        for k in known
        if product in ("ALL", k.product_type)
        and field_share(k, words) >= 0.5
        and evidenced(k, words)
        # a flag's rule has no limit to name: its words must do ("the review flag whenever
        # the premium is paid by someone other than the insured ... is withdrawn")
        and (limit_value(k) in numbers or limit_value(k) is None)
    ]
    named = best_spoken(named, words)
    if not named:
        # "General Rule 2.4 (valuation check on buildings erected before 1850) is
        # withdrawn": the field said in other words, the one rule of that distinctive limit
        named = [
            k
            for k in known
            if product in ("ALL", k.product_type)
            and evidenced(k, words)
            and (value := limit_value(k)) is not None
            and value in numbers
            and _distinctive(value)
        ]
    exact = [k for k in named if k.product_type == product]  # "all lines": the ALL rule
    if len({signature(k.product_type, k.conditions) for k in named}) != 1:
        named = exact
    if len({signature(k.product_type, k.conditions) for k in named}) != 1:
        return None
    return named[-1]


#: A limit this large, or with a fraction, names its rule by itself ("1850", "2.5").
_DISTINCTIVE = 100


def _distinctive(value: float) -> bool:
    """True for a limit unlikely to be any other figure of a text: not a small count."""
    return abs(value) >= _DISTINCTIVE or value != int(value)


def _withdrawal(claim: ExtractedRule, text: str, known: Sequence[ExtractedRule]) -> ExtractedRule:
    """A withdrawal of no known rule's shape as that of the one known rule the text names."""
    shape = signature(claim.product_type, claim.conditions)
    if any(signature(k.product_type, k.conditions) == shape for k in known):
        return claim
    # a text never withdraws a rule it states itself (heard again, its own new rule is
    # known and the rule it withdrew is retired: the withdrawal keeps its own shape)
    others = [k for k in known if not _stated_in(k, claim.text_id)]
    rule = _named_rule(text, claim.product_type, others)
    if rule is None:
        return claim
    return claim.model_copy(
        update={
            "product_type": rule.product_type,
            "conditions": list(rule.conditions),
            "threshold": rule.threshold,
        }
    )


def _stated_in(rule: ExtractedRule, text_id: str | None) -> bool:
    """True when the text states the rule (the rule's own text, or one of its sources)."""
    if text_id is None:
        return False
    return rule.text_id == text_id or any(s.text_id == text_id for s in rule.sources)


def withdrawals_of(
    text: KnowledgeText, claims: Sequence[ExtractedRule], known: Sequence[ExtractedRule]
) -> list[ExtractedRule]:
    """The withdrawal a statement makes of a known rule it names only by what it does.

    "Part C-11 (decline of locations with more than one retort) is withdrawn" reads as
    no rule at all (a document part is no business class); it ends the one known rule
    whose limit field and value it names. None when the text was read to say anything
    else (its claims are what it says), or it names no single rule.
    """
    withdrawn = lx.WITHDRAWN.search(text.text) is not None
    if claims or not (withdrawn or _REMOVED_FROM.search(text.text)):
        return []
    by_document = _withdrawn_by_document(text, known)
    if by_document:
        return [text_claim(rule, text, withdrawn=True) for rule in by_document]
    if not withdrawn:
        return []
    product = find_product(text.text) or single_product(text.source) or "ALL"
    rule = _named_rule(text.text, product, known)
    if rule is None:
        return []
    return [text_claim(rule, text, withdrawn=True)]


#: A document named by its number or part: "CB-24-07", "Appendix C", "Bulletin 12".
_DOC_REF = re.compile(
    r"(?<![\w-])(?:[A-Z]{1,6}-\d{1,4}(?:[-.]\d{1,4})*|(?:Appendix|Schedule|Bulletin|Part)\s+"
    r"[A-Z0-9][\w.]*(?<![.]))(?![\w-])"
)
#: "... are removed from Appendix C": classes taken off a document's list.
_REMOVED_FROM = re.compile(r"\b(?:is|are|has been|have been)\s+removed\s+from\b", re.I)
_ENDS = r"(?:withdrawn|rescinded|revoked|repealed|cancell?ed|lifted|retired)"


def _withdrawn_by_document(
    text: KnowledgeText, known: Sequence[ExtractedRule]
) -> list[ExtractedRule]:
    """The known rules a text ends by naming the document that stated them.

    "CB-24-07 is withdrawn" ends every rule bulletin CB-24-07 stated; "bottle redemption
    centers ... are removed from Appendix C" ends the rules of Appendix C on the classes
    it names. The text's own document is never one it ends.
    """
    ended: dict[str, ExtractedRule] = {}
    sentences = re.split(r"(?<=[.!?])\s+", text.text)
    words = SQFT.sub("sqft", text.text).lower()
    for ref in dict.fromkeys(_DOC_REF.findall(text.text)):
        if ref in (text.source or ""):
            continue
        # "... are underwritten under Part 11": a document named, not one taken from
        ending = any(
            ref in s and (lx.WITHDRAWN.search(s) or _REMOVED_FROM.search(s)) for s in sentences
        )
        if not ending:
            continue
        whole = re.search(
            rf"(?<![\w-]){re.escape(ref)}\s+(?:is|has been)\s+(?:hereby\s+|now\s+)?{_ENDS}\b",
            text.text,
        )
        for rule in known:
            source = rule.source or ""
            if rule.withdrawn or not re.search(rf"(?<![\w-]){re.escape(ref)}(?![\w-])", source):
                continue
            named = any(isinstance(c.value, str | list) for c in rule.conditions) and evidenced(
                rule, words
            )
            if whole or named:
                ended[signature(rule.product_type, rule.conditions)] = rule
    return list(ended.values())


def conform(
    claims: Sequence[ExtractedRule],
    text: str,
    known: Sequence[ExtractedRule],
    fields: DataDictionary | None,
) -> list[ExtractedRule]:
    """A text's claims in the form of the known rules they restate or amend (see the module).

    Args:
        claims: What the text was read to say.
        text: The text.
        known: Rules stored or stated by earlier texts.
        fields: The data dictionary (None: no integer steps).

    Returns:
        The claims, each in its known rule's form where it is about one.
    """
    if not known:
        return list(claims)
    figures = earlier_figures(text)
    claims = _without_replaced(claims, figures) if figures else list(claims)
    restated = bool(_RESTATED.search(text))
    # "Refer the risk only where full blow-downs are spaced more than fourteen days apart":
    # a text that names no product speaks of the one product its limit is known on
    unnamed = find_product(text) is None
    listed = bool(_LIST_WITHDRAWN.search(text))
    amends = bool(_AMENDS.search(text))
    cls = _class_field(fields) if fields is not None else None
    shapes: dict[str, list[ExtractedRule]] = {}
    for rule in known:
        shapes.setdefault(signature(rule.product_type, rule.conditions), []).append(rule)
    out = []
    for claim in claims:
        if listed and is_statement(claim) and _restates(claim, known):
            claim = claim.model_copy(update={"withdrawn": True})
        if claim.withdrawn:
            claim = _withdrawal(claim, text, known)
        elif figures:
            claim = _amended(claim, known, figures)
        elif amends and is_statement(claim):
            claim = _amended(claim, known, None)
        elif restated and claim.product_type == "ALL":
            claim = _restated(claim, known)
        elif claim.product_type == "ALL" and unnamed:
            claim = _restated(claim, known, same_limit=False)
        if fields is not None:
            claim = _integer_steps(claim, shapes, fields)
        if cls is not None and not claim.withdrawn:
            claim = _class_conformed(claim, known, text, cls)
            claim = class_said_again(claim, known, text, cls)
        out.append(claim)
    return out


def _restates(claim: ExtractedRule, known: Sequence[ExtractedRule]) -> bool:
    """True when a claim says exactly what a known rule says (shape, limits and action).

    In a text that opens "The following are withdrawn", such a claim names a rule the
    text ends, not one it states again.
    """
    shape = signature(claim.product_type, claim.conditions)
    return any(
        signature(k.product_type, k.conditions) == shape
        and k.action == claim.action
        and set(_limits(k)) == set(_limits(claim))
        for k in known
    )


def _class_field(fields: DataDictionary) -> str | None:
    """The business-class field of a data dictionary."""
    return next(
        (n for n, spec in fields.fields.items() if field_kind(n, spec, [], True) == "occupancy"),
        None,
    )


def _class_conformed(
    claim: ExtractedRule, known: Sequence[ExtractedRule], text: str, cls: str
) -> ExtractedRule:
    """A limit claim that differs from one known rule only by the business class.

    "A yard holding more than 200 cords" (read with the class "yard") and "more than 200
    cords" are one rule; "more than 5 burners" in a slide about hookah lounges is the
    manual's hookah-lounge rule. The claim takes the shape of the one known rule of its
    product whose other conditions it shares, when the text names that rule's class
    (or the rule has none); with several such rules, nothing is guessed.
    """
    if not _limits(claim):
        return claim
    rest = [c for c in claim.conditions if c.field != cls]
    mine = signature(claim.product_type, claim.conditions)
    words = SQFT.sub("sqft", text).lower()
    targets: dict[str, ExtractedRule] = {}
    for rule in known:
        # a claim that names no product ("ALL", read from practice) may be about any
        if claim.product_type not in ("ALL", rule.product_type):
            continue
        theirs = signature(rule.product_type, rule.conditions)
        if theirs == mine:
            return claim  # a known shape already
        others = [c for c in rule.conditions if c.field != cls]
        if signature(rule.product_type, others) != signature(rule.product_type, rest):
            continue
        if len(others) < len(rule.conditions) and not evidenced(rule, words):
            continue
        targets[theirs] = rule
    if len(targets) != 1:
        return claim
    [rule] = targets.values()
    return _with_conditions(claim, [*(c for c in rule.conditions if c.field == cls), *rest])


def _limits(claim: ExtractedRule) -> list[tuple[str, str, float]]:
    return [
        (c.field, direction, float(c.value))
        for c in claim.conditions
        if (direction := direction_of(c.operator)) is not None
        and isinstance(c.value, int | float)
        and not isinstance(c.value, bool)
    ]


def _without_replaced(
    claims: Sequence[ExtractedRule], figures: Sequence[float]
) -> list[ExtractedRule]:
    """A text's claims without the old rule it names as replaced.

    "The referral over 30 stalls is replaced. ... more than 40 stalls are declined" reads
    as two claims; the one all of whose limits are earlier figures, beside one at another
    value on the same field and direction, is the rule replaced, not a restatement of it
    (a new band "between 600 and 1,000" starting at the old figure stays).
    """
    kept = []
    for claim in claims:
        limits = _limits(claim)
        replaced = all(value in figures for _, _, value in limits) and any(
            any(
                (f, d) == (field, direction) and v != value
                for other in claims
                if other is not claim
                for f, d, v in _limits(other)
            )
            for field, direction, value in limits
        )
        if not replaced:
            kept.append(claim)
    return kept


def _restated(
    claim: ExtractedRule, known: Sequence[ExtractedRule], same_limit: bool = True
) -> ExtractedRule:
    """A rule a text restates with no product named: the one known product with that limit.

    With `same_limit` False, any limit of that shape (fields, directions, values listed):
    a text naming no product that moves or bends a limit known on one product only.
    """
    limits = set(_limits(claim))
    shape = signature("", claim.conditions)
    same = {
        k.product_type
        for k in known
        if signature("", k.conditions) == shape and (not same_limit or limits <= set(_limits(k)))
    }
    if len(same) != 1 or "ALL" in same:
        return claim
    return claim.model_copy(update={"product_type": same.pop()})


__all__ = ["changes_known", "conform", "earlier_figures", "withdrawals_of"]
