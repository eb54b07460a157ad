"""Practice read from a text: what it says about rules already stated, as claims.

An SME interview or a decision log rarely restates a rule: it says "the 20 employee
cap is a guideline; we have signed off up to 23" or "22 employees, approved by the
senior underwriter". Read as a rule of its own, such a text becomes a second hard
rule or nothing at all. Here it is read against the rules already known (stored, or
stated by an earlier text of the batch) as *claims about them*: a revision (a limit
called a guideline, and how far approvals went), an approval past a limit, or a
relief (a protection practice accepts: "if the building is sprinklered I let the desk
write it", read by the extractor as mitigants without conditions and bound here to
the one rule the text speaks of). The consolidation policy
(`memory.underwriting.consolidate`) then makes the rule soft, with its soft limit,
exceptions and mitigants, on the commit path, the same in every mode.

Everything field-specific comes from the rules themselves (their fields' words).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from agents.ingestion.amendments import amendments_of
from agents.ingestion.approvals import practice_revision, read_approvals
from agents.ingestion.conform import changes_known, conform, withdrawals_of
from agents.ingestion.evidence import (
    best_spoken,
    evidenced,
    field_share,
    limit_said,
    mentions,
    spoken_of,
)
from agents.ingestion.flag_cases import flag_case_claims
from agents.ingestion.matching import (
    RuleRevision,
    limit_signature,
    limit_value,
    revision_claim,
    revision_targets,
)
from agents.ingestion.named_mitigants import (
    asked_mitigants,
    conditional_mitigants,
    stated_mitigants,
)
from agents.offline.pipeline import find_product, single_product
from agents.offline.practice_text import (
    SQFT,
    field_words,
    read_limits,
)
from agents.offline.relief import grants, is_relief, relief_of, with_mitigants
from memory import GraphMemory, Namespace
from memory.underwriting import GraphAnalytics, condition_index
from memory.underwriting.consolidate import STATEMENT_TYPES, signature
from memory.underwriting.fieldlink.numbers import find_numbers
from memory.underwriting.fieldlink.profile import field_kind
from memory.underwriting.fieldlink.stems import stem
from memory.underwriting.history import amended_versions, retired_rules
from schemas.fields import DataDictionary
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule


def read_revisions(text: KnowledgeText) -> list[RuleRevision]:
    """Read the limit revisions of a text.

    A revision names a limit and calls it a guideline (or a hedge, or answers "No" to
    "is that absolute?") and says how far approvals went, in the same sentence or one
    of the next few (soft, with the historical limit); or calls a limit hard. A
    revision without a product in its sentence or text applies to the rules of every
    product with that limit.
    """
    return [
        replace(practice_revision(text, r.sentence, r.product, r.value, r.soft_limit), unit=r.unit)
        for r in read_limits(text.text, text.source)
    ]


def _revision_claims(
    known: list[ExtractedRule], revisions: list[RuleRevision], words: str | None = None
) -> list[ExtractedRule]:
    """The claims revisions make about the rules they name (by limit, field or value).

    A limit whose field the text does not name fits several rules only by its value:
    then it is about none of them (a guess is worse than a sentence left uncovered).
    With the text's `words`, a rule the text does not evidence (its class unsaid) is a
    target when it is the one known rule with the limit the revision names: "the
    hundred-yard setback is a referral trigger, not a wall".
    """
    said = [k for k in known if evidenced(k, words)] if words is not None else known
    claims = []
    for revision in revisions:
        targets = revision_targets(said, revision)
        if not targets and words is not None:
            unsaid = revision_targets(known, revision)
            shapes = {signature(t.product_type, t.conditions) for t in unsaid}
            targets = unsaid if len(shapes) == 1 else []
        named = [t for t in targets if spoken_of(t, revision.text.lower(), [])]
        if len(named) == 0 and len({signature(t.product_type, t.conditions) for t in targets}) > 1:
            continue
        claims += [revision_claim(t, revision) for t in targets]
    return claims


def _with_approved_mitigants(
    claim: ExtractedRule, approved: Sequence[ExtractedRule]
) -> ExtractedRule:
    """A revision's claim with the protections the text's approvals of its rule had.

    "It's a guideline. With the net up I've written grounds as close as forty-five yards":
    the revision and the approval read the same extent; the net is what practice accepted.
    """
    same = [
        a
        for a in approved
        if a.mitigant_fields
        and (
            a.rule_name == claim.rule_name
            or (_bearing(a), a.soft_limit) == (_bearing(claim), claim.soft_limit)
        )
    ]
    fields = [f for a in same for f in a.mitigant_fields]
    notes = [m for a in same for m in a.mitigants]
    return with_mitigants(claim, fields, notes) if fields else claim


def _with_dropped_mitigants(
    practice: list[ExtractedRule], dropped: Sequence[ExtractedRule]
) -> list[ExtractedRule]:
    """Practice claims with the mitigants of the text's own readings of the same limit.

    "If the building is fully sprinklered, I let the desk approve well beyond forty":
    read as a rule of its own it is dropped (practice bends the stated forty), but the
    sprinklers it names are what practice accepts.
    """
    out = []
    bent = {(_bearing(p), p.product_type) for p in practice}
    for claim in practice:
        # the claim of the dropped reading's own product, when practice bent that one
        same = [
            r
            for r in dropped
            if _bearing(r) == _bearing(claim)
            and (r.product_type == claim.product_type or (_bearing(r), r.product_type) not in bent)
        ]
        fields = [f for r in same for f in r.mitigant_fields]
        notes = [m for r in same for m in r.mitigants]
        out.append(with_mitigants(claim, fields, notes) if fields else claim)
    return out


#: A sentence that leaves a product's rule out of what the text says: "LRO accounts have
#: their own, tighter alarm test, and nothing in this note changes that one".
_SPARES = re.compile(
    r"\b(?:nothing in this (?:note|bulletin|memo|guidance|text)|(?:is|are) not affected|"
    r"(?:is|are) unaffected|(?:has|have) (?:its|their) own\b|(?:does|do) not (?:apply|change)|"
    r"(?:doesn't|don't) (?:apply|change))",
    re.I,
)


def _joined(
    mine: list[ExtractedRule], flagged: list[ExtractedRule]
) -> tuple[list[ExtractedRule], list[ExtractedRule]]:
    """A text's own claim on a flag's rule takes the protections its cases had.

    The text's reading of the rule (a model's, say) is the better claim; a second claim of
    the same text on the same rule would only compete with it.
    """
    shapes = {signature(f.product_type, f.conditions): f for f in flagged}
    joined = []
    for rule in mine:
        case = shapes.pop(signature(rule.product_type, rule.conditions), None)
        joined.append(with_mitigants(rule, case.mitigant_fields, []) if case else rule)
    return joined, list(shapes.values())


def _not_owned(
    helped: Sequence[str], claim: ExtractedRule, mine: Sequence[ExtractedRule]
) -> list[str]:
    """The asked protections a claim may take: not those the text gives another rule.

    "Q: And tire recyclers? A: ... when a deluge plan is signed off": the plan is the
    tire recyclers' claim's mitigant, not the pile-gap rule's the interview bent first.
    """
    own = signature(claim.product_type, claim.conditions)
    others = {
        f for r in mine if signature(r.product_type, r.conditions) != own for f in r.mitigant_fields
    }
    return [f for f in helped if f not in others]


def spared_products(text: str) -> set[str]:
    """The products a text says its practice leaves alone (one product named in the sentence)."""
    sentences = re.split(r"(?<=[.!?])\s+", text)
    named = (single_product(s) for s in sentences if _SPARES.search(s))
    return {product for product in named if product is not None}


def _bearing(rule: ExtractedRule) -> tuple[str, str] | None:
    """(field, direction) of a rule's numeric limit."""
    signature = limit_signature(rule)
    return None if signature is None else (signature[1], signature[2])


