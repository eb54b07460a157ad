"""A scripted OpenAI-compatible HTTP server on loopback (stdlib only), for LLM-mode tests.

It answers like a perfect model, through the real OpenAI / `ChatOpenAI` clients:

- structured extraction (`response_format` json_schema `ExtractionOutput`): the gold
  rules scripted for the text id named in the prompt;
- memory formation (`FormationOutput`): the user's lines as facts;
- the relationship agent (tools include `write_rule`): one call writing every rule of
  the `<rules>` block by reference, then a one-line summary;
- the chat agent (tools include `check_risk_appetite`): one tool call, then a reply
  quoting the tool result;
- `/v1/embeddings`: deterministic bag-of-words vectors (crc32 buckets).

Faults are scripted per request kind (`extraction`, `agent`, `chat`, `formation`,
`embeddings`): HTTP errors (500, 429 with Retry-After), malformed answers, slow
answers. Strict json_schema requests are checked against OpenAI's strict-mode rules
and refused with a 400 like OpenAI does. Every request is recorded (kind, body size).
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_TEXT_ID = re.compile(r"text id: (\S+)")
_RULES_BLOCK = re.compile(r"<rules>\s*(.*?)\s*</rules>", re.DOTALL)
_WORD = re.compile(r"[a-z0-9]+")

# Keywords OpenAI's strict structured outputs accept (anything else is refused).
STRICT_KEYWORDS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "title",
    "const",
}


def strict_schema_problems(schema: Any, path: str = "#") -> list[str]:
    """Return why a JSON schema would be refused by OpenAI's strict mode (empty: accepted).

    Rules: only supported keywords; every object sets `additionalProperties: false`
    and lists every property in `required`; no `default` anywhere.
    """
    problems: list[str] = []
    if isinstance(schema, list):
        for i, item in enumerate(schema):
            problems += strict_schema_problems(item, f"{path}/{i}")
        return problems
    if not isinstance(schema, dict):
        return problems
    for key in schema:
        if key not in STRICT_KEYWORDS:
            problems.append(f"{path}: keyword {key!r} is not supported in strict mode")
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties must be false")
        props = set((schema.get("properties") or {}).keys())
        if set(schema.get("required") or []) != props:
            problems.append(f"{path}: required must list every property")
        for name, sub in (schema.get("properties") or {}).items():
            problems += strict_schema_problems(sub, f"{path}/properties/{name}")
    for key in ("items",):
        if key in schema:
            problems += strict_schema_problems(schema[key], f"{path}/{key}")
    for key in ("anyOf",):
        if key in schema:
            problems += strict_schema_problems(schema[key], f"{path}/{key}")
    for name, sub in (schema.get("$defs") or {}).items():
        problems += strict_schema_problems(sub, f"{path}/$defs/{name}")
    return problems


def embed_text(text: str, dim: int) -> list[float]:
    """A deterministic unit vector: crc32 buckets of the text's words."""
    vector = [0.0] * dim
    for word in _WORD.findall(text.lower()) or ["empty"]:
        h = zlib.crc32(word.encode())
        vector[h % dim] += 1.0 if (h >> 16) & 1 else -1.0
        vector[(h >> 8) % dim] += 0.5
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


@dataclass
class Fault:
    """One scripted fault.

    Attributes:
        kind: Request kind it hits: extraction, agent, chat, formation, embeddings or any.
        status: HTTP status to answer with (500, 429, ...); None answers 200.
        retry_after: Retry-After header seconds (for 429).
        malformed: Answer 200 with output that is not valid JSON / tool arguments.
        delay: Seconds to wait before answering.
        times: How many requests it hits (then it is spent).
        text_id: Only extraction requests for this text id.
    """

    kind: str
    status: int | None = None
    retry_after: float | None = None
    malformed: bool = False
    delay: float = 0.0
    times: int = 1
    text_id: str | None = None


@dataclass
class Request:
    """A recorded request."""

    kind: str
    chars: int
    at: float
    text_id: str | None = None
    outcome: str = "ok"
    body: str = ""


