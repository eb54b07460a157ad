"""Analysis of one clause: action, trigger conditions, mitigants, subject."""

from __future__ import annotations

import re

from agents.offline import lexicon as lx
from agents.offline import lexicon_comparators as lxc
from agents.offline import lexicon_discourse as lxd
from agents.offline import lexicon_subjects as lxs
from agents.offline.analysis import ClauseAnalysis
from agents.offline.conditions import ConditionReader, without_restatements
from agents.offline.states import names_those_states
from agents.offline.subject_flags import (
    any_share,
    described_protection,
    loose_flag,
    subject_flags,
    verified_flag,
    verified_objects,
)
from agents.offline.subjects import SubjectReader
from agents.offline.textproc import content_tokens, strip_connectors
from agents.offline.vocab import FieldVocabulary
from schemas.rules import Condition

#: "... twelve feet above the floor and anything higher is referred": a comparative
#: subject after the figure it points past.
_ANYTHING_MORE = re.compile(
    r"(?:(?:,|;|\band)\s+|^\W*)(?:anything\s+|"
    # "..., and any studio allowing a longer unattended session is referred"
    r"any\s+(?:[\w-]+\s+){1,2}?(?:allowing|permitting|running|offering|keeping|holding|having|"
    r"with)\s+(?:an?\s+)?)"
    r"(larger|bigger|longer|higher|greater|older|taller|heavier|"
    r"wider|deeper|farther|further|more|smaller|shorter|lower|younger|closer|nearer|fewer|"
    r"less|newer)\b(?!\s+than\b)",
    re.I,
)
_PAREN = re.compile(r"\(([^()]*)\)")
_ABILITY = re.compile(r"\b(?:can|could|might)\s+$", re.I)
#: "that is not sprinklered is flagged": the negation ends with its own predicate, and a
#: new verb starts the one the action cue belongs to.
_NEW_PREDICATE = re.compile(
    r"\b(?:not|never|without|no|[a-z]+n[’']t)\W+"
    r"(?!(?:longer|be|been|yet|ever|even|always|often|\w+ly)\W)"
    r"\w+\W+"
    r"(?:is|are|gets?)\W+$",
    re.I,
)
#: "Vans without temperature telemetry may be written": "without" ends with its noun, and
#: a modal opens the predicate the action cue belongs to.
_WITHOUT = re.compile(r"without\b", re.I)
_MODAL = re.compile(r"(?:may|can|could|must|should|will|shall|is|are|gets?)\b", re.I)
#: Business classes a clause excepts: "except for A, B or C", "other than A and B".
_EXCEPT_CLASSES = re.compile(
    r"(?:^|,|\b(?:class|classes|risks?|accounts?|business|businesses|insureds?)\b)\s*"
    # "every class in this guide except ...", "every class we write other than ..."
    r"(?:(?:in|of|under)\s+(?:this|the|our)\s+(?:guide|manual|program|programme|book)\s+"
    r"|we\s+write\s+)?"
    r"(?:except(?: for)?|other than|excluding|apart from|save for|with the exception "
    r"of)\s+",
    re.I,
)
#: The joint before a list's last item: "or bamboo growers".
_LIST_JOINT = re.compile(r"^\s*(?:and|or)\s+", re.I)
#: Left in a trigger where a proviso was cut off, so the approval it qualified still reads
#: as conditional ("may be written provided that ..." -> "may be written if").
CONDITIONAL_MARK = "only if"
#: "it comes to me": the speaker is who a case is referred to.
_TO_SPEAKER = re.compile(
    r"\s+(?:then\s+|always\s+)?(?:comes?|goes|go)\s+(?:straight\s+|directly\s+|up\s+)?"
    r"to me\b",
    re.I,
)
#: A subject that names every case of a kind ("any", "every", "all"), not one case.
_GENERIC_SUBJECT = re.compile(r"^\W*(?:any|every|all|each)\b", re.I)
#: Actions whose subject is a hazard, never a protection the risk has.
#: An action named as an event of the risk's past ("after a declination").
_EARLIER_EVENT = re.compile(
    r"\b(?:after|following|since|despite)\s+(?:an?|the|its|their)\s+(?:\w+\s+)?$"
    r"|\b(?:prior|previous|earlier|past)\s+$",
    re.I,
)
#: What a referral is sent with: "referred to the manager with the charging layout".
_SENT_WITH = re.compile(
    r"(\b(?:referred|sent|forwarded|routed|submitted|escalated)\s+to\s+(?:the\s+|a\s+|an\s+|"
    r"our\s+|your\s+)?(?:[\w-]+\s+){0,4}?)with\s+(?:the|a|an|its|their|his|her)\b[^.;]*",
    re.I,
)
#: Who else acted, after an action word: "declined by more than two carriers", "referred
#: by three other markets" (the applicant's history, not what the rule does).
_BY_OTHERS = re.compile(
    r"^\s+by\s+(?:(?:more than|over|at least|fewer than|less than|only|just|two|three|four|"
    r"five|six|several|multiple|other|another|one|any|its|their|a|the|prior|previous|"
    r"\d+)\s+)*(?:carriers?|insurers?|markets?|underwriting companies|companies|writers?)\b",
    re.I,
)
#: Classes named only as examples of any risk: "swim school, lodging or otherwise".
_OR_OTHERWISE = re.compile(r"\bor otherwise\b|\bor any other (?:class|kind|type|business)", re.I)
#: The action a withdrawal names by its noun: "the review flag for X is no longer applied".
_ENDED_NOUN = re.compile(
    r"\b(?:review )?(flag|referral|decline|exclusion)\b[^.;]{0,80}?\b(?:is|are) no longer\b", re.I
)
#: A parenthesis after a check's object lists the means of the check.
_CHECK_MEANS = re.compile(
    r"(\b(?:verif(?:y|ies|ied)|confirms?|checks?|inspects?)\s+(?:the\s+|its\s+)?[\w-]+)\s*"
    r"\([^()]*\)",
    re.I,
)
#: A condition denied in a conjunct ("... and no photos submitted").
_UNREAD_DENIAL = re.compile(
    # "... is declined, with no exceptions and no referral": emphasis, not a condition
    r"\b(?:and|but) (?:no|without) (?!(?:exceptions?|referrals?|appeals?|discretion|"
    r"negotiation|second look|buy-?backs?|carve-?backs?|give-?backs?)\b)[a-z]",
    re.I,
)
#: A clause that opens on what is missing: "No contract in one of those states, refer".
_OPENS_DENIED = re.compile(r"^\W*(?:no|without)\b", re.I)
#: "should have been ...": hindsight on a case, or the rule a review restates.
_HINDSIGHT = re.compile(r"(?:should|must) have been\b", re.I)
_ACTION_WORD = {
    "declin": "decline",
    "refer": "refer",
    "exclud": "exclude",
    "flag": "flag_for_review",
}