def _bends(practice: ExtractedRule, read: ExtractedRule) -> bool:
    """True when practice speaks of the limit a text also read as a rule of its own.

    The same field and direction, on the same product or one of them for every product:
    practice about the BOP limit leaves the text's reading of the GL limit on that field.
    """
    bearing = _bearing(read)
    products = {practice.product_type, read.product_type}
    return (
        bearing is not None
        and bearing == _bearing(practice)
        and (len(products) == 1 or "ALL" in products)
    )


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
    alike = [k for k in known if signature("", k.conditions) == shape]
    if any(k.product_type == "ALL" for k in alike):
        return rule  # a rule for every product is already known: it is that one's practice
    same = [k for k in alike if k.product_type != "ALL"]
    if len({k.product_type for k in same}) != 1:
        return rule  # no known rule, or several products: nothing to bind to
    target = same[-1]
    mine, theirs, bearing = limit_value(rule), limit_value(target), _bearing(target)
    if mine is not None and theirs is not None and bearing and rule.action == target.action:
        past = mine > theirs if bearing[1] == "upper" else mine < theirs
        if past:
            note = rule.historical_exceptions or rule.outcome_description or None
            revision = practice_revision(text, note or "", target.product_type, theirs, mine)
            return revision_claim(target, revision)
    return rule.model_copy(update={"product_type": target.product_type})