@dataclass
class FakeOpenAI:
    """The scripted server. Use `start()` / `stop()` (or the pytest fixture).

    Attributes:
        rules: Gold rules (rules.jsonl dicts) by text id, for extraction answers.
        delay: Seconds every chat answer takes (a slow model).
        embedding_delay: Seconds every embeddings answer takes.
        malformed_rate: Share of extraction answers made malformed (seeded).
        embedding_dims: Vector size by embedding model (default 64).
    """

    rules: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    delay: float = 0.0
    embedding_delay: float = 0.0
    malformed_rate: float = 0.0
    seed: int = 7
    embedding_dims: dict[str, int] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._random = random.Random(self.seed)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        """Listen on 127.0.0.1 (a free port) in a daemon thread."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                status, headers, body = fake.handle(self.path, raw)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def base_url(self) -> str:
        """The `OPENAI_BASE_URL` of the server."""
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def count(self, kind: str, outcome: str | None = None) -> int:
        """Requests of a kind (optionally with one outcome) so far."""
        with self._lock:
            return sum(
                1
                for r in self.requests
                if r.kind == kind and (outcome is None or r.outcome == outcome)
            )

    def answered(self, kind: str = "extraction") -> set[str]:
        """Text ids that got at least one valid answer of a kind."""
        with self._lock:
            return {r.text_id for r in self.requests if r.kind == kind and r.outcome == "ok"} - {
                None
            }  # type: ignore[return-value]

    # -- dispatch ----------------------------------------------------------------------------

    def handle(self, path: str, raw: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
        """Answer one request: (status, extra headers, JSON body)."""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return 400, {}, _error("request body is not JSON")
        if path.endswith("/embeddings"):
            kind, text_id = "embeddings", None
        elif path.endswith("/chat/completions"):
            kind, text_id = _chat_kind(body)
        else:
            return 404, {}, _error(f"no route {path}")
        record = Request(kind, len(raw), time.monotonic(), text_id, body=raw.decode())
        with self._lock:
            self.requests.append(record)
            fault = self._take_fault(kind, text_id)
            malformed = kind == "extraction" and self._random.random() < self.malformed_rate
        delay = (self.embedding_delay if kind == "embeddings" else self.delay) + (
            fault.delay if fault else 0.0
        )
        if delay:
            time.sleep(delay)
        if fault is not None and fault.status is not None:
            record.outcome = str(fault.status)
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after else {}
            return fault.status, headers, _error(f"scripted fault {fault.status}")
        if fault is not None and fault.malformed:
            malformed = True
        if kind == "embeddings":
            return 200, {}, self._embeddings(body)
        schema = (body.get("response_format") or {}).get("json_schema") or {}
        if schema.get("strict"):
            problems = strict_schema_problems(schema.get("schema"))
            if problems:
                record.outcome = "400"
                return 400, {}, _error(f"Invalid schema for response_format: {problems[0]}")
        if malformed:
            record.outcome = "malformed"
        message = self._answer(kind, body, text_id, malformed)
        return 200, {}, _completion(body, message, len(raw))

    def _take_fault(self, kind: str, text_id: str | None) -> Fault | None:
        for fault in self.faults:
            if fault.times > 0 and fault.kind in (kind, "any"):
                if fault.text_id is not None and fault.text_id != text_id:
                    continue
                fault.times -= 1
                return fault
        return None

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        items = body.get("input")
        texts = [items] if isinstance(items, str) else list(items or [])
        model = str(body.get("model"))
        dim = int(body.get("dimensions") or self.embedding_dims.get(model, 64))
        data = [
            {"object": "embedding", "index": i, "embedding": embed_text(str(t), dim)}
            for i, t in enumerate(texts)
        ]
        tokens = sum(len(str(t)) // 4 + 1 for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    # -- answers -----------------------------------------------------------------------------

    def _answer(
        self, kind: str, body: dict[str, Any], text_id: str | None, malformed: bool
    ) -> dict[str, Any]:
        messages = body.get("messages") or []
        if kind == "extraction":
            if malformed:
                return {"role": "assistant", "content": '{"rules": [{"rule_name": "Trunc'}
            rules = [_full_rule(r) for r in self.rules.get(text_id or "", [])]
            return {"role": "assistant", "content": json.dumps({"rules": rules})}
        if kind == "formation":
            said = [m for m in _user_text(messages).splitlines() if m.startswith("user:")]
            facts = [line.split(":", 1)[1].strip() for line in said]
            out = {"summary": " ".join(facts)[:300], "directives": [], "facts": facts}
            return {"role": "assistant", "content": json.dumps(out)}
        answered = any(m.get("role") == "tool" for m in messages)
        if kind == "agent":
            if answered:
                return {"role": "assistant", "content": "Wrote the rules."}
            return _calls([_agent_call(body, messages, malformed)])
        if kind == "chat":
            if answered:
                result = next(m for m in reversed(messages) if m.get("role") == "tool")
                return {"role": "assistant", "content": "From memory: " + str(result["content"])}
            question = _last_user(messages)
            return _calls([("check_risk_appetite", json.dumps({"risk": question}))])
        return {"role": "assistant", "content": "ok"}


class _QuietServer(ThreadingHTTPServer):
    """Clients that gave up (timeouts) close their sockets: not worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        return


def _error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def _chat_kind(body: dict[str, Any]) -> tuple[str, str | None]:
    messages = body.get("messages") or []
    fmt = body.get("response_format") or {}
    name = (fmt.get("json_schema") or {}).get("name")
    tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    first_user = next((m for m in messages if m.get("role") == "user"), {})
    if name == "ExtractionOutput" or "ExtractionOutput" in tools:
        found = _TEXT_ID.search(str(first_user.get("content") or ""))
        return "extraction", found.group(1) if found else None
    if name == "FormationOutput" or "FormationOutput" in tools:
        return "formation", None
    if "write_rule" in tools:
        return "agent", None
    if "check_risk_appetite" in tools:
        return "chat", None
    return "other", None


def _user_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")


def _last_user(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            return str(m.get("content") or "")
    return ""


def _full_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A gold rule with every key strict mode requires (text_id is stamped by the caller)."""
    from schemas.rules import ExtractedRule

    return ExtractedRule.model_validate(rule).model_dump(mode="json", exclude={"text_id"})


def _agent_call(
    body: dict[str, Any], messages: list[dict[str, Any]], malformed: bool
) -> tuple[str, str]:
    found = _RULES_BLOCK.search(_user_text(messages))
    items = json.loads(found.group(1)) if found else []
    tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    if malformed:
        return ("write_extracted_rules", '{"rule_ids": ["r1",')
    if "write_extracted_rules" in tools:
        return ("write_extracted_rules", json.dumps({"rule_ids": [r["ref"] for r in items]}))
    rule = {k: v for k, v in items[0].items() if k != "ref"} if items else {}
    return ("write_rule", json.dumps({"rule": rule, "source_id": rule.get("text_id")}))


def _calls(calls: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(calls)
        ],
    }


def _completion(body: dict[str, Any], message: dict[str, Any], chars: int) -> dict[str, Any]:
    out_chars = len(json.dumps(message))
    return {
        "id": f"chatcmpl-{zlib.crc32(str(time.time()).encode())}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or "fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": chars // 4,
            "completion_tokens": out_chars // 4,
            "total_tokens": chars // 4 + out_chars // 4,
        },
    }
