"""Flags a clause names by its subject or by an order to verify them.

"Repair shops whose technicians convert gas appliances are referred": the relative clause
restates a flag's description, the flag is the condition. "Motion seats are excluded": what
a decline or an exclusion is predicated of is a hazard. "Before binding, verify that the
driller holds a license": the rule fires when the flag is not shown.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agents.offline import lexicon as lx
from agents.offline import lexicon_subjects as lxs
from agents.offline.analysis import ClauseAnalysis
from agents.offline.conditions import ConditionReader
from agents.offline.flag_words import NEGATION_WORDS, negated_before, negated_within
from agents.offline.textproc import Token, content_tokens, find_phrase
from agents.offline.vocab import FieldInfo, FieldVocabulary
from memory.underwriting.fieldlink.numbers import KNOWN_UNITS, find_numbers
from memory.underwriting.fieldlink.stems import stem
from schemas.rules import Condition

_ADVERSE = frozenset({"decline", "exclude"})
_ADVERSE_PREDICATE = re.compile(
    r"\b(?:is|are|be|been)\s+(?:\w+\s+)?(?:declin|exclud)\w*|"
    # "Manufacturers that build their own axles receive the products exclusion"
    r"\b(?:receives?|gets?|carr(?:y|ies))\s+(?:an?|the)\s+[\w\s-]{0,40}?exclusion\b|"
    # "Schools that also run a CDL course are written with the auto exclusion"
    r"\b(?:is|are)\s+(?:written|issued|bound)\s+with\s+(?:an?|the)\s+[\w\s-]{0,40}?exclusion\b",
    re.I,
)
#: The verb of a rule after its subject: "are referred", "is usually declined".
_RULE_VERB = (
    r"\b(?:is|are)\s+(?:\w+\s+)?"
    r"(?:referred|declined|excluded|flagged|verified|written|accepted|approved)\b"
)
#: A subject qualified by a relative clause, up to the verb of the rule.
_RELATIVE_SUBJECT = re.compile(
    r"^[\w\s,'’&-]{2,60}?\b(?:whose|that|which|who)\b(.{8,200}?)" + _RULE_VERB, re.I
)
#: "Where ... , the exclusion"; "attach the exclusion whenever a warranty is offered".
_CONDITION_WORD = re.compile(r"\b(?:where|if|when|whenever)\b", re.I)
#: "Couriers carrying clinical laboratory specimens are written with ...": a participle.
_PARTICIPLE_SUBJECT = re.compile(
    r"^\W*(?:[\w'’-]+\s+){0,2}?[\w-]+s\s+(\w+ing\s.{6,200}?)" + _RULE_VERB, re.I
)
#: Words that put a thing outside a place: "outside an enclosed paint cabin".
_OUTSIDE = frozenset({"outside", "beyond"})
_DENIED = re.compile(r"\b(?:not|no|never|without|outside|lacks?|lacking|fails?)\b|n't\b", re.I)
#: "Verify that ...", "Before binding, confirm that ...": an order opening the clause.
_VERIFY_ORDER = re.compile(
    r"^\W*(?:(?:before (?:binding|quoting)|at submission|in every case),?\s+)?"
    # "for any kennel, the underwriter must verify that ...": a scope and who verifies
    r"(?:for (?:any|every|each|all) [^,;]{1,60}?,?\s*)?"
    r"(?:(?:the |an? )?(?:underwriters?|desk|reviewers?|producers?|you|we)\s+"
    r"(?:must|should|shall|will|needs? to|has to|have to|is to|are to)\s+)?(?:please\s+)?"
    r"(?:(?:verify|confirm|check|make sure)\s+(?:that|whether)\b|(?:verify|confirm)\s+(?!if\b)\w)",
    re.I,
)


#: "verify GPS or time-stamped service logs before binding": an order with a plain object.
_VERIFY_PLAIN = re.compile(
    # (or after the condition it follows: "if 30 percent or more ..., verify X before quoting")
    r"(?:^\W*|(?<=,)\s*)(?:(?:before (?:binding|quoting)|at submission),?\s+)?(?:please\s+)?"
    r"(?:verify|confirm)\s+(?!that\b|whether\b|if\b)"
    r"(?P<object>[a-z][\w'’/-]*(?:\s+(?:[a-z][\w'’/-]*|\([^()]{1,30}\))){0,6}?)"
    r"(?=\s+(?:before|prior to|at (?:binding|quote|submission))\b|\s*[.;]|\s*$)",
    re.I,
)


#: A condition that denies something, before an order to verify.
_DENIED_BEFORE = re.compile(r"\b(?:not|no|without|lacks?|never)\b|n[’']t\b", re.I)


def verified_objects(trigger: str) -> tuple[list[str], str]:
    """What a clause orders verified, and the clause without it.

    "verify that an SPCC plan is in place" and "verify GPS service logs before binding"
    name what is checked, not what triggers the check. A plain object with a figure in it
    ("verify five years of loss runs") stays in the clause.

    Returns:
        The verified texts, and the trigger with them blanked.
    """
    verified = [m.group(0) for m in lx.VERIFY_OBJECT.finditer(trigger)]
    rest = lx.VERIFY_OBJECT.sub(" ", trigger)
    said = rest.strip()
    plain = _VERIFY_PLAIN.search(said)  # an order opens its clause: one at most
    if plain is not None and plain.start() > 0 and _DENIED_BEFORE.search(said[: plain.start()]):
        plain = None  # "if a practice is not fully credentialed, verify each licence"
    if plain is not None and not find_numbers(plain.group("object")):
        verified.append(plain.group(0))
        rest = rest.replace(plain.group(0), " ", 1)
    return verified, rest


def verified_flag(
    result: ClauseAnalysis, trigger: str, verified: list[str], reader: ConditionReader
) -> None:
    """An order to verify one flag ("verify that the driller holds a license"): the rule.

    With no trigger of its own, it fires when the flag is not shown: the flag false.
    Verifying inside another action's clause stays what clears that action.
    """
    if not (
        result.action == "verify"
        and len(verified) == 1
        and _VERIFY_ORDER.match(trigger)
        and not (result.conditions or result.protective_pos or result.protective_neg)
    ):
        return
    found = reader.read(verified[0])
    flags = [c.field for c in found.conditions if c.value is True] + found.protective_pos
    if len(flags) == 1 and not found.protective_neg and len(found.conditions) <= 1:
        result.conditions = [Condition(field=flags[0], operator="eq", value=False)]
        result.mitigant_fields = [f for f in result.mitigant_fields if f != flags[0]]
        result.verified = flags[0]


def subject_flags(
    result: ClauseAnalysis, trigger: str, mitigated: bool, vocab: FieldVocabulary
) -> None:
    """The flags a rule's subject names as its condition, in the subject's own words.

    "Repair shops whose technicians convert gas appliances are referred": a relative
    clause restating a flag's description is the condition. "Motion seats are
    excluded": what a decline or exclusion is predicated of is a hazard, not a
    protection (whatever protective word its description holds).
    """
    relative = _RELATIVE_SUBJECT.search(trigger) or _PARTICIPLE_SUBJECT.search(trigger)
    if (
        result.action
        and relative
        and not (result.conditions or result.protective_neg or result.protective_pos)
        and not _DENIED.search(relative.group(1))
    ):
        result.conditions = [
            Condition(field=f, operator="eq", value=True)
            for f in described_protection(content_tokens(relative.group(1)), vocab)
        ]
    if result.action == "exclude" and result.protective_pos and not mitigated:
        if _CONDITION_WORD.search(trigger) and not lx.MITIGANT_CUE.search(trigger):
            # "Where the insured does its own sprinkler design, ... the exclusion": what
            # an exclusion is conditioned on is the exposure it removes
            result.conditions = result.conditions + [
                Condition(field=f, operator="eq", value=True) for f in result.protective_pos
            ]
            result.protective_pos = []
    if result.action in _ADVERSE and result.protective_pos and not mitigated:
        hazards = _subject_hazards(trigger, result.protective_pos, vocab)
        result.conditions = result.conditions + [
            Condition(field=f, operator="eq", value=True) for f in hazards
        ]
        result.protective_pos = [f for f in result.protective_pos if f not in hazards]


def _subject_hazards(trigger: str, flags: list[str], vocab: FieldVocabulary) -> list[str]:
    """The flags named in the subject of "X is declined / excluded"."""
    predicate = _ADVERSE_PREDICATE.search(trigger)
    if predicate is None or lx.MITIGANT_CUE.search(trigger):
        return []
    named = vocab.bool_mentions(content_tokens(trigger[: predicate.start()]))
    return [m.field for m in named if not m.negated and m.field in flags]


_DESCRIBED_SHARE = 0.5
_DESCRIBED_WORDS = 3
#: A synonym said in other words keeps at least this many of its content words.
_SYNONYM_WORDS = 2
#: Auxiliaries and quantifiers a description shares with any sentence.
_FUNCTION_WORDS = frozenset(
    "been have were with from that this every each some their they both".split()
)


@lru_cache(maxsize=4096)
def _description_words(description: str) -> frozenset[str]:
    """The content words of a flag's description (stems longer than three letters)."""
    stems = {t.stem for t in content_tokens(description) if len(t.stem) > 3}
    return frozenset(stems - lxs.STOPWORDS - _FUNCTION_WORDS)


