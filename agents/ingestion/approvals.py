"""Approvals past a known limit, read from decision logs and answers, as practice claims.

"22 employees ... approved by the senior underwriter": a case past a rule's limit says
how far practice went (a soft limit); a protection every such case had is what practice
accepted (a mitigant). Split from `agents.ingestion.practice`, which binds these claims
to the rules a text speaks of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from agents.ingestion.evidence import (
    best_spoken,
    evidenced,
    field_near,
    field_share,
    limit_said,
    limit_spec,
    said_as_synonym,
    spoken_of,
    unit_fits,
)
from agents.ingestion.matching import (
    RuleRevision,
    case_factor,
    limit_signature,
    limit_value,
    revision_claim,
)
from agents.ingestion.named_mitigants import vocabulary_of
from agents.ingestion.spans import (
    clause_at,
    figures_apart,
    narrowed_to_clause,
    sentence_at,
    sentence_span,
)
from agents.offline import lexicon as lx
from agents.offline.pipeline import find_product, single_product
from agents.offline.practice_text import (
    APPROVED,
    CITED,
    COMMON_UNITS,
    FURTHEST,
    SQFT,
    approval_units,
    approved_outcome,
    field_words,
    opens_on_case,
    unit_words,
)
from agents.offline.relief import with_mitigants
from agents.offline.subject_flags import mitigant_said
from agents.offline.textproc import content_tokens
from agents.offline.texts import without_case_numbers
from agents.offline.vocab import FieldVocabulary
from memory.underwriting.fieldlink.numbers import NumberMention, canonical_unit, find_numbers
from schemas.fields import DataDictionary, FieldSpec
from schemas.ingestion import KnowledgeText
from schemas.rules import ExtractedRule


def practice_revision(
    text: KnowledgeText, sentence: str, product: str, value: float, soft_limit: float | None
) -> RuleRevision:
    """A revision a text makes of a limit: the sentence, and how far practice went."""
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


def read_approvals(
    text: KnowledgeText, known: Sequence[ExtractedRule], fields: DataDictionary | None = None
) -> list[ExtractedRule]:
    """Approvals past a known limit ("22 employees ... approved"), as practice claims.

    With the data dictionary, a limit field is also named by its synonyms.
    """
    # a flag a known decline is triggered by ("sails turning") is a hazard, no protection
    hazards = {
        c.field
        for k in known
        if k.action in ("decline", "exclude")
        for c in k.conditions
        if c.value is True
    }
    # a log whose title names one product ("GL Referral Log") speaks of that product
    titled = single_product(text.source)
    product = titled or find_product(text.text)
    words = SQFT.sub("sqft", without_case_numbers(text.text)).lower()
    usable = [
        k for k in known if evidenced(k, words) and k.action != "approve_with_conditions"
    ]  # practice bends what stops a risk
    any_product = product in (None, "ALL")
    known = [k for k in usable if any_product or k.product_type in (product, "ALL")]
    # "On the BOP name-change referrals: ...": a text opening on one product speaks of its
    # rule, not of an all-lines one on the same field
    opening = " ".join(text.text.split()[:_OPENING_WORDS])
    if titled or (not any_product and single_product(opening) == product):
        own = {sig[1] for k in known if k.product_type == product and (sig := limit_signature(k))}

        def stays(k: ExtractedRule) -> bool:
            return (
                k.product_type != "ALL" or (sig := limit_signature(k)) is None or sig[1] not in own
            )

        usable, known = [k for k in usable if stays(k)], [k for k in known if stays(k)]
    claims: dict[str, ExtractedRule] = {}
    cases: dict[str, set[str]] = {}  # rule -> the approved lines past its limit
    extents: dict[str, str] = {}  # rule -> the sentence saying how far practice went
    said_in_text = [  # the text's figures: the limits it cites ("Chapter 12" cites none)
        n for n in find_numbers(words) if not _document_part(words, n)
    ]
    cited = {n.value for n in said_in_text}
    units = approval_units(text.text)
    # a log of numbered cases: a case that names no product may be any product's
    logged = len(units) > 1 and all(opens_on_case(unit) for unit, _ in units)
    for unit, start in units:
        sentence = without_case_numbers(unit)  # "Case 23-411": no figure of the case
        if not approved_outcome(sentence):
            continue
        numbers = [  # not "Module 4", "Section 5.2": a part of a document
            n
            for n in find_numbers(sentence)
            if n.start >= start
            and not CITED.search(sentence[: n.start])
            # "Chapter 12 sends anything under fourteen to you": the part, no case's figure
            and not _document_part(sentence, n)
            # "past the GL decline point of two thousand five hundred": the limit, no case
            and not _LIMIT_OF.search(sentence[: n.start])
            and not _STOPPED.search(sentence_at(sentence, n.start))
            # "One is a converted mill ...": the pronoun, no figure of the case; "I have two
            # in the book": how many cases, no figure either
            and not (n.unit is None and sentence[n.start : n.end].lower() == "one")
            and not (n.unit is None and _CASES_COUNTED.match(sentence[n.num_end :]))
            # "two walk-rounds a year": the period of a count, no year of anything
            and not (
                _A_PERIOD.fullmatch(sentence[n.start : n.end])
                and _PLURAL_BEFORE.search(sentence[: n.start])
            )
        ]
        # "Value 22, approved: two-year clean record": a note's compound after the outcome
        # of a case whose figure came before it is no figure of the case
        numbers = _without_notes(sentence, numbers)
        # "accepted up to 6,500 sq ft" says how far practice went; the building's 14,000
        # sq ft in the same case line does not
        said = [n for n in numbers if _UP_TO.search(sentence[max(0, n.start - 12) : n.start])]
        before: tuple[NumberMention, list[ExtractedRule]] | None = None
        for number in _in_limit_units(said or numbers, usable, sentence):
            if titled and _others_own(sentence_at(sentence, number.start), titled):
                continue  # "The Property people have their own number, a hundred gallons"
            # a log titled for one product speaks of it, whatever a line says in passing
            rules = (
                known
                if titled
                else _of_product(usable, usable if logged else known, sentence, number)
            )
            # a figure said in another unit ("seven months dark" of a limit in years) is
            # about a rule only where the rule's field is named beside it
            converted = number not in numbers
            about = (
                _about(rules, sentence, number, words, fields)
                or (
                    []
                    if converted
                    else _extent_of(rules, sentence, number, start, words, said_in_text, fields)
                    or _past_cited(rules, sentence, number, said_in_text, fields)
                )
                # "between thirty-eight and forty-two": the run's end is about what its
                # start is about
                or (before[1] if before and _in_run(sentence, before[0], number) else [])
                # "a jeweler with two full years of trading and ... a carver with only one
                # year": the next case of the line, in the unit of the one before
                or (before[1] if before and _next_case(sentence, before[0], number) else [])
            )
            before = None  # a run goes on from a figure past a limit ("38 and 42"), not
            # from the limit itself ("protection class 9 and 10 come to you as referrals")
            for rule in _cited_first(about, cited, _limits_cited(sentence)):
                signature, limit = limit_signature(rule), limit_value(rule)
                if signature is None or limit is None:
                    continue
                if number.unit == "year" and abs(limit) < _CALENDAR:
                    continue  # "a 1920s loft building": a calendar year, no age in years
                if _calendar_field(rule, fields) and number.unit != "year":
                    continue  # "approved at three (losses)": no year a building was built
                past = number.value > limit if signature[2] == "upper" else number.value < limit
                if not past:
                    continue
                before = (number, about)
                revision = practice_revision(text, sentence, rule.product_type, limit, number.value)
                claim = revision_claim(rule, revision)
                kept = claims.get(rule.rule_name)
                if kept is None or _further(signature[2], number.value, kept.soft_limit):
                    claims[rule.rule_name] = claim
                    if said:
                        extents[rule.rule_name] = clause_at(sentence, number.start)
                if _SUMMED_UP.match(sentence):
                    continue  # "Lowest margin accepted in the period: eighty minutes": how
                    # far the cases went, no case of its own to share their protections
                cases.setdefault(rule.rule_name, set()).add(sentence)
                # "on the package I'll go to 300,000 if ...; on Property I've signed
                # 900,000": a figure told beside another's gets the protections of its clause
                if figures_apart(sentence, number):
                    cases[rule.rule_name].discard(sentence)
                    cases[rule.rule_name].add(narrowed_to_clause(sentence, number.start))
    # the protections every approved case past the limit had (two cases or more), those
    # of a text's one case ("approved because every container is tracked on electronic
    # manifests"), then those the sentence saying how far practice went names
    found = _with_protections(list(claims.values()), cases, fields, _CASES_FOR_A_MITIGANT, hazards)
    single = {rule: lines for rule, lines in cases.items() if len(lines) == 1}
    found = _with_protections(found, single, fields, 1, hazards)
    return _with_protections(found, {k: {v} for k, v in extents.items()}, fields, 1, hazards)


#: A sentence summing up how far the cases went: "Lowest margin accepted in the period:
#: eighty minutes", "Highest approved so far: seven months".
_SUMMED_UP = re.compile(
    r"^\W*(?:the\s+)?" + lx.SUPERLATIVE + r"[^.;:]{0,40}?\b(?:accepted|approved|written|"
    r"bound|signed off)\b[^.;:]{0,30}:",
    re.I,
)
#: What joins the figures of one run: "thirty-eight and forty-two", "12 to 14".
_RUN_JOINT = re.compile(r"^\s*(?:and|to|or|through|-|\u2013)\s*$", re.I)


def _in_run(sentence: str, first: NumberMention, then: NumberMention) -> bool:
    """True when `then` continues a run of figures `first` opens, in the same unit."""
    if first.unit not in (None, then.unit) and then.unit is not None:
        return False
    return then.start > first.end and bool(_RUN_JOINT.match(sentence[first.end : then.start]))


def _next_case(line: str, first: NumberMention, then: NumberMention) -> bool:
    """True when `then` is a later case of one sentence in the unit of the case before it."""
    return (
        first.unit is not None
        and then.unit == first.unit
        and then.start > first.end
        and sentence_span(line, first.start) == sentence_span(line, then.start)
    )


def _of_product(
    usable: list[ExtractedRule], known: list[ExtractedRule], line: str, number: NumberMention
) -> list[ExtractedRule]:
    """The rules a number may speak of: those of the product its line or sentence names.

    "Castellanos: On monoline property my line is a quarter of TIV ... The largest was at
    forty percent" speaks of the Property limit, whichever product the text named first.
    """
    here = single_product(line) or single_product(sentence_at(line, number.start))
    return known if here is None else [k for k in usable if k.product_type in (here, "ALL")]


#: "have their own number", "I don't touch that one": another limit, left alone.
_OWN_LIMIT = re.compile(
    r"\b(?:has|have) (?:its|their) own\b|\b(?:don't|do not|never) touch\b", re.I
)


def _others_own(sentence: str, titled: str) -> bool:
    """True when a sentence gives another product's own limit (not the titled product's)."""
    other = single_product(sentence)
    return other not in (None, "ALL", titled) and _OWN_LIMIT.search(sentence) is not None


#: The words of a text's opening that say which product it is about.
_OPENING_WORDS = 6
#: "Four is where I stop": where practice ends, no case approved.
_STOPPED = re.compile(
    r"\b(?:is|are) where (?:I|we|they) (?:stop|draw the line|say no)\b|"
    r"\b(?:is|are) (?:too (?:far|many|much)|a step too far)\b|"
    # "one competitor writes these up to two hundred forays; we are not them": another
    # market's practice, not ours
    r"\b(?:competitors?|rivals?|another (?:carrier|insurer|market|company)|other "
    r"(?:carriers|insurers|markets|companies))\b",
    re.I,
)


def present_flags(vocab: FieldVocabulary, line: str) -> set[str]:
    """The flags a logged case names as there ("cabinet fitted with a flame interlock").

    With none named by its words, the one flag the approval's terms say in other words
    ("approved with a subjectivity that two pilots fly every passenger sortie").
    """
    named = {m.field for m in vocab.bool_mentions(content_tokens(line)) if not m.negated}
    terms = _APPROVED_ON.search(line)
    if named or terms is None:
        return named
    return set(mitigant_said(content_tokens(line[terms.end() :]), vocab))


#: An approval and the terms it was given on.
_APPROVED_ON = re.compile(
    r"\b(?:approved|bound|written|accepted)\b[^.;]{0,40}?(?:\b(?:with|because|on condition|"
    r"provided|subject to|given|once|as)\b|\s[-\u2013\u2014:]\s)",
    re.I,
)


def _with_protections(
    claims: list[ExtractedRule],
    lines_of: dict[str, set[str]],
    fields: DataDictionary | None,
    least: int,
    hazards: AbstractSet[str] = frozenset(),
) -> list[ExtractedRule]:
    """Practice claims with the protections every one of their lines names as there.

    "100 W laser | cabinet fitted with a flame-detection interlock | approved", "120 W,
    interlock fitted | approved": the interlock is what practice accepted, a mitigant.
    "An unprotected area separated by a rated fire barrier has been accepted up to 6,500
    sq ft": the barrier, from the one sentence that says how far practice went. Only with
    the data dictionary (it names the flags) and at least `least` lines for the claim;
    the dictionary's vocabulary is built only when such lines exist.
    """
    vocab: FieldVocabulary | None = None
    out = []
    for claim in claims:
        lines = lines_of.get(claim.rule_name, set())
        if fields is None or not lines or len(lines) < least:
            out.append(claim)
            continue
        vocab = vocab or vocabulary_of(fields)
        common = set.intersection(*(present_flags(vocab, line) for line in lines))
        # "sprinklered throughout except the rear wing" measures the unsprinklered area
        common = {f for f in common if not any(f in c.field for c in claim.conditions)}
        common -= {f for f in hazards if not vocab.fields[f].protective}
        out.append(with_mitigants(claim, sorted(common), []) if common else claim)
    return out


#: "up to" right before a number: the extent practice reached.
_UP_TO = re.compile(r"\bup to\s*\$?$", re.I)
#: A count of the cases themselves after a number: "two in the book", "three of them".
_CASES_COUNTED = re.compile(
    r"\s+(?:in (?:the|my|our) book|on (?:the|my|our) books|of them|like (?:that|this|it))\b|"
    # "yet two were written on the specialist's authority": how many cases were
    r"\s+(?:were|have been|had been|got|went)\s+(?:\w+\s+)?(?:written|approved|accepted|"
    r"bound|through|declined|referred|signed)\b",
    re.I,
)
#: A case's outcome and the colon its note follows ("approved: two-year clean record").
_OUTCOME_NOTE = re.compile(rf"(?:{APPROVED.pattern})(?:\s+with conditions)?\s*:", re.I)


def _without_notes(line: str, numbers: list[NumberMention]) -> list[NumberMention]:
    """A case line's figures without the compounds of a note after its outcome.

    "Ref GL-23-4410, ..., Value 22, approved: two-year clean record": the driver's age
    is 22; the record's two years describe the case, they are not its figure.
    """
    outcome = _OUTCOME_NOTE.search(line)
    if outcome is None or not any(n.end <= outcome.start() for n in numbers):
        return numbers
    return [n for n in numbers if n.start < outcome.start() or not n.attached]


#: Approved cases that must share a protection before practice is read to accept it.
_CASES_FOR_A_MITIGANT = 2


#: A limit below this is no calendar year: a year a case names is not compared with it.
_CALENDAR = 1000


def _about(
    rules: Sequence[ExtractedRule],
    line: str,
    number: NumberMention,
    words: str,
    fields: DataDictionary | None = None,
) -> list[ExtractedRule]:
    """The rules a case's number is about: their field's words next to it.

    A log (a text of lines) whose header names the field lists its cases with the unit
    alone ("6.5 road miles"): then the one rule of the text's words whose limit's unit
    follows the number, when the unit says more than an amount or a share.
    """
    near = best_spoken([r for r in rules if field_near(r, line, number, fields)], words)
    # "..., rebuild shop, Toledo OH, Hauls / month 31, ...": a table row told cell by cell,
    # each value after its column's name; the number's own cell names its field, and a
    # near rule on another field is not what it counts
    header = _column_header(words, line, number) or (
        _own_cell(line, number) if "|" in words else ""
    )
    in_column = {r.rule_name for r in rules if field_share(r, header) > 0} if header else set()
    if near and in_column:
        near = [r for r in near if r.rule_name in in_column]
        if not near:
            return []
    if near or "\n" not in words.strip():
        return near
    # the unit after this number, not the next number's ("two stories | treads 8.5 in")
    after = unit_words(re.split(r"\d", line[number.end : number.end + 20], maxsplit=1)[0])
    same = [
        r
        for r in rules
        if (sig := limit_signature(r)) is not None
        and any(w in words for w in field_words(sig[1]))
        and r.threshold is not None
        and (unit := unit_words(r.threshold.unit or ""))
        and unit[0] not in COMMON_UNITS
        and unit[-1] in after[:3]
    ]
    if not same and number.unit == "usd":
        # "FV-24-047 Boston | $900,000 | ... | approved": a log of one money limit lists
        # its cases by amount alone
        same = [
            r
            for r in rules
            if (sig := limit_signature(r)) is not None
            and any(w in words for w in field_words(sig[1]))
            and (
                sig[1].endswith("_usd")
                or (r.threshold is not None and unit_words(r.threshold.unit or "")[:1] == ["usd"])
            )
        ]
    return same if len({limit_signature(r) for r in same}) == 1 else []


def _column_header(words: str, line: str, number: NumberMention) -> str | None:
    """The header cell of a table row's column a number sits in, lower case.

    The header is the text's first row of as many cells, with no figure in it.
    """
    if "|" not in line:
        return None
    column = line[: number.start].count("|")
    cells = line.count("|")
    for row in words.splitlines():
        if row.count("|") == cells and not re.search(r"\d", row) and not set(row) <= set("|-: "):
            parts = row.split("|")
            return parts[column].strip() if column < len(parts) else None
    return None


def _own_cell(line: str, number: NumberMention) -> str:
    """The words between the cell mark ("," "|") before a number and it, lower case."""
    start = max(line.rfind(mark, 0, number.start) for mark in ",;|") + 1
    return line[start : number.start].strip().lower()


_SHARE_OF = re.compile(r"\s+of\b", re.I)


def _in_limit_units(
    numbers: Sequence[NumberMention], rules: Sequence[ExtractedRule], sentence: str
) -> list[NumberMention]:
    """Each number, then the same figure in any other unit a known limit counts in.

    A fraction of something ("a fifth of the output") is a share in percent when a known
    limit counts in percent; not "Quarter summary" (a period).
    """
    units = {r.threshold.unit for r in rules if r.threshold and r.threshold.unit}
    out: list[NumberMention] = []
    shares = any(canonical_unit(u) == "percent" for u in units)
    for number in numbers:
        if (
            number.fraction
            and number.unit is None
            and shares
            and number.value <= 1
            and _SHARE_OF.match(sentence[number.end :])
        ):
            number = replace(number, value=round(number.value * 100, 9), unit="percent")
        out.append(number)  # "up to a fifth of the output" of a limit in percent is 20
        if number.unit is not None and any(canonical_unit(u) == number.unit for u in units):
            continue  # "twelve years at a workshop": a limit in years, no months to convert
        for unit in sorted(u for u in units if canonical_unit(u) != number.unit):
            factor = case_factor(number.unit, unit)
            if factor is not None:
                out.append(replace(number, value=number.value * factor, unit=canonical_unit(unit)))
    return out


def _extent_of(
    rules: Sequence[ExtractedRule],
    line: str,
    number: NumberMention,
    start: int,
    words: str,
    numbers: Sequence[NumberMention],
    fields: DataDictionary | None,
) -> list[ExtractedRule]:
    """The one limit a text speaks of, for a number said as how far practice went.

    "Two point four million is the highest I've approved", "as close as 10 feet", "Q: How
    far have you gone? A: Eight hundred pounds": the number needs no field words when the
    text names one limit only (its field's words or its value) and the units agree.

    Args:
        rules: The known rules the line may speak of.
        line: The approval unit.
        number: The number in it.
        start: Where the unit's values start (past a question joined to its answer).
        words: The whole text, lower case.
        numbers: The whole text's numbers.
        fields: The data dictionary, if any.
    """
    asked = start > 0  # a question about practice's extent joined to its answer
    before = line[max(start, number.start - 30) : number.start]
    after = line[number.end : number.end + 40]
    # "The biggest project I've approved was fifteen percent of value"
    furthest = FURTHEST.search(line, max(start, number.start - 90), number.start)
    cued = furthest is not None and furthest.end() == number.start
    if not (asked or cued or _EXTENT_BEFORE.search(before) or _EXTENT_AFTER.match(after)):
        return []
    spoken = [
        r
        for r in rules
        if spoken_of(r, words, numbers)
        and (unit_fits(r, number) or said_as_synonym(limit_spec(r, fields), line, number))
    ]
    # "The manual sends any RV lot holding more than two million dollars ...": the limit
    # the text cites, then the one whose field it names most fully
    spoken = best_spoken([r for r in spoken if limit_said(r, numbers)] or spoken, words)
    return spoken if len({limit_signature(r) for r in spoken}) == 1 else []


#: Words before a number saying it is how far practice went: "as close as 10 feet".
_EXTENT_BEFORE = re.compile(
    r"(?:\bas (?:close|low|high|young|old|far|much|many|long|short|small|large|big|near)"
    r" as|\b(?:up|down) to|\bat|"
    # "operators whose launch policy goes to twenty-two": as far as the figure
    r"\b(?:goes|go|went|going|gone|runs|run|ran|reaches|reached) (?:up |out )?to)"
    r"\s*(?:about|around|roughly|some|nearly|almost)?\s*\$?$",
    re.I,
)
#: Words after a number saying it is how far practice went: "... is the highest I've approved".
_EXTENT_AFTER = re.compile(
    r"[^.;,]{0,25}?\b(?:is|was|were|are)\s+(?:the|our|my)\s+" + lx.SUPERLATIVE, re.I
)


def _past_cited(
    rules: Sequence[ExtractedRule],
    line: str,
    number: NumberMention,
    numbers: Sequence[NumberMention],
    fields: DataDictionary | None = None,
) -> list[ExtractedRule]:
    """The one limit a text cites, for an approved case's figure in the limit's unit.

    "Two submissions came through above the $750K simulation-equipment referral line.
    PR-25-0917: community college nursing wing, $820,000 of simulators - approved": the
    case's amount is of the limit the text cites, though the case says it in other words.
    Only a figure with a unit that fits, in a sentence of its own that approves, or a bare
    figure in the sentence that cites the limit.
    """
    here = sentence_at(line, number.start)
    if not approved_outcome(here):
        return []
    if not number.unit:
        # "Under the new forty-mile-an-hour point, I've let a chute go at forty-three": a
        # bare figure past the one limit its own sentence cites
        said_here = find_numbers(here)
        # "the decline on more than two glory holes ...; I have taken four": the limit
        # said in the words the dictionary counts it in ("glory holes" of furnaces)
        cited_here = [
            r
            for r in rules
            if r.threshold is not None
            and (
                limit_said(r, said_here)
                or any(
                    n.value == limit_value(r) and said_as_synonym(_spec(r, fields), here, n)
                    for n in said_here
                )
            )
        ]
        return cited_here if len({limit_signature(r) for r in cited_here}) == 1 else []
    cited = [
        r
        for r in rules
        if r.threshold is not None
        and r.threshold.unit
        and limit_said(r, numbers)
        and unit_fits(r, number)
        and unit_words(r.threshold.unit)[:1] == unit_words(number.unit)[:1]
    ]
    return cited if len({limit_signature(r) for r in cited}) == 1 else []


def _spec(rule: ExtractedRule, fields: DataDictionary | None) -> FieldSpec | None:
    """The dictionary's entry for a rule's limit field, if known."""
    signature = limit_signature(rule)
    return fields.fields.get(signature[1]) if fields and signature else None


def _document_part(text: str, number: NumberMention) -> bool:
    """True when a number names a part of a document ("Chapter 12"), no figure."""
    return lx.DOC_PART.search(text[max(0, number.start - 24) : number.start]) is not None


def _calendar_field(rule: ExtractedRule, fields: DataDictionary | None) -> bool:
    """True when a rule's limit is a calendar year (its field counted in years AD)."""
    spec = _spec(rule, fields)
    return spec is not None and (spec.unit or "").strip().lower() in {"year", "calendar year"}


#: A limit's noun right before its figure: "the decline point of 2,500".
#: "a year", "an hour": a period said with an article ...
_A_PERIOD = re.compile(r"an?\s+(?:year|month|week|day|hour)s?", re.I)
#: ... right after the plural noun it counts per ("two walk-rounds a year").
#: ... or after one of a thing ("one flight a day").
_PLURAL_BEFORE = re.compile(
    r"\b(?!(?:this|was|has|is|less|unless)\s)[a-z-]{3,}s\s+$|\b(?:one|a|an|single)\s+[a-z-]{3,}\s+$",
    re.I,
)
#: (not "a high point of 4,450 metres": the measure of the case, no limit)
_LIMIT_OF = re.compile(
    r"(?<!\bhigh )(?<!\blow )(?<!\bhighest )(?<!\blowest )(?<!\bflash )(?<!\bboiling )"
    rf"(?<!\bmelting )(?<!\bdew )\b{lx.LIMIT_NOUNS} of\s*$",
    re.I,
)
#: A limit's noun next to its figure: "the 8,000 lb line", "the decline point of 2,500".
_LIMIT_NOUN = re.compile(rf"\b{lx.LIMIT_NOUNS}\b", re.I)


def _limits_cited(sentence: str) -> set[float]:
    """The figures a case line cites as limits, a limit's noun within three words of them."""
    cited = set()
    for number in find_numbers(sentence):
        before = sentence[max(0, number.start - 30) : number.start].split()[-4:]
        after = sentence[number.end : number.end + 40].split()[:3]
        if _LIMIT_NOUN.search(" ".join([*before, *after])):
            cited.add(number.value)
    return cited


def _cited_first(
    rules: list[ExtractedRule], cited: set[float], here: set[float]
) -> list[ExtractedRule]:
    """Of one field's rules on several products, those whose limit the case (else the text) cites.

    "75 tons a month, above the 60-ton referral line ... approved" speaks of the rule
    whose limit is 60, not of another product's rule on the same field at 10; "2,900
    hours, past the GL decline point of two thousand five hundred" of the GL rule, though
    the text cites the all-lines 1,500 too.
    """
    if len({r.product_type for r in rules}) < 2:
        return rules
    named = [r for r in rules if limit_value(r) in here] or [
        r for r in rules if limit_value(r) in cited
    ]
    return named or rules


def _further(direction: str, value: float, than: float | None) -> bool:
    if than is None:
        return True
    return value > than if direction == "upper" else value < than


__all__ = ["practice_revision", "read_approvals"]
