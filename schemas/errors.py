"""One-line descriptions of pydantic validation errors: field, what was given, what is allowed.

Pydantic's own message is several lines per error with documentation URLs; people
reading a command's output need one line naming the field and the allowed values.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

_TYPE_TAGS = frozenset({"bool", "int", "float", "str", "list", "dict", "none", "NoneType"})
_KIND = {
    "bool": "a boolean",
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "none": "null",
    "dict": "an object",
}


def _is_tag(part: Any) -> bool:
    """True for a location part naming a union member (e.g. 'int', 'list[str]')."""
    return isinstance(part, str) and (part in _TYPE_TAGS or "[" in part)


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(value)"


def _got(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one(error: dict[str, Any], model: type[BaseModel] | None) -> str:
    kind, msg = error["type"], str(error["msg"])
    if kind == "missing":
        return "is required but missing"
    if kind == "extra_forbidden":
        allowed = f"; allowed: {', '.join(model.model_fields)}" if model is not None else ""
        return f"is not a known field{allowed}"
    if kind == "literal_error":
        return f"{_got(error['input'])} is not allowed; allowed: {error['ctx']['expected']}"
    if kind in ("value_error", "assertion_error"):
        return msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return f"{msg[0].lower()}{msg[1:]} (got {_got(error.get('input'))})"


def describe_validation_error(
    exc: ValidationError, model: type[BaseModel] | None = None, *, limit: int = 3
) -> str:
    """Return the errors of `exc` on one line: ``field: problem; field: problem``.

    Args:
        exc: The validation error.
        model: The model validated (names the allowed fields of an unknown one).
        limit: Most errors described; the rest are counted.
    """
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        while loc and _is_tag(loc[-1]):
            loc = loc[:-1]
        groups.setdefault(loc, []).append(dict(error))
    parts = []
    for loc, errors in groups.items():
        top = model if len(loc) == 1 else None
        if len(errors) == 1:
            parts.append(f"{_path(loc)}: {_one(errors[0], top)}")
            continue
        # A union (e.g. number, string, boolean or list): say which kinds are allowed.
        kinds = []
        for item in errors:
            tag = str(next((p for p in reversed(item["loc"]) if _is_tag(p)), ""))
            kinds.append(_KIND.get(tag, "a list" if tag.startswith("list") else tag))
        names = list(dict.fromkeys(k for k in kinds if k))
        allowed = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
        parts.append(f"{_path(loc)}: expected {allowed} (got {_got(errors[0].get('input'))})")
    more = len(parts) - limit
    return "; ".join(parts[:limit]) + (f" (and {more} more)" if more > 0 else "")


__all__ = ["describe_validation_error"]
