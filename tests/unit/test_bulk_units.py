"""Bulk-write helpers that need no server: parameter rendering and embedding prefetch."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import pytest

from memory.embedders import EmbeddingPrefetch


class CountingEmbedder:
    """Deterministic 4-d vectors; remembers every text it embedded."""

    name = "counting"
    dim = 4

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.seen += list(texts)
        return np.array([[len(t), t.count("a"), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_bulk_literal_renders_exactly_as_the_falkordb_client() -> None:
    from falkordb.helpers import stringify_param_value

    from memory.backend.literals import Literal

    rows = [
        {
            "name": 'Joe\'s "Bar" \\ Grill',
            "summary": "Café — naïve, 24/7\nline two",
            "confidence": 0.9,
            "count": 3,
            "flag": True,
            "none": None,
            "episodes": [],
            "tags": ["a", "b\\c", 1.5, None, False],
            "nested": {"k": ["v"]},
        }
    ]
    assert str(Literal(rows)) == stringify_param_value(rows)
    with pytest.raises(ValueError, match="backticks"):
        Literal([{"bad`key": 1}])


def test_prefetch_embeds_each_scheduled_text_once_and_hands_it_over_in_order() -> None:
    async def run() -> tuple[list[list[float]], list[list[float]], list[str]]:
        embedder = CountingEmbedder()
        prefetch = EmbeddingPrefetch(embedder)
        prefetch.start(["banana", "apple", "banana"])
        prefetch.start(["apple", "cherry"])  # apple is already scheduled
        first = await prefetch.take(["apple", "banana", "apple"])
        later = await prefetch.take(["cherry", "date"])  # date was never scheduled
        await prefetch.close()
        return first, later, embedder.seen

    first, later, seen = asyncio.run(run())
    assert first == [[5.0, 1.0, 1.0, 0.0], [6.0, 3.0, 1.0, 0.0], [5.0, 1.0, 1.0, 0.0]]
    assert later == [[6.0, 0.0, 1.0, 0.0], [4.0, 1.0, 1.0, 0.0]]
    assert sorted(seen) == ["apple", "banana", "cherry", "date"]
