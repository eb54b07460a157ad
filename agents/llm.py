"""Talking to OpenAI-compatible servers: one-line errors, strict output schemas, usage and cost."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from schemas.ingestion import ModelUsage

# USD per million (input, output) tokens; `ATHENA_LLM_PRICES` adds or overrides models.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4.1-nano": (0.1, 0.4),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "text-embedding-ada-002": (0.1, 0.0),
}

# Keywords OpenAI's strict structured outputs accept; the rest are dropped from schemas.
STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "anyOf",
     "$ref", "$defs", "description", "const"}
)  # fmt: skip


class ModelError(RuntimeError):
    """The model server failed (HTTP error, timeout, unreachable) after the client's retries."""


def model_errors() -> tuple[type[BaseException], ...]:
    """The exception types a model call raises when the server, not the caller, is at fault."""
    import httpx
    import openai

    return (openai.APIError, httpx.HTTPError, asyncio.TimeoutError)


def describe(exc: BaseException) -> str:
    """One line saying what went wrong with a model call."""
    import openai

    if isinstance(exc, openai.APITimeoutError):
        return "the model server did not answer in time (ATHENA_LLM_TIMEOUT)"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot reach the model server ({type(exc.__cause__ or exc).__name__})"
    if isinstance(exc, openai.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = body.get("message") or str(exc.message)
        return f"model API error (HTTP {exc.status_code}): {first_line(detail)}"
    return first_line(str(exc)) or type(exc).__name__


def first_line(text: str, limit: int = 300) -> str:
    """The first line of a message, cut to `limit` characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def as_model_error(exc: BaseException, what: str) -> ModelError:
    """Wrap a server-side failure of `what` (e.g. 'the relationship agent') in one line."""
    return ModelError(f"{what}: {describe(exc)}")


def strict_json_schema(model: type[BaseModel], *, drop: Iterable[str] = ()) -> dict[str, Any]:
    """The model's JSON schema in the form OpenAI's strict mode accepts.

    Every object gets `additionalProperties: false` and lists all its properties as
    required (optional ones are already nullable); keywords strict mode refuses
    (`default`, `minLength`, `title`, ...) are dropped, and so are the properties
    named in `drop` (filled in by the caller instead, e.g. `text_id`).
    """
    dropped = set(drop)

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return {"$ref": node["$ref"]}
        out = {k: walk(v) for k, v in node.items() if k in STRICT_KEYWORDS}
        if "properties" in node:
            props = {
                name: walk(sub) for name, sub in node["properties"].items() if name not in dropped
            }
            out["properties"] = props
            out["required"] = list(props)
            out["additionalProperties"] = False
            out["type"] = "object"
        if "$defs" in node:
            out["$defs"] = {name: walk(sub) for name, sub in node["$defs"].items()}
        return out

    schema: dict[str, Any] = walk(model.model_json_schema())
    return schema


def response_format(model: type[BaseModel], *, drop: Iterable[str] = ()) -> dict[str, Any]:
    """The `response_format` of a strict json_schema request for `model`."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": model.__name__,
            "strict": True,
            "schema": strict_json_schema(model, drop=drop),
        },
    }


def message_text(message: AIMessage) -> str:
    """The text of a model answer (tool-call arguments when it answered with a call)."""
    if isinstance(message.content, str) and message.content.strip():
        return message.content
    if isinstance(message.content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in message.content]
        if "".join(parts).strip():
            return "".join(parts)
    for call in message.tool_calls:
        return json.dumps(call["args"])
    for bad in message.invalid_tool_calls:
        return str(bad.get("args") or "")
    return ""


