"""Measure ingest throughput, retrieval latency and quality, ours against alternatives."""

from __future__ import annotations

import asyncio
import json
import random
import resource
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from agents.eval_run import evaluate_decisions, percentile
from agents.ingestion import ingest_rules, load_rules
from agents.jsonl import read_objects
from agents.underwriting.service import decide_submission
from bench.engines import Ranker, SqliteLike, rankers, rule_facts, score_names
from bench.learning import bench_learning
from bench.lifecycle import bench_restart, bench_startup
from bench.synthetic import generate_rules, query_for
from bench.writepath import bench_decide_wide, bench_ingest_paths, vector_ready
from memory import GraphMemory, Namespace, Settings
from memory.embedders import embed_async
from memory.search import lexical_index, ranking
from memory.underwriting import GraphAnalytics
from schemas.fields import DataDictionary, load_data_dictionary
from schemas.rules import ExtractedRule

SAMPLES = 100
# Graphiti's recipes scan every edge (about 1 s a query at 10k rules, 10 s at 100k):
# above SLOW_FROM rules every engine is compared on the first SLOW_SAMPLES queries.
SLOW_SAMPLES = 20
SLOW_FROM = 10_000


def _path_samples(size: int) -> int:
    """Calls of trace / decide measured (each is a whole graph run, so fewer at 100k)."""
    return 50 if size <= 10_000 else 30


ANN_TOP = 20
Progress = Callable[[dict[str, Any]], None]

__all__ = ["SqliteLike", "bench_dataset", "bench_size", "run_bench"]


def _latency(values: Sequence[float]) -> dict[str, float | None]:
    return {f"p{q}_ms": percentile(values, q) for q in (50, 95, 99)}


async def _score(
    ranker: Ranker, cases: Sequence[tuple[str, str | None, set[str]]]
) -> dict[str, Any]:
    hits1 = hits5 = failed = 0
    mrr = 0.0
    latencies = []
    error = None
    for query, product, expected in cases:
        began = time.perf_counter()
        try:
            names = await ranker(query, product)
        except Exception as exc:  # e.g. a server time limit: a miss, reported beside recall
            names, failed, error = [], failed + 1, f"{type(exc).__name__}: {exc}"[:200]
        latencies.append((time.perf_counter() - began) * 1000)
        one, five, rr = score_names(names, expected)
        hits1, hits5, mrr = hits1 + one, hits5 + five, mrr + rr
    n = len(cases) or 1
    return {
        "recall_at_1": hits1 / n,
        "recall_at_5": hits5 / n,
        "mrr": mrr / n,
        "queries": len(cases),
        "failed": failed,
        "error": error,
        **_latency(latencies),
    }


async def _compare(
    memory: GraphMemory, ns: Namespace, cases: Sequence[tuple[str, str | None, set[str]]]
) -> dict[str, Any]:
    """Every engine on the same cases."""
    engines = rankers(memory, ns, await rule_facts(memory, ns))
    return {name: await _score(rank, cases) for name, rank in engines.items()}


async def _timed(samples: Sequence[Any], call: Callable[[Any], Awaitable[Any]]) -> dict[str, Any]:
    latencies = []
    for item in samples:
        began = time.perf_counter()
        await call(item)
        latencies.append((time.perf_counter() - began) * 1000)
    return _latency(latencies)


async def bench_vector(
    memory: GraphMemory, ns: Namespace, queries: Sequence[str]
) -> dict[str, Any]:
    """Exact (brute force) against HNSW top-k: latency of each and their agreement."""
    db, group = memory.db, ns.group_id
    filters = ranking.Filters()
    exact_ms, ann_ms, text_ms, lexical_ms, agree = [], [], [], [], []
    for query in queries:
        [vector] = await embed_async(memory.embedder, [query])
        began = time.perf_counter()
        [exact] = await ranking.exact_vector_ids(db, group, [vector], ANN_TOP, filters)
        exact_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        [ann] = await ranking.ann_vector_ids(db, group, [vector], ANN_TOP, filters)
        ann_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await ranking.fulltext_ids(db, group, query, ANN_TOP * 4, filters)
        text_ms.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        await ranking.lexical_ids(db, group, [query], ANN_TOP * 4, filters)
        lexical_ms.append((time.perf_counter() - began) * 1000)
        agree.append(len(set(exact) & set(ann)) / len(exact) if exact else 1.0)
    return {
        "edges": len(await lexical_index(db, group, filters.partition_property, filters.wildcard)),
        "exact": _latency(exact_ms),
        "hnsw": _latency(ann_ms),
        "fulltext": _latency(text_ms),
        "lexical": _latency(lexical_ms),
        "hnsw_agreement_at_20": sum(agree) / (len(agree) or 1),
    }


def _submission(rule: ExtractedRule) -> dict[str, Any]:
    values: dict[str, Any] = {
        "product_type": "BOP" if rule.product_type == "ALL" else rule.product_type
    }
    for c in rule.conditions:
        values[c.field] = c.value + 1 if isinstance(c.value, int | float) else c.value
    return values


