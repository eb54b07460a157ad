"""`athena visualize --rule NAME | --risk NAME` run as a user runs it, over the dev set.

The dev set's rules are ingested once (`athena ingest rules.jsonl --rules`) into a
namespace of this module on the session's server; each test then runs `athena
visualize` in a fresh process and reads the file it wrote. What a view must hold comes
from the dataset's rules: their risk factor, action (the outcome), mitigants and source.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memory.model.keys import normalise_name
from memory.underwriting import OUTCOME_NAMES
from tests.processes import athena

pytestmark = pytest.mark.integration

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_FOREIGN = ("FALKORDB_URL", "FALKORDB_READ_URLS", "OPENAI_API_KEY", "OPENAI_BASE_URL")


@dataclass(frozen=True)
class Ingested:
    """A namespace on the session's server holding every dev-set rule."""

    data_dir: Path
    namespace: str
    rules: list[dict[str, Any]]

    def of_risk(self, risk: str) -> list[dict[str, Any]]:
        """The dataset's rules of a risk factor (names folded as the graph folds them)."""
        return [r for r in self.rules if normalise_name(r["risk_factor"]) == normalise_name(risk)]


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """A user's environment: no model API, no outside database (module-wide)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in _FOREIGN:
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(scope="module")
def ingested(falkordb_dir: Path, dev_set: Path, offline: None) -> Ingested:
    """`athena ingest rules.jsonl --rules --namespace NS` of the whole dev set."""
    namespace = f"agent:focused-{uuid.uuid4().hex[:8]}"
    done = athena(
        falkordb_dir, "ingest", str(dev_set / "rules.jsonl"), "--rules", "--namespace", namespace
    )
    assert done.returncode == 0, done.stderr
    rules = [json.loads(line) for line in (dev_set / "rules.jsonl").open() if line.strip()]
    return Ingested(falkordb_dir, namespace, rules)


def visualize(ingested: Ingested, *args: str) -> Any:
    """Run `athena visualize ARGS --namespace NS`."""
    return athena(ingested.data_dir, "visualize", *args, "--namespace", ingested.namespace)


def elements(page: str) -> list[dict[str, Any]]:
    """The cytoscape elements a page holds."""
    found = re.search(r"const elements = (\[.*?\]), style = ", page, re.S)
    assert found, "no elements in the page"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def by_kind(page: str) -> dict[str, set[str]]:
    """Node labels of a page, by kind."""
    kinds: dict[str, set[str]] = {}
    for e in elements(page):
        if "kind" in e["data"]:
            kinds.setdefault(e["data"]["kind"], set()).add(e["data"]["label"])
    return kinds


def a_risk_with_rules(ingested: Ingested, at_least: int) -> str:
    """A risk factor of the dataset with at least `at_least` rules."""
    counts: dict[str, int] = {}
    for r in ingested.rules:
        counts[r["risk_factor"]] = counts.get(r["risk_factor"], 0) + 1
    return next(risk for risk, n in sorted(counts.items()) if n >= at_least)


def test_a_rule_view_as_png_and_as_json_summary(ingested: Ingested, tmp_path: Path) -> None:
    rule = next(r for r in ingested.rules if len(r["mitigants"]) >= 2)
    out = tmp_path / "rule.png"
    done = visualize(ingested, "--rule", rule["rule_name"].upper(), "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["path"] == str(out) and summary["left_off"] == 0
    # The rule, its risk factor, its outcome, its mitigants and its source: nothing else.
    assert summary["nodes"] == 1 + 1 + 1 + len(set(rule["mitigants"])) + 1
    assert summary["edges"] == 1 + 1 + len(set(rule["mitigants"])) + 1
    assert "hint:" not in done.stderr
    data = out.read_bytes()
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width > height > 150, (width, height)  # one row of columns, read left to right


def test_a_rule_view_as_html_names_its_outcome_source_and_mitigants(
    ingested: Ingested, tmp_path: Path
) -> None:
    rule = next(r for r in ingested.rules if r["mitigants"])
    out = tmp_path / "rule.html"
    done = visualize(ingested, "--rule", rule["rule_name"], "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    kinds = by_kind(out.read_text("utf-8"))
    assert kinds == {
        "Rule": {rule["rule_name"]},
        "RiskFactor": {rule["risk_factor"]},
        "Outcome": {OUTCOME_NAMES[rule["action"]]},
        "Mitigant": set(rule["mitigants"]),
        "Source": {rule["source"]},
    }


def test_a_risk_view_as_html_holds_its_rules_outcomes_and_sources(
    ingested: Ingested, tmp_path: Path
) -> None:
    risk = a_risk_with_rules(ingested, 2)
    expected = ingested.of_risk(risk)
    out = tmp_path / "risk.html"
    done = visualize(ingested, "--risk", risk.swapcase(), "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text("utf-8")
    assert page.lower().startswith("<!doctype html") and "cytoscape" in page
    assert not re.search(r"<script[^>]*\bsrc\s*=", page, re.I)
    kinds = by_kind(page)
    assert kinds["RiskFactor"] >= {risk}
    assert kinds["Rule"] == {r["rule_name"] for r in expected}  # no other risk's rules
    assert kinds["Outcome"] == {OUTCOME_NAMES[r["action"]] for r in expected}
    assert kinds["Source"] == {r["source"] for r in expected}
    assert kinds.get("Mitigant", set()) == {m for r in expected for m in r["mitigants"]}
    others = [r["rule_name"] for r in ingested.rules if r not in expected]
    assert not [name for name in others if json.dumps(name) in page]
    assert risk in page  # the title names the risk as stored


def test_a_risk_view_keeps_to_its_limit_and_says_how_many_were_left_off(
    ingested: Ingested, tmp_path: Path
) -> None:
    risk = a_risk_with_rules(ingested, 2)
    rules = len(ingested.of_risk(risk))
    out = tmp_path / "one.html"
    done = visualize(ingested, "--risk", risk, "--limit", "1", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out} ({rules - 1} more rules left off; raise --limit)\n"
    page = out.read_text("utf-8")
    assert len(by_kind(page)["Rule"]) == 1
    assert f"+ {rules - 1} more rules not shown" in page


def test_unknown_names_exit_non_zero_and_name_the_bad_value(
    ingested: Ingested, tmp_path: Path
) -> None:
    out = tmp_path / "nothing.png"
    done = visualize(ingested, "--rule", "No Such Rule 7731", "-o", str(out))
    assert done.returncode == 2
    assert done.stderr.startswith("athena visualize: error: no rule named 'No Such Rule 7731'")
    assert not out.exists()
    risk = a_risk_with_rules(ingested, 1)
    typo = risk[:-1]  # a risk factor's name without its last letter
    done = visualize(ingested, "--risk", typo, "-o", str(out))
    assert done.returncode == 2
    assert f"no risk factor named {typo!r}" in done.stderr
    assert repr(risk) in done.stderr  # the close name it probably meant
    assert not out.exists()
    done = visualize(ingested, "--rule", "x", "--risk", "y")
    assert done.returncode == 2 and "not allowed with" in done.stderr


def test_without_a_focus_the_whole_graph_is_drawn_with_a_hint(
    ingested: Ingested, tmp_path: Path
) -> None:
    out = tmp_path / "whole.html"
    done = visualize(ingested, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    assert "--risk" in done.stderr and "--rule" in done.stderr
    page = out.read_text("utf-8")
    assert all(r["rule_name"] in page for r in ingested.rules[:5])


def claim(text_id: str, date: str, **update: Any) -> dict[str, Any]:
    """One text's headcount rule (what `athena ingest --rules` reads as a claim)."""
    base = {
        "text_id": text_id,
        "date": date,
        "rule_name": f"Crew cap per {text_id}",
        "risk_factor": "Crew Headcount",
        "risk_category": "eligibility",
        "product_type": "GL",
        "action": "refer",
        "source": f"Document {text_id}",
        "source_type": "manual",
        "threshold": {"field": "employee_count", "operator": "gt", "value": 50},
        "threshold_type": "hard",
        "conditions": [{"field": "employee_count", "operator": "gt", "value": 50}],
    }
    return {**base, **update}