@dataclass
class Usage:
    """Requests and tokens by model, and their estimated cost."""

    models: dict[str, list[int]] = field(default_factory=dict)  # model -> [req, in, out]

    def add(self, model: str, input_tokens: int, output_tokens: int, requests: int = 1) -> None:
        """Count requests and tokens of one model."""
        row = self.models.setdefault(model or "unknown", [0, 0, 0])
        row[0] += requests
        row[1] += input_tokens
        row[2] += output_tokens

    def add_message(self, message: Any, default_model: str = "unknown") -> None:
        """Count one model answer by its usage metadata (answers without it count 0 tokens)."""
        if not isinstance(message, AIMessage):
            return
        meta: dict[str, Any] = dict(message.usage_metadata or {})
        model = str(message.response_metadata.get("model_name") or default_model)
        self.add(model, int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))

    def add_rows(self, rows: Iterable[ModelUsage]) -> None:
        """Fold report rows back in."""
        for row in rows:
            self.add(row.model, row.input_tokens, row.output_tokens, row.requests)

    def rows(self, prices: Mapping[str, tuple[float, float]] | None = None) -> list[ModelUsage]:
        """One `ModelUsage` per model, priced by `PRICES` and `prices` (None: unknown)."""
        table = {**PRICES, **(prices or {})}
        out = []
        for model, (requests, tokens_in, tokens_out) in sorted(self.models.items()):
            price = table.get(model)
            cost = None
            if price is not None:
                cost = round((tokens_in * price[0] + tokens_out * price[1]) / 1e6, 6)
            out.append(
                ModelUsage(
                    model=model,
                    requests=requests,
                    input_tokens=tokens_in,
                    output_tokens=tokens_out,
                    cost_usd=cost,
                )
            )
        return out


def total_cost(rows: Iterable[ModelUsage]) -> float | None:
    """Sum of the priced rows (None when no row has a price)."""
    priced = [r.cost_usd for r in rows if r.cost_usd is not None]
    return round(sum(priced), 6) if priced else None


def is_openai(model: BaseChatModel) -> bool:
    """True for `ChatOpenAI` (and its relatives): the strict json_schema path applies."""
    from langchain_openai.chat_models.base import BaseChatOpenAI

    return isinstance(model, BaseChatOpenAI)


class StructuredCall:
    """Ask a chat model for one pydantic object.

    An OpenAI-compatible model gets a strict json_schema `response_format` (see
    `strict_json_schema`) and its JSON answer is validated here; other chat models use
    their `with_structured_output`. Model use is counted into `usage`.

    Args:
        model: The chat model.
        schema: The pydantic model of the answer.
        drop: Properties left out of the schema (filled in by the caller).
    """

    def __init__(
        self, model: BaseChatModel, schema: type[BaseModel], *, drop: Iterable[str] = ()
    ) -> None:
        self.schema = schema
        self.openai = is_openai(model)
        self.model_name = str(getattr(model, "model_name", "") or type(model).__name__)
        if self.openai:
            fmt = response_format(schema, drop=drop)
            self._runnable: Runnable[Any, Any] = model.bind(response_format=fmt)
        else:
            self._runnable = model.with_structured_output(schema, include_raw=True)

    async def __call__(
        self, messages: list[BaseMessage], usage: Usage | None = None
    ) -> tuple[BaseModel | Exception, AIMessage | None]:
        """One call: (the parsed answer, or why it is invalid; the raw answer).

        Raises:
            Exception: One of `model_errors()` when the server fails.
        """
        usage = usage if usage is not None else Usage()
        out = await self._runnable.ainvoke(messages)
        if self.openai:
            usage.add_message(out, self.model_name)
            try:
                return self.schema.model_validate(json.loads(message_text(out))), out
            except (ValueError, ValidationError) as exc:
                return exc, out
        raw = out.get("raw") if isinstance(out, dict) else None
        usage.add_message(raw, self.model_name)
        parsed = out.get("parsed") if isinstance(out, dict) else out
        try:
            if isinstance(parsed, dict):
                parsed = self.schema.model_validate(parsed)
        except ValidationError as exc:
            return exc, raw
        if isinstance(parsed, self.schema):
            return parsed, raw
        error = out.get("parsing_error") if isinstance(out, dict) else None
        return error or ValueError("the answer held no structured output"), raw
