r"""Which characters a stored string may hold: one check used at every input boundary.

FalkorDB receives query parameters inlined into a ``CYPHER k=v ...`` header and stops
reading at a NUL; other control characters are stored but make names and facts that
nobody can type or see. So:

* names (rule names, risk factors, mitigants, fields, ids, sources) are one line of
  printable text: no control character at all;
* free text (descriptions, knowledge texts, chat messages) may also hold tab, line
  feed, carriage return and form feed;
* lone surrogates (``"\ud800"`` in JSON) are not text and are refused everywhere.

Files are *refused* with the offending field and position; chat messages are
*cleaned* (`clean_text`), since a person typing expects their message to go through.
"""

from __future__ import annotations

import re

_NAME_BAD = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
_TEXT_BAD = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f\ud800-\udfff]")
ALLOWED_NAME = "printable text on one line (no control characters)"
ALLOWED_TEXT = "printable text, tab and line breaks (no other control characters)"


def _describe(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone surrogate U+{code:04X} (not valid Unicode text)"
    if code == 0:
        return "a NUL character (U+0000)"
    return f"a control character U+{code:04X}"


def text_problem(value: str, *, multiline: bool = True) -> str | None:
    """Return what is wrong with `value` as stored text, or None when it is fine.

    Args:
        value: The string.
        multiline: Free text (tab and line breaks allowed) rather than a name.
    """
    found = (_TEXT_BAD if multiline else _NAME_BAD).search(value)
    if found is None:
        return None
    allowed = ALLOWED_TEXT if multiline else ALLOWED_NAME
    return f"contains {_describe(found.group())} at position {found.start()}; allowed: {allowed}"


def check_text(value: str, *, multiline: bool = True) -> str:
    """Return `value` unchanged, or raise naming the first bad character.

    Raises:
        ValueError: The string holds a character that may not be stored.
    """
    problem = text_problem(value, multiline=multiline)
    if problem is not None:
        raise ValueError(problem)
    return value


def clean_text(value: str) -> str:
    """Remove the characters free text may not hold (tab and line breaks are kept)."""
    return _TEXT_BAD.sub("", value)


__all__ = ["ALLOWED_NAME", "ALLOWED_TEXT", "check_text", "clean_text", "text_problem"]
