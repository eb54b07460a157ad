import json
from pathlib import Path

import pytest

from agents.commands.query import read_queries
from agents.ingestion.loaders import load_texts
from agents.jsonl import load_rules, read_jsonl, read_objects
from agents.underwriting.service import read_submissions
from schemas.submission import SubmissionError


def test_rows_keep_their_line_numbers_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n   \n{"a": 2}\n', "utf-8")
    assert read_jsonl(path) == [(1, {"a": 1}), (4, {"a": 2})]
    assert read_objects(path) == [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize(
    ("line", "message"),
    [("{nope", r"x\.jsonl:2: not valid JSON"), ("[1, 2]", r"x\.jsonl:2: expected a JSON object")],
)
def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n' + line + "\n", "utf-8")
    with pytest.raises(ValueError, match=message):
        read_jsonl(path)


def test_unreadable_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"cannot read .*missing\.jsonl"):
        read_jsonl(tmp_path / "missing.jsonl")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"a": "caf\xe9"}\n')
    with pytest.raises(ValueError, match="not UTF-8"):
        read_jsonl(latin)


def test_every_jsonl_reader_reports_the_same_way(tmp_path: Path) -> None:
    # rules, knowledge texts, queries and submissions go through the one loader.
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "text": "t", "query": "q"}\n{oops\n', "utf-8")
    for read in (load_rules, load_texts, read_queries):
        with pytest.raises(ValueError, match=r"bad\.jsonl:2: not valid JSON"):
            read(path)  # type: ignore[operator]
    with pytest.raises(SubmissionError, match=r"bad\.jsonl:2: not valid JSON"):
        read_submissions(path)


def test_a_line_that_is_not_a_rule_is_named(tmp_path: Path) -> None:
    path = tmp_path / "rules.jsonl"
    path.write_text(json.dumps({"rule_name": "x"}) + "\n", "utf-8")
    with pytest.raises(ValueError, match=r"rules\.jsonl:1: not a valid rule"):
        load_rules(path)
