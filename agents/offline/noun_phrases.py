"""The grammar of a clause's subject: where its noun phrase ends, which words it keeps.

"Roofers using torches are declined" -> "Roofers"; "Independently, GL policies ..." ->
"GL policies ..."; "glazing thinner than ..." -> "glazing". Generic English only.
"""

from __future__ import annotations

import os
import re

from agents.offline import lexicon_subjects as lxs
from agents.offline.textproc import Token
from memory.underwriting.fieldlink.numbers import find_numbers

#: Quantifiers that open a subject a relative clause may follow ("every X we write").
_QUANTIFIERS = frozenset("every each any all".split())
_STOP = frozenset(
    """
    is are was were be been being must may might can could should shall will would need needs
    require requires required has have had do does did with without in on of over under above
    below more less fewer than at for within from that which who whose where when including
    include includes built constructed located dispensing operating using having like as if
    unless to by per into exceed exceeds exceeding drop drops land lands stays remains older
    younger newer greater automatically always generally typically usually normally never
    only also still require referred declined excluded flagged verified written bound get gets
    whenever while during after before because since due outside across then larger smaller
    bigger higher lower longer shorter wider taller heavier open opened closed closing
    used using stay stays staying remain holding held storing stored working doing does done
    closer nearer farther further else otherwise worse better go goes went come comes
    apply applies limit limits cover covers follow follows mean means
    move moves moved change changes changed rise rises fall falls continue continues
    inside slower faster sooner later earlier return returns plus beyond
    carry carries carried take takes receive receives say says said keep keeps
    extend extends reach reaches start starts begin begins allow allows
    cannot wont mustnt shouldnt
    """.split()
)
_CONTRACTION = re.compile(r"(?:n't|'ve|'re|'ll|'d|'m|’ve|’re|’ll)$|^(?:that|it|there|what)'s$")
_PERSONAL = frozenset({"we", "i", "you", "they", "he", "she", "it"})
#: Verb forms of an action: the subject ends before them.
_ACTION_WORD = re.compile(r"^(?:declin|refer|exclud|verif|confirm|flag|escalat|approv|reject)\w*$")
#: "Independently, GL policies ...": a sentence adverb and its comma open the clause.
_SENTENCE_ADVERB = re.compile(r"^\s*([A-Za-z]{4,}ly)\s*,\s*")
#: A preposition after a past participle that follows the subject's noun.
_PREPOSITION = re.compile(r"\s+(?:for|to|by|in|at|on|under|from|as|through)\b", re.I)
_NP_WORD = re.compile(r"[A-Za-z][\w'’-]*|\d[\d,.]*|[,;:()/]")


#: Generic words that are adjectives: "every commercial diving contractor" is one phrase.
_ADJECTIVES = frozenset(
    "commercial small large big mid-size new young old older aged existing standard other "
    "such certain high low hazardous habitational total overall single multiple combined".split()
)


