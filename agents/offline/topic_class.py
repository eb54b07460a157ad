"""The business class a rule names only through its context.

Two readings, both general English over the dictionary's listed classes:

- a head noun points back at the one class named before it whose head it is: "Pool and
  spa supply stores are an eligible class ... A store holding more than 2,500 lbs is
  referred" (the store is a pool supply store);
- in an interview, an answer speaks of the class its question names: "Q: Chimney sweeps.
  What kills a sweep account? A: ... Beyond that it's a decline".

A class of one word is named only by the word itself, so a head anaphor needs a class of
several words; the question needs exactly one class to name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from agents.offline import lexicon_subjects as lxs
from agents.offline.noun_phrases import akin, singular
from agents.offline.subjects import SubjectReader
from agents.offline.textproc import Sentence
from schemas.rules import Condition

_WORD = re.compile(r"[a-z0-9][\w-]*")
#: A clause that names a class only to widen or exclude it.
_WIDENED = re.compile(
    r"\b(?:not (?:only|just)|other than|except|besides|apart from|as well as|such as|like|"
    r"unlike|rather than|instead of)\b",
    re.I,
)
#: Words and the punctuation between them.
_RAW_WORD = re.compile(r"[a-z0-9][\w'-]*|[^\w\s]")
#: Words that may follow the head noun of a phrase (a verb, a preposition, a conjunction).
_AFTER_HEAD = frozenset(
    "is are was were be been has have had does do did may can must will would should could "
    "shall gets get goes go needs need with without that which who whose where when if "
    "in on at of for and or but to from by under over above below beyond past than "
    "whatever regardless unless larger bigger smaller taller older newer longer higher lower "
    "wider deeper heavier more fewer less".split()
)
#: Nouns for where a business is, which may follow its head: "a distillery building".
_PREMISES = frozenset(
    "building buildings premises location locations site sites plant plants facility "
    "facilities".split()
)
#: How far apart the words of a class may stand ("pool and spa supply stores").
_GAP = 3


def _words(text: str) -> list[str]:
    return list(_singular_words(text))


@lru_cache(maxsize=4096)
def _singular_words(text: str) -> tuple[str, ...]:
    """The words of a text in the singular (class names recur: read once)."""
    return tuple(singular(w) for w in _WORD.findall(text.lower().replace("’", "'")))


def mentioned(text: str, classes: Sequence[str], gap: int = _GAP) -> list[str]:
    """The listed classes a text names, its words in order and close together.

    Args:
        text: Any text.
        classes: The business classes the dictionary lists (lower case).
        gap: How far apart two words of a class may stand (1: side by side).

    Returns:
        The classes named, in the dictionary's order.
    """
    words = _words(text)
    said = set(words)
    found: list[str] = []
    for value in classes:
        wanted = _singular_words(value)
        if not wanted or wanted[0] not in said:
            continue
        if any(_named_at(words, i, wanted, gap) for i in range(len(words))):
            found.append(value)
    return found


def _named_at(words: list[str], start: int, wanted: Sequence[str], gap: int) -> bool:
    if words[start] != wanted[0]:
        return False
    at = start
    for word in wanted[1:]:
        window = words[at + 1 : at + 1 + gap]
        if word not in window:
            return False
        at += 1 + window.index(word)
    return True


def named_in(clause: str, classes: Sequence[str]) -> str | None:
    """The one listed class a clause names outright ("flag any campground schedule ...").

    None when the clause widens or excludes what it names ("for any BOP risk, not only
    laundromats"), or names several.
    """
    if _WIDENED.search(clause):
        return None
    said = mentioned(clause, classes, gap=1)
    return said[0] if len(said) == 1 else None


def listed(clause: str, value: str) -> bool:
    """True when a class stands in a list of what the rule speaks of.

    "bars, nightclubs, hookah lounges" are examples; "a warehouse or distribution
    occupancy" is one of two.
    """
    words = r"\s+".join(re.escape(w) for w in value.split())
    for match in re.finditer(rf"\b{words}(?:e?s)?\b", clause, re.I):
        before = clause[: match.start()].rstrip().lower()
        after = clause[match.end() :].lstrip().lower()
        if before.endswith((",", " or", " and", "/")) or after.startswith(
            (",", "or ", "and ", "/")
        ):
            return True
    return False


def head_class(clause: str, named: Sequence[str]) -> str | None:
    """The class a clause points back at by its head noun ("a store" -> 'pool supply store').

    Args:
        clause: The clause of the rule.
        named: Classes of several words named earlier in the text.

    Returns:
        The one named class whose head noun the clause uses after a determiner or after
        its own modifiers ("a pool store"), as the head of its phrase ("the rental
        inventory" is an inventory), else None.
    """
    raw = _RAW_WORD.findall(clause.lower().replace("’", "'"))
    words = [singular(w) for w in raw]
    found: set[str] = set()
    for value in named:
        parts = _singular_words(value)
        if len(parts) < 2:
            continue
        for i, word in enumerate(words):
            following = raw[i + 1] if i + 1 < len(raw) else ""
            if following in _PREMISES:  # "a distillery building": the distillery's building
                following = raw[i + 2] if i + 2 < len(raw) else ""
            if word != parts[-1] or not _ends_phrase(following):
                continue
            j = i - 1
            while j >= 0 and words[j] in parts[:-1]:
                j -= 1
            if j < 0 or words[j] in lxs.DETERMINERS or j < i - 1:
                found.add(value)
    return found.pop() if len(found) == 1 else None


def _ends_phrase(following: str) -> bool:
    """True when the word after a noun leaves it the head of its phrase."""
    return (
        not following
        or not following[0].isalpha()
        or following in _AFTER_HEAD
        or following.endswith(("ing", "ed", "n't"))
    )


def question_class(
    sentences: Sequence[Sentence],
    sentence: Sentence,
    classes: Sequence[str],
    read: Callable[[str], list[str]] | None = None,
) -> str | None:
    """The one class the latest question naming a class asks about, in an interview.

    Args:
        sentences: All sentences of the text.
        sentence: The answer's sentence.
        classes: The business classes the dictionary lists.
        read: Reads the classes a question's own words name, listed or not ("Tattoo
            parlors?" opens a topic even when the dictionary does not list the class).

    Returns:
        The class, or None outside an interview, when the question names several, or
        when the latest question naming a class names one the dictionary does not list.
    """
    for earlier in reversed(sentences[: sentence.index]):
        if not (earlier.is_question and (earlier.label or "").lower() in {"q", "question"}):
            continue
        named = mentioned(earlier.text, classes) or _akin_named(earlier.text, classes)
        if named:
            return named[0] if len(named) == 1 else None
        if read is not None and read(earlier.text):
            return None  # a new topic, on a class the dictionary does not list
    return None


#: A class's last word that a question may leave out ("Environmental consultants?" asks
#: about the environmental consulting firm).
_OMITTED_HEADS = frozenset("firm firms company companies service services business".split())


def _akin_named(text: str, classes: Sequence[str]) -> list[str]:
    """The classes a text names in other forms, their generic head word left out."""
    words = _words(text)
    found = []
    for value in classes:
        *kept, head = _words(value) or [""]
        if head not in _OMITTED_HEADS or len(kept) < 2 or head in words:
            continue  # only a class named without its generic head word
        if all(any(akin(p, w, _STEM_LETTERS) for w in words) for p in kept):
            found.append(value)
    return found


def context_class(
    clause: str,
    sentences: Sequence[Sentence],
    sentence: Sentence,
    classes: Sequence[str],
    read: Callable[[str], list[str]] | None = None,
) -> str | None:
    """The class a classless rule clause speaks of, from its context.

    The one class the clause names outright, else the class its head noun points back
    at, else the class its interview question asks about; never a class the clause
    names as one of a list.

    Args:
        clause: The rule's clause (its trigger).
        sentences: All sentences of the text.
        sentence: The clause's sentence.
        classes: The business classes the dictionary lists.
        read: Reads the classes a text's own words name (see `question_class`).

    Returns:
        The class, or None.
    """
    if _ANY_CLASS.search(clause):
        return None  # "any contractor, in any class, that ...": the rule is widened
    value = named_in(clause, classes)
    label: str = sentence.label or next(iter(_NUMBERED_LABEL.findall(sentence.raw)), "")
    labelled = mentioned(label, classes) if label else []
    if value is None and len(labelled) == 1 and len(label.split()) <= len(labelled[0].split()) + 1:
        # "5.1 Cloth diaper services: plants of frame construction ...", the label only the
        # class (not "Bell foundries are referred: anything with more than 12 ...")
        value = labelled[0]
    if value is None:
        before = " ".join(s.raw for s in sentences[: sentence.index + 1])
        value = head_class(clause, [c for c in mentioned(before, classes) if " " in c])
    if value is not None and listed(clause, value):
        return None  # one of a list of examples: the rule is about them all
    return value or question_class(sentences, sentence, classes, read)


#: A numbered item's label: "5.1 Cloth diaper services: plants of frame construction ...".
_NUMBERED_LABEL = re.compile(r"^\s*\d+(?:\.\d+)+\s+([A-Z][\w&/' -]{0,40}?)\s*:\s+")
#: A clause that widens its rule past any one class.
_ANY_CLASS = re.compile(
    r"\b(?:(?:any|every|all|each) (?:[\w-]+ (?:and|or) )?(?:class|classes|trade|trades|"
    r"occupanc\w+)|"
    r"regardless of (?:the )?(?:class|trade|occupancy)|whatever the (?:class|trade|occupancy)|"
    r"or otherwise)\b",
    re.I,
)


def heading_class(sentences: Sequence[Sentence], classes: Sequence[str]) -> str | None:
    """The one listed class a text's heading is about ("9.4 Plastics injection molding.").

    Only when the heading (a first sentence of a few words) names it, outright or word by
    word in other forms ('plastics molder'), and the text names no other listed class.
    """
    words = _words(sentences[0].raw) if sentences else []
    if not words or len(words) > _HEADING_WORDS:
        return None
    if _CASE_HEADING.search(sentences[0].raw) and not book_heading(sentences[0].raw):
        return None  # "Decision log DL-2024-0905 - BOP, appliance repair shop": one case's class
    named = mentioned(" ".join(s.raw for s in sentences), classes)
    if len(named) > 1:
        return None
    said = [
        c for c in classes if all(any(akin(p, w, _STEM_LETTERS) for w in words) for p in _words(c))
    ]
    if named:
        return named[0] if said == named else None
    return said[0] if len(said) == 1 else None


#: "the CGL goes out with ...", "every policy is issued with ...": the policy is the subject.
#: A subject of every one of a kind: "every center", "each shop", "all such stores".
_EVERY_HEAD = re.compile(
    r"^\W*(?:(?:because|since|as)\b[^,]{0,80},\s*)?(?:every|each|all|any)\s+(?:such\s+)?"
    r"[a-z][\w-]*\s+(?:is|are|gets?|goes|go|must|will)\b",
    re.I,
)
_POLICY_SUBJECT = re.compile(
    r"(?:^\s*|\b(?:but|and|so|yet)\s+)(?:the|our|its|their|every|each|this|that)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:polic(?:y|ies)|CGL|GL|BOP|LRO|form|coverage|program|package)\s+"
    r"(?:is|are|goes|go|will|must|always|gets|get|carries|carry)\b",
    re.I,
)
#: "Any risk with more than 40 employees": a subject that names every insured.
_ANY_RISK = re.compile(
    r"\b(?:any|every|all|each) (?:risks?|accounts?|insureds?|business(?:es)?|applicants?)\b",
    re.I,
)
#: A first sentence that states something ("Canal boat yards are an eligible class.").
_STATES = re.compile(r"\b(?:is|are|was|were|has|have|must|may|will)\b", re.I)
#: The heading of a case record (a log, a review), whose class is the case's, not the rule's.
_CASE_HEADING = re.compile(
    r"\b[A-Z]{2,}-\d|\b(?:log|review|case|file|submission|claim|audit|memo|email)\b", re.I
)
#: "Decision log extract - timber framing book, Q1-Q3 2024": a log of a class's book of
#: business (many cases), with no case's reference in it.
_BOOK_HEADING = re.compile(r"\b(?:book|accounts|portfolio|extract)\b", re.I)
_CASE_REFERENCE = re.compile(r"\b[A-Z]{2,}-\d")


#: A log's first sentence that is only a plural class name ("Accordion repairers.").
_PLURAL_HEADING = re.compile(r"^\W*[A-Z][a-z-]+(?:\s+[a-z][a-z-]+){0,3}s\.?\s*$")


def book_heading(heading: str) -> bool:
    """True when a log's heading names the book of business it extracts, not one case."""
    return bool(_BOOK_HEADING.search(heading)) and not _CASE_REFERENCE.search(heading)


def log_heading_speaks(heading: str) -> bool:
    """True when a log's heading names the class its rules are about, not one case's.

    "Accordion repairers." (a plural class name alone) or "Decision log extract - timber
    framing book" (the book of business it extracts) speaks for the log's rules as a
    manual's heading does.
    """
    return bool(_PLURAL_HEADING.match(heading)) or book_heading(heading)


#: A first sentence of at most this many words is a heading.
_HEADING_WORDS = 12
#: Letters two forms of a word share at least.
_STEM_LETTERS = 4


#: "Tattoo parlors", "Hot tub rentals": a question that is a bare plural noun phrase.
_BARE_PLURAL = re.compile(
    r"^(?!(?:and|or|the|a|an|what|how|any)\b)[A-Za-z][\w-]*(?:\s+[\w-]+){0,3}s$", re.I
)


def scope_to_context(
    conditions: list[Condition],
    clause: str,
    where: tuple[Sequence[Sentence], Sentence],
    subjects: SubjectReader,
    *,
    headed: bool = False,
    acting: bool = False,
    deciding: bool = False,
) -> list[Condition]:
    """A classless rule's conditions, scoped to the class its context names.

    Args:
        conditions: The rule clause's conditions.
        clause: The rule's clause (its trigger).
        where: All sentences of the text and the clause's sentence.
        subjects: The subject reader (listed classes; classes a question names).
        headed: The text's heading speaks for its rules (not a case record's heading):
            a rule on fields every class has ("more than eight employees") under a
            heading that names one class is about that class.
        acting: The clause states an exclusion of its own (no conditions pending from
            the clause before). With no condition, a clause whose subject is the policy
            itself ("the CGL goes out with the aircraft exclusion") acts on the one class
            the text has named so far.
        deciding: The clause states an action of its own (no conditions pending): with
            no condition, "every center is referred" acts on the one class named before
            whose head noun is its subject.

    Returns:
        The conditions, with the context's class first when one is found.
    """
    occupancy = subjects.vocab.occupancy
    pair = _pair_pointed(clause, where, subjects) if occupancy else []
    if occupancy and pair and not any(c.field == occupancy for c in conditions):
        return [
            Condition(field=occupancy, operator="in", value=list[bool | int | float | str](pair)),
            *conditions,
        ]
    if occupancy and not conditions and acting and _POLICY_SUBJECT.search(clause):
        sentences, sentence = where  # "Galvanizing plants: the GL is issued with the X
        before = " ".join(s.raw for s in sentences[: sentence.index + 1])  # exclusion"
        named = mentioned(before, subjects.listed)
        if len(named) == 1 and not _ANY_CLASS.search(clause):
            return [Condition(field=occupancy, operator="eq", value=named[0])]
    if occupancy and not conditions and deciding and _EVERY_HEAD.match(clause):
        # "Autism therapy centers ... every center is referred": the one class named before
        # whose head noun the subject is, acted on as a whole
        sentences, sentence = where
        before = " ".join(s.raw for s in sentences[: sentence.index + 1])
        named = mentioned(before, subjects.listed)
        if len(named) == 1 and head_class(clause, named) == named[0]:
            return [Condition(field=occupancy, operator="eq", value=named[0])]
    if not (occupancy and conditions) or any(c.field == occupancy for c in conditions):
        return conditions

    def asked(question: str) -> list[str]:
        """The classes a bare plural question names ("And the money?" names none)."""
        said = question.strip().rstrip("?. ")
        return subjects.read(f"{said} are") if _BARE_PLURAL.match(said) else []

    sentences, sentence = where
    value = context_class(clause, sentences, sentence, subjects.listed, asked)
    if value is None and _heading_speaks(conditions, clause, where, subjects, headed):
        value = heading_class(sentences, subjects.listed)
    if value is None:
        return conditions
    return [Condition(field=occupancy, operator="eq", value=value), *conditions]


#: "On the GL, either may be written only with ...": a subject that points back at the
#: classes the sentence before named together.
_EITHER = re.compile(
    r"^\W*(?:[^,]{0,40},\s*)?(?:either|both)(?:\s+of\s+(?:them|these|those))?(?:\s+class(?:es)?)?"
    r"\s+(?:may|must|can|is|are|will|should|shall|gets?|goes?|needs?)\b",
    re.I,
)


def _pair_pointed(
    clause: str, where: tuple[Sequence[Sentence], Sentence], subjects: SubjectReader
) -> list[str]:
    """The listed classes "either" or "both" points back at, from the sentence before."""
    sentences, sentence = where
    if sentence.index == 0:
        return []
    opening = _FOR_THESE.match(sentence.raw)
    if opening:
        # "... pewterers, wheelwrights and steeplejacks ... For these three, ...": the
        # classes the sentence before names, as many as the opening counts
        named = mentioned(sentences[sentence.index - 1].raw, subjects.listed)
        count = _COUNTS.get((opening.group(1) or "").lower(), len(named))
        return named if len(named) > 1 and len(named) == count else []
    if _THESE_CLASSES.match(clause):
        # "Flag makers and awning fabricators keep bolts of canvas ... These occupancies
        # are referred": the classes the sentence before is about
        said = subjects.read(sentences[sentence.index - 1].raw)
        return said if len(said) > 1 else []
    if not _EITHER.match(clause):
        return []
    named = mentioned(sentences[sentence.index - 1].raw, subjects.listed)
    return named if len(named) == _PAIR else []


#: A subject pointing back at the classes just named: "These occupancies are referred".
_THESE_CLASSES = re.compile(
    r"^\W*(?:these|those|such)\s+(?:occupancies|classes|risks|trades|businesses|operations|"
    r"accounts|insureds)\s+(?:are|may|must|can|get|go|will|should|shall)\b",
    re.I,
)


#: "For these three, an unsprinklered risk is written with ...": an opening that points back
#: at the classes the sentence before listed.
_FOR_THESE = re.compile(
    r"^\W*(?:for|in|with|among|across|of)\s+(?:(?:all|each|both)\s+(?:of\s+)?)?(?:these|those)"
    r"(?:\s+(two|three|four|five|six|\d+))?(?:\s+(?:occupancies|classes|risks|trades|"
    r"businesses|operations|accounts|insureds))?\s*,",
    re.I,
)


#: The counts an opening may give ("these three").
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_COUNTS |= {str(n): n for n in range(2, 10)}


#: "either" and "both" speak of two.
_PAIR = 2


def _heading_speaks(
    conditions: list[Condition],
    clause: str,
    where: tuple[Sequence[Sentence], Sentence],
    subjects: SubjectReader,
    headed: bool,
) -> bool:
    """True when the class of the text's heading is the class of a classless rule.

    A table row has no subject of its own; a rule on fields every class has ("more than
    eight employees") under a heading that names one class ("8.3 Acupuncture clinics.")
    is about that class, unless the heading is a question or a statement. Never for a
    rule said for every class or product, or for any risk.
    """
    sentences, sentence = where
    if not sentences or _ANY_CLASS.search(sentence.raw):  # "Rule for every product and class"
        return False
    row = sentence.from_table and subjects.enumerated and not _ANY_CLASS.search(clause)
    return bool(row) or (
        headed
        and all(c.field in subjects.vocab.common_fields for c in conditions)
        and not _ANY_RISK.search(sentence.raw)
        and not (sentences[0].is_question or _STATES.search(sentences[0].raw))
    )
