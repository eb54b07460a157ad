"""Write the benchmark results as markdown tables and a latency plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _alternatives(rows: dict[str, Any]) -> list[str]:
    ours = next(iter(rows.values()))
    lines = [
        "| engine | recall@1 | recall@5 | MRR | p50 ms | p95 ms | p95 vs ours |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in rows.items():
        ratio = r["p95_ms"] / ours["p95_ms"] if ours["p95_ms"] else 0.0
        lines.append(
            f"| {name} | {r['recall_at_1']:.3f} | {r['recall_at_5']:.3f} | "
            f"{r['mrr']:.3f} | {_ms(r['p50_ms'])} | {_ms(r['p95_ms'])} | {ratio:.1f}x |"
        )
    return lines


def _plot(results: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [s["size"] for s in results["sizes"]]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for op in ("check_risk_appetite", "trace", "decide"):
        ax.plot(sizes, [s[op]["p95_ms"] for s in results["sizes"]], marker="o", label=f"{op} p95")
    stock = [s["alternatives"]["graphiti stock recipe"]["p95_ms"] for s in results["sizes"]]
    ax.plot(sizes, stock, marker="x", linestyle="--", label="graphiti stock search p95")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rules")
    ax.set_ylabel("ms")
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def write_report(results: dict[str, Any], out_dir: Path, command: str) -> Path:
    """Write `benchmarks.md` (and `bench_latency.png`) into `out_dir`; return the md path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Benchmarks",
        "",
        f"Produced by `{command}` on a 2-core machine, embedded "
        "FalkorDB, offline WordLlama embeddings. Latencies are wall-clock per call.",
        "",
    ]
    if "dataset" in results:
        data = dict(results["dataset"])
        lines += [f"## Quality on `{data.pop('path')}` (gold rules)", "", *_alternatives(data), ""]
    lines += [
        "## Scale (synthetic rules from the data dictionary)",
        "",
        "| rules | ingest rules/s | check_risk_appetite p50/p95/p99 ms | trace p95 ms | "
        "decide p50/p95 ms | server peak MB | process peak MB | disk MB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in results["sizes"]:
        c, d = s["check_risk_appetite"], s["decide"]
        lines.append(
            f"| {s['size']} | {s['ingest_rules_per_s']:.0f} | {_ms(c['p50_ms'])} / "
            f"{_ms(c['p95_ms'])} / {_ms(c['p99_ms'])} | {_ms(s['trace']['p95_ms'])} | "
            f"{_ms(d['p50_ms'])} / {_ms(d['p95_ms'])} | {s['server_peak_mb']:.0f} | "
            f"{s['process_peak_mb']:.0f} | {s['disk_mb']:.1f} |"
        )
    for s in results["sizes"]:
        lines += [
            "",
            f"### Side by side at {s['size']} rules (query = risk factor + field)",
            "",
            *_alternatives(s["alternatives"]),
        ]
    if results["sizes"]:
        _plot(results, out_dir / "bench_latency.png")
        lines += ["", "![p95 latency by size](bench_latency.png)"]
    path = out_dir / "benchmarks.md"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path
