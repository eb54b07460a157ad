"""The ingestion worker: session transcripts from the job queue -> rules in the agent namespace.

A job is ``{"conversation_id", "namespace", "transcript", "source", "user_id"}`` and,
from chat sessions, ``"turns"``: the user messages ``[number, text]`` it covers. The
worker runs the ingestion graph on the transcript, packed by turns into texts under
the text size limit (`agents.chat.transcripts`); each text's id names the
conversation (and the messages it holds), so every rule, edge and source episode it
writes carries the conversation as provenance. A session resumed after its job ran
gets a further job for the new messages only (`job_id_of(conversation, first)`).
Learnings that change a current rule become its next version and retire the old one
(`memory.underwriting.supersede`). Running a job twice writes the same graph: versions are matched
to what the first run wrote.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from agents import models
from agents.chat.transcripts import Turn, transcript_texts, turns_of
from agents.ingestion import IngestionPipeline
from agents.llm import ModelError
from memory import Namespace
from memory.sessions import Handler, Job, JobQueue, run_worker
from schemas.fields import load_data_dictionary
from schemas.rules import iso_day
from schemas.text import clean_text

if TYPE_CHECKING:
    from memory import GraphMemory

logger = logging.getLogger(__name__)

INGEST = "ingest"


def job_id_of(conversation_id: str, first_message: int = 1) -> str:
    """Return the job id of a conversation's ingestion from message `first_message` on.

    The first ingestion of a conversation is ``ingest:<id>``; a resumed session's new
    messages are ``ingest:<id>@<first new message>``.
    """
    suffix = f"@{first_message}" if first_message > 1 else ""
    return f"{INGEST}:{conversation_id}{suffix}"


async def enqueue_transcript(
    queue: JobQueue,
    *,
    conversation_id: str,
    namespace: Namespace | str,
    transcript: str,
    user_id: str | None = None,
    source: str | None = None,
    turns: Sequence[Turn] | None = None,
) -> bool:
    """Enqueue the ingestion of one conversation (or its new turns); True when a job was added.

    Args:
        queue: The job queue.
        conversation_id: The conversation.
        namespace: The agent namespace the learnings go to.
        transcript: The user messages, one per line.
        user_id: Who talked.
        source: Document name (default ``Conversation <id>``).
        turns: The numbered user messages the transcript holds (chat sessions); the
            job id names the first one (see `job_id_of`).

    Raises:
        ValueError: The transcript is empty or only whitespace (no job is made).
    """
    if not isinstance(transcript, str) or not transcript.strip():
        raise ValueError(f"conversation {conversation_id!r} has an empty transcript: no job")
    payload: dict[str, Any] = {
        "conversation_id": conversation_id,
        "namespace": str(namespace),
        "transcript": transcript,
        "user_id": user_id,
        "source": source or f"Conversation {conversation_id}",
        # When it was said: the valid time of what the conversation teaches.
        "said_at": datetime.now(UTC).isoformat(),
    }
    first = 1
    if turns:
        payload["turns"] = [[t.number, t.text] for t in turns]
        first = turns[0].number
    return await queue.enqueue(job_id_of(conversation_id, first), payload, kind=INGEST)


async def ingest_job(
    memory: GraphMemory, job: Job, *, pause_after_write: float = 0.0
) -> dict[str, Any]:
    """Run one ingestion job and return its summary.

    Args:
        memory: Connected graph memory.
        job: The job (kind ``ingest``).
        pause_after_write: Seconds to wait after the writes, before the job is done
            (a fault-injection hook for tests).

    Raises:
        ValueError: An unknown job kind or a malformed payload.
    """
    if job.kind != INGEST:
        raise ValueError(f"unknown job kind {job.kind!r}; this worker runs {INGEST!r} jobs")
    payload = job.payload
    try:
        conversation = str(payload["conversation_id"])
        ns = Namespace.parse(str(payload["namespace"]))
        transcript = clean_text(str(payload["transcript"]))
        turns = [Turn(int(n), clean_text(str(t))) for n, t in payload.get("turns") or []]
    except KeyError as exc:
        raise ValueError(f"job {job.id}: payload lacks {exc.args[0]!r}") from exc
    except (TypeError, ValueError) as exc:
        raise ValueError(f"job {job.id}: malformed turns in the payload ({exc})") from exc
    if not transcript.strip():
        return {"conversation_id": conversation, "skipped": "empty transcript"}
    settings = memory.settings
    fields = load_data_dictionary(settings.fields_path)
    # What the conversation says about stated rules is read as practice by the pipeline.
    extractor = models.rule_extractor(settings, fields)
    texts = transcript_texts(
        conversation, turns or turns_of(transcript), source=payload.get("source")
    )
    if payload.get("said_at"):
        texts = [t.model_copy(update={"date": iso_day(payload["said_at"])}) for t in texts]
    # A re-delivered job redoes its texts (the same claims change nothing).
    pipeline = IngestionPipeline(
        memory, ns, settings=settings, fields=fields, extractor=extractor, skip_ingested=False
    )
    report = await pipeline.run(texts)
    if report.failed_texts:
        # One line; the queue retries the job (nothing of it was written).
        raise ModelError(f"job {job.id}: " + "; ".join(report.errors))
    if pause_after_write:
        await asyncio.sleep(pause_after_write)
    written = set(report.rule_names)
    return {
        "conversation_id": conversation,
        "namespace": str(ns),
        "texts": [text.id for text in texts],
        "rules": sorted(written),
        "warnings": report.warnings,
    }


def ingestion_handler(memory: GraphMemory, *, pause_after_write: float = 0.0) -> Handler:
    """Return the queue handler running `ingest_job` on `memory`."""

    async def handle(job: Job) -> dict[str, Any]:
        return await ingest_job(memory, job, pause_after_write=pause_after_write)

    return handle


async def work(
    memory: GraphMemory,
    queue: JobQueue,
    *,
    drain: bool = False,
    consumer: str | None = None,
    stop: asyncio.Event | None = None,
    pause_after_write: float = 0.0,
) -> int:
    """Consume ingestion jobs until stopped (or drained); return how many were handled."""

    async def reconnect() -> None:
        await memory.close()
        await memory.connect()

    return await run_worker(
        queue,
        ingestion_handler(memory, pause_after_write=pause_after_write),
        consumer=consumer,
        drain=drain,
        stop=stop,
        reconnect=reconnect,
        poll_seconds=0.2 if drain else 0.5,
    )