async def _settle(memory: GraphMemory, limit_s: float = 600.0) -> float:
    """Wait until the server is not rewriting its AOF or saving a snapshot; return seconds.

    A large ingest triggers a background rewrite (a forked child busy on one of the two
    cores): reads measured meanwhile would report the machine's load, not retrieval.
    """
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        info = await memory.db.client.connection.info("persistence")
        if not (info.get("aof_rewrite_in_progress") or info.get("rdb_bgsave_in_progress")):
            break
        await asyncio.sleep(1.0)
    return time.perf_counter() - began


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
    sample = random.Random(size).sample(rules, min(SAMPLES, len(rules)))
    analytics = GraphAnalytics(memory, ns)
    # The first read after a bulk load builds the in-process indexes (BM25, conditions).
    began = time.perf_counter()
    await analytics.check_risk_appetite(query_for(sample[0]), limit=5)
    await analytics.rule_count()
    rebuild_s = time.perf_counter() - began
    settle_s = await _settle(memory)
    # A first bulk load builds the HNSW index in the background: reads are measured with it.
    vector_s = await vector_ready(memory, ns)
    cases = [(query_for(r), None, {r.rule_name}) for r in sample]
    slow = SLOW_SAMPLES if size > SLOW_FROM else SAMPLES
    paths = _path_samples(size)
    result = {
        "size": size,
        "ingest_rules_per_s": size / ingest_s,
        "ingest_s": ingest_s,
        "index_rebuild_s": rebuild_s,
        "persistence_settle_s": settle_s,
        "vector_index_ready_after_s": vector_s,
        "samples": {"queries": len(sample), "compared": min(slow, len(sample)), "paths": paths},
        "check_risk_appetite": await _timed(
            [query_for(r) for r in sample], lambda q: analytics.check_risk_appetite(q, limit=5)
        ),
        "trace": await _timed([r.risk_factor for r in sample[:paths]], analytics.trace),
        "decide": await _timed(
            [_submission(r) for r in sample[:paths]],
            lambda s: decide_submission(memory, ns, s, fields),
        ),
        "vector": await bench_vector(memory, ns, [q for q, _, _ in cases[: min(50, slow)]]),
        "alternatives": await _compare(memory, ns, cases[:slow]),
    }
    result["learning"] = await bench_learning(memory, ns, sample, fields, data_dir, _submission)
    info = await memory.db.client.connection.info("memory")
    result.update(
        server_peak_mb=int(info.get("used_memory_peak", 0)) / 1e6,
        process_peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3,
        disk_mb=_disk_bytes(data_dir) / 1e6,
    )
    # The write path at scale (issue 13): decisions on wide submissions, ingest by path
    # and source shape, fresh processes, restarts.
    result["decide_wide"] = await bench_decide_wide(memory, ns, rules, fields)
    result["write_path"] = await bench_ingest_paths(memory, rules, data_dir)
    result["startup"] = bench_startup(data_dir, ns, sample[0], query_for(sample[0]))
    result["restart"] = await bench_restart(memory, data_dir, ns, sample[1], query_for(sample[1]))
    return result


async def bench_dataset(memory: GraphMemory, dataset: Path) -> dict[str, Any]:
    """Retrieval quality of each engine and decision accuracy on a dataset's gold rules."""
    ns = Namespace.agent("bench-dataset")
    await memory.clear(ns)
    gold = load_rules(dataset / "rules.jsonl")
    await ingest_rules(memory, ns, gold)
    queries = read_objects(dataset / "queries.jsonl")
    cases = [(q["query"], q.get("product_type"), set(q["expected"])) for q in queries]
    result: dict[str, Any] = {"path": str(dataset), **await _compare(memory, ns, cases)}
    submissions = dataset / "submissions.jsonl"
    if submissions.is_file():
        fields_path = dataset / "fields.json"
        fields = load_data_dictionary(fields_path if fields_path.is_file() else None)
        aliases = {r.rule_name: {r.rule_name} for r in gold}
        summary, latencies = await evaluate_decisions(
            memory, ns, read_objects(submissions), fields, aliases
        )
        result["decisions"] = {
            "submissions": summary["submissions"],
            "accuracy": summary["accuracy"],
            "cited_rule_recall": summary["cited_rule_recall"],
            **_latency(latencies),
        }
    return result


async def run_bench(
    sizes: Sequence[int],
    data_dir: Path,
    datasets: Sequence[Path],
    fields_path: Path | None,
    on_result: Progress | None = None,
) -> dict[str, Any]:
    """Run every measurement in a fresh embedded database under `data_dir`.

    `on_result` gets the results so far after each dataset and size (long runs keep them).
    """
    fields = load_data_dictionary(fields_path)
    results: dict[str, Any] = {"datasets": [], "sizes": []}
    async with GraphMemory(Settings(ATHENA_DATA_DIR=data_dir)) as memory:
        for dataset in datasets:
            results["datasets"].append(await bench_dataset(memory, dataset))
            if on_result is not None:
                on_result(results)
        for size in sizes:
            results["sizes"].append(await bench_size(memory, fields, size, data_dir))
            if on_result is not None:
                on_result(results)
    return results


def save(results: dict[str, Any], path: Path) -> None:
    """Write raw results as JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2))