def described_protection(tokens: list[Token], vocab: FieldVocabulary) -> list[str]:
    """The one flag a mitigant text describes in the dictionary's own words.

    "If the oxidizers sit in a dedicated, separated area with no pool acids stored
    alongside them" restates "Oxidizers are kept in a dedicated, separated area with no
    pool acids stored alongside". Only for a text already known to state a mitigant: half
    the description's words and at least three, and no other flag as close.
    """
    said = {t.stem for t in tokens}
    scored: list[tuple[float, str]] = []
    for info in vocab.of_kind("bool"):
        words = _description_words(info.spec.description)
        shared = said & words
        if len(shared) >= _DESCRIBED_WORDS and len(shared) >= _DESCRIBED_SHARE * len(words):
            scored.append((len(shared) / len(words), info.name))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return []
    return [scored[0][1]]


def mitigant_said(tokens: list[Token], vocab: FieldVocabulary) -> list[str]:
    """The one flag a text known to state a mitigant says, in the description's or other words."""
    return described_protection(tokens, vocab) or paraphrased_flag({t.stem for t in tokens}, vocab)


def paraphrased_flag(said: set[str], vocab: FieldVocabulary) -> list[str]:
    """The one flag a mitigant text says in other words than one of its synonyms.

    "two pilots fly every passenger sortie" for "both pilots fly every sortie", "the
    replacement rope delivered in July" for "new rope delivered": every content word of
    the synonym but one, and at least two of them, with no other flag as close.
    """
    scored: list[tuple[float, str]] = []
    for info in vocab.of_kind("bool"):
        best = 0.0
        for synonym in info.spec.synonyms:
            words = _description_words(synonym)
            shared = said & words
            if len(shared) >= max(_SYNONYM_WORDS, len(words) - 1) and len(words) > 1:
                best = max(best, len(shared) / len(words))
        if best:
            scored.append((best, info.name))
    scored.sort(reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return []
    return [scored[0][1]]


#: Words of the rule's own verb, which name no flag ("is flagged for review").
_VERB_WORDS = re.compile(
    r"^(?:declin|refer|exclud|verif|flag|review|approv|writ|written|accept|bound|bind)", re.I
)


#: An auxiliary of the past right before a word: "was written", "had been bound".
_PAST_AUXILIARY = re.compile(r"\b(?:was|were|had been|has been|have been)\s+$", re.I)


#: A flag whose name is itself a negation ("ops_mismatch", "license_lapsed").
_NEGATIVE_NAME = re.compile(
    r"(?:^|_)(?:no|non\w*|un\w+|mis\w+|missing|lapsed|expired|lack\w*|without|inactive|"
    r"invalid|discrepan\w*|undisclosed)(?:_|$)"
)


_NEGATIVE_PREFIXES = ("non", "mis", "un", "in")


#: Words of a flag's name said in its order that name it without a word of its own.
_IN_ORDER = 3


def _in_order(said: list[str], phrase: tuple[str, ...]) -> int:
    """How many words of a phrase the words said hold in the phrase's order."""
    best = [0] * (len(phrase) + 1)
    for word in said:
        for j in range(len(phrase), 0, -1):
            if phrase[j - 1] == word:
                best[j] = max(best[j], best[j - 1] + 1)
        for j in range(1, len(phrase) + 1):
            best[j] = max(best[j], best[j - 1])
    return best[-1]


def _denial_named(name: str, tokens: list[Token]) -> bool:
    """True when the text denies the word a flag's negative name word denies."""
    said = {t.stem for t in tokens}
    return any(
        word.startswith(prefix) and stem(word[len(prefix) :]) in said
        for word in name.split("_")
        for prefix in _NEGATIVE_PREFIXES
    )


def _as_field_says(word: str, known: set[str]) -> tuple[str, bool]:
    """The field's stem a word says, and whether it says it the other way round.

    "inactive" says "active" denied, "active" says "inactive" denied; "installer" stays
    itself (no field word hides in it).
    """
    if word in known:
        return word, False
    for prefix in _NEGATIVE_PREFIXES:
        if word.startswith(prefix) and word[len(prefix) :] in known:
            return word[len(prefix) :], True
        if prefix + word in known:
            return prefix + word, True
    return word, False


def loose_flag(result: ClauseAnalysis, trigger: str, vocab: FieldVocabulary) -> None:
    """The one flag a rule's subject names in words of its own, when nothing else was read.

    "An agency without a current license is declined" names "bail_agent_license_current"
    by two of its words; "moves across water - by barge or over river ice - are declined"
    names "water_crossing_moves". At least two of the flag's name and synonym words, one
    of them its own (no other field has it), and no other flag as close. A protection
    said as missing is the missing protection; a hazard is the condition.
    """
    if not result.action or result.conditions or result.protective_pos or result.protective_neg:
        return
    if any(h.field for h in result.numbers):
        return
    class_words = {t.stem for v in result.occupancy for t in content_tokens(str(v))}
    tokens = content_tokens(trigger)
    verb = next(
        (
            i
            for i, t in enumerate(tokens)
            if _VERB_WORDS.match(t.text)
            # "if the expiring policy was written by a surplus lines carrier, verify ...":
            # a past participle of the condition, not the rule's order
            and not _PAST_AUXILIARY.search(trigger[: t.start])
        ),
        0,
    )
    tokens = tokens[:verb]  # the subject, or the condition before the order
    scored: list[tuple[tuple[int, float], str, list[int], bool]] = []
    for info in vocab.of_kind("bool"):
        says = [_as_field_says(t.stem, info.tokens) for t in tokens]
        hits = [
            i
            for i, t in enumerate(tokens)
            if says[i][0] in info.tokens
            and says[i][0] not in class_words
            and t.text.lower() not in lxs.GENERIC_NOUNS
            and not _VERB_WORDS.match(t.text)
        ]
        said = {says[i][0] for i in hits}
        if len(said) < 2:
            continue
        # a name said in its own order first ("state trade license shows inactive"),
        # then the words only this field has
        order = max(_in_order([says[i][0] for i in hits], p) for p in info.phrases)
        if order >= _IN_ORDER or any(vocab.distinctive(w, info) for w in said):
            flipped = any(says[i][1] for i in hits)
            weight = (order, sum(vocab.idf.get(w, 0.0) for w in said))
            scored.append((weight, info.name, hits, flipped))
    scored.sort(key=lambda s: s[0], reverse=True)
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        _any_counted(result, tokens, vocab, trigger)
        return
    _, name, hits, flipped = scored[0]
    denial = negated_before(tokens, hits[0]) or negated_within(tokens, hits[0], hits[-1])
    if flipped and not denial:
        # "spray finishing outside an enclosed paint cabin" says "uncabined spraying": the
        # place the name denies is said as left
        base = next(i for i in hits if _as_field_says(tokens[i].stem, vocab.fields[name].tokens)[1])
        denial = any(t.text.lower() in _OUTSIDE for t in tokens[max(0, base - 3) : base])
    if denial and not flipped and _NEGATIVE_NAME.search(name):
        if not _denial_named(name, tokens):
            return  # "doesn't comply" said of "ops_mismatch": which way is unclear
        flipped = True  # "doesn't match" says "ops_mismatch"
    # "isn't active" says "status_inactive"; "inactive" says "license_active" denied
    negated = denial != flipped
    if vocab.fields[name].protective:
        if negated:
            result.protective_neg = [name]
        return
    result.conditions = [Condition(field=name, operator="eq", value=not negated)]


def _share(info: FieldInfo, any_one: bool) -> bool:
    """True for a share in percent said after "any" (more than none of it)."""
    return any_one and info.unit == "percent"


#: "any positive swab", "a single claim", "one or more": a count said as more than none.
_ANY_ONE = re.compile(r"\b(?:any|a single|one or more|at least one)\b", re.I)


def _any_counted(
    result: ClauseAnalysis, subject: list[Token], vocab: FieldVocabulary, trigger: str
) -> None:
    """A counted thing the subject has, with no figure: more than none of it.

    "A charter school that houses boarding students is declined" names the count field
    "boarding students" by a synonym ("any positive Listeria swab": "Listeria positives",
    its words in another order): the rule fires on one or more. Only whole counts
    of things (not money, ages or distances) or, after "any", a share ("any lead
    removal work": more than 0%), never denied ("without").
    """
    if result.comparative:
        return  # "any workshop allowing a longer unattended pour": past a figure said before
    if trigger.count("(") > trigger.count(")"):
        return  # "Egress-drill referrals (guide limit: 45 s)": cut at its colon, a heading
    any_one = bool(_ANY_ONE.search(trigger))
    said = {t.stem for t in subject}
    found = [
        info.name
        for info in vocab.of_kind("numeric")
        # "any lead removal work at all": a share of the work, more than none of it
        if ((info.spec.type == "int" and info.unit not in KNOWN_UNITS) or _share(info, any_one))
        # in its order, or after "any" every word in another ("any positive Listeria
        # swab": "Listeria positives")
        and any(
            len(p) > 1 and (find_phrase(subject, p) or (any_one and set(p) <= said))
            for p in info.phrases
        )
    ]
    if not found and any_one:  # "any death in the last three years": the unit it counts
        found = _counted_by_unit(trigger, vocab)
    if len(found) == 1 and not any(t.text.lower() in NEGATION_WORDS for t in subject):
        result.conditions = [Condition(field=found[0], operator="gt", value=0)]


def _counted_by_unit(trigger: str, vocab: FieldVocabulary) -> list[str]:
    """The whole-count fields whose unit is the noun right after "any" ("any death")."""
    after = _ANY_NOUN.search(trigger)
    if after is None:
        return []
    noun = stem(after.group(1).lower())
    return [
        info.name
        for info in vocab.of_kind("numeric")
        if info.spec.type == "int" and info.unit and stem(info.unit.lower().split()[-1]) == noun
    ]


#: The noun a count is said of after "any" or "a single": "any death", "a single claim".
_ANY_NOUN = re.compile(r"\b(?:any|a single)\s+([a-z]+)\b", re.I)


#: "If any of a maker's bases use coin cells and ...": a quantifier over the insured's
#: things, up to the verb that says what they are or have.
_ANY_OF = re.compile(
    r"\b(?:if|where|when)\s+any\s+of\s+(?:the\s+|its\s+|their\s+|an?\s+[\w-]+['’]s\s+)?"
    r"(?P<what>[^,;:.]{3,80}?)(?=\s+(?:and|but)\b|\s*[,;:.]|$)",
    re.I,
)


def any_share(result: ClauseAnalysis, trigger: str, vocab: FieldVocabulary) -> None:
    """Add "share > 0" for a share a clause names after "if any of ...".

    "If any of a maker's bases use coin or button cells and the doors are not secured":
    the share of bases on coin cells is more than none. Only a share in percent every
    word of whose name (or a synonym of two words or more) the phrase says, and only
    when no condition reads that field already.
    """
    match = _ANY_OF.search(trigger)
    if not result.action or match is None:
        return
    said = {t.stem for t in content_tokens(match.group("what"))}
    found = [
        info.name
        for info in vocab.of_kind("numeric")
        if info.unit == "percent" and any(len(p) > 1 and set(p) <= said for p in info.phrases)
    ]
    if len(found) == 1 and all(c.field != found[0] for c in result.conditions):
        result.conditions = [*result.conditions, Condition(field=found[0], operator="gt", value=0)]
