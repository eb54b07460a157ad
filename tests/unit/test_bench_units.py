"""The benchmark helpers: synthetic rules, baselines, scoring, the report."""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.engines import OURS, STOCK, Bm25Facts, SqliteLike, score_names
from bench.report import write_report
from bench.synthetic import generate_rules, query_for
from schemas.fields import load_data_dictionary

ROOT = Path(__file__).parents[2]


def test_synthetic_rules_use_the_data_dictionary_and_are_distinct() -> None:
    fields = load_data_dictionary()
    rules = generate_rules(fields, 300)
    assert len({r.rule_name for r in rules}) == 300
    for rule in rules:
        assert all(c.field in fields.fields for c in rule.conditions)
        assert set(rule.mitigant_fields) <= set(fields.boolean_fields())
        if rule.threshold_type == "soft":
            assert rule.soft_limit is not None and rule.soft_limit > rule.threshold.value
    # The same rules in every run, whatever a process's hash seed: runs compare.
    here = [r.model_dump(mode="json") for r in generate_rules(fields, 40)]
    script = (
        "import json\nfrom bench.synthetic import generate_rules\n"
        "from schemas.fields import load_data_dictionary\n"
        "rules = generate_rules(load_data_dictionary(), 40)\n"
        "print(json.dumps([r.model_dump(mode='json') for r in rules]))"
    )
    for seed in ("0", "1"):
        elsewhere = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert json.loads(elsewhere.stdout) == here
    assert len({json.dumps(r["conditions"]) for r in here}) > 20  # not one rule repeated
    rule = rules[0]
    assert rule.threshold is not None
    query = query_for(rule)
    assert rule.risk_factor.lower() in query
    assert query.endswith(f"{rule.threshold.field.replace('_', ' ')} over {rule.threshold.value:g}")
    assert query.startswith(rule.product_type) != (rule.product_type == "ALL")


FACTS = [("A", "gas stations are referred"), ("B", "gas is fine"), ("C", "restaurants need hoods")]


def test_keyword_baselines_rank_by_the_words_matched() -> None:
    assert SqliteLike(FACTS).search("gas stations referred") == ["A", "B"]
    assert SqliteLike(FACTS).search("to") == []
    bm25 = Bm25Facts(FACTS)
    assert bm25.search("gas stations referred")[0] == "A"
    assert bm25.search("hoods") == ["C"]


def test_score_names() -> None:
    assert score_names(["x", "A"], {"A"}) == (False, True, 0.5)
    assert score_names(["A"], {"A"}) == (True, True, 1.0)
    assert score_names([], {"A"}) == (False, False, 0.0)


def test_report_has_every_table(tmp_path: Path) -> None:
    timing = {"p50_ms": 1.0, "p95_ms": 2.0, "p99_ms": 3.0}
    quality = {"recall_at_1": 1.0, "recall_at_5": 1.0, "mrr": 1.0, "queries": 3, **timing}
    engines = {OURS: quality, STOCK: {**quality, "p95_ms": 8.0}}
    results = {
        "datasets": [{"path": "dev", **engines}],
        "sizes": [
            {
                "size": n,
                "ingest_rules_per_s": 400.0,
                "check_risk_appetite": timing,
                "trace": timing,
                "decide": timing,
                "vector": {
                    "edges": 4 * n,
                    "exact": timing,
                    "hnsw": timing,
                    "fulltext": timing,
                    "hnsw_agreement_at_20": 0.99,
                },
                "server_peak_mb": 10.0,
                "process_peak_mb": 200.0,
                "disk_mb": 1.0,
                "alternatives": engines,
            }
            for n in (100, 10_000)
        ],
    }
    text = write_report(results, tmp_path, "athena bench --sizes 100,10000").read_text()
    assert "## Quality on `dev`" in text and "| 10000 | 400 |" in text
    assert "| check_risk_appetite p95 at 10k rules <= 20 ms | 2.0 | yes |" in text
    assert "4.00x" in text and "| 10000 | 40000 |" in text
    assert "Side by side at 100 rules" in text and (tmp_path / "bench_latency.png").exists()


def _bench_args(*argv: str) -> argparse.Namespace:
    from agents.commands import bench

    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers())
    return parser.parse_args(["bench", *argv])


def test_bench_shape_option() -> None:
    default = _bench_args()
    assert (default.shape, default.decisions, default.sizes) == ("wide", 200, "1000,10000")
    stress = _bench_args("--shape", "stress", "--sizes", "10000", "--decisions", "50")
    assert (stress.shape, stress.sizes, stress.decisions) == ("stress", "10000", 50)
    with pytest.raises(SystemExit):
        _bench_args("--shape", "tall")


def test_bench_stress_shape_goes_to_its_own_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.commands import bench

    run_stress = bench.run_stress
    called: list[str] = []
    monkeypatch.setattr(bench, "run_stress", lambda args: called.append(args.sizes) or 0)
    assert bench.run(_bench_args("--shape", "stress", "--sizes", "10000")) == 0
    assert called == ["10000"]
    with pytest.raises(ValueError, match="--sizes"):
        run_stress(_bench_args("--shape", "stress", "--sizes", "0"))


def _stress_row(size: int, query_p95: float, batch_p95: float) -> dict[str, Any]:
    return {
        "size": size,
        "command": f"athena bench --shape stress --sizes {size}",
        "current_rules": size // 2,
        "load_s": 12.34,
        "queries": {"wall_ms_p50": 5.0, "wall_ms_p95": query_p95},
        "in_process": {"cpu_ms_mean": 4.96, "load_before": 0.5},
        "cli": {
            "fired_rules_mean": 94.0,
            "latency_ms_p50": 5.66,
            "latency_ms_p95": batch_p95,
            "latency_ms_p99": 17.93,
            "cpu_ms_per_decision": 7.56,
        },
    }


def test_stress_section_rows_and_markers(tmp_path: Path) -> None:
    from bench.decide_cpu import STRESS_END, STRESS_START, fired_rules, stress_section
    from bench.report import write_section

    assert fired_rules(["[R1]: Fires: x > 1.", "[R2]: Does not fire.", "[R3]: Fires: y."]) == 2
    results = {
        "cores": 2,
        "decisions": 200,
        "sizes": [_stress_row(100_000, 11.0, 99.0), _stress_row(10_000, 2.0, 9.24)],
    }
    text = stress_section(results, "athena bench --shape stress --sizes 100000")
    assert text.startswith(STRESS_START) and text.endswith(STRESS_END)
    rows = [line for line in text.splitlines() if line.startswith("| 1")]
    assert rows == [
        "| 10000 | 5000 | 94.0 | 5.0 / 2.0 | yes | 5.7 / 9.2 / 17.9 | yes | 7.6 | 5.0 | 12.3 "
        "| 0.5 |",
        "| 100000 | 50000 | 94.0 | 5.0 / 11.0 | yes | 5.7 / 99.0 / 17.9 | **no** | 7.6 | 5.0 "
        "| 12.3 | 0.5 |",
    ]
    header = next(line for line in text.splitlines() if line.startswith("| claims"))
    assert header.count("|") == rows[0].count("|")
    assert "`athena bench --shape stress --sizes 10000` and `athena bench --shape" in text
    report = tmp_path / "benchmarks.md"
    report.write_text("# Benchmarks\n\nabove\n")
    write_section(report, text, STRESS_START, STRESS_END)
    write_section(report, stress_section({**results, "sizes": results["sizes"][1:]}, "x"),
                  STRESS_START, STRESS_END)  # fmt: skip
    again = report.read_text()
    assert again.count(STRESS_START) == 1 and "| 100000 |" not in again and "above" in again
