"""Measure ingest throughput, retrieval latency and quality, ours against alternatives."""

from __future__ import annotations

import json
import random
import re
import resource
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agents.eval_run import percentile
from agents.ingestion import ingest_rules
from agents.underwriting.service import decide_submission
from bench.synthetic import generate_rules, query_for
from memory import GraphMemory, Namespace, Settings
from memory.analytics import GraphAnalytics
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.rules import ExtractedRule

Ranker = Callable[[str, str | None], Awaitable[list[str]]]
SAMPLES = 100


class SqliteLike:
    """The keyword baseline: a table of memories searched with LIKE, ranked by words matched."""

    def __init__(self, rules: Sequence[tuple[str, str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE TABLE memories (rule_name TEXT, fact TEXT)")
        self.db.executemany("INSERT INTO memories VALUES (?, ?)", rules)

    def search(self, query: str, limit: int = 5) -> list[str]:
        """Return rule names whose fact contains the most query words."""
        words = [w for w in re.findall(r"[a-z0-9]+", query.lower()) if len(w) > 2][:8]
        if not words:
            return []
        score = " + ".join("(fact LIKE ?)" for _ in words)
        rows = self.db.execute(
            f"SELECT rule_name, {score} AS s FROM memories WHERE s > 0 "  # noqa: S608 - fixed shape
            "GROUP BY rule_name ORDER BY s DESC LIMIT ?",
            [*(f"%{w}%" for w in words), limit],
        ).fetchall()
        return [r[0] for r in rows]


def _rankers(memory: GraphMemory, ns: Namespace, facts: SqliteLike) -> dict[str, Ranker]:
    analytics = GraphAnalytics(memory, ns)

    async def ours(query: str, product: str | None) -> list[str]:
        return [h.rule_name for h in await analytics.query(query, product_type=product, limit=5)]

    async def stock(query: str, product: str | None) -> list[str]:
        hits = await memory.search(ns, query, limit=20, product_type=product, engine="graphiti")
        names = [h.relationship.properties.get("rule_name") for h in hits]
        return [n for n in dict.fromkeys(names) if n][:5]

    async def like(query: str, product: str | None) -> list[str]:
        return facts.search(query)

    return {"ours (fused BM25+vector)": ours, "graphiti stock recipe": stock, "sqlite LIKE": like}


async def _score(
    ranker: Ranker, cases: Sequence[tuple[str, str | None, set[str]]]
) -> dict[str, Any]:
    hits1 = hits5 = 0
    mrr = 0.0
    latencies = []
    for query, product, expected in cases:
        began = time.perf_counter()
        names = await ranker(query, product)
        latencies.append((time.perf_counter() - began) * 1000)
        ranks = [i for i, n in enumerate(names, 1) if n in expected]
        hits1 += bool(ranks) and ranks[0] == 1
        hits5 += bool(ranks) and ranks[0] <= 5
        mrr += 1 / ranks[0] if ranks else 0.0
    n = len(cases) or 1
    return {
        "recall_at_1": hits1 / n,
        "recall_at_5": hits5 / n,
        "mrr": mrr / n,
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
    }


async def _facts(memory: GraphMemory, ns: Namespace) -> SqliteLike:
    edges = await memory.relationships(ns, relation="TRIGGERS")
    return SqliteLike([(e.properties.get("rule_name", ""), e.fact) for e in edges])


async def _timed(samples: Sequence[Any], call: Callable[[Any], Awaitable[Any]]) -> dict[str, Any]:
    latencies = []
    for item in samples:
        began = time.perf_counter()
        await call(item)
        latencies.append((time.perf_counter() - began) * 1000)
    return {
        q: percentile(latencies, p) for q, p in (("p50_ms", 50), ("p95_ms", 95), ("p99_ms", 99))
    }


def _submission(rule: ExtractedRule) -> dict[str, Any]:
    values: dict[str, Any] = {
        "product_type": "BOP" if rule.product_type == "ALL" else rule.product_type
    }
    for c in rule.conditions:
        values[c.field] = c.value + 1 if isinstance(c.value, int | float) else c.value
    return values


def _disk_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file())


async def bench_size(
    memory: GraphMemory, fields: DataDictionary, size: int, data_dir: Path
) -> dict[str, Any]:
    """Ingest `size` synthetic rules and measure writes, reads and footprint."""
    ns = Namespace.agent(f"bench-{size}")
    await memory.clear(ns)
    rules = generate_rules(fields, size)
    began = time.perf_counter()
    await ingest_rules(memory, ns, rules)
    ingest_s = time.perf_counter() - began
    rng = random.Random(size)
    sample = rng.sample(rules, min(SAMPLES, len(rules)))
    analytics = GraphAnalytics(memory, ns)
    cases = [(query_for(r), None, {r.rule_name}) for r in sample]
    quality = {
        name: await _score(rank, cases)
        for name, rank in _rankers(memory, ns, await _facts(memory, ns)).items()
    }
    info = await memory.db.client.connection.info("memory")
    return {
        "size": size,
        "ingest_rules_per_s": size / ingest_s,
        "check_risk_appetite": await _timed(
            [query_for(r) for r in sample], lambda q: analytics.check_risk_appetite(q, limit=5)
        ),
        "trace": await _timed([r.risk_factor for r in sample[:30]], analytics.trace),
        "decide": await _timed(
            [_submission(r) for r in sample[:30]],
            lambda s: decide_submission(memory, ns, s, fields),
        ),
        "alternatives": quality,
        "server_peak_mb": int(info.get("used_memory_peak", 0)) / 1e6,
        "process_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
        "disk_mb": _disk_bytes(data_dir) / 1e6,
    }


async def bench_dataset(memory: GraphMemory, dataset: Path) -> dict[str, Any]:
    """Retrieval quality and speed of each engine on a dataset folder's gold rules."""
    from agents.ingestion import load_rules

    ns = Namespace.agent("bench-dataset")
    await memory.clear(ns)
    await ingest_rules(memory, ns, load_rules(dataset / "rules.jsonl"))
    queries = [
        json.loads(line)
        for line in (dataset / "queries.jsonl").read_text().splitlines()
        if line.strip()
    ]
    cases = [(q["query"], q.get("product_type"), set(q["expected"])) for q in queries]
    facts = await _facts(memory, ns)
    return {name: await _score(rank, cases) for name, rank in _rankers(memory, ns, facts).items()}


async def run_bench(
    sizes: Sequence[int], data_dir: Path, dataset: Path | None, fields_path: Path | None
) -> dict[str, Any]:
    """Run every measurement in a fresh embedded database under `data_dir`."""
    fields = load_data_dictionary(fields_path)
    async with GraphMemory(Settings(ATHENA_DATA_DIR=data_dir)) as memory:
        results: dict[str, Any] = {"sizes": []}
        if dataset is not None:
            results["dataset"] = {"path": str(dataset), **await bench_dataset(memory, dataset)}
        for size in sizes:
            results["sizes"].append(await bench_size(memory, fields, size, data_dir))
    return results
