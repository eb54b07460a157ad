"""Word stems for matching a text's words to a data dictionary's.

A crude English stemmer (plurals, -ed / -ing, a silent e) over American spelling: a
dictionary written in one spelling matches texts written in the other.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Consonants English doubles before -ed / -ing ("tan" -> "tanned", "ship" -> "shipping").
_DOUBLED = frozenset("bgmnprt")


#: British spellings whose American form a dictionary may use ("licence" -> "license").
_BRITISH = {
    "licence": "license",
    "licences": "licenses",
    "defence": "defense",
    "offence": "offense",
    "offences": "offenses",
    "programme": "program",
    "programmes": "programs",
    "storey": "story",
    "storeys": "stories",
    "tyre": "tire",
    "tyres": "tires",
    "aluminium": "aluminum",
    "kerb": "curb",
    "grey": "gray",
    "mould": "mold",
    "moulds": "molds",
    "catalogue": "catalog",
    "cheque": "check",
    "cheques": "checks",
    "enrolment": "enrollment",
    "manoeuvre": "maneuver",
}
#: Forms that are no "-ed" or plural of their verb: "raw roe is sold", "raw roe sales" say
#: "sell raw roe".
_IRREGULAR = {
    "sold": "sell",
    "sale": "sell",
    "sales": "sell",
    "kept": "keep",
    "held": "hold",
    "bought": "buy",
}
#: Words in -our that are no British "-or" ("hour", "four", "tour", "flour").
_OUR_WORDS = frozenset("hour four pour tour your flour sour dour detour devour contour".split())
#: "centre", "metre", "fibre" -> "center", "meter", "fiber"; "acre", "genre" stay.
_RE_ENDING = re.compile(r"^(\w{2,}[bt])re(s?)$")


def american(word: str) -> str:
    """The American spelling of a lower-case British one ("colour" -> "color").

    A data dictionary written in one spelling must match texts written in the other.
    """
    known = _BRITISH.get(word)
    if known is not None:
        return known
    bare = word[:-1] if word.endswith("s") else word
    if bare.endswith("our") and len(bare) > 4 and bare not in _OUR_WORDS:
        return f"{bare[:-3]}or{word[len(bare) :]}"  # colour, neighbours, harbour
    match = _RE_ENDING.match(word)
    if match and not word.startswith(("ac", "gen", "og")):
        return f"{match.group(1)}er{match.group(2)}"
    return word


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Crude English stemmer: enough to match plurals and -ed/-ing forms.

    Args:
        word: One lower-case word.

    Returns:
        The stem.
    """
    w = word.lower().strip("'’")
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    w = american(w)
    w = _IRREGULAR.get(w, w)
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith("ations"):
        w = w[:-1]  # "decorations" stems as "decoration" does
    if w.endswith("ation") and len(w) > 8:
        return w[:-3]
    for suffix, keep in (("ing", 4), ("ed", 4), ("al", 5)):
        if w.endswith(suffix) and len(w) - len(suffix) >= keep:
            w = w[: -len(suffix)]
            # "tanned", "tanning" -> "tan"; "referred" -> "refer": the doubled consonant
            # of -ed / -ing is undone ("filled", "pressed" keep theirs)
            if suffix != "al" and w[-1] == w[-2] and w[-1] in _DOUBLED:
                w = w[:-1]
            return w
    if w.endswith(("sses", "xes", "ches", "shes")) and len(w) > 4:
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    # "score", "scored", "scoring" -> "scor": a final silent e is dropped the way
    # "-ed" / "-ing" drop it, so every form of a word shares one stem.
    if w.endswith("e") and not w.endswith(("ee", "ie", "ye")) and len(w) > 4:
        return w[:-1]
    return w
