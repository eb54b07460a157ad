from pathlib import Path

from bench.report import write_report
from bench.run import SqliteLike
from bench.synthetic import generate_rules, query_for
from schemas.fields import load_data_dictionary


def test_synthetic_rules_use_the_data_dictionary_and_are_distinct() -> None:
    fields = load_data_dictionary()
    rules = generate_rules(fields, 300)
    assert len({r.rule_name for r in rules}) == 300
    for rule in rules:
        assert all(c.field in fields.fields for c in rule.conditions)
        assert set(rule.mitigant_fields) <= set(fields.boolean_fields())
        if rule.threshold_type == "soft":
            assert rule.soft_limit is not None and rule.soft_limit > rule.threshold.value
    assert generate_rules(fields, 5) == generate_rules(fields, 5)  # deterministic
    assert query_for(rules[0]).startswith(rules[0].risk_factor.lower())


def test_sqlite_like_ranks_by_words_matched() -> None:
    like = SqliteLike(
        [("A", "gas stations are referred"), ("B", "gas is fine"), ("C", "restaurants need hoods")]
    )
    assert like.search("gas stations referred") == ["A", "B"]
    assert like.search("to") == []


def test_report_has_every_table(tmp_path: Path) -> None:
    timing = {"p50_ms": 1.0, "p95_ms": 2.0, "p99_ms": 3.0}
    quality = {"recall_at_1": 1.0, "recall_at_5": 1.0, "mrr": 1.0, "p50_ms": 1.0, "p95_ms": 2.0}
    results = {
        "dataset": {"path": "dev", "ours (fused BM25+vector)": quality, "sqlite LIKE": quality},
        "sizes": [
            {
                "size": n,
                "ingest_rules_per_s": 100.0,
                "check_risk_appetite": timing,
                "trace": timing,
                "decide": timing,
                "server_peak_mb": 10.0,
                "process_peak_mb": 200.0,
                "disk_mb": 1.0,
                "alternatives": {
                    "ours (fused BM25+vector)": quality,
                    "graphiti stock recipe": quality,
                },
            }
            for n in (10, 100)
        ],
    }
    text = write_report(results, tmp_path, "athena bench --sizes 10,100").read_text()
    assert "## Quality on `dev`" in text and "| 100 | 100 |" in text
    assert "Side by side at 10 rules" in text and (tmp_path / "bench_latency.png").exists()
