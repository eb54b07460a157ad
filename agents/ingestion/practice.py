"""Practice read from a text: what it says about rules already stated, as claims.

An SME interview or a decision log rarely restates a rule: it says "the 20 employee
cap is a guideline; we have signed off up to 23" or "22 employees, approved by the
senior underwriter". Read as a rule of its own, such a text becomes a second hard
rule or nothing at all. Here it is read against the rules already known (stored, or
stated by an earlier text of the batch) as *claims about them*: a revision (a limit
called a guideline, and how far approvals went) or an approval past a limit. The
consolidation policy (`memory.underwriting.consolidate`) then makes the rule soft,
with its soft limit and exceptions, on the commit path, the same in every mode.

Everything field-specific comes from the rules themselves (their fields' words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.ingestion.matching import (
    RuleRevision,
    limit_signature,
    limit_value,
    revision_claim,
    revision_claims,
)
from agents.offline import lexicon as lx
from agents.offline.pipeline import find_product, single_product
from memory import GraphMemory, Namespace
from memory.underwriting import GraphAnalytics, condition_index
from memory.underwriting.consolidate import STATEMENT_TYPES, signature
from memory.underwriting.fieldlink.numbers import NumberMention, find_numbers
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_GUIDELINE = re.compile(
    r"\b(?:guidelines?|soft (?:limit|cap|threshold)|not a hard|more of a|rule of thumb|"
    r"flexible|not (?:a )?(?:strict|firm))\b",
    re.I,
)
_HARD = re.compile(r"\b(?:hard (?:limit|cap|line|stop)|no exceptions?)\b", re.I)
_SIGNED_OFF = re.compile(
    r"\b(?:signed off|sign off|signing off|okayed|cleared)\s+(?:\w+\s+){0,3}?up to\s+", re.I
)
_APPROVED = re.compile(
    r"\b(?:approved|accepted|bound|signed off|okayed|written with conditions|quoted and bound)\b",
    re.I,
)
_REFUSED = re.compile(r"\b(?:declined|not approved|rejected|refused|turned down|denied)\b", re.I)
#: "the biggest I've signed off was 32", "the highest we have written is $8.75M".
_FURTHEST = re.compile(
    r"\b(?:biggest|largest|highest|most|furthest|lowest|smallest|oldest)\b[^.;]{0,60}?"
    r"\b(?:signed off|approved|written|wrote|accepted|bound|gone|taken)\b[^.;]{0,30}?"
    r"\b(?:was|is|at|were)\b:?\s*",
    re.I,
)
_LOOK_AHEAD = 4  # sentences after a guideline in which its approvals may follow
_NEAR = 40  # characters around a number in which its field's words must appear
#: Words of a field name that say nothing of which field it is (units, generic nouns).
_GENERIC = frozenset(
    {
        "count", "usd", "pct", "percent", "amount", "total", "number", "num", "year", "value",
        "day", "month", "mile", "building", "per", "rate", "ratio", "score", "level", "type",
    }
)  # fmt: skip
_ORDERING = frozenset({"gt", "gte", "lt", "lte"})
_SQFT = re.compile(r"\bsq(?:uare)?\.?\s*(?:ft|feet|foot)\b\.?", re.I)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


def _approved_values(sentence: str) -> list[float]:
    """Values a sentence says practice went up (or down) to: "approved up to 23"."""
    cue = lx.SOFT_LIMIT_CUE.search(sentence) or _SIGNED_OFF.search(sentence)
    cue = cue or _FURTHEST.search(sentence)
    if cue is None:
        return []
    return [n.value for n in find_numbers(sentence) if n.start >= cue.end()][:1]


def read_revisions(text: KnowledgeText) -> list[RuleRevision]:
    """Read the limit revisions of a text.

    A revision names a limit and calls it a guideline (or a hedge) and says how far
    approvals went, in the same sentence or one of the next two (soft, with the
    historical limit); or calls a limit hard. A revision without a product in its
    sentence or text applies to the rules of every product with that limit.
    """
    found = []
    product_of_text = find_product(text.text) or single_product(text.source) or ""
    sentences = _sentences(text.text)
    for number, sentence in enumerate(sentences):
        product = find_product(sentence) or product_of_text
        numbers = find_numbers(sentence)
        if product == "ALL" or not numbers:
            continue
        soft = bool(_GUIDELINE.search(sentence) or lx.SOFT_HEDGE.search(sentence))
        cue = lx.SOFT_LIMIT_CUE.search(sentence) or _SIGNED_OFF.search(sentence)
        if soft:
            limits = [n for n in numbers if cue is None or n.end <= cue.start()]
            approved = _approved_values(sentence)
            window = sentences[number + 1 : number + 1 + _LOOK_AHEAD]
            for later in window if not approved else []:
                approved = _approved_values(later)
                if approved:
                    sentence = f"{sentence} {later}"
                    break
            if limits and approved:
                found.append(_revision(text, sentence, product, limits[0].value, approved[0]))
        elif _HARD.search(sentence) and len(numbers) == 1:
            found.append(_revision(text, sentence, product, numbers[0].value, None))
    return found


def _revision(
    text: KnowledgeText, sentence: str, product: str, value: float, soft_limit: float | None
) -> RuleRevision:
    return RuleRevision(
        product_type=product,
        value=value,
        threshold_type="soft" if soft_limit is not None else "hard",
        soft_limit=soft_limit,
        note=sentence,
        text=sentence,
        text_id=text.id,
        source=text.source,
        source_type=text.source_type,
        date=text.date,
    )


def _field_near(rule: ExtractedRule, sentence: str, number: NumberMention) -> bool:
    """True when the words of the rule's limit field sit next to the number."""
    signature = limit_signature(rule)
    if signature is None:
        return False
    words = _field_words(signature[1])
    around = _SQFT.sub("sqft", sentence[max(0, number.start - _NEAR) : number.end + _NEAR])
    return bool(words) and any(w in around.lower() for w in words) and _unit_fits(rule, number)