def _relieved_rule(
    known: Sequence[ExtractedRule], text: KnowledgeText, words: str
) -> ExtractedRule | None:
    """The one stated rule a relief in this text is about, None when unsure.

    The rules of the text's product whose other conditions the text names and whose
    limit it speaks of; several left and the text names no product, the rule for every
    product; still several, those whose limit value it says; still several (or none),
    no rule: a protection is not attached by guess.
    """
    product = find_product(text.text) or single_product(text.source)
    numbers = find_numbers(words)
    latest: dict[str, ExtractedRule] = {}
    for rule in known:
        if product not in (None, "ALL") and rule.product_type not in (product, "ALL"):
            continue
        if evidenced(rule, words) and spoken_of(rule, words, numbers):
            latest[signature(rule.product_type, rule.conditions)] = rule
    candidates = list(latest.values())
    # "Four cooperages came through ...": a rule on a class alone, named by its value,
    # is the one spoken of unless a limit is named too (its value, or most of its words)
    classed = [r for r in candidates if _on_values_only(r)]
    if classed and not any(
        limit_said(r, numbers) or field_share(r, words) >= 0.5
        for r in candidates
        if r not in classed
    ):
        candidates = classed
    found = best_spoken(candidates, words)
    if len(found) > 1 and product is None:
        # "any account with repeat losses from one cause": a text naming no product
        # speaks of the rule for every product, not of one product's rule on the field
        found = [r for r in found if r.product_type == "ALL"] or found
    if len(found) > 1:
        found = [r for r in found if limit_said(r, numbers)]
    return found[0] if len(found) == 1 else None


def _on_values_only(rule: ExtractedRule) -> bool:
    """True for a rule whose conditions are all categorical values ("cooperage")."""
    return bool(rule.conditions) and all(isinstance(c.value, str | list) for c in rule.conditions)


def _relieve(
    reliefs: Sequence[ExtractedRule],
    known: Sequence[ExtractedRule],
    text: KnowledgeText,
    practice: list[ExtractedRule],
    kept: list[ExtractedRule],
) -> tuple[list[ExtractedRule], list[ExtractedRule]]:
    """Bind a text's reliefs (protections practice accepts) to the rule it speaks of.

    The protections join the text's own claim about that rule (practice, or the rule
    as the text read it), else a soft claim of their own; unbound, they are dropped.
    A rule the text read as "with X, approve with conditions" is such a relief too:
    bound, it is the rule's mitigant; unbound, it stays as read.
    """
    granted = [r for r in kept if grants(r)]
    reliefs = [*reliefs, *(relief_of(r) for r in granted)]
    words = SQFT.sub("sqft", text.text).lower()
    shapes = {signature(p.product_type, p.conditions) for p in practice}
    # "when the birds are only handled by staff, write it with conditions", of a class:
    # the stated rule on that class alone
    named = {(c.field, str(c.value)) for r in granted for c in r.conditions if c.value is not True}
    of_class = [
        k for k in known if named and {(c.field, str(c.value)) for c in k.conditions} == named
    ]
    if reliefs and len(shapes) == 1:
        target: ExtractedRule | None = practice[0]  # the one rule the text's practice bends
    elif len({signature(k.product_type, k.conditions) for k in of_class}) == 1:
        target = of_class[-1]
    else:
        target = _relieved_rule(known, text, words) if reliefs else None
    if target is None:
        return practice, kept
    kept = [r for r in kept if not grants(r)]
    # a protection named by the limit's own words is no relief of it: "a calc from a
    # licensed sprinkler contractor" does not make 'sprinklered' a sprinkler-density mitigant
    own = [{stem(w) for w in c.field.split("_")} for c in target.conditions]
    fields = [
        f
        for r in reliefs
        for f in r.mitigant_fields
        if not any({stem(w) for w in f.split("_")} <= words for words in own)
    ]
    notes = [m for r in reliefs for m in r.mitigants]
    shape = signature(target.product_type, target.conditions)
    for claims in (practice, kept):
        for i, claim in enumerate(claims):
            if signature(claim.product_type, claim.conditions) == shape:
                claims[i] = with_mitigants(claim, fields, notes)
                return practice, kept
    note = " ".join(r.historical_exceptions or "" for r in reliefs).strip()
    value = limit_value(target)
    revision = practice_revision(text, note, target.product_type, value or 0.0, None)
    claim = revision_claim(target, revision).model_copy(
        update={"threshold_type": "soft", "historical_exceptions": note or None}
    )
    return [*practice, with_mitigants(claim, fields, notes)], kept


