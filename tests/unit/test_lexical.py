"""The in-process BM25 index: bm25s's scores, read from posting lists only, with filters."""

from __future__ import annotations

import random

import numpy as np

from memory.search import LexicalIndex, tokenize

WORDS = "bakery winery gas station stores storage alarm sprinkler frame roof coastal".split()


def _row(uuid: str, relation: str, product: str, fact: str) -> str:
    return "|".join((uuid, relation, product, fact))


def _corpus(n: int, seed: int = 3) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    facts = [" ".join(rng.choices(WORDS, k=rng.randint(2, 9))) for _ in range(n)]
    rows = [
        _row(f"u{i}", rng.choice(("TRIGGERS", "RESULTS_IN")), rng.choice(("BOP", "GL", "")), f)
        for i, f in enumerate(facts)
    ]
    return rows, facts


def test_ranking_equals_bm25s_scoring_every_document() -> None:
    rows, _ = _corpus(300)
    index = LexicalIndex(rows)
    assert index.retriever is not None
    for query in ("bakery alarm", "coastal gas stations", "roof", "sprinkler frame storage"):
        terms = tokenize([query])[0]
        dense = index.retriever.get_scores(terms)
        found = index.search(query, 10)
        assert found is not None and len(found) == 10
        got = [dense[int(u[1:])] for u in found]
        assert got == sorted(got, reverse=True)
        assert got[0] == dense.max() and got[-1] >= np.sort(dense)[-10]


def test_stemmed_terms_match_and_stopwords_alone_are_no_query() -> None:
    index = LexicalIndex([_row("a", "TRIGGERS", "", "Gas stations store fuel")])
    assert index.search("gas station", 5) == ["a"]
    assert index.search("storing", 5) == ["a"]  # store / storing share a stem
    assert index.search("the and of", 5) is None
    assert index.search("volcano", 5) == []


def test_relation_and_partition_filters_keep_wildcard_and_unpartitioned_facts() -> None:
    rows = [
        _row("bop", "TRIGGERS", "BOP", "bakery oven"),
        _row("gl", "TRIGGERS", "GL", "bakery oven"),
        _row("all", "TRIGGERS", "ALL", "bakery oven"),
        _row("none", "TRIGGERS", "", "bakery oven"),
        _row("out", "RESULTS_IN", "BOP", "bakery oven"),
    ]
    index = LexicalIndex(rows)
    found = index.search("bakery", 10, relations=["TRIGGERS"], partition="BOP")
    assert sorted(found or []) == ["all", "bop", "none"]
    assert sorted(index.search("bakery", 10) or []) == ["all", "bop", "gl", "none", "out"]
    assert LexicalIndex([]).search("bakery", 5) == []
    # The wildcard is the ontology's: "ALL" is just a value for another one.
    other = LexicalIndex(rows, wildcard="*")
    assert sorted(other.search("bakery", 10, relations=["TRIGGERS"], partition="BOP") or []) == [
        "bop",
        "none",
    ]