#: "... and usually decline": an outcome that often follows the action said before it.
_USUALLY_AFTER = re.compile(
    r"\b(?:and|then|but)\s+(?:usually|often|sometimes|typically|generally|mostly|"
    r"frequently|normally|eventually|in the end)\s*$",
    re.I,
)


def detect_action(text: str) -> str | None:
    """The strongest non-negated, non-narrative action cue of a text.

    Args:
        text: A clause (trigger part).

    Returns:
        An action of the rule schema, or None.
    """
    found: list[tuple[int, int, str]] = []
    hedged: list[tuple[int, int, str]] = []
    for action, pattern in (*lx.ACTION_CUES, *lxd.MORE_ACTION_CUES):
        for match in pattern.finditer(text):
            before = text[max(0, match.start() - 60) : match.start()]
            negator = lx.NEGATORS.search(before)
            if (
                negator
                and not _NEW_PREDICATE.search(negator.group(0))
                and not (_WITHOUT.match(negator.group(0)) and _MODAL.match(match.group(0)))
            ):
                continue  # (not "Vans without telemetry may be written if ...": the subject's)
            if action == "verify" and _ABILITY.search(before):
                continue  # "work we can verify", "what the desk could confirm": no duty
            if _EARLIER_EVENT.search(before):
                continue  # "carrier shopping after a declination": a past event, no rule
            if _BY_OTHERS.match(text[match.end() :]):
                continue  # "declined by more than two carriers": what other markets did
            if _USED_TO_BE.search(before):
                continue  # "is a referral - it used to be a straight decline": history
            if _USUALLY_AFTER.search(before):
                hedged.append((lx.ACTION_PRIORITY[action], match.start(), action))
                continue  # "I refer every time and usually decline": the firm one acts
            word = match.group(0).split()[0].lower()
            past = word.endswith("ed") and word not in {"need", "exceed", "proceed"}
            if (
                past
                and not lx.PASSIVE_AUX.search(before)
                and before.strip()
                and not (lx.ELLIPTICAL.search(before))
            ):
                continue
            found.append((lx.ACTION_PRIORITY[action], match.start(), action))
    found = found or hedged
    if not found:
        return None
    return min(found)[2]


