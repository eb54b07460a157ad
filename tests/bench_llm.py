"""LLM-mode cost and speed against the scripted server (not collected by pytest).

Ingests a dataset's `knowledge.jsonl` through the real clients against
`tests/fakeopenai.py` answering with the dataset's `rules.jsonl` after `--delay`
seconds per answer, and prints requests and input characters per text, the
wall time, and the report's tokens and cost.

    .venv/bin/python -m tests.bench_llm ../shared/datasets/underwriting/dev --delay 1
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path

from tests.fakeopenai import FakeOpenAI


async def _run(dataset: Path, delay: float, malformed: float) -> dict:
    from agents.ingestion import IngestionPipeline, load_texts
    from memory import GraphMemory, Namespace, Settings

    rules: dict[str, list[dict]] = {}
    for line in (dataset / "rules.jsonl").read_text().splitlines():
        if line.strip():
            rule = json.loads(line)
            rules.setdefault(rule["text_id"], []).append(rule)
    texts = load_texts(dataset / "knowledge.jsonl")
    fake = FakeOpenAI(
        rules=rules, delay=delay, embedding_delay=0.1, malformed_rate=malformed
    ).start()
    try:
        settings = Settings(
            ATHENA_DATA_DIR=Path(tempfile.mkdtemp()) / "athena",
            OPENAI_API_KEY="bench",
            OPENAI_BASE_URL=fake.base_url,
            ATHENA_EMBEDDING_MODEL="fake-embed",
            ATHENA_FIELDS=dataset / "fields.json",
        )
        async with GraphMemory(settings) as memory:
            started = time.perf_counter()
            report = await IngestionPipeline(memory, Namespace.agent("bench-llm")).run(texts)
            seconds = time.perf_counter() - started
        chat = [r for r in fake.requests if r.kind in ("extraction", "agent")]
        n = len(texts)
        return {
            "texts": n,
            "seconds": round(seconds, 2),
            "chat_requests_per_text": round(len(chat) / n, 3),
            "input_chars_per_text": round(sum(r.chars for r in chat) / n),
            "embedding_requests": fake.count("embeddings"),
            "failed_texts": report.failed_texts,
            "rules_written": report.rules_written,
            "usage": [u.model_dump() for u in report.usage],
            "cost_usd": report.cost_usd,
        }
    finally:
        fake.stop()
        from memory.backend.server import stop_server

        stop_server(settings.data_dir)


def main() -> None:
    """Parse arguments, run, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds per model answer")
    parser.add_argument("--malformed", type=float, default=0.0, help="share of bad answers")
    args = parser.parse_args()
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    print(json.dumps(asyncio.run(_run(args.dataset, args.delay, args.malformed)), indent=1))


if __name__ == "__main__":
    main()