def _unit_word(unit: str) -> str:
    word = unit.strip().lower().split()[0] if unit.strip() else ""
    word = {"$": "usd", "dollars": "usd", "dollar": "usd", "%": "percent"}.get(word, word)
    return word[:-1] if word.endswith("s") else word


def _unit_fits(rule: ExtractedRule, number: NumberMention) -> bool:
    """A number with a unit fits a limit with a unit only when the units agree."""
    limit_unit = rule.threshold.unit if rule.threshold is not None else None
    if not limit_unit or not number.unit:
        return True
    mine, theirs = _unit_word(number.unit), _unit_word(limit_unit)
    return mine.startswith(theirs) or theirs.startswith(mine)


def _field_words(field_name: str) -> list[str]:
    words = [w[:-1] if w.endswith("s") else w for w in field_name.lower().split("_")]
    return [w for w in words if len(w) > 2 and w not in _GENERIC]


def _says(text: str, value: str) -> bool:
    """True when the text holds the value as words of its own ("la" is not in "lifted")."""
    return re.search(rf"(?<![a-z0-9]){re.escape(value)}(?![a-z0-9])", text) is not None


def evidenced(rule: ExtractedRule, text: str) -> bool:
    """True when the text speaks of every condition of the rule but its numeric limit.

    A categorical condition needs its value in the text ("jewelry store"), a yes / no
    one its field's words: practice binds to the rule it is about, not to every rule
    with a limit on the same field.
    """
    lowered = text if text.islower() else _SQFT.sub("sqft", text).lower()
    signature = limit_signature(rule)
    for c in rule.conditions:
        if signature is not None and c.field == signature[1] and c.operator in _ORDERING:
            continue
        values = c.value if isinstance(c.value, list) else [c.value]
        if all(isinstance(v, bool) for v in values):
            words = _field_words(c.field)
            if words and not any(w in lowered for w in words):
                return False
        elif not any(_says(lowered, str(v).lower()) for v in values):
            return False
    return True


def read_approvals(text: KnowledgeText, known: Sequence[ExtractedRule]) -> list[ExtractedRule]:
    """Approvals past a known limit ("22 employees ... approved"), as practice claims."""
    product = find_product(text.text) or single_product(text.source)
    words = _SQFT.sub("sqft", text.text).lower()
    known = [k for k in known if evidenced(k, words)]
    claims: dict[str, ExtractedRule] = {}
    # A log's case is a line (its number and its outcome often in two sentences).
    for sentence in (line.strip() for line in text.text.splitlines() if line.strip()):
        if not _APPROVED.search(sentence) or _REFUSED.search(sentence):
            continue
        for number in find_numbers(sentence):
            for rule in known:
                if product not in (None, "ALL") and rule.product_type not in (product, "ALL"):
                    continue
                signature, limit = limit_signature(rule), limit_value(rule)
                if signature is None or limit is None or not _field_near(rule, sentence, number):
                    continue
                past = number.value > limit if signature[2] == "upper" else number.value < limit
                if not past:
                    continue
                revision = _revision(text, sentence, rule.product_type, limit, number.value)
                claim = revision_claim(rule, revision)
                kept = claims.get(rule.rule_name)
                if kept is None or _further(signature[2], number.value, kept.soft_limit):
                    claims[rule.rule_name] = claim
    return list(claims.values())