#: What the rule was before, said right before an action word: "it used to be a (straight)".
_USED_TO_BE = re.compile(
    r"\b(?:used to be|was (?:previously|formerly|once)|had been)\s+(?:an?\s+)?(?:[\w-]+\s+)?$",
    re.I,
)


def action_from_word(word: str) -> str | None:
    """Map a verb form ("declined", "referral") to an action."""
    low = word.lower()
    return next((a for prefix, a in _ACTION_WORD.items() if low.startswith(prefix)), None)


class ClauseAnalyzer:
    """Turns clause text into a `ClauseAnalysis`."""

    def __init__(self, vocab: FieldVocabulary) -> None:
        """Build the readers.

        Args:
            vocab: The field vocabulary of the dataset.
        """
        self.vocab = vocab
        self.reader = ConditionReader(vocab)
        self.subjects = SubjectReader(vocab)
        # a field named with an action's word ("Foreign Supplier Verification Program")
        # states no action: its names are blanked before the action is read
        named = sorted(
            {
                syn
                for info in vocab.fields.values()
                for syn in info.spec.synonyms
                if len(syn.split()) > 1 and detect_action(syn)
            },
            key=len,
            reverse=True,
        )
        self._action_names = (
            re.compile(r"\b(?:" + "|".join(re.escape(n) for n in named) + r")\b", re.I)
            if named
            else None
        )

    def _unnamed(self, trigger: str) -> str:
        """The trigger with the names of fields that hold an action's word blanked."""
        if self._action_names is None:
            return trigger
        # each letter masked, the words kept: a negation keeps its distance to the cue
        return self._action_names.sub(lambda m: re.sub(r"\w", "x", m.group(0)), trigger)

    def analyze(self, clause: str, context: str = "") -> ClauseAnalysis:
        """Analyze one clause.

        Args:
            clause: The clause.
            context: Preceding sentences (to place numbers that carry no unit).

        Returns:
            The analysis.
        """
        # "don't quote until you have confirmed X" -> "verify X": a check, not a decline
        text = lxd.HOLD_UNTIL_CHECKED.sub("verify", strip_connectors(clause))
        text = lxd.HELD_TO_CHECK.sub("must ", text)  # "is held to verify X": "must verify X"
        trigger, mitigants = split_mitigant(text)
        trigger = lx.PERSON_RELATIVE.sub(" ", lx.DESCRIPTIVE_SPAN.sub(",", trigger))
        # "verifies the location (photos, parcel lookup)": how the check is done, no trigger
        trigger = _CHECK_MEANS.sub(r"\1", trigger)
        reasons = [m.group(0) for m in lx.REASON_SPAN.finditer(trigger)]
        trigger = lx.IGNORED_SPAN.sub(" ", lx.REASON_SPAN.sub(" ", trigger))
        result = ClauseAnalysis(text=text, trigger=trigger, mitigant_texts=mitigants)
        result.cited = [
            (hit, reason)
            for reason in reasons
            if lx.CITED_LIMIT.search(reason)
            for hit in self.reader.read(reason, context).numbers
            if hit.field
        ]
        for named in _CITED_FIGURE.finditer(trigger):
            # "placed 540 nannies against the 400-placement referral point": the limit cited
            said = f"{named.group('figure')} {named.group('unit')}"
            result.cited += [
                (hit, named.group(0))
                for hit in self.reader.read(said, context).numbers
                if hit.field
            ]
        # "... are referred, unless Y, in which case the referral can be cleared": the
        # waiver belongs to the mitigant; the trigger still states its rule
        result.waivable = bool(lx.WAIVABLE.search(trigger if mitigants else text))
        result.otherwise = bool(lx.OTHERWISE.search(clause))
        result.withdrawn = bool(lx.WITHDRAWN.search(trigger))
        bare = lxc.BARE_COMPARATIVE.match(text)
        mid = None if bare else _ANYTHING_MORE.search(text)
        result.comparative = bare.group(1) if bare else mid.group(1) if mid else None
        result.continuation = bool(lx.CONTINUATION.search(trigger)) and bool(
            re.search(r"\b(?:it|that|this|they)\b", trigger, re.I)
        )
        result.standing = bool(lx.STANDING.search(trigger))
        from_to = lx.FROM_TO_ACTION.search(trigger)
        ended = lx.NO_LONGER_ACTION.search(trigger)
        if from_to:
            result.action, result.from_to = action_from_word(from_to.group(1)), True
        elif ended:
            result.action, result.withdrawn = action_from_word(ended.group(1)), True
        elif not (
            _narrative(_before_aside(trigger))
            or result.waivable
            or lx.OTHERS_PRACTICE.match(text)
            or lxd.INDIRECT_QUESTION.search(trigger)
            # ("may be written at the desk and approved with conditions" states terms)
            or (lx.EXEMPTION.search(trigger) and not _TERMS_AFTER.search(trigger))
        ):
            result.action = detect_action(_habitual_present(self._unnamed(trigger)))
            if result.action == "approve_with_conditions" and (
                _product_placement(trigger) or _ORDINARY_TERMS.search(text)
            ):
                result.action = None
            checked = lxd.CHECKED_STATE.match(trigger) if result.action == "verify" else None
            if checked:  # "Where lead-safe equipment is confirmed, write it with X"
                result.action = detect_action(trigger[checked.end() :]) or result.action
            if result.action == "approve_with_conditions" and any(
                detect_action(m) == "exclude" for m in mitigants
            ):
                # "may be written, provided that the pollution exclusion is attached": the
                # terms are an exclusion, and the rule is one
                result.action, mitigants = "exclude", []
            ended_noun = _ENDED_NOUN.search(trigger) if result.withdrawn else None
            if ended_noun:  # "the manual review flag for X is no longer applied"
                result.action = action_from_word(ended_noun.group(1))
        # "verify that a consent policy is in place": what is verified is the mitigant
        verified, unverified = verified_objects(trigger)
        # "referred to the regional manager with the sprinkler design": what goes with it
        unverified = _SENT_WITH.sub(lambda m: m.group(1).ljust(len(m.group(0))), unverified)
        extracted = self.reader.read(unverified, context)
        result.conditions = extracted.conditions
        result.numbers = extracted.numbers
        result.protective_pos = extracted.protective_pos
        result.protective_neg = extracted.protective_neg
        result.mitigant_fields = self.mitigant_fields(" ".join(mitigants + verified))
        verified_flag(result, trigger, verified, self.reader)
        subject_flags(result, trigger, bool(mitigants), self.vocab)
        any_share(result, trigger, self.vocab)  # "if any of its bases use coin cells"
        if (
            result.action
            and _UNREAD_DENIAL.search(trigger)
            and not (result.protective_neg or any(_denies(c) for c in result.conditions))
        ):
            # "TIV above $1M and no photos submitted": a denied condition no field names;
            # the rule without it would reach every large risk, so it is left for review
            result.action = None
        # "it comes to me" is a predicate (a referral to the speaker), no business class
        subject = _TO_SPEAKER.sub(" is referred", trigger)
        excepted = self._excepted_classes(subject)
        if excepted:  # "Except for santa grottos and bamboo growers, a submission without
            # X is referred": every class but those
            result.excluded, (start, end) = excepted
            subject = subject[:start] + subject[end:]
        result.occupancy = self.subjects.read(subject) or self.subjects.scope(subject)
        if _OR_OTHERWISE.search(trigger):
            result.occupancy = []  # "any risk - swim school, lodging or otherwise - with ..."
        # "an agency without a current license"; not "bareboat - no skipper aboard -", the
        # flag's own description said again
        loose_flag(result, without_restatements(self.vocab, trigger), self.vocab)
        if not result.occupancy and self._only_borrowed_states(trigger, result.conditions):
            result.conditions = []  # "any other state" with no subject would reach every risk
        result.anaphor_size = bool(lxc.SIZE_ANAPHOR.search(trigger))
        anaphor = lxc.ANAPHOR_COMPARATOR.search(trigger)
        if anaphor:
            result.anaphor_op = _op_of(next(g for g in anaphor.groups() if g))
        return result

    def _excepted_classes(self, clause: str) -> tuple[list[str], tuple[int, int]] | None:
        """The business classes "except for A, B or C" names, and where that phrase runs."""
        opening = _EXCEPT_CLASSES.search(clause)
        if opening is None:
            return None
        classes: list[str] = []
        end = opening.end()
        for piece in re.finditer(r"[^,;:.]+", clause[opening.end() :]):
            named = self.subjects.listed_classes(_LIST_JOINT.sub("", piece.group(0)))
            if not named or not all(n in self.subjects.example_set for n in named):
                break  # only classes the dictionary lists: not "except in Texas"
            classes += named
            end = opening.end() + piece.end()
            if not clause[end:].startswith(","):
                break
        return (classes, (opening.start(), end)) if classes else None

    def _only_borrowed_states(self, trigger: str, conditions: list[Condition]) -> bool:
        """True when the only condition is "any other state" read from earlier sentences.

        Not "a risk location in either state": the states named just before, in so many
        words, are the rule's own.
        """
        state = self.reader.vocab.state
        return (
            bool(conditions)
            and all(c.field == state for c in conditions)
            and not self.reader.states(trigger)
            # (a clause opening on what is missing, "No contract in one of those states",
            # speaks of the sentence before: its states are borrowed)
            and not (names_those_states(trigger) and not _OPENS_DENIED.match(trigger))
        )

    def mitigant_fields(self, text: str) -> list[str]:
        """Boolean fields named (as present) in a mitigant text."""
        if not text.strip() or lx.NOT_A_MITIGANT.search(text):
            return []
        tokens = content_tokens(text)
        mentions = self.vocab.named_flags(tokens)
        if not mentions:
            return described_protection(tokens, self.vocab)
        return [m.field for m in mentions if not m.negated]


