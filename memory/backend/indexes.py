"""Graphiti's index queries for FalkorDB, kept here so creating them needs no Graphiti import.

`graphiti_core` takes about a second to import in a fresh process; a first write
into a new namespace (`athena ingest` into a fresh one) only needs its index
statements. They are Graphiti's `get_range_indices` and `get_fulltext_indices`
for FalkorDB, in its order (range indexes first), verbatim; a unit test compares
them with the installed Graphiti so an upgrade that changes them is noticed.
"""

from __future__ import annotations

_STOPWORDS = (
    "OPTIONS {stopwords: ['a', 'is', 'the', 'an', 'and', 'are', 'as', 'at', 'be', 'but', "
    "'by', 'for', 'if', 'in', 'into', 'it', 'no', 'not', 'of', 'on', 'or', 'such', 'that', "
    "'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with']}"
)
_ON = "\n                ON "  # Graphiti's own layout of its multi-line statements
_OPTIONS = "\n                "

GRAPHITI_INDEXES = (
    "CREATE INDEX FOR (n:Entity) ON (n.uuid, n.group_id, n.name, n.created_at)",
    "CREATE INDEX FOR (n:Episodic) ON (n.uuid, n.group_id, n.created_at, n.valid_at)",
    "CREATE INDEX FOR (n:Community) ON (n.uuid)",
    "CREATE INDEX FOR (n:Saga) ON (n.uuid, n.group_id, n.name)",
    "CREATE INDEX FOR ()-[e:RELATES_TO]-() ON "
    "(e.uuid, e.group_id, e.name, e.created_at, e.expired_at, e.valid_at, e.invalid_at)",
    "CREATE INDEX FOR ()-[e:MENTIONS]-() ON (e.uuid, e.group_id)",
    "CREATE INDEX FOR ()-[e:HAS_MEMBER]-() ON (e.uuid)",
    "CREATE INDEX FOR ()-[e:HAS_EPISODE]-() ON (e.uuid, e.group_id)",
    "CREATE INDEX FOR ()-[e:NEXT_EPISODE]-() ON (e.uuid, e.group_id)",
    "CREATE FULLTEXT INDEX FOR (n:Episodic)"
    + _ON
    + "(n.content, n.source, n.source_description, n.group_id)"
    + _OPTIONS
    + _STOPWORDS,
    "CREATE FULLTEXT INDEX FOR (n:Entity)"
    + _ON
    + "(n.name, n.summary, n.group_id)"
    + _OPTIONS
    + _STOPWORDS,
    "CREATE FULLTEXT INDEX FOR (n:Community)"
    + _ON
    + "(n.name, n.group_id)"
    + _OPTIONS
    + _STOPWORDS,
    "CREATE FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.name, e.fact, e.group_id)",
)
# Replies Graphiti's driver takes as success when it creates them.
ALREADY = ("already indexed", "Stopwords are already set")

__all__ = ["ALREADY", "GRAPHITI_INDEXES"]
