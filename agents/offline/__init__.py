"""Offline (no-LLM) deterministic extraction of underwriting rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.offline.extractor import OfflineExtractor

__all__ = ["OfflineExtractor"]


def __getattr__(name: str) -> Any:
    """Import `OfflineExtractor` lazily (keeps `python -m agents.offline.extractor` clean)."""
    if name == "OfflineExtractor":
        from agents.offline.extractor import OfflineExtractor

        return OfflineExtractor
    raise AttributeError(name)