#: A mitigant text that restates this share of a flag's description names the flag.
def split_mitigant(text: str) -> tuple[str, list[str]]:
    """Separate a clause's trigger from its mitigant parts.

    "X are referred unless Y is installed" -> ("X are referred", ["Y is installed"]);
    parenthesised mitigants ("(an appraisal may be accepted instead)") are moved too.

    Args:
        text: The clause.

    Returns:
        The trigger text and the mitigant texts.
    """
    mitigants: list[str] = []

    def _paren(match: re.Match[str]) -> str:
        inner = match.group(1)
        if lx.MITIGANT_CUE.search(inner) or re.search(r"\binstead\b", inner, re.I):
            mitigants.append(inner.strip())
            return " "
        if lx.NARRATIVE.search(inner) or lx.FORMERLY.search(inner):
            return " "  # "(previously they were referred above 600 feet)": history, no trigger
        return match.group(0)

    trigger = _PAREN.sub(_paren, text)
    leading = re.match(r"^\s*(?:unless|until|except (?:when|where|if))\b([^,]+),\s*", trigger, re.I)
    if leading:
        mitigants.append(leading.group(1).strip())
        trigger = trigger[leading.end() :]
    unless = lx.UNLESS.search(trigger)
    if unless:
        mitigants.append(trigger[unless.end() :].strip(" ,."))
        trigger = trigger[: unless.start()]
    proviso = lx.PROVISO.search(trigger)
    if proviso and lx.PROVISO_HEAD.search(trigger[: proviso.start()]):
        mitigants.append(trigger[proviso.end() :].strip(" ,."))
        trigger = trigger[: proviso.start()].rstrip(" ,") + " " + CONDITIONAL_MARK
    return trigger.strip(), mitigants


