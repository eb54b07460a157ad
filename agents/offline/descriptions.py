"""A boolean field named by its description: the text restates what the flag means.

A dictionary describes a flag in a plain sentence ("Guests sign a written release before
every climb"); a rule that says the same words ("a gym whose guests don't sign a
written release before each climb") names the flag as plainly as a synonym would. Only
a tight run of the text that holds nearly every word of a description of four or more
words counts, so a passing overlap of two or three common words names nothing.
"""

from __future__ import annotations

import math

from agents.offline.textproc import Token

#: A description must have this many distinct words to be matched at all.
MIN_WORDS = 4
#: Share of the description's distinct words the run must hold.
SHARE = 0.8
#: Words of the text allowed inside the run that the description lacks.
MAX_INTRUDERS = 2


def description_run(tokens: list[Token], words: frozenset[str]) -> tuple[int, int] | None:
    """The tightest run of tokens that restates a description, as (first, last) indices.

    Args:
        tokens: Content tokens of a clause.
        words: Distinct stems of a field's description.

    Returns:
        The run's first and last token index, or None when no run of the text holds
        `SHARE` of the description's words with at most `MAX_INTRUDERS` others.
    """
    if len(words) < MIN_WORDS:
        return None
    need = max(MIN_WORDS, math.ceil(SHARE * len(words)))
    if len({t.stem for t in tokens} & words) < need:
        return None  # cheap pre-filter: most clauses share no more than a word or two
    best: tuple[int, int] | None = None
    for first, tok in enumerate(tokens):
        if tok.stem not in words:
            continue
        seen: set[str] = set()
        intruders = 0
        for last in range(first, len(tokens)):
            if tokens[last].stem in words:
                seen.add(tokens[last].stem)
            else:
                intruders += 1
                if intruders > MAX_INTRUDERS:
                    break
            if len(seen) >= need:
                if best is None or last - first < best[1] - best[0]:
                    best = (first, last)
                break
    return best
