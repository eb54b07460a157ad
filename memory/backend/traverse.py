"""Read-only Cypher on one namespace graph, with a time limit and a row cap."""

from __future__ import annotations

from typing import Any

from falkordb import Edge, Node, Path
from redis.exceptions import ResponseError

from memory.backend.falkordb import Database
from memory.model.records import TraverseResult

_HIDDEN = ("name_embedding", "fact_embedding")


def _plain(value: Any) -> Any:
    """Turn FalkorDB result values into JSON-friendly data without embeddings."""
    if isinstance(value, Node):
        props = {k: v for k, v in value.properties.items() if k not in _HIDDEN}
        return {"labels": list(value.labels or []), **props}
    if isinstance(value, Edge):
        props = {k: v for k, v in value.properties.items() if k not in _HIDDEN}
        return {"type": value.relation, **props}
    if isinstance(value, Path):
        return {
            "nodes": [_plain(n) for n in value.nodes()],
            "edges": [_plain(e) for e in value.edges()],
        }
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in _HIDDEN}
    return value


async def run_traverse(
    db: Database,
    group_id: str,
    cypher: str,
    params: dict[str, Any],
    *,
    timeout_ms: int,
    max_rows: int,
) -> TraverseResult:
    """Run `cypher` as GRAPH.RO_QUERY: the server refuses anything that writes.

    Raises:
        ValueError: The query writes, is invalid, or runs out of time.
    """
    if not isinstance(cypher, str) or not cypher.strip():
        raise ValueError("traverse needs a Cypher query")
    if max_rows < 1:
        raise ValueError(f"max_rows must be at least 1, got {max_rows}")
    if not await db.has_graph(group_id):
        return TraverseResult(rows=[], truncated=False)

    async def run() -> Any:
        graph = db.client.select_graph(group_id)
        return await graph.ro_query(cypher, params, timeout=timeout_ms)

    try:
        result = await db.call(run)
    except ResponseError as exc:
        message = str(exc)
        if "read-only" in message.lower() or "write" in message.lower():
            raise ValueError(f"traverse is read-only; the query tries to write: {message}") from exc
        if "timed out" in message.lower() or "timeout" in message.lower():
            raise ValueError(f"traverse query exceeded {timeout_ms} ms: {message}") from exc
        raise ValueError(f"traverse query failed: {message}") from exc
    header = [h[1] for h in result.header]
    rows = [
        {name: _plain(value) for name, value in zip(header, row, strict=False)}
        for row in result.result_set[:max_rows]
    ]
    return TraverseResult(rows=rows, truncated=len(result.result_set) > max_rows)