def _denies(condition: Condition) -> bool:
    """A condition that reads a denial: a flag off, a value excluded, the value 'none'."""
    return (
        condition.value is False
        or condition.operator in ("neq", "not_in")
        or (isinstance(condition.value, str) and condition.value.lower() == "none")
    )


def _product_placement(trigger: str) -> bool:
    """True for "may be written on the GL or the BOP": the product a class goes on."""
    for match in lxs.PRODUCT_PLACEMENT.finditer(trigger):
        rest = trigger[match.end() :]
        # "may be written on Property subject to a boiler certificate": terms, not a placement
        if _TERMS_AFTER.search(rest):
            return False
        if any(pattern.match(rest) for _, pattern in lxs.PRODUCT_PATTERNS):
            return True
    return False


#: A limit cited by its figure: "the 400-placement referral point", "the twelve-seat rule".
_CITED_FIGURE = re.compile(
    r"\bthe\s+(?P<figure>\$?\d[\d,.]*|[a-z]+)[- ](?P<unit>[a-z]+)\s+(?:[\w-]+\s+)?"
    rf"{lx.LIMIT_NOUNS}\b",
    re.I,
)


#: An approval back on the ordinary rules: "may again be quoted, subject to Chapter 9".
_ORDINARY_TERMS = re.compile(
    r"\b(?:may|can) again be (?:quoted|written|bound|accepted|offered)\b|"
    r"\bsubject to (?:chapter|section|rule|part)s? \d|"
    # "Helium fleets remain eligible, subject to the rest of this chapter"
    r"\bsubject to (?:the (?:rest|remainder) of )?(?:this|the) (?:chapter|section|manual|guide|"
    r"part)\b|"
    r"\bsubject to (?:the |our )?(?:usual|normal|standard|ordinary|general) (?:rules|terms|"
    r"underwriting|guidelines|guidance|criteria)\b",
    re.I,
)
#: Terms an approval states after the product it names: "... on the GL provided that ...".
_TERMS_AFTER = re.compile(
    r"\b(?:provided|providing|subject to|on condition|with (?:the |these |those )?conditions)\b",
    re.I,
)


