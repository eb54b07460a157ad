"""GraphMemory against the real embedded FalkorDB."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memory import GraphMemory, Namespace, Settings
from memory.backend.server import ensure_server, server_status, stop_server

RULES = [
    (
        "Gas Station",
        "Fuel Station Referral",
        "LRO",
        "Refer",
        "Gas stations are referred to a senior underwriter because of fuel storage liability.",
    ),
    (
        "Restaurant Cooking",
        "Hood Suppression Required",
        "BOP",
        "Refer",
        "Restaurants with deep fryers need a UL 300 hood suppression system or are referred.",
    ),
    (
        "Coastal Distance",
        "Coastal Wind Referral",
        "Property",
        "Refer",
        "Risks within one mile of the coastline are referred for wind exposure.",
    ),
    (
        "Employee Count",
        "Employee Limit",
        "BOP",
        "Decline",
        "More than 20 employees is declined; underwriters approved up to 23 (soft limit).",
    ),
    (
        "Vacancy",
        "Vacant Building Decline",
        "Property",
        "Decline",
        "Buildings vacant more than 60 days are declined unless a renovation permit is active.",
    ),
    (
        "Roof Age",
        "Aged Roof Decline",
        "Property",
        "Decline",
        "A roof older than 15 years in a tier 1 county is declined.",
    ),
    (
        "Frame Construction",
        "Frame TIV Referral",
        "ALL",
        "Refer",
        "Frame buildings with total insured value above $1M are referred.",
    ),
    (
        "Jewelry Store",
        "Jewelry Alarm Requirement",
        "BOP",
        "Decline",
        "Jewelry stores without a central station burglar alarm are declined.",
    ),
]


async def write_rule(mem: GraphMemory, ns: Namespace, rule: tuple[str, ...]) -> str:
    risk, name, product, outcome, fact = rule
    r = await mem.upsert_entity(ns, "RiskFactor", risk, source="test", confidence=0.9)
    u = await mem.upsert_entity(ns, "Rule", name, properties={"product_type": product})
    o = await mem.upsert_entity(ns, "Outcome", outcome)
    props = {"product_type": product, "threshold_type": "hard", "data_fields": ["occupancy"]}
    await mem.upsert_relationship(
        ns, r.key, "TRIGGERS", u.key, fact=fact, properties=props, source="test", confidence=0.9
    )
    await mem.upsert_relationship(
        ns,
        u.key,
        "RESULTS_IN",
        o.key,
        fact=f"{name} results in {outcome.lower()}: {fact}",
        properties={"product_type": product},
    )
    return u.key


async def test_upserts_are_idempotent_and_keep_provenance(memory: GraphMemory, namespace) -> None:
    first = await memory.upsert_entity(
        namespace, "RiskFactor", "Gas Station", source="doc-1", confidence=0.8
    )
    again = await memory.upsert_entity(
        namespace, "RiskFactor", "  gas   STATION ", source="doc-2", confidence=0.8
    )
    assert first.status == "created" and again.status == "unchanged"
    assert again.key == first.key
    nodes = await memory.entities(namespace, "RiskFactor")
    assert [n.name for n in nodes] == ["Gas Station"]
    assert nodes[0].last_update_source == "doc-1" and nodes[0].confidence == 0.8
    assert nodes[0].created_at is not None and nodes[0].updated_at is not None

    changed = await memory.upsert_entity(
        namespace, "RiskFactor", "Gas Station", source="doc-3", confidence=0.95
    )
    assert changed.status == "updated"
    [node] = await memory.entities(namespace, "RiskFactor")
    assert node.last_update_source == "doc-3" and node.created_at == nodes[0].created_at

    await write_rule(memory, namespace, RULES[0])
    await write_rule(memory, namespace, RULES[0])
    stats = await memory.stats(namespace)
    assert stats.nodes_by_label == {"RiskFactor": 1, "Rule": 1, "Outcome": 1}
    assert stats.edges_by_relation == {"TRIGGERS": 1, "RESULTS_IN": 1}


async def test_namespaces_are_isolated(memory: GraphMemory, namespace) -> None:
    other = Namespace.user(namespace.parts[0], "jane_doe")
    await write_rule(memory, namespace, RULES[0])
    assert await memory.search(other, "gas station") == []
    assert (await memory.stats(other)).nodes_by_label == {}
    await write_rule(memory, other, RULES[1])
    hits = await memory.search(other, "gas station fuel")
    assert all("Gas" not in h.relationship.source_name for h in hits)


async def test_paraphrase_search_finds_the_gas_station_rule(memory: GraphMemory, namespace) -> None:
    for rule in RULES:
        await write_rule(memory, namespace, rule)
    hits = await memory.search(namespace, "fuel retail outlet", limit=3)
    assert hits, "search returned nothing"
    assert any(h.relationship.source_name == "Gas Station" for h in hits)
    assert hits == sorted(hits, key=lambda h: -h.score)


async def test_search_filters(memory: GraphMemory, namespace) -> None:
    for rule in RULES:
        await write_rule(memory, namespace, rule)
    hits = await memory.search(namespace, "referred", partition="BOP", limit=20)
    products = {h.relationship.properties.get("product_type") for h in hits}
    assert hits and products <= {"BOP", "ALL"}
    triggers = await memory.search(namespace, "declined", relations=["TRIGGERS"], limit=20)
    assert triggers and {h.relationship.relation for h in triggers} == {"TRIGGERS"}
    outcomes = await memory.search(namespace, "declined", labels=["Outcome"], limit=20)
    assert outcomes and all(h.relationship.target_label == "Outcome" for h in outcomes)
    with pytest.raises(ValueError, match="allowed: RiskFactor"):
        await memory.search(namespace, "x", labels=["Person"])


async def test_invalidated_edges_leave_default_search(memory: GraphMemory, namespace) -> None:
    await write_rule(memory, namespace, RULES[3])
    [hit] = await memory.search(namespace, "employees declined", relations=["TRIGGERS"])
    assert await memory.invalidate_relationship(namespace, hit.relationship.uuid, source="t")
    assert await memory.search(namespace, "employees declined", relations=["TRIGGERS"]) == []
    old = await memory.search(
        namespace, "employees declined", relations=["TRIGGERS"], include_invalid=True
    )
    assert [h.relationship.uuid for h in old] == [hit.relationship.uuid]
    assert old[0].relationship.invalid_at is not None


async def test_bad_input_is_refused_and_stored_literally(memory: GraphMemory, namespace) -> None:
    with pytest.raises(ValueError, match="allowed: RiskFactor, Rule, Outcome, Mitigant, Source"):
        await memory.upsert_entity(namespace, "Person", "x")
    tricky = "O'Brien's \"Bar\" {x} }) MATCH (n) DETACH DELETE n //"
    r = await memory.upsert_entity(namespace, "RiskFactor", tricky)
    u = await memory.upsert_entity(namespace, "Rule", "Rule 1")
    assert (await memory.get_entity(namespace, r.key)).name == tricky
    with pytest.raises(ValueError, match="allowed: TRIGGERS, RESULTS_IN"):
        await memory.upsert_relationship(namespace, r.key, "CAUSES", u.key, fact="f")
    with pytest.raises(ValueError, match="cannot start at a Rule"):
        await memory.upsert_relationship(namespace, u.key, "TRIGGERS", r.key, fact="f")
    with pytest.raises(ValueError, match="threshold_type"):
        await memory.upsert_relationship(
            namespace, r.key, "TRIGGERS", u.key, fact="f", properties={"threshold_type": "squishy"}
        )
    with pytest.raises(ValueError, match="not allowed"):
        Namespace.agent("bad name!")
    stats = await memory.stats(namespace)
    assert stats.nodes_by_label == {"RiskFactor": 1, "Rule": 1} and stats.edges_by_relation == {}


async def test_sources_link_mentions(memory: GraphMemory, namespace) -> None:
    rule_key = await write_rule(memory, namespace, RULES[0])
    risk_key = memory.entity_key(namespace, "RiskFactor", "Gas Station")
    text = "Gas stations are referred. {\"json\": 'quotes'}"
    first = await memory.add_source(
        namespace, text, source_id="manual-5.4", description="manual", mentions=[risk_key, rule_key]
    )
    again = await memory.add_source(
        namespace, text, source_id="manual-5.4", description="manual", mentions=[rule_key, risk_key]
    )
    assert (first.status, again.status) == ("created", "unchanged")
    [source] = await memory.sources(namespace)
    assert source.content == text and set(source.mentions) == {risk_key, rule_key}
    with pytest.raises(ValueError, match="does not exist"):
        await memory.add_source(namespace, "t", source_id="x", mentions=["nope"])


async def test_traverse_is_read_only_and_capped(memory: GraphMemory, namespace) -> None:
    for rule in RULES:
        await write_rule(memory, namespace, rule)
    result = await memory.traverse(
        namespace,
        "MATCH (r:RiskFactor)-[t:RELATES_TO]->(u:Rule) WHERE r.name = $name RETURN r, t, u.name",
        {"name": "Gas Station"},
    )
    [row] = result.rows
    assert row["u.name"] == "Fuel Station Referral" and "name_embedding" not in row["r"]
    assert "fact_embedding" not in row["t"]
    capped = await memory.traverse(namespace, "MATCH (n:Entity) RETURN n.name", max_rows=3)
    assert len(capped.rows) == 3 and capped.truncated
    for write in (
        "CREATE (n:Entity {name: 'x'})",
        "MATCH (n) DETACH DELETE n",
        "MATCH (n:Entity) SET n.name = 'x'",
    ):
        with pytest.raises(ValueError, match="read-only"):
            await memory.traverse(namespace, write)
    assert sum((await memory.stats(namespace)).nodes_by_label.values()) == 8 + 8 + 2


async def test_export_import_round_trip(memory: GraphMemory, namespace) -> None:
    for rule in RULES[:4]:
        await write_rule(memory, namespace, rule)
    key = memory.entity_key(namespace, "RiskFactor", "Gas Station")
    await memory.add_source(namespace, "raw text", source_id="doc", mentions=[key])
    edge = (await memory.relationships(namespace, relation="TRIGGERS"))[0]
    await memory.invalidate_relationship(namespace, edge.uuid)
    exported = await memory.export(namespace)
    target = Namespace.shard(namespace.parts[0], "copy")
    counts = await memory.import_(target, json.loads(json.dumps(exported)))
    assert counts == {"entities": 10, "relationships": 8, "sources": 1}
    again = await memory.export(target)
    assert {**exported, "namespace": None} == {**again, "namespace": None}
    with pytest.raises(ValueError, match="not empty"):
        await memory.import_(target, exported)
    assert await memory.clear(target)
    assert (await memory.stats(target)).nodes_by_label == {}


async def test_two_processes_share_one_server(settings: Settings, namespace) -> None:
    script = textwrap.dedent(f"""
        import asyncio
        from memory import GraphMemory, Namespace, Settings
        async def main():
            async with GraphMemory(Settings(ATHENA_DATA_DIR={str(settings.data_dir)!r})) as m:
                await m.upsert_entity(Namespace.parse({str(namespace)!r}), "RiskFactor", "Vacancy")
        asyncio.run(main())
    """)
    before = server_status(settings.data_dir).pid
    subprocess.run(
        [sys.executable, "-c", script], check=True, timeout=120, cwd=Path(__file__).parents[2]
    )
    assert server_status(settings.data_dir).pid == before
    async with GraphMemory(settings) as mem:
        assert [e.name for e in await mem.entities(namespace)] == ["Vacancy"]


async def test_kill_9_then_normal_use_with_data_intact(tmp_path: Path) -> None:
    settings = Settings(ATHENA_DATA_DIR=tmp_path / "db")
    ns = Namespace.agent("crash")
    try:
        async with GraphMemory(settings) as mem:
            for rule in RULES:
                await write_rule(mem, ns, rule)
            before = await mem.export(ns)
            os.kill(server_status(settings.data_dir).pid, signal.SIGKILL)
            # The same open memory reconnects (restarting the server) on its next call.
            assert await mem.export(ns) == before
            hits = await mem.search(ns, "fuel retail outlet", limit=3)
            assert any(h.relationship.source_name == "Gas Station" for h in hits)
            await write_rule(
                mem,
                ns,
                (
                    "Cannabis",
                    "Cannabis Decline",
                    "ALL",
                    "Decline",
                    "Cannabis operations are always declined.",
                ),
            )
        ensure_server(settings.data_dir)
        async with GraphMemory(settings) as mem:
            assert (await mem.stats(ns)).nodes_by_label["Rule"] == len(RULES) + 1
    finally:
        stop_server(settings.data_dir)


async def test_graphiti_engine_agrees_on_the_top_hit(memory: GraphMemory, namespace) -> None:
    for rule in RULES:
        await write_rule(memory, namespace, rule)
    ours = await memory.search(namespace, "jewelry store burglar alarm", limit=3)
    stock = await memory.search(
        namespace, "jewelry store burglar alarm", limit=3, engine="graphiti"
    )
    # Both engines put the jewelry rule first (its trigger and its outcome edges
    # tie on our side: each leads one of the two rankings).
    top = ours[0].relationship
    assert "Jewelry Alarm Requirement" in (top.source_name, top.target_name)
    assert stock[0].relationship.uuid in {h.relationship.uuid for h in ours[:2]}
    with pytest.raises(ValueError, match="allowed: fused, graphiti, graphiti-combined"):
        await memory.search(namespace, "x", engine="magic")


async def test_reading_a_namespace_never_written(memory: GraphMemory) -> None:
    ns = Namespace.session("never-written")
    assert await memory.entities(ns) == []
    assert await memory.sources(ns) == []
    assert await memory.relationships(ns) == []
    assert await memory.find_similar_entities(ns, "gas station") == []
    assert await memory.get_entity(ns, "nokey") is None
    assert ns not in await memory.list_namespaces()


async def test_as_of_sees_what_was_true_then(memory: GraphMemory, namespace) -> None:
    from datetime import UTC, datetime

    await write_rule(memory, namespace, RULES[3])
    [hit] = await memory.search(namespace, "employees declined", relations=["TRIGGERS"])
    before = datetime.now(UTC)
    await memory.invalidate_relationship(namespace, hit.relationship.uuid)
    assert await memory.search(namespace, "employees declined", relations=["TRIGGERS"]) == []
    then = await memory.search(
        namespace, "employees declined", relations=["TRIGGERS"], as_of=before
    )
    assert [h.relationship.uuid for h in then] == [hit.relationship.uuid]
    naive = before.replace(tzinfo=None)  # taken as UTC
    assert (
        len(await memory.search(namespace, "employees", as_of=naive, relations=["TRIGGERS"])) == 1
    )
    assert (
        await memory.search(
            namespace, "employees", relations=["TRIGGERS"], as_of=datetime(2000, 1, 1, tzinfo=UTC)
        )
        == []
    )
