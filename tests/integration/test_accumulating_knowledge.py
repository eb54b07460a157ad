"""Knowledge that accumulates, as a user runs it: texts and claims through `athena`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memory import Namespace
from tests.processes import athena

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
CONSOLIDATION = ROOT.parent / "shared" / "datasets" / "consolidation" / "dev"
BLIND3 = ROOT / "agents" / "data" / "consolidation" / "blind3"
THREE_TEXTS = [
    {
        "id": "manual",
        "text": "BOP submissions with more than 20 employees are declined.",
        "source": "BOP Manual 2023",
        "source_type": "manual",
        "date": "2023-03-01",
    },
    {
        "id": "sme",
        "text": "The 20 employee cap is a guideline. We have signed off up to 23 employees "
        "when the business is well established. Anything above 23 is still declined.",
        "source": "SME Interview: J. Doe",
        "source_type": "sme",
        "date": "2024-06-10",
    },
    {
        "id": "log",
        "text": "Submission BOP-2024-118: 22 employees, approved by the senior underwriter.",
        "source": "Production decision log Q3 2024",
        "source_type": "production",
        "date": "2024-09-15",
    },
]


def ok(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def decide(data_dir: Path, ns: str, tmp: Path, employees: int, *extra: str) -> Any:
    path = tmp / f"s{employees}.json"
    path.write_text(json.dumps({"product_type": "BOP", "employee_count": employees}))
    return ok(athena(data_dir, "decide", str(path), "--namespace", ns, "--json", *extra))


def test_a_manual_an_interview_and_a_log_end_as_one_soft_rule(
    falkordb_dir: Path, tmp_path: Path
) -> None:
    ns = str(Namespace.agent("three-texts"))
    texts = jsonl(tmp_path / "knowledge.jsonl", THREE_TEXTS)
    report = ok(athena(falkordb_dir, "ingest", str(texts), "--namespace", ns, "--json"))
    assert not any("no rules found" in w for w in report["warnings"])  # the log was heard
    [rule] = ok(athena(falkordb_dir, "export", "--namespace", ns))["rules"]
    assert (rule["action"], rule["threshold_type"], rule["soft_limit"]) == ("decline", "soft", 23)
    assert rule["conditions"] == [{"field": "employee_count", "operator": "gt", "value": 20}]
    assert [s["text_id"] for s in rule["sources"]] == ["manual", "sme", "log"]
    assert [s["date"] for s in rule["sources"]] == ["2023-03-01", "2024-06-10", "2024-09-15"]
    assert rule["valid_from"] == "2024-09-15" and rule["valid_to"] is None

    soft_zone = decide(falkordb_dir, ns, tmp_path, 22)
    assert soft_zone["decision"] == "refer"
    [cited] = soft_zone["cited_rules"]
    assert cited["rule_name"] == rule["rule_name"] and len(cited["sources"]) == 3
    assert decide(falkordb_dir, ns, tmp_path, 25)["decision"] == "decline"
    # Before the interview the limit was hard: 22 employees were declined.
    assert decide(falkordb_dir, ns, tmp_path, 22, "--as-of", "2024-01-01")["decision"] == (
        "decline"
    )
    # Its history, as a person reads it.
    trace = athena(falkordb_dir, "trace", "employee count", "--namespace", ns, "--history")
    assert trace.returncode == 0, trace.stderr
    assert "2023-03-01 -> 2024-06-10: decline when employee_count gt 20 (hard)" in trace.stdout
    assert "2024-06-10 -> 2024-09-15" in trace.stdout and "soft limit 23" in trace.stdout

    # Ingesting every text again changes nothing.
    exported = ok(athena(falkordb_dir, "export", "--namespace", ns))
    ok(athena(falkordb_dir, "ingest", str(texts), "--namespace", ns, "--json"))
    assert ok(athena(falkordb_dir, "export", "--namespace", ns)) == exported


def claim(text_id: str, date: str, **update: Any) -> dict[str, Any]:
    """A claims.jsonl line: a GL headcount rule as one text states it."""
    limit = update.pop("limit", 50)
    base = {
        "text_id": text_id,
        "date": date,
        "rule_name": f"Headcount limit per {text_id}",
        "risk_factor": "Employee Count",
        "risk_category": "eligibility",
        "product_type": "GL",
        "action": "refer",
        "source": f"Document {text_id}",
        "source_type": "manual",
        "threshold": {"field": "employee_count", "operator": "gt", "value": limit},
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": limit}],
    }
    return {**base, **update}


def test_amendments_retirements_and_products_through_claims(
    falkordb_dir: Path, tmp_path: Path
) -> None:
    ns = str(Namespace.agent("claims-lifecycle"))
    rows = [
        claim("gl-manual", "2023-01-01"),
        claim("bop-manual", "2023-01-01", product_type="BOP", limit=25, action="decline"),
        claim("bulletin", "2024-07-01", limit=60, source_type="compliance"),
        claim("lifted", "2025-03-01", limit=60, source_type="compliance", withdrawn=True),
    ]
    for row in rows:  # one text at a time, as texts arrive
        path = jsonl(tmp_path / f"{row['text_id']}.jsonl", [row])
        ok(athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", ns, "--json"))
    # The BOP rule never merges with the GL one; the GL one was amended, then withdrawn.
    current = ok(athena(falkordb_dir, "export", "--namespace", ns))["rules"]
    assert [(r["product_type"], r["rule_name"]) for r in current] == [
        ("BOP", "Headcount limit per bop-manual")
    ]
    gl = {"product_type": "GL", "employee_count": 55}
    sub = tmp_path / "gl.json"
    sub.write_text(json.dumps(gl))

    def gl_decision(as_of: str | None) -> str:
        extra = ("--as-of", as_of) if as_of else ()
        args = ("decide", str(sub), "--namespace", ns, "--json", *extra)
        return str(ok(athena(falkordb_dir, *args))["decision"])

    assert gl_decision("2024-01-01") == "refer"  # over 50, before the bulletin
    assert gl_decision("2024-08-01") == "approve"  # the bulletin moved the limit to 60
    assert gl_decision(None) == "approve"  # withdrawn: the rule no longer fires
    then = ok(athena(falkordb_dir, "export", "--namespace", ns, "--as-of", "2024-08-01"))
    [gl_then] = [r for r in then["rules"] if r["product_type"] == "GL"]
    assert gl_then["conditions"][0]["value"] == 60
    assert [s["text_id"] for s in gl_then["sources"]] == ["gl-manual", "bulletin"]
    assert (gl_then["valid_from"], gl_then["valid_to"]) == ("2024-07-01", "2025-03-01")
    # A batch line's own as_of is honoured.
    batch = jsonl(
        tmp_path / "batch.jsonl",
        [{"id": "then", "submission": gl, "as_of": "2024-01-01"}, {"id": "now", "submission": gl}],
    )
    done = athena(falkordb_dir, "decide", "--batch", str(batch), "--namespace", ns)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(line["id"], line["decision"]) for line in lines] == [
        ("then", "refer"),
        ("now", "approve"),
    ]
    bad = athena(falkordb_dir, "decide", str(sub), "--namespace", ns, "--as-of", "last May")
    assert bad.returncode == 2 and "ISO day" in bad.stderr


def test_a_withdrawal_heard_before_the_rule_it_ends(falkordb_dir: Path, tmp_path: Path) -> None:
    ns = str(Namespace.agent("withdrawn-first"))
    rows = [  # the 2025 bulletin is ingested before the 2023 manual it withdraws from
        claim("lifted", "2025-03-01", source_type="compliance", withdrawn=True),
        claim("gl-manual", "2023-01-01"),
    ]
    for row in rows:
        path = jsonl(tmp_path / f"{row['text_id']}.jsonl", [row])
        ok(athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", ns, "--json"))
    assert ok(athena(falkordb_dir, "export", "--namespace", ns))["rules"] == []
    [then] = ok(athena(falkordb_dir, "export", "--namespace", ns, "--as-of", "2024-01-01"))["rules"]
    assert (then["rule_name"], then["valid_from"], then["valid_to"]) == (
        "Headcount limit per gl-manual",
        "2023-01-01",
        "2025-03-01",
    )
    on_the_day = ok(athena(falkordb_dir, "export", "--namespace", ns, "--as-of", "2025-03-01"))
    assert on_the_day["rules"] == []  # the withdrawal alone is never a rule in force
    again = jsonl(tmp_path / "again.jsonl", [rows[0]])  # heard again: nothing changes
    ok(athena(falkordb_dir, "ingest", str(again), "--rules", "--namespace", ns, "--json"))
    assert ok(athena(falkordb_dir, "export", "--namespace", ns))["rules"] == []
    assert ok(athena(falkordb_dir, "export", "--namespace", ns, "--as-of", "2024-01-01"))[
        "rules"
    ] == [then]


@pytest.mark.skipif(not CONSOLIDATION.is_dir(), reason="consolidation dev set not beside")
def test_conflicts_are_listed_and_noted_on_decisions(falkordb_dir: Path, tmp_path: Path) -> None:
    ns = str(Namespace.agent("conflicts"))
    fields = str(CONSOLIDATION / "fields.json")
    claims = str(CONSOLIDATION / "claims.jsonl")
    ok(athena(falkordb_dir, "ingest", claims, "--rules", "--namespace", ns, "--fields", fields,
              "--json"))  # fmt: skip
    listed = ok(athena(falkordb_dir, "conflicts", "--namespace", ns, "--json"))
    expected = [json.loads(line) for line in (CONSOLIDATION / "conflicts.jsonl").open()]
    assert sorted(sorted(c["text_ids"]) for c in listed) == sorted(
        sorted(c["text_ids"]) for c in expected
    )
    assert all(c["fields"] and len(c["rules"]) == 2 for c in listed)
    text = athena(falkordb_dir, "conflicts", "--namespace", ns)
    assert "they disagree on" in text.stdout
    # A decision that fires a rule in conflict says so.
    liquor = [c for c in listed if "liquor_sales_pct" in c["fields"]][0]
    sub = tmp_path / "bar.json"
    sub.write_text(json.dumps({"product_type": "GL", "liquor_sales_pct": 55}))
    decision = ok(
        athena(falkordb_dir, "decide", str(sub), "--namespace", ns, "--fields", fields, "--json")
    )
    assert decision["decision"] == "decline"  # both fire: the more severe applies
    assert any("open conflict" in n and liquor["rules"][0] in n for n in decision["notes"])


def test_a_settled_conflict_is_listed_with_all(falkordb_dir: Path) -> None:
    """blind3 holds a conflict a later bulletin settled and one left open."""
    ns = str(Namespace.agent("settled"))
    fields = str(BLIND3 / "fields.json")
    ok(athena(falkordb_dir, "ingest", str(BLIND3 / "claims.jsonl"), "--rules", "--namespace", ns,
              "--fields", fields, "--json"))  # fmt: skip
    gold = [json.loads(line) for line in (BLIND3 / "conflicts.jsonl").open()]
    texts = {frozenset(g["text_ids"]) for g in gold}
    listed = ok(athena(falkordb_dir, "conflicts", "--namespace", ns, "--json"))
    everything = ok(athena(falkordb_dir, "conflicts", "--all", "--namespace", ns, "--json"))
    assert {frozenset(c["text_ids"]) for c in everything} == texts
    assert len(listed) == 1 and frozenset(listed[0]["text_ids"]) in texts
    status = {frozenset(c["text_ids"]): c["status"] for c in everything}
    assert sorted(status.values()) == ["open", "settled"]
    assert status[frozenset(listed[0]["text_ids"])] == "open"
    text = athena(falkordb_dir, "conflicts", "--all", "--namespace", ns)
    assert text.stdout.count("settled since") == 1


def test_a_set_scores_the_same_in_any_namespace(falkordb_dir: Path) -> None:
    """The same texts in two namespaces end as the same rules and the same decisions.

    Stored rules are keyed by uuids of their namespace; the claims they were derived from
    must not fold in key order (blind45 scored 0.68 or 0.80 as of, by namespace name).
    """
    blind45 = ROOT / "agents" / "data" / "consolidation" / "blind45"
    runs = [
        ok(
            athena(
                falkordb_dir,
                "eval",
                str(blind45),
                "--mode",
                "extract",
                "--json",
                "--namespace",
                f"agent:eval-{name}",
            )
        )  # fmt: skip
        for name in ("x1", "x2")
    ]
    first, second = ({k: r[k] for k in ("consolidation", "decisions")} for r in runs)
    assert first == second


SUBCONTRACT_FIELDS = {
    "fields": {
        "product_type": {"type": "str", "synonyms": ["product"], "description": "BOP, GL"},
        "uncovered_subtrade_payroll_pct": {
            "type": "float",
            "unit": "percent",
            "synonyms": ["uninsured sub share", "labor paid to subs without certificates"],
            "description": "Share of labor cost paid to subcontractors with no certificate of "
            "insurance on file, in percent (20% is 20)",
        },
    }
}
SUBCONTRACT_RULES = [
    {
        "id": "guide",
        "text": "GL: where more than 40% of labor is paid to subs without certificates, the "
        "submission is declined.",
        "source": "GL Contractor Guide",
        "source_type": "manual",
        "date": "2023-03-13",
    },
    {
        "id": "bulletin",
        "text": "On every line we write: if more than 20% of labor is paid to subs without "
        "certificates, verify their coverage before binding.",
        "source": "Compliance Bulletin CB-23-07",
        "source_type": "compliance",
        "date": "2023-06-19",
    },
]
SUBCONTRACT_NOTE = {
    "id": "note",
    "text": "Item 3 of the 40-point desk checklist. The all-lines certificate check: above "
    "one-fifth of labor paid to subs without certificates, verify before binding.",
    "source": "Training Note TN-25-02",
    "source_type": "training",
    "date": "2025-02-10",
}


def test_a_later_note_on_the_all_lines_rule_is_not_given_another_products_rule(
    falkordb_dir: Path, tmp_path: Path
) -> None:
    # The note names no product, says its limit as a fraction and shares a figure (40)
    # with the GL rule: the stored rule for every line on its field is what it restates.
    ns = str(Namespace.agent("all-lines-note"))
    fields = tmp_path / "fields.json"
    fields.write_text(json.dumps(SUBCONTRACT_FIELDS), "utf-8")
    for name, rows in (("first", SUBCONTRACT_RULES), ("later", [SUBCONTRACT_NOTE])):
        texts = jsonl(tmp_path / f"{name}.jsonl", rows)
        ok(athena(falkordb_dir, "ingest", str(texts), "--namespace", ns, "--fields", str(fields),
                  "--json"))  # fmt: skip
    rules = ok(athena(falkordb_dir, "export", "--namespace", ns))["rules"]
    told = {(r["product_type"], r["action"]): [s["text_id"] for s in r["sources"]] for r in rules}
    assert told == {("GL", "decline"): ["guide"], ("ALL", "verify"): ["bulletin", "note"]}
