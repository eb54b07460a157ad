from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agents.ingestion import ingest_rules, load_rules
from memory import GraphMemory, Namespace
from memory.search import ranking

pytestmark = pytest.mark.integration


async def test_vector_index_is_sized_by_the_embedder_and_agrees_with_exact_search(
    memory: GraphMemory, namespace: Namespace, dev_set: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await ingest_rules(memory, namespace, load_rules(dev_set / "rules.jsonl"))
    rows = await memory.db.query(
        namespace.group_id,
        "CALL db.indexes() YIELD label, properties, types, options "
        "WHERE label = 'RELATES_TO' RETURN types, options",
        read_only=True,
    )
    [row] = rows
    assert "VECTOR" in row["types"]["fact_embedding"]
    options = row["options"]["fact_embedding"]
    assert options["dimension"] == memory.embedder.dim
    assert (options["M"], options["efRuntime"]) == (32, 400)
    queries = ["gas station", "roof age over twenty years", "restaurant with deep fryers"]
    exact = [await memory.search(namespace, q, limit=10) for q in queries]
    monkeypatch.setattr(ranking, "EXACT_MAX_EDGES", 0)  # force the HNSW path
    indexed = [await memory.search(namespace, q, limit=10) for q in queries]
    for a, b in zip(exact, indexed, strict=True):
        assert [h.relationship.uuid for h in a][:5] == [h.relationship.uuid for h in b][:5]


async def test_search_as_of_sees_the_edges_valid_then(
    memory: GraphMemory, namespace: Namespace
) -> None:
    risk = await memory.upsert_entity(namespace, "RiskFactor", "Trampoline Park")
    rule = await memory.upsert_entity(namespace, "Rule", "Trampoline Park Referral")
    start = datetime(2020, 1, 1, tzinfo=UTC)
    edge = await memory.upsert_relationship(
        namespace,
        risk.key,
        "TRIGGERS",
        rule.key,
        fact="Trampoline parks trigger a referral for injury review.",
        valid_at=start,
    )
    query = "trampoline park referral"
    assert await memory.search(namespace, query, as_of=start - timedelta(days=1)) == []
    found = await memory.search(namespace, query, as_of=start + timedelta(days=1))
    assert [h.relationship.uuid for h in found] == [edge.uuid]
    retired = datetime(2022, 1, 1, tzinfo=UTC)
    await memory.invalidate_relationship(namespace, edge.uuid, at=retired)
    assert await memory.search(namespace, query) == []
    then = await memory.search(namespace, query, as_of=datetime(2021, 6, 1))  # naive = UTC
    assert [h.relationship.uuid for h in then] == [edge.uuid]
    assert await memory.search(namespace, query, as_of=retired) == []
