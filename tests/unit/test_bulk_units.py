"""Bulk-write helpers that need no server: parameter rendering and embedding prefetch."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

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
        first = (await prefetch.take(["apple", "banana", "apple"])).tolist()
        later = (await prefetch.take(["cherry", "date"])).tolist()  # date was never scheduled
        await prefetch.close()
        return first, later, embedder.seen

    first, later, seen = asyncio.run(run())
    assert first == [[5.0, 1.0, 1.0, 0.0], [6.0, 3.0, 1.0, 0.0], [5.0, 1.0, 1.0, 0.0]]
    assert later == [[6.0, 0.0, 1.0, 0.0], [4.0, 1.0, 1.0, 0.0]]
    assert sorted(seen) == ["apple", "banana", "cherry", "date"]


def test_stable_uuid_is_uuid5_of_the_joined_parts() -> None:
    import uuid

    from memory.model.keys import _NAMESPACE_UUID, stable_uuid

    for parts in (("g", "edge", "a", "TRIGGERS", "b"), ("ünïcode", ""), ("x",)):
        assert stable_uuid(*parts) == str(uuid.uuid5(_NAMESPACE_UUID, "\x1f".join(parts)))


def test_properties_serialise_canonically_and_read_back_the_same() -> None:
    import json
    from datetime import UTC, datetime

    from memory.backend.rows import dumps_properties
    from memory.graph.plan import normal_json

    props = {
        "b": [1, 2.5, None],
        "a": {"z": True, "y": "é"},
        "when": datetime(2024, 1, 2, tzinfo=UTC),
    }
    text = dumps_properties(props)
    assert list(json.loads(text)) == ["a", "b", "when"]  # sorted keys
    assert json.loads(text)["when"] == str(props["when"])  # as json.dumps(default=str)
    value, same = normal_json(props)
    assert same == text and value == json.loads(text)
    assert dumps_properties({"big": 2**80}) == '{"big": 1208925819614629174706176}'


def test_aof_tail_detection(tmp_path: Path) -> None:
    from memory.backend.server import _aof_tail_empty, _paths

    paths = _paths(tmp_path)
    assert _aof_tail_empty(paths)  # nothing stored yet
    folder = tmp_path / "appendonlydir"
    folder.mkdir()
    (folder / "appendonly.aof.manifest").write_text(
        "file appendonly.aof.3.base.rdb seq 3 type b\nfile appendonly.aof.3.incr.aof seq 3 type i\n"
    )
    (folder / "appendonly.aof.3.incr.aof").write_bytes(b"")
    assert _aof_tail_empty(paths)
    (folder / "appendonly.aof.3.incr.aof").write_bytes(b"*1\r\n$5\r\nMULTI\r\n")
    assert not _aof_tail_empty(paths)


def test_wordllama_vectors_match_the_package() -> None:
    import os

    import wordllama
    from wordllama import WordLlama

    from memory.embedders import WordLlamaEmbedder

    texts = ["Gas Station", "fuel retail outlet", "a roofing contractor with 12 employees", ""]
    ours = WordLlamaEmbedder().embed(texts)
    model = WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)
    theirs = model.embed(texts[:3], norm=True)
    assert np.abs(ours[:3] - theirs).max() < 1e-5
    assert not ours[3].any()  # an empty text is the zero vector, not NaN


def test_vectors_render_as_cypher_lists_within_5e_8_of_their_values() -> None:
    from memory.backend.literals import Vector, vector_texts

    rng = np.random.default_rng(7)
    unit = rng.normal(size=(50, 256))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    texts = vector_texts(unit)
    parsed = np.array([[float(x) for x in t[1:-1].split(",")] for t in texts])
    assert np.abs(parsed - unit).max() <= 5e-8
    assert texts[0].startswith("[") and texts[0].endswith("]") and "e" not in texts[0]
    # Components of 1 or more, or not finite, fall back to nine significant digits.
    odd = vector_texts(np.array([[1.0, -2.5, 1e-9], [0.5, -0.25, 0.0]]))
    assert odd[0] == "[1,-2.5,1e-09]"
    assert [float(x) for x in odd[1][1:-1].split(",")] == [0.5, -0.25, 0.0]
    assert str(Vector([0.5, -0.25])) == odd[1][:-1].rsplit(",", 1)[0] + "]"
    assert [v.text for v in Vector.many(unit[:2])] == texts[:2]
    assert vector_texts(np.zeros((2, 0))) == ["[]", "[]"]


def test_wordllama_embeds_word_by_word_as_it_would_tokenize_whole_texts() -> None:
    import re

    from memory.embedders import WordLlamaEmbedder, _normalise, _pooled, _wordllama_model

    table, tokenizer = _wordllama_model(256)
    # What the word split relies on: only "▁" prepended and spaces replaced, and no
    # token with a "▁" after another character (BPE never merges across a word start).
    assert tokenizer.pre_tokenizer is None
    assert not [t for t in tokenizer.get_vocab() if re.search("[^▁]▁", t)]
    texts = [
        "[BOP] Gas Station triggers rule 'Fuel 12' (occupancy): action refer.",
        "fuel_retail_outlet gt 5 percent; Mitigants: sprinklers, alarm.",
        "Café naïve — 24/7\nline two\ttab 🚒 東京",
        "trailing space ",
        " leading space",
        "two  spaces and   three",
        "a special </s> token <s>",
        "",
        " ",
        "x",
    ] * 3
    encoded = tokenizer.encode_batch(texts, add_special_tokens=False)
    whole = _normalise(_pooled(table, [e.ids for e in encoded]))
    embedder = WordLlamaEmbedder()
    ours = embedder.embed(texts)
    assert np.abs(ours - whole).max() < 1e-6
    assert np.abs(embedder.embed(texts[:4]) - whole[:4]).max() < 1e-6  # from its word cache


def test_graphiti_index_statements_are_those_of_the_installed_graphiti() -> None:
    from graphiti_core.driver.driver import GraphProvider
    from graphiti_core.graph_queries import get_fulltext_indices, get_range_indices

    from memory.backend.indexes import GRAPHITI_INDEXES

    provider = GraphProvider.FALKORDB
    assert list(GRAPHITI_INDEXES) == get_range_indices(provider) + get_fulltext_indices(provider)
