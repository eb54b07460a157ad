"""Strict structured-output schema, one-line model errors and cost accounting (no server)."""

from __future__ import annotations

import httpx
import openai

from agents.llm import Usage, describe, response_format, strict_json_schema, total_cost
from prompts.extraction import ExtractionOutput
from tests.fakeopenai import strict_schema_problems


def test_extraction_schema_passes_the_strict_mode_rules() -> None:
    schema = strict_json_schema(ExtractionOutput, drop=("text_id",))
    assert strict_schema_problems(schema) == []
    rule = schema["$defs"]["ExtractedRule"]
    assert "text_id" not in rule["properties"] and "product_type" in rule["required"]
    assert response_format(ExtractionOutput)["json_schema"]["strict"] is True
    # The checker can fail: pydantic's own schema has minLength and non-null defaults.
    problems = strict_schema_problems(ExtractionOutput.model_json_schema())
    assert any("minLength" in p for p in problems) and any("default" in p for p in problems)


def test_model_errors_read_in_one_line() -> None:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(500, request=request, json={"error": {"message": "boom\nmore"}})
    error = openai.InternalServerError("boom", response=response, body={"message": "boom\nx"})
    assert describe(error) == "model API error (HTTP 500): boom"
    assert "did not answer in time" in describe(openai.APITimeoutError(request=request))


def test_usage_prices_known_models_and_leaves_unknown_ones_unpriced() -> None:
    usage = Usage()
    usage.add("gpt-4o", 1_000_000, 100_000)
    usage.add("my-local-model", 10, 10)
    rows = {r.model: r for r in usage.rows({"gpt-4o": (1.0, 2.0)})}
    assert rows["gpt-4o"].cost_usd == 1.2 and rows["my-local-model"].cost_usd is None
    assert total_cost(rows.values()) == 1.2
