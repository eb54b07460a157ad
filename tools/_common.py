"""What every memory tool shares: a write lock, provenance defaults and write tallies."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from memory import GraphMemory, Namespace

DEFAULT_CONFIDENCE = 0.7


@dataclass
class ToolContext:
    """Infrastructure injected into tools (never filled in by a model).

    Attributes:
        memory: The connected graph memory.
        namespace: Namespace every read and write goes to.
        default_source: Provenance stamped on writes that name no source id.
        lock: Serialises writes, so parallel tool calls stay deterministic.
    """

    memory: GraphMemory
    namespace: Namespace | str
    default_source: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def tally(nodes: dict[str, int] | None = None, edges: dict[str, int] | None = None) -> dict:
    """Return a tool artifact: node and edge write counts by status."""
    zero = {"created": 0, "updated": 0, "unchanged": 0}
    return {"nodes": {**zero, **(nodes or {})}, "edges": {**zero, **(edges or {})}}


def dumps(value: Any) -> str:
    """Compact JSON for tool results the model reads."""
    return json.dumps(value, default=str, ensure_ascii=False)
