"""Query understanding on the rule query path (`GraphAnalytics.query_many`).

A query that states facts ("a 200-seat family restaurant open after midnight")
names no rule, but its numbers and categories are field values. The query is read
into a partial submission with the data dictionary
(`memory.underwriting.fieldlink.QueryReader`, whose
categorical vocabulary also takes the text values stored rules compare with), the
condition index says which rules those values satisfy (as `decide` does: every
condition on a stated field holds), and that ranking is fused with the text
ranking (BM25 + vectors). A rule scores by the share of its conditions the query
satisfies; a value matched by meaning only counts half.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memory.underwriting.condition_kind import CURRENT_EDGE, condition_index
from memory.underwriting.conditions import ConditionIndex
from memory.underwriting.fieldlink import QueryReader, profile_of
from schemas.fields import DataDictionary

if TYPE_CHECKING:
    from memory.graph import GraphMemory
    from memory.model import Namespace

#: Weight of the condition ranking against the text ranking (reciprocal rank, k=1).
CONDITION_WEIGHT = 1.0
#: Extra credit per satisfied condition (a rule matched on two stated facts beats one).
PER_CONDITION = 0.1
_READERS: weakref.WeakKeyDictionary[ConditionIndex, dict[tuple[int, int, int], QueryReader]] = (
    weakref.WeakKeyDictionary()
)
_CURRENT = CURRENT_EDGE


def _embed(texts: Sequence[str]) -> Any:
    from memory.embedders import WordLlamaEmbedder

    return WordLlamaEmbedder().embed(texts)


def reader_for(index: ConditionIndex, fields: DataDictionary) -> QueryReader:
    """The query reader of a condition index and dictionary, built once per index."""
    readers = _READERS.setdefault(index, {})
    # The index follows writes in place: rebuild only when the values it compares with
    # may have changed (a new value, a compaction), not after every rule written.
    version = (id(fields), *index.values_version)
    reader = readers.get(version)
    if reader is None or reader.profile.dictionary is not fields:
        readers.clear()
        reader = QueryReader(profile_of(fields), index.string_values(), _embed)
        readers[version] = reader
    return reader


def condition_scores(
    index: ConditionIndex, reader: QueryReader, text: str, product: str | None
) -> dict[str, float]:
    """Rule name -> how well the facts a query states satisfy the rule (0 < score)."""
    scored = reader.read_scored(text)
    if not scored:
        return {}
    values = {name: value for name, (value, _) in scored.items()}
    found: dict[str, float] = {}
    for entry, held in index.held(values, product):
        total = sum(entry.per_field.values())
        weight = sum(scored[f][1] * entry.per_field[f] for f in held)
        found[entry.name] = weight / total + PER_CONDITION * weight
    return found


def fuse(text_ranking: Sequence[str], conditions: dict[str, float]) -> list[tuple[str, float]]:
    """Fuse the text ranking with the condition scores by reciprocal rank (k=1).

    Rules with the same condition score share its rank.

    Returns:
        (rule name, fused score), best first.
    """
    text_rank = {name: i for i, name in enumerate(text_ranking, start=1)}
    levels = sorted(set(conditions.values()), reverse=True)
    cond_rank = {name: levels.index(score) + 1 for name, score in conditions.items()}
    names = list(dict.fromkeys([*text_ranking, *conditions]))

    def score(name: str) -> float:
        total = 1.0 / (1 + text_rank[name]) if name in text_rank else 0.0
        if name in cond_rank:
            total += CONDITION_WEIGHT / (1 + cond_rank[name])
        return total

    ranked = sorted(names, key=lambda n: (-score(n), text_rank.get(n, len(names) + 1), n))
    return [(name, round(score(name), 6)) for name in ranked]


async def read_queries(
    memory: GraphMemory,
    namespace: Namespace,
    texts: Sequence[str],
    product: str | None,
    fields: DataDictionary,
) -> list[dict[str, float]]:
    """Each query's condition scores: rule name -> how well its stated facts satisfy it.

    Pure CPU once the condition index is current, so the query path runs it while the
    text search waits for the server.
    """
    index = await condition_index(memory, namespace)
    if not len(index):
        return [{} for _ in texts]
    reader = reader_for(index, fields)
    return [condition_scores(index, reader, text, product) for text in texts]


def fused_orders(
    rankings: Sequence[Sequence[tuple[str, float]]],
    conditions: Sequence[dict[str, float]],
    limit: int,
) -> list[list[tuple[str, float]]]:
    """Each query's text ranking (rule name, score) re-ranked with its condition scores.

    Queries that state no fact keep their text ranking and scores.
    """
    orders = []
    for ranking, scores in zip(rankings, conditions, strict=True):
        if scores:
            orders.append(fuse([name for name, _ in ranking], scores)[:limit])
        else:
            orders.append(list(ranking[:limit]))
    return orders


async def trigger_rows(
    memory: GraphMemory, namespace: Namespace, names: Sequence[str]
) -> list[dict[str, Any]]:
    """The TRIGGERS edge of each named rule (for rules found by their conditions only)."""
    rows: list[dict[str, Any]] = await memory.db.query(
        namespace.group_id,
        f"MATCH ()-[e:RELATES_TO]->() WHERE e.p_rule_name IN $names AND {_CURRENT} "
        "AND e.name = 'TRIGGERS' RETURN e.p_rule_name AS rule, startNode(e).name AS source, "
        "endNode(e).name AS target, e.fact AS fact, e.props_json AS props",
        {"names": list(names)},
        read_only=True,
    )
    for row in rows:
        row["props"] = json.loads(row["props"] or "{}")
    return rows
