"""Bad input, bad settings and secrets, as a hostile tester tries them (no server needed).

Each test names the case of issue 12 it covers. CLI cases run `athena` in a subprocess
with an explicit environment: what a user sees is stderr and the exit code.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agents.cli import main
from agents.ingestion.loaders import MAX_TEXT_CHARS, load_texts
from agents.jsonl import load_rules
from memory.backend.literals import Literal
from memory.settings import Settings
from schemas.fields import load_data_dictionary
from schemas.rules import ExtractedRule

ROOT = Path(__file__).resolve().parents[2]
RULE = {
    "rule_name": "Sawmill Decline",
    "risk_factor": "Sawmill",
    "risk_category": "occupancy",
    "product_type": "Property",
    "action": "decline",
    "outcome_description": "Sawmills are declined because of dust explosion hazard.",
    "conditions": [{"field": "occupancy", "operator": "eq", "value": "sawmill"}],
}


def athena(tmp_path: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `athena` in a subprocess with an explicit, offline environment."""
    base = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        "ATHENA_DATA_DIR": str(tmp_path / "data"),
        "GRAPHITI_TELEMETRY_ENABLED": "false",
    }
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *argv],
        env={**base, **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a failed command (no traceback)."""
    lines = result.stderr.strip().splitlines()
    assert "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1, result.stderr
    return lines[0]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_rules(path: Path, *rows: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


# -- 1. long sessions ---------------------------------------------------------------------


def test_case1_long_transcript_becomes_texts_under_the_limit_by_turns() -> None:
    from agents.chat.transcripts import Turn, transcript_texts

    filler = "We discussed the office coffee machine and the weather at some length. " * 16
    turns = [Turn(2 * i + 1, f"Turn {i}: {filler}") for i in range(46)]
    assert sum(len(t.text) for t in turns) > MAX_TEXT_CHARS
    texts = transcript_texts("conv-9", turns)
    assert len(texts) == 2 and all(len(t.text) <= MAX_TEXT_CHARS for t in texts)
    assert [t.id for t in texts] == ["conv-9#1-85", "conv-9#87-91"]
    assert texts[1].source == "Conversation conv-9 (messages 87-91)"
    # Nothing lost: every turn is in exactly one text, in order.
    assert "\n".join(t.text for t in texts) == "\n".join(t.text.strip() for t in turns)
    # One message alone over the limit is split at sentences, every piece kept.
    [huge] = [Turn(5, "A sentence about sprinklers. " * 3000)]
    pieces = transcript_texts("conv-9", [huge])
    assert len(pieces) == 2 and all(len(p.text) <= MAX_TEXT_CHARS for p in pieces)
    assert [p.id for p in pieces] == ["conv-9#5", "conv-9#5.2"]


# -- 4. NUL and control characters ----------------------------------------------------------


def test_case4_control_characters_refused_in_files_with_file_line_and_field(
    tmp_path: Path,
) -> None:
    rules = write_rules(
        tmp_path / "rules.jsonl", RULE, {**RULE, "rule_name": "Bad\u0000Name", "risk_factor": "X"}
    )
    with pytest.raises(ValueError) as caught:
        load_rules(rules)
    assert str(caught.value).startswith(f"{rules}:2: not a valid rule: rule_name: ")
    assert "NUL" in str(caught.value)
    # A knowledge text with a control character names its line.
    text = tmp_path / "manual.txt"
    text.write_text("Line one is fine.\nLine two has a bell \x07 in it.\n", "utf-8")
    with pytest.raises(ValueError, match=r"manual\.txt:2: .*U\+0007"):
        load_texts(text)
    result = athena(tmp_path, "ingest", str(rules))
    assert result.returncode == 2 and f"{rules.name}:2" in one_error_line(result)


def test_case4_no_string_with_a_nul_reaches_a_query() -> None:
    from memory.backend.literals import check_params
    from schemas.text import clean_text

    with pytest.raises(ValueError, match="'name'.*NUL"):
        check_params({"name": "Gas\x00Station"})
    with pytest.raises(ValueError, match="NUL"):
        check_params({"rows": [{"n": "a\x00"}]})
    with pytest.raises(ValueError, match="NUL"):
        Literal([{"name": "a\x00b"}])
    check_params({"name": "tab\tand newline\n are fine", "rows": Literal([{"n": 'q"\\'}])})
    # A submission value with a NUL is refused, not silently mismatched (and approved).
    from schemas.submission import SubmissionError, parse_submission

    with pytest.raises(SubmissionError, match="'occupancy' contains a NUL"):
        parse_submission({"occupancy": "roof\x00ing contractor"}, load_data_dictionary())
    # Chat messages are cleaned rather than refused: what is stored is what was readable.
    assert clean_text("roof\x00ing\x1b[31m contractor\tGL\n") == "roofing[31m contractor\tGL\n"


def test_case4_ingest_exits_non_zero_when_a_rule_is_not_written() -> None:
    from agents.commands.ingest import _not_written
    from schemas.ingestion import IngestionReport

    rules = [ExtractedRule.model_validate(RULE)]
    ok = IngestionReport(mode="offline", namespace="agent:x", rules_written=1)
    ok.rule_names = ["Sawmill Decline"]
    assert _not_written(ok, rules) is None
    failed = IngestionReport(mode="offline", namespace="agent:x", rules_written=0)
    failed.tool_errors = ["write_rule: boom"]
    assert "1 write(s) failed" in (_not_written(failed, rules) or "")


# -- 5. duplicate rule names ------------------------------------------------------------------


def test_case5_duplicate_rule_name_in_one_file_names_both_lines(tmp_path: Path) -> None:
    other = {**RULE, "action": "refer", "rule_name": "sawmill  decline"}
    rules = write_rules(tmp_path / "rules.jsonl", RULE, {**RULE, "rule_name": "Other"}, other)
    with pytest.raises(ValueError) as caught:
        load_rules(rules, load_data_dictionary())
    message = str(caught.value)
    assert f"{rules}:3" in message and f"{rules}:1" in message and "unique" in message
    result = athena(tmp_path, "ingest", str(rules))
    assert result.returncode == 2 and "rules.jsonl:1" in one_error_line(result)


# -- 6. impossible conditions --------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "wanted"),
    [
        ({"field": "employee_count", "operator": "gt", "value": "twenty"}, "expected a number"),
        ({"field": "state", "operator": "lt", "value": 3}, "needs a numeric field"),
        ({"field": "sprinklered", "operator": "eq", "value": "yes"}, "expected true or false"),
        ({"field": "state", "operator": "in", "value": "FL"}, "needs a list"),
    ],
)
def test_case6_impossible_conditions_are_refused(condition: dict, wanted: str) -> None:
    from agents.ingestion.checks import check_rules

    fields = load_data_dictionary()
    assert condition["field"] in fields.fields
    rule = ExtractedRule.model_validate({**RULE, "conditions": [condition]})
    with pytest.raises(ValueError, match=wanted):
        check_rules([rule], fields, ["rules.jsonl:7"])
    threshold = {"field": "employee_count", "operator": "gt", "value": 20, "unit": "miles"}
    rule = ExtractedRule.model_validate({**RULE, "threshold": threshold})
    with pytest.raises(ValueError, match="unit 'miles' does not match"):
        check_rules([rule], fields)
    # Another name of the field, from the data dictionary, is a unit a person may write.
    spec = fields.fields["employee_count"]
    other = next(s for s in spec.synonyms if s.casefold() != (spec.unit or "").casefold())
    threshold = {**threshold, "unit": other.upper()}
    check_rules([ExtractedRule.model_validate({**RULE, "threshold": threshold})], fields)


def test_case6_the_dev_rules_pass_the_checks(dev_set: Path) -> None:
    rules = load_rules(dev_set / "rules.jsonl", load_data_dictionary(dev_set / "fields.json"))
    assert len(rules) > 50


# -- 7. one line instead of a traceback -------------------------------------------------------


def test_case7_environment_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    result = athena(tmp_path, "export", "-o", "out")
    assert result.returncode == 2 and "is a directory" in one_error_line(result)
    (tmp_path / "file").write_text("x")
    result = athena(tmp_path, "query", "gas", ATHENA_DATA_DIR=str(tmp_path / "file"))
    assert result.returncode == 2 and "is a file; give a directory" in one_error_line(result)
    url = f"redis://:hunter2secret@127.0.0.1:{closed_port()}"
    result = athena(tmp_path, "query", "gas", FALKORDB_URL=url)
    line = one_error_line(result)
    assert result.returncode == 1 and "cannot reach FalkorDB" in line
    assert "hunter2secret" not in result.stderr + result.stdout


def test_case7_model_api_errors_are_one_line() -> None:
    import httpx
    import openai

    from agents.errors import describe

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = httpx.Response(401, request=request, json={"error": {"message": "bad key"}})
    message, code = describe(openai.AuthenticationError("bad key", response=response, body=None))
    assert code == 1 and message == "model API error (HTTP 401): bad key"
    message, code = describe(openai.APIConnectionError(request=request))
    assert code == 1 and message.startswith("cannot reach the model API at http://127.0.0.1:9")


# -- 8. validation errors a person can read -----------------------------------------------


def test_case8_validation_error_is_one_line_with_file_line_field_and_allowed(
    tmp_path: Path,
) -> None:
    rules = write_rules(tmp_path / "rules.jsonl", {**RULE, "risk_category": "snacks"})
    result = athena(tmp_path, "ingest", str(rules))
    line = one_error_line(result)
    assert result.returncode == 2
    assert f"{rules}:1" in line and "risk_category: 'snacks' is not allowed" in line
    assert "allowed: 'occupancy'" in line and "https://" not in line
    bad = write_rules(tmp_path / "more_rules.jsonl", {**RULE, "colour": "red"})
    with pytest.raises(ValueError) as caught:
        load_rules(bad)
    assert "colour: is not a known field; allowed: rule_name, risk_factor" in str(caught.value)


# -- 9. non-UTF-8 query batch ---------------------------------------------------------------


def test_case9_query_batch_not_utf8_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATHENA_DATA_DIR", str(tmp_path / "data"))
    batch = tmp_path / "queries.jsonl"
    batch.write_bytes(b'\xff\xfe{"query": "gas"}\n')
    assert main(["query", "--batch", str(batch)]) == 2
    err = capsys.readouterr().err
    assert f"{batch} is not UTF-8 text" in err and "Traceback" not in err


# -- 10. secrets ----------------------------------------------------------------------------


def test_case10_credentials_are_redacted_everywhere(tmp_path: Path) -> None:
    from agents.errors import RedactingFilter
    from memory.settings import redact

    port = closed_port()
    url = f"redis://athena:hunter2secret@127.0.0.1:{port}"
    unreachable = ("athena db: error: cannot reach FalkorDB: ", f" 127.0.0.1:{port}")
    expected = {  # what the user reads: the server named, its password never
        ("db", "status"): (1, unreachable),
        ("db", "status", "--json"): (1, unreachable),
        ("db", "start"): (2, (f"FALKORDB_URL is set (redis://athena:***@127.0.0.1:{port})",)),
    }
    for argv, (code, messages) in expected.items():
        result = athena(tmp_path, *argv, FALKORDB_URL=url)
        assert result.returncode == code, result.stderr
        assert "hunter2secret" not in result.stdout + result.stderr
        assert result.stdout == "" and all(m in result.stderr for m in messages), result.stderr
    assert redact("unix://:pw@/tmp/s.sock and rediss://u:p@h:1") == (
        "unix://:***@/tmp/s.sock and rediss://u:***@h:1"
    )
    settings = Settings(FALKORDB_URL=url, OPENAI_API_KEY="sk-verysecret")
    assert "hunter2secret" not in repr(settings) and "sk-verysecret" not in repr(settings)
    record = logging.LogRecord("x", logging.WARNING, "f", 1, "lost %s", (url,), None)
    RedactingFilter().filter(record)
    assert "hunter2secret" not in record.getMessage()


# -- 13. checkpoints file mode --------------------------------------------------------------


def test_case13_checkpoints_sqlite_is_owner_only(tmp_path: Path) -> None:
    from agents.checkpoint import CHECKPOINT_FILE, durable_checkpointer

    async def open_it() -> None:
        async with durable_checkpointer(Settings(ATHENA_DATA_DIR=tmp_path / "d")) as saver:
            await saver.setup()

    old = os.umask(0o022)
    try:
        asyncio.run(open_it())
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "d").iterdir() if p.name.startswith(CHECKPOINT_FILE)]
    assert files and all(p.stat().st_mode & 0o777 == 0o600 for p in files), [
        oct(p.stat().st_mode) for p in files
    ]


def test_a_unit_qualified_in_parentheses_accepts_its_plain_name() -> None:
    from agents.ingestion.checks import check_rules

    fields = load_data_dictionary()
    spec = fields.fields["employee_count"].model_copy(
        update={"unit": "employees (full time)", "synonyms": ["headcount"]}
    )
    qualified = fields.model_copy(update={"fields": {**fields.fields, "employee_count": spec}})
    threshold = {"field": "employee_count", "operator": "gt", "value": 20, "unit": "employees"}
    check_rules([ExtractedRule.model_validate({**RULE, "threshold": threshold})], qualified)
    with pytest.raises(ValueError, match="unit 'miles' does not match"):
        miles = {**threshold, "unit": "miles"}
        check_rules([ExtractedRule.model_validate({**RULE, "threshold": miles})], qualified)


def test_a_count_per_period_accepts_the_name_of_what_it_counts() -> None:
    from agents.ingestion.checks import check_rules

    fields = load_data_dictionary()
    spec = fields.fields["employee_count"].model_copy(
        update={"unit": "hires per year", "synonyms": ["annual hires"]}
    )
    rated = fields.model_copy(update={"fields": {**fields.fields, "employee_count": spec}})
    threshold = {"field": "employee_count", "operator": "gt", "value": 20, "unit": "hires"}
    check_rules([ExtractedRule.model_validate({**RULE, "threshold": threshold})], rated)
    with pytest.raises(ValueError, match="unit 'years' does not match"):
        years = {**threshold, "unit": "years"}
        check_rules([ExtractedRule.model_validate({**RULE, "threshold": years})], rated)
