"""The one clock of memory writes: timezone-aware UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """Return the current time in UTC (timezone-aware)."""
    return datetime.now(UTC)


__all__ = ["utc_now"]