def noun_phrase(text: str) -> str:
    """The leading noun phrase of a clause, ending right before a verb or preposition.

    Returns "" when the phrase runs into a number, punctuation or the end of the clause
    (then it is not a subject: "Decline.", "Effective January 1").
    """
    words: list[str] = []
    for match in _NP_WORD.finditer(text):
        word = match.group(0)
        low = word.lower().strip("'’")
        if low in _STOP:
            if low == "than" and words and words[-1].lower().endswith("er"):
                words.pop()  # "glazing thinner than ...": a comparative, not a noun
            return " ".join(words).replace(" ,", ",").strip(" ,")
        if _ACTION_WORD.match(low) and not (
            not words and re.match(r"\s+and\s", text[match.end() :])
        ):  # "the senior confirms", "the portal refers": an agent ("Flag and banner
            # makers": a noun of a list)
            return "" if not words or words[-1] != "," else " ".join(words)[:-2].strip(" ,")
        if word in {";", ":", "(", ")"} or word[0].isdigit() or find_numbers(word):
            return ""
        if low in _PERSONAL and len(words) > 1 and words[0].lower() in _QUANTIFIERS:
            # "every countertop fabricator we write on GL": a relative clause without "that"
            return " ".join(words).replace(" ,", ",").strip(" ,")
        if _CONTRACTION.search(low) or low in _PERSONAL:
            return ""
        last = words[-1].lower() if words else ""
        if (
            words
            and low.endswith("ing")
            and (
                # (not "canvas awning fabricators": a noun in -as / -us, no plural)
                (last.endswith("s") and not last.endswith(("ss", "as", "us", "is")))
                or (last in lxs.GENERIC_NOUNS and last not in _ADJECTIVES)
                or last in lxs.NON_BUSINESS_WORDS  # "anyone distilling spirits"
            )
        ):  # "roofers using torches", "any insured running ten trucks": a participle
            return " ".join(words).replace(" ,", ",").strip(" ,")
        if (
            words
            and len(low) > 5
            and low.endswith("ed")
            and _PREPOSITION.match(text[match.end() :])
        ):  # "a kiln operator submitted for a BOP", "risks presented to us": a participle
            return " ".join(words).replace(" ,", ",").strip(" ,")
        if words and low.endswith("ing") and _ends_participle(text[match.end() :]):
            # "a contractor subletting more than ...": a participle with its object
            return " ".join(words).replace(" ,", ",").strip(" ,")
        words.append(word)
    return ""


def drop_adverb(text: str) -> str:
    """Remove a leading sentence adverb: "Independently, GL policies ..." -> "GL policies ..."."""
    match = _SENTENCE_ADVERB.match(text)
    if match and match.group(1).lower() not in lxs.LY_NOUNS:
        return text[match.end() :]
    return text


def _ends_participle(rest: str) -> bool:
    """True when the word after an -ing word opens its object or complement."""
    nxt = _NP_WORD.search(rest)
    if nxt is None:
        return False
    low = nxt.group(0).lower()
    if low == "of":
        return False  # "the governor setting of the fleet": a noun in -ing, not a participle
    return low in _STOP or low in lxs.DETERMINERS or low[0].isdigit() or bool(find_numbers(low))


#: Generic nouns that head a trade after what it works on: "tour operator".
_TRADE_HEADS = frozenset({"operator", "operators", "company", "companies"})


def kept_words(tokens: list[Token], drop: set[int]) -> list[str]:
    """The words of a subject that may name a class: no generic or non-business words.

    A non-business word right before a premises head stays ("senior centers").
    """
    premises = bool(tokens) and tokens[-1].text.lower() in lxs.GENERIC_HEADS
    last = len(tokens) - 1
    # "fireworks display operators": an operator of something is a trade, not "the operator"
    trade = last > 0 and tokens[last].text.lower() in _TRADE_HEADS
    trade = trade and tokens[last - 1].text.lower() not in lxs.GENERIC_NOUNS | lxs.DETERMINERS
    return [
        t.text.lower()
        for i, t in enumerate(tokens)
        if i not in drop
        and (t.text.lower() not in lxs.GENERIC_NOUNS or (trade and i == last))
        and (t.text.lower() not in lxs.NON_BUSINESS_WORDS or (premises and i == len(tokens) - 2))
        and t.text.lower() not in lxs.DETERMINERS
    ]


def plural(word: str) -> bool:
    """A plural noun: ends in "s" but not like "glass", "bus" or "basis"."""
    low = word.lower()
    return len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is"))


def singular(word: str) -> str:
    """The singular of a plural noun ("bakeries" -> "bakery"), else the word.

    "works" (a plant: "sea salt works", "gas works") is one or many alike.
    """
    if word.lower() == "works":
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def akin(a: str, b: str, letters: int) -> bool:
    """Two forms of one word ("molder" and "molding", "private" and "privately").

    They are one word, or share at least `letters` first letters and differ only in the
    last three letters of the shorter.
    """
    if a == b:
        return True
    common = len(os.path.commonprefix([a, b]))
    return common >= letters and common >= min(len(a), len(b)) - 3
