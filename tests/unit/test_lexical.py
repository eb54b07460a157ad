"""The in-process BM25 index scores like a fresh bm25s build, whatever changed since."""

from __future__ import annotations

import random

import bm25s
import numpy as np
import pytest

from memory.search import Fact, LexicalIndex, tokenize

WORDS = (
    "gas station fire suppression employee count refer decline roof age frame restaurant "
    "liquor sales coastal wind hail sprinkler vacant building contractor crane storey beach"
).split()


def _doc(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 25)))


def _facts(rng: random.Random, n: int, prefix: str = "u") -> list[Fact]:
    return [
        Fact(
            f"{prefix}{i}",
            rng.choice(["TRIGGERS", "OVERRIDES"]),
            rng.choice(["BOP", "LRO", ""]),
            _doc(rng),
        )
        for i in range(n)
    ]


def _reference_scores(facts: list[Fact], query: str) -> dict[str, float]:
    ref = bm25s.BM25()
    ref.index(tokenize([f.text for f in facts]), show_progress=False)
    scores = ref.get_scores(tokenize([query])[0])
    return {f.uuid: float(s) for f, s in zip(facts, scores, strict=True) if s > 0}


def _check_top(index: LexicalIndex, facts: list[Fact], query: str, k: int = 15) -> None:
    """The index's top k are the reference's top k (up to ties at the cut)."""
    expected = _reference_scores(facts, query)
    got = index.search(query, k)
    assert got is not None
    ranked = sorted(expected.values(), reverse=True)
    assert len(got) == min(k, len(ranked))
    assert np.allclose([expected[u] for u in got], ranked[: len(got)], rtol=1e-4)


@pytest.mark.parametrize("query", ["gas station fire", "roof age", "liquor sales restaurant"])
def test_fresh_build_ranks_like_bm25s(query: str) -> None:
    facts = _facts(random.Random(7), 800)
    _check_top(LexicalIndex.build(facts), facts, query)


def test_removals_updates_and_additions_rank_like_a_fresh_build() -> None:
    rng = random.Random(11)
    facts = _facts(rng, 1500)
    index = LexicalIndex.build(facts)
    queries = ("gas station fire", "crane storey", "vacant building wind")
    for query in queries:  # searched terms keep their weights until the index changes
        _check_top(index, facts, query)
    live = {f.uuid: f for f in facts}
    gone = [f.uuid for f in facts[:300]]
    index.remove(gone)
    for uuid in gone:
        del live[uuid]
    for query in queries:
        _check_top(index, list(live.values()), query)
    changed = [f._replace(text=_doc(rng)) for f in facts[400:500]]
    added = _facts(rng, 120, prefix="n")
    index.upsert(changed + added)
    live.update({f.uuid: f for f in changed + added})
    assert len(index) == len(live)
    assert "u0" not in index and "n5" in index
    for query in queries:
        _check_top(index, list(live.values()), query)


def test_filters_keep_the_partition_and_its_wildcard_and_the_relations() -> None:
    index = LexicalIndex.build(
        [
            Fact("a", "TRIGGERS", "BOP", "gas station refer"),
            Fact("b", "TRIGGERS", "LRO", "gas station decline"),
            Fact("c", "OVERRIDES", "", "gas station sprinkler"),
        ]
    )
    assert set(index.search("gas station", 10, partition="BOP") or []) == {"a", "c"}
    assert index.search("gas station", 10, relations=["OVERRIDES"]) == ["c"]
    index.upsert([Fact("a", "TRIGGERS", "LRO", "gas station refer")])
    assert set(index.search("gas station", 10, partition="BOP") or []) == {"c"}


def test_no_terms_is_none_and_unknown_terms_find_nothing() -> None:
    index = LexicalIndex.build([Fact("a", "TRIGGERS", "", "gas station")])
    assert index.search("the of and", 5) is None
    assert index.search("zeppelin", 5) == []
    index.remove(["a"])
    assert index.search("gas", 5) == []


def test_saved_index_loads_with_the_same_answers_and_saving_changes_nothing() -> None:
    rng = random.Random(3)
    facts = _facts(rng, 600)
    index = LexicalIndex.build(facts)
    index.remove([f.uuid for f in facts[:50]])
    index.upsert(_facts(rng, 30, prefix="n"))
    before = index.search("fire sprinkler", 20, partition="LRO")
    loaded = LexicalIndex.from_bytes(index.to_bytes())
    assert index.search("fire sprinkler", 20, partition="LRO") == before
    assert set(loaded.search("fire sprinkler", 20, partition="LRO") or []) == set(before or [])
    assert len(loaded) == len(index)


def test_stemmed_terms_match_and_the_wildcard_is_the_ontologys() -> None:
    facts = [
        Fact("bop", "TRIGGERS", "BOP", "gas stations store fuel"),
        Fact("all", "TRIGGERS", "ALL", "gas stations store fuel"),
        Fact("none", "TRIGGERS", "", "gas stations store fuel"),
    ]
    index = LexicalIndex.build(facts)
    assert sorted(index.search("storing", 5, partition="GL") or []) == ["all", "none"]
    other = LexicalIndex.build(facts, wildcard="*")  # "ALL" is just a value for another one
    assert sorted(other.search("storing", 5, partition="BOP") or []) == ["bop", "none"]
    loaded = LexicalIndex.from_bytes(other.to_bytes())
    assert sorted(loaded.search("storing", 5, partition="BOP") or []) == ["bop", "none"]


def test_term_weights_kept_for_search_stay_within_their_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memory.search.lexical as lexical

    facts = _facts(random.Random(3), 600)
    index = LexicalIndex.build(facts)
    monkeypatch.setattr(lexical, "MAX_CACHED_POSTINGS", 400)
    for query in ("gas station fire", "roof age", "liquor sales restaurant", "crane storey"):
        _check_top(index, facts, query)  # answers stay exact while weights are evicted
        assert sum(docs.size for docs, _ in index._weights.values()) <= 400
    assert index._weights  # the latest terms are kept
