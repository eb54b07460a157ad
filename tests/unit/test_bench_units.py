"""The benchmark helpers: synthetic rules, baselines, scoring, the report."""

import json
import os
import subprocess
import sys
from pathlib import Path

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