#: A spaced dash that opens an aside: "... verifies the history - slow notice is how ...".
_ASIDE = re.compile(r"\s[-–—]\s")


def _before_aside(trigger: str) -> str:
    """The trigger up to an aside after its action ("verify X - losses that were paid ...")."""
    aside = _ASIDE.search(trigger)
    if aside is None or detect_action(trigger[: aside.start()]) is None:
        return trigger
    return trigger[: aside.start()]


#: A relative clause opened just before a past tense: "a website whose domain was ...".
_RELATIVE_END = re.compile(r"\b(?:whose|that|which|who)\b(?:\s+[\w-]+){0,3}\s*$", re.I)
#: The present-tense verb of the main clause after it: "... is flagged for review".
_PRESENT_MAIN = re.compile(r"\b(?:is|are)\b", re.I)


def _narrative(trigger: str) -> bool:
    """A past-tense account of a case, not a rule.

    A past tense inside a condition ("when the prior policy was cancelled more than 30
    days before ..., the underwriter must verify ...") still states a rule.
    """
    match = lx.NARRATIVE.search(trigger)
    if match is None:
        return False
    if _HABITUAL.search(trigger):
        return False  # "a business younger than five years ... was declined in every case"
    before = trigger[: match.start()]
    if _GENERIC_SUBJECT.match(before) and _HINDSIGHT.match(match.group(0)):
        return False  # "any foam cutting should have been flagged": the rule a review states
    if _RELATIVE_END.search(before) and _PRESENT_MAIN.search(trigger, match.end()):
        return False  # "a website whose domain was registered ... is flagged": a condition
    # "If the expiring policy was written by a surplus lines carrier, verify why ...": the
    # condition's past, then an order
    # "Where more than two incidents were recorded ..., the exclusion is attached": a
    # present main clause after the condition's comma
    comma = trigger.find(",", match.end())
    return not (
        lx.SUBORDINATOR.match(before)
        and (
            re.search(r"\b(?:must|shall)\b", trigger)
            or _ORDER_AFTER.search(trigger, match.end())
            or (comma > 0 and _PRESENT_MAIN.search(trigger, comma) is not None)
        )
    )


#: A past tense said of every case is a practice, not a story.
_HABITUAL = re.compile(
    r"\b(?:in every case|in all cases|every time|each time|without exception|invariably|"
    r"consistently)\b",
    re.I,
)


def _habitual_present(trigger: str) -> str:
    """A past said of every case in the present: "was declined in every case" -> "is"."""
    if not _HABITUAL.search(trigger):
        return trigger
    return re.sub(r"\bwere\b", "are", re.sub(r"\bwas\b", "is", trigger))


#: The order after a condition's comma: "..., verify why the risk left the market".
_ORDER_AFTER = re.compile(
    r",\s*(?:then\s+)?" + lx.ORDER_VERB + "|"
    # "If more than two evictions were filed, the submission is referred": a present rule
    r",\s*(?:the|this|that|such|it|they)\b[^.;,]{0,40}?\b(?:is|are)\s+(?:\w+ly\s+)?"
    r"(?:referred|declined|excluded|flagged|verified)\b",
    re.I,
)


def _op_of(word: str) -> str:
    first = word.lower().split()[0]
    return "lt" if first in lxc.BELOW_ANAPHOR_WORDS else "gt"