async def known_rules(
    memory: GraphMemory, namespace: Namespace, texts: Sequence[KnowledgeText]
) -> list[ExtractedRule]:
    """The stored rules the practice of these texts may speak of.

    Rules with a condition on a field whose words the texts use, or whose value they
    say (a limit's number, "the $7.5 million line"; a class of business), found in the
    condition index (no scan of the stored documents); none when no text is one of
    practice, or a statement that withdraws a rule or names the figure it replaces.
    """
    talk = [
        SQFT.sub("sqft", t.text).lower()
        for t in texts
        if t.source_type not in STATEMENT_TYPES or changes_known(t.text)
    ]
    if not talk:
        return []
    index = await condition_index(memory, namespace)
    fields = {
        f for f in index.fields if (w := field_words(f)) and any(x in t for t in talk for x in w)
    }
    numbers = {n.value for t in talk for n in find_numbers(t)}
    entries = [
        e
        for e in index.rules
        if e is not None
        and (fields & set(e.per_field) or any(_named(c.value, talk, numbers) for c in e.conditions))
    ]
    # the other products' rules on those fields too: whether a text naming no product
    # speaks of one product's rule depends on every rule on its field
    near = {f for e in entries for f in e.per_field}
    taken = {e.name for e in entries}
    entries += [
        e for e in index.rules if e is not None and e.name not in taken and near & set(e.per_field)
    ]
    names = [e.name for e in entries]
    current = await GraphAnalytics(memory, namespace).rules(names, index=index) if names else []
    # A text of an earlier day read again after a rule it spoke of ended, or was amended,
    # reads that rule as it stood then too (`_in_force` picks the version of its day).
    days = [t.date for t in texts if t.date]
    ended = await retired_rules(memory, namespace, days) if days else []
    ended = [
        r
        for r in ended
        if {c.field for c in r.conditions} & fields
        or any(_named(c.value, talk, numbers) for c in r.conditions)
    ]
    since = {r.rule_name for r in current if days and (r.valid_from or "")[:10] > min(days)[:10]}
    documents = [e.whole_document() for e in entries if e.name in since]
    return current + amended_versions([d for d in documents if d], days) + ended