def _further(direction: str, value: float, than: float | None) -> bool:
    if than is None:
        return True
    return value > than if direction == "upper" else value < than


def _bearing(rule: ExtractedRule) -> tuple[str, str] | None:
    """(field, direction) of a rule's numeric limit."""
    signature = limit_signature(rule)
    return None if signature is None else (signature[1], signature[2])


def _retargeted(
    rule: ExtractedRule, known: Sequence[ExtractedRule], text: KnowledgeText
) -> ExtractedRule:
    """A rule read from practice that names no product is about the known rule it shapes.

    "Anything above 23 is still declined", in an interview about the BOP cap of 20, is
    read as an ALL-products rule; it speaks of the one known rule with its conditions
    (any product). Past that rule's limit with the same action, it says how far
    practice goes: the known rule with that soft limit.
    """
    if rule.product_type != "ALL":
        return rule
    shape = signature("", rule.conditions)
    same = [k for k in known if signature("", k.conditions) == shape and k.product_type != "ALL"]
    if len({k.product_type for k in same}) != 1:
        return rule  # no known rule, or several products: nothing to bind to
    target = same[-1]
    mine, theirs, bearing = limit_value(rule), limit_value(target), _bearing(target)
    if mine is not None and theirs is not None and bearing and rule.action == target.action:
        past = mine > theirs if bearing[1] == "upper" else mine < theirs
        if past:
            note = rule.historical_exceptions or rule.outcome_description or None
            revision = _revision(text, note or "", target.product_type, theirs, mine)
            return revision_claim(target, revision)
    return rule.model_copy(update={"product_type": target.product_type})


async def known_rules(
    memory: GraphMemory, namespace: Namespace, texts: Sequence[KnowledgeText]
) -> list[ExtractedRule]:
    """The stored rules the practice of these texts may speak of.

    Rules with a condition on a field whose words the texts use, found in the condition
    index (no scan of the stored documents); none when no text is one of practice.
    """
    talk = [
        _SQFT.sub("sqft", t.text).lower() for t in texts if t.source_type not in STATEMENT_TYPES
    ]
    if not talk:
        return []
    index = await condition_index(memory, namespace)
    fields = {
        f for f in index.fields if (w := _field_words(f)) and any(x in t for t in talk for x in w)
    }
    names = [e.name for e in index.rules if e is not None and fields & set(e.per_field)]
    return await GraphAnalytics(memory, namespace).rules(names) if names else []


def with_practice(
    texts: Sequence[KnowledgeText],
    extracted: Sequence[ExtractedRule],
    current: Sequence[ExtractedRule],
) -> list[ExtractedRule]:
    """The claims of a batch of texts: what each extracted, and its practice about known rules.

    Texts are read in order (a manual's or a bulletin's rules are statements, kept as
    extracted); a text's practice binds to the stored rules and to the
    rules earlier texts of the batch stated. Where a text's practice speaks of a limit
    (its field and direction), the text's own reading of that limit as a rule of its
    own is dropped: "anything above 23 is still declined" bends the stated 20, it is
    not a second rule.
    """
    known = list(current)
    out: list[ExtractedRule] = []
    for text in texts:
        mine = [r for r in extracted if r.text_id == text.id]
        if text.source_type in STATEMENT_TYPES:  # a manual or a bulletin states rules
            out += mine
            known += mine
            continue
        if not (find_product(text.text) or single_product(text.source)):
            mine = [_retargeted(r, known, text) for r in mine]
        words = _SQFT.sub("sqft", text.text).lower()
        practice = revision_claims([k for k in known if evidenced(k, words)], read_revisions(text))
        practice += [
            c
            for c in read_approvals(text, known)
            if c.rule_name not in {p.rule_name for p in practice}
        ]
        # A soft rule the text itself read about the same rule is the better reading.
        read_soft = {
            signature(r.product_type, r.conditions)
            for r in mine
            if r.threshold_type == "soft" or r.soft_limit is not None
        }
        practice = [p for p in practice if signature(p.product_type, p.conditions) not in read_soft]
        bent = {_bearing(p) for p in practice}
        kept = [r for r in mine if _bearing(r) is None or _bearing(r) not in bent]
        out += practice + kept
        known += kept
    return out


__all__ = ["read_approvals", "read_revisions", "with_practice"]
