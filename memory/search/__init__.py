"""Retrieval over edge facts.

BM25 (`lexical`), the rankings and their fusion (`ranking`), hybrid search
(`hybrid`) and Graphiti's stock recipes (`graphiti`).

Depends on the model and the backend protocol only; the store calls it.
"""

from memory.search.hybrid import ENGINES, hybrid_search_many, valid_then
from memory.search.lexical import Fact, LexicalIndex, LexicalKind, lexical_index, tokenize
from memory.search.ranking import Filters, fused_scores, reciprocal_rank_fusion

__all__ = [
    "ENGINES",
    "Fact",
    "Filters",
    "LexicalIndex",
    "LexicalKind",
    "fused_scores",
    "hybrid_search_many",
    "lexical_index",
    "reciprocal_rank_fusion",
    "tokenize",
    "valid_then",
]
