"""The worker loop over a `JobQueue`: claim, run under a heartbeat, complete or fail.

Losing the server connection is not a job failure: the worker reconnects and
finishes its own pending entries first (see `memory.sessions.queue`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from memory.sessions.queue import CONNECTION_ERRORS, PERMANENT_ERRORS, Delivery, Job, JobQueue
from memory.settings import redact

logger = logging.getLogger(__name__)

Handler = Callable[[Job], Awaitable[dict[str, Any] | None]]


def worker_name() -> str:
    """Return a consumer name unique to this process."""
    return f"{os.uname().nodename}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


async def _run_one(queue: JobQueue, delivery: Delivery, handler: Handler, consumer: str) -> None:
    async def beat() -> None:
        while True:
            await asyncio.sleep(queue.visibility_timeout / 3)
            try:
                await queue.heartbeat(delivery, consumer)
            except CONNECTION_ERRORS:
                logger.warning("heartbeat of job %s failed; retrying", delivery.job.id)

    beating = asyncio.create_task(beat())
    try:
        result = await handler(delivery.job)
    except CONNECTION_ERRORS:
        raise  # infrastructure, not the job: leave it pending for redelivery
    except Exception as exc:  # noqa: BLE001 - any handler error is the job's failure
        beating.cancel()
        error = redact(f"{type(exc).__name__}: {exc}")
        job = await queue.fail(delivery, error, permanent=isinstance(exc, PERMANENT_ERRORS))
        logger.warning("job %s failed (%s): %s", job.id, job.status, error)
        return
    finally:
        beating.cancel()
    await queue.complete(delivery, result)
    logger.info("job %s done", delivery.job.id)


async def run_worker(
    queue: JobQueue,
    handler: Handler,
    *,
    consumer: str | None = None,
    drain: bool = False,
    poll_seconds: float = 0.5,
    stop: asyncio.Event | None = None,
    reconnect: Callable[[], Awaitable[None]] | None = None,
) -> int:
    """Run jobs until stopped (or, with `drain`, until nothing is left to do).

    Args:
        queue: The queue.
        handler: Runs one job; returns a JSON-ready result; raising fails the job.
        consumer: This worker's consumer name; None makes a unique one.
        drain: Exit once no job is pending, running or waiting for a retry.
        poll_seconds: Sleep between polls of an empty queue.
        stop: Set to stop after the current job.
        reconnect: Re-establishes the connection after it was lost (default: the
            database's own reconnection on the next call).

    Returns:
        How many jobs this worker finished (done, retried or dead-lettered).
    """
    consumer = consumer or worker_name()
    token = f"{consumer}:{uuid.uuid4().hex}"
    handled, delay = 0, poll_seconds
    while stop is None or not stop.is_set():
        try:
            delivery = await queue.claim(consumer, token)
            if delivery is not None:
                await _run_one(queue, delivery, handler, consumer)
                handled += 1
                delay = poll_seconds
                continue
            if drain and await queue.outstanding() == 0:
                return handled
            await asyncio.sleep(poll_seconds)
        except CONNECTION_ERRORS as exc:
            logger.warning("lost the queue connection (%s); reconnecting in %.1fs", exc, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
            try:
                if reconnect is not None:
                    await reconnect()
            except CONNECTION_ERRORS:
                continue
    return handled
