"""Comparing graphs written at different times: leave out what only the clock decides."""

from __future__ import annotations

from typing import Any

#: A rule written without a date is valid from its ingestion: its valid times differ
#: between two runs as its created_at does.
VALID_TIMES = frozenset({"date", "valid_from", "valid_to"})


def untimed(value: Any, keys: frozenset[str] = VALID_TIMES) -> Any:
    """`value` with every mapping's `keys` left out, however deep."""
    if isinstance(value, dict):
        return {k: untimed(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [untimed(v, keys) for v in value]
    return value