def test_a_retired_rule_is_in_no_view(falkordb_dir: Path, tmp_path: Path, offline: None) -> None:
    namespace = f"agent:retired-{uuid.uuid4().hex[:8]}"
    rows = [
        claim("gl-manual", "2023-01-01"),
        claim("bop-manual", "2023-01-01", product_type="BOP", action="decline"),
        claim("lifted", "2025-03-01", withdrawn=True),
    ]
    for row in rows:  # one text at a time, as texts arrive
        path = tmp_path / f"{row['text_id']}.jsonl"
        path.write_text(json.dumps(row) + "\n", "utf-8")
        done = athena(falkordb_dir, "ingest", str(path), "--rules", "--namespace", namespace)
        assert done.returncode == 0, done.stderr
    export = athena(falkordb_dir, "export", "--namespace", namespace, "--json")
    current = [r["rule_name"] for r in json.loads(export.stdout)["rules"]]
    assert current == ["Crew cap per bop-manual"]  # the GL rule was withdrawn
    out = tmp_path / "view.html"
    args = ("-o", str(out), "--namespace", namespace)
    done = athena(falkordb_dir, "visualize", "--rule", "Crew cap per gl-manual", *args)
    assert done.returncode == 2 and "no rule named 'Crew cap per gl-manual'" in done.stderr
    done = athena(falkordb_dir, "visualize", "--risk", "crew headcount", *args)
    assert done.returncode == 0, done.stderr
    kinds = by_kind(out.read_text("utf-8"))
    assert kinds["Rule"] == {"Crew cap per bop-manual"}
    assert kinds["Outcome"] == {OUTCOME_NAMES["decline"]}
    assert kinds["Source"] == {"Document bop-manual"}