def _named(value: object, talk: Sequence[str], numbers: set[float]) -> bool:
    """True when texts name a condition's value: its number, or its words ("jewelry store")."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return float(value) in numbers
    values = value if isinstance(value, list) else [value]
    return any(mentions(t, str(v).lower()) for v in values for t in talk if len(str(v)) > 2)


#: A sentence that states a rule in the present ("Carnivals in Oklahoma are referred").
_STATES_A_RULE = re.compile(
    r"\b(?:is|are|will be|must be|should be)\s+(?:\w+ly\s+)?(?:referred|declined|excluded|"
    r"flagged|verified|written|accepted|approved)\b",
    re.I,
)


def _logged_place(rule: ExtractedRule, fields: DataDictionary | None) -> bool:
    """True for a rule on nothing but a place, read from a case a log records.

    "07/11 | ... Worcester MA | ... | approved" and "Snowmobile outfitter, northern Maine,
    46 sleds ... above the referral line" record where the insured is, not a rule about
    the state. A sentence of the log that states a rule ("Carnivals in Oklahoma are
    referred") keeps it.
    """
    if fields is None or _STATES_A_RULE.search(rule.outcome_description):
        return False
    places = {n for n, spec in fields.fields.items() if field_kind(n, spec, [], False) == "state"}
    return bool(rule.conditions) and all(c.field in places for c in rule.conditions)


def _case_of(read: ExtractedRule, known: Sequence[ExtractedRule]) -> bool:
    """True when a rule read from a decision log is one case of a known rule, not a rule.

    "31 ft ... declined by the senior underwriter" under a known "refer over 24 ft":
    the known rule's shape, with neither its limit nor its action.
    """
    shape = signature(read.product_type, read.conditions)
    same = [k for k in known if signature(k.product_type, k.conditions) == shape]
    return bool(same) and all(
        k.action != read.action and limit_value(k) != limit_value(read) for k in same
    )


def _in_force(known: Sequence[ExtractedRule], day: str | None) -> list[ExtractedRule]:
    """The known rules a text of `day` reads against: each as it stood on that day.

    Read again after a withdrawal, a training note of the rule's time still speaks of
    it (its "every line" limit is not the one product rule left); read again after an
    amendment, a log of 2024 speaks of the rule's 2024 limit and action, not of the ones
    a bulletin of 2025 set (an ended version of a rule replaces its current version
    that started after the day). A text of no day reads the rules in force now.
    """

    def held(rule: ExtractedRule) -> bool:
        if rule.valid_to is None:
            return True
        if not day:
            return False
        return (rule.valid_from or "")[:10] <= day[:10] < rule.valid_to[:10]

    found = [k for k in known if held(k)]
    then = {k.rule_name for k in found if k.valid_to is not None}
    return [
        k
        for k in found
        if not (
            day
            and k.valid_to is None
            and k.rule_name in then
            and (k.valid_from or "")[:10] > day[:10]
        )
    ]


def _stated_by(known: Sequence[ExtractedRule], day: str | None) -> list[ExtractedRule]:
    """The known rules first stated on or before a text's day (all when it has none).

    Practice from 2023 cannot bend a rule first written in 2025: read again later, a log
    must bind to what it bound to when it was first heard.
    """
    if not day:
        return list(known)

    def first(rule: ExtractedRule) -> str | None:
        dates = [s.date for s in rule.sources if s.date]
        return min(dates or [rule.valid_from or rule.date or ""])[:10] or None

    return [k for k in known if (since := first(k)) is None or since <= day[:10]]


def _gone_on(claim: ExtractedRule, fields: DataDictionary | None) -> ExtractedRule:
    """A revision claim with the protections practice went past its limit on, if any."""
    if claim.soft_limit is None:
        return claim
    own = {c.field for c in claim.conditions}
    found = conditional_mitigants(claim.historical_exceptions or "", fields, own)
    return with_mitigants(claim, found, []) if found else claim


def with_practice(
    texts: Sequence[KnowledgeText],
    extracted: Sequence[ExtractedRule],
    current: Sequence[ExtractedRule],
    fields: DataDictionary | None = None,
) -> list[ExtractedRule]:
    """The claims of a batch of texts: what each extracted, and its practice about known rules.

    Texts are read in order (a manual's or a bulletin's rules are statements, kept as
    extracted); a text's practice binds to the stored rules and to the
    rules earlier texts of the batch stated. Where a text's practice speaks of a limit
    (its field and direction), the text's own reading of that limit as a rule of its
    own is dropped: "anything above 23 is still declined" bends the stated 20, it is
    not a second rule. Each text's claims first take the form of the known rules they
    restate or amend (`agents.ingestion.conform`; `fields` gives the whole-number fields).
    """
    known = list(current)
    out: list[ExtractedRule] = []
    for text in texts:
        held = _in_force(known, text.date)
        mine = conform([r for r in extracted if r.text_id == text.id], text.text, held, fields)
        if text.source_type in STATEMENT_TYPES:  # a manual or a bulletin states rules
            mine += withdrawals_of(text, mine, held)
            amended = amendments_of(text, mine, held)  # "moves from 30% to 20%"
            # "Remote telemetry remains a recognised mitigant": of the amended rule
            protections = stated_mitigants(text.text, fields)
            mine += [with_mitigants(a, protections, []) for a in amended]
            out += mine
            known += mine
            continue
        known_then = _stated_by(held, text.date)  # a log speaks of rules stated by its day
        if not single_product(text.source):  # a product said in passing ("not on the GL")
            mine = [_retargeted(r, known_then, text) for r in mine]  # is no rule's product
        words = SQFT.sub("sqft", text.text).lower()
        practice = _revision_claims(known_then, read_revisions(text), words)
        practice = [_gone_on(p, fields) for p in practice]
        # an approval past the limit says how far practice went; a revision of the same
        # rule that names no extent ("Is fifty a hard stop then? No") says less
        approved = read_approvals(text, known_then, fields)
        # "approved because a fire safety officer was posted": a flag's rule and what
        # practice accepted past it
        flagged = flag_case_claims(text, known_then, fields)
        mine, flagged = _joined(mine, flagged)
        approved += flagged
        went = {c.rule_name for c in approved if c.soft_limit is not None}
        practice = [p for p in practice if p.soft_limit is not None or p.rule_name not in went]
        bent = {p.rule_name for p in practice}
        # a revision that says how far practice went keeps what the approvals had
        practice = [_with_approved_mitigants(p, approved) for p in practice]
        practice += [c for c in approved if c.rule_name not in bent]
        spared = spared_products(text.text)  # "LRO accounts have their own ... test"
        practice = [p for p in practice if p.product_type not in spared]
        # A soft rule the text itself read about the same rule is the better reading; so
        # is one it read on another product's limit of the same field with the same
        # extent ("the lowest score the desk accepted was 78" was the BOP desk's, not GL's)
        soft = [r for r in mine if r.threshold_type == "soft" or r.soft_limit is not None]
        # (one that says no extent, "soft" from its practice text alone, gives way)
        read_soft = {
            signature(r.product_type, r.conditions) for r in soft if r.soft_limit is not None
        }
        extents = {(_bearing(r), r.soft_limit) for r in soft if r.soft_limit is not None}
        practice = [
            p
            for p in practice
            if signature(p.product_type, p.conditions) not in read_soft
            and (_bearing(p), p.soft_limit) not in extents
        ]
        helped = asked_mitigants(text.text, fields)  # "Q: What makes you say yes? A: X"
        if helped:  # what made practice go past the limit, the text's reading or ours
            practice = [with_mitigants(p, _not_owned(helped, p, mine), []) for p in practice]
            mine = [
                with_mitigants(r, _not_owned(helped, r, mine), []) if r in soft else r for r in mine
            ]
        # the text's own soft reading keeps what its approvals of that extent had
        mine = [
            _with_approved_mitigants(r, approved) if r.soft_limit is not None else r for r in mine
        ]
        reliefs = [r for r in mine if is_relief(r)]
        mine = [r for r in mine if not is_relief(r)]
        # "for GL the rule stands as written: ... under 85 is declined": the text's own
        # reading of a limit practice leaves as it was says it (one claim, not two)
        said = {signature(r.product_type, r.conditions) for r in mine}
        practice = [
            p
            for p in practice
            if p.soft_limit is not None
            or p.mitigant_fields
            or signature(p.product_type, p.conditions) not in said
        ]
        kept = [r for r in mine if not any(_bends(p, r) for p in practice)]
        practice = _with_dropped_mitigants(practice, [r for r in mine if r not in kept])
        if text.source_type == "production":
            kept = [r for r in kept if not (_case_of(r, held) or _logged_place(r, fields))]
        practice, kept = _relieve(reliefs, held, text, practice, kept)
        out += practice + kept
        known += kept
    return out


__all__ = ["read_approvals", "read_revisions", "spared_products", "with_practice"]
