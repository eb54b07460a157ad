"""A durable job queue on the FalkorDB server itself: Redis Streams with a consumer group.

    queue = JobQueue(memory.db)
    await queue.enqueue("ingest:s1", {"conversation_id": "s1", ...})
    await run_worker(queue, handler, consumer="w1", drain=True)  # memory.sessions.worker

Delivery is at least once; handlers must be idempotent. The keys (prefix ``athena:{jobs}``;
the braces are a cluster hash tag: every key of one queue lives in one slot, so the
scripts that touch several of them run on one node of a FalkorDB cluster):

| key                 | type   | holds                                                   |
| ------------------- | ------ | ------------------------------------------------------- |
| ``:stream``         | stream | one entry per delivery (group ``workers``)              |
| ``:job:<id>``       | hash   | status, payload, attempts, last error, times            |
| ``:all``            | zset   | job ids by enqueue time (listing)                       |
| ``:delayed``        | zset   | retries by due time (moved back to the stream when due) |
| ``:dead``           | stream | dead letters: job id, error, attempts                   |
| ``:lease:<id>``     | string | the running worker's token, expiring (one runner a job) |

* A job runs only under its lease (``SET NX PX``), so two workers never run it at once;
  the runner refreshes the lease and its entry's idle time while it works.
* A worker that dies stops refreshing: once its entry has been idle for the visibility
  timeout, another worker takes it over with ``XAUTOCLAIM``.
* A failure is retried with exponential backoff; after `max_attempts` failures the job is
  dead-lettered with its error. A failure that cannot succeed on retry (`PERMANENT_ERRORS`:
  the job's input is invalid) is dead-lettered at once. A done job is marked done and
  never processed again.
* Losing the server connection is not a failure: the worker reconnects (an embedded
  server is restarted), then finishes its own pending entries first.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

if TYPE_CHECKING:
    from memory.backend.protocol import GraphBackend

logger = logging.getLogger(__name__)

DEFAULT_PREFIX = "athena:{jobs}"
GROUP = "workers"
DEFAULT_VISIBILITY_TIMEOUT = 30.0
"""Seconds a delivered job may go without a heartbeat before another worker takes it."""
DEFAULT_MAX_ATTEMPTS = 3
"""Failures before a job is dead-lettered."""
DEFAULT_BACKOFF_SECONDS = 2.0
"""Delay before the first retry; doubled for each further one."""
STATUSES = ("pending", "running", "retrying", "done", "dead")
CONNECTION_ERRORS = (RedisConnectionError, RedisTimeoutError, ConnectionError, OSError)
PERMANENT_ERRORS = (ValueError, TypeError)
"""Handler errors that retrying cannot fix (invalid input, including pydantic validation)."""

_ENQUEUE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'kind', ARGV[2], 'payload', ARGV[3],
           'status', 'pending', 'attempts', 0, 'failures', 0, 'enqueued_at', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('XADD', KEYS[3], '*', 'job_id', ARGV[1])
return 1
"""
_MOVE_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('XADD', KEYS[2], '*', 'job_id', id)
end
return #due
"""
# Finishing a delivery, atomically: the job's fields, a dead letter or a retry, the
# acknowledgement and the lease (KEYS: job, dead, delayed, stream, lease; ARGV[1]: JSON).
_FINISH = """
local a = cjson.decode(ARGV[1])
for k, v in pairs(a.fields) do redis.call('HSET', KEYS[1], k, v) end
if a.dead then
  local letter = {}
  for k, v in pairs(a.dead) do table.insert(letter, k); table.insert(letter, v) end
  redis.call('XADD', KEYS[2], '*', unpack(letter))
end
if a.retry_at then redis.call('ZADD', KEYS[3], a.retry_at, a.job_id) end
redis.call('XACK', KEYS[4], a.group, a.entry)
return redis.call('DEL', KEYS[5])
"""
_ACQUIRE = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def tagged_prefix(prefix: str) -> str:
    """`prefix` with a cluster hash tag (``{...}``), added around it when it has none."""
    if not prefix or not prefix.strip():
        raise ValueError("a queue needs a non-empty key prefix")
    if re.search(r"\{[^{}]+\}", prefix):
        return prefix
    return "{" + prefix + "}"


@dataclass(frozen=True)
class Job:
    """A job as stored: status, payload and history."""

    id: str
    kind: str
    payload: dict[str, Any]
    status: str
    attempts: int = 0
    failures: int = 0
    error: str | None = None
    enqueued_at: float | None = None
    started_at: float | None = None
    finished_at: float | None = None
    next_at: float | None = None
    worker: str | None = None
    result: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the job as a JSON-ready dict."""
        return dict(self.__dict__)


@dataclass
class Delivery:
    """A job handed to one worker, with the stream entry and lease it holds."""

    entry_id: str
    job: Job
    token: str


def _job(raw: dict[str, Any]) -> Job:
    d = {_s(k): _s(v) for k, v in raw.items()}

    def num(name: str) -> float | None:
        return float(d[name]) if d.get(name) else None

    return Job(
        id=d["id"],
        kind=d.get("kind", "ingest"),
        payload=json.loads(d.get("payload") or "{}"),
        status=d.get("status", "pending"),
        attempts=int(d.get("attempts", 0)),
        failures=int(d.get("failures", 0)),
        error=d.get("error") or None,
        enqueued_at=num("enqueued_at"),
        started_at=num("started_at"),
        finished_at=num("finished_at"),
        next_at=num("next_at"),
        worker=d.get("worker") or None,
        result=json.loads(d["result"]) if d.get("result") else None,
    )


@dataclass
class JobQueue:
    """Jobs on a FalkorDB (Redis) server.

    Attributes:
        db: The backend of a connected `GraphMemory` (its connection is reused).
        prefix: Key prefix (separate queues use separate prefixes); one without a hash
            tag is wrapped in one (``test:1`` -> ``{test:1}``).
        visibility_timeout: Seconds before a silent worker's job is taken over.
        max_attempts: Failures before dead-lettering.
        backoff_seconds: First retry delay (doubled each time).
    """

    db: GraphBackend
    prefix: str = DEFAULT_PREFIX
    visibility_timeout: float = DEFAULT_VISIBILITY_TIMEOUT
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    backoff_seconds: float = DEFAULT_BACKOFF_SECONDS
    _group_ready: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self.prefix = tagged_prefix(self.prefix)
        if self.visibility_timeout <= 0 or self.max_attempts < 1 or self.backoff_seconds < 0:
            raise ValueError(
                "visibility_timeout must be > 0, max_attempts >= 1 and backoff_seconds >= 0"
            )

    def key(self, *parts: str) -> str:
        """Return the full key of a queue part."""
        return ":".join([self.prefix, *parts])

    async def _r(self, call: Callable[[Any], Awaitable[Any]]) -> Any:
        return await self.db.redis(call)

    async def _cmd(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Run one Redis command by name (with reconnection)."""
        return await self.db.redis(lambda r: getattr(r, name)(*args, **kwargs))

    async def ensure_group(self) -> None:
        """Create the stream and its consumer group once."""
        if self._group_ready:
            return
        try:
            await self._r(lambda r: r.xgroup_create(self.key("stream"), GROUP, "0", mkstream=True))
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    async def enqueue(self, job_id: str, payload: dict[str, Any], *, kind: str = "ingest") -> bool:
        """Add a job unless one with this id exists; return True when it was added.

        Raises:
            ValueError: An empty id.
        """
        if not job_id or not job_id.strip():
            raise ValueError("a job needs a non-empty id")
        await self.ensure_group()
        keys = [self.key("job", job_id), self.key("all"), self.key("stream")]
        args = [job_id, kind, json.dumps(payload, sort_keys=True), time.time()]
        added = await self._r(lambda r: r.eval(_ENQUEUE, 3, *keys, *args))
        return bool(int(added))

    async def get(self, job_id: str) -> Job | None:
        """Return one job, or None."""
        raw = await self._r(lambda r: r.hgetall(self.key("job", job_id)))
        return _job(raw) if raw else None

    async def jobs(self) -> list[Job]:
        """Return every job, oldest first; a running job whose lease lapsed shows as pending."""
        ids = [_s(i) for i in await self._r(lambda r: r.zrange(self.key("all"), 0, -1))]
        out = []
        for job_id in ids:
            job = await self.get(job_id)
            if job is None:
                continue
            if job.status == "running" and not await self._cmd("exists", self.key("lease", job_id)):
                job = Job(**{**job.__dict__, "status": "pending"})
            out.append(job)
        return out

    async def counts(self) -> dict[str, int]:
        """Return how many jobs are in each status."""
        counts = dict.fromkeys(STATUSES, 0)
        for job in await self.jobs():
            counts[job.status] = counts.get(job.status, 0) + 1
        return counts

    async def dead_letters(self) -> list[dict[str, str]]:
        """Return the dead-letter entries (job id, error, attempts)."""
        entries = await self._r(lambda r: r.xrange(self.key("dead")))
        return [{_s(k): _s(v) for k, v in fields.items()} for _, fields in entries]

    # -- delivery ---------------------------------------------------------------------------

    async def _entries(self, consumer: str) -> list[tuple[str, str]]:
        """Candidate (entry id, job id)s: own pending, then stale others', then new ones."""
        stream, found = self.key("stream"), []
        await self._r(lambda r: r.eval(_MOVE_DUE, 2, self.key("delayed"), stream, time.time()))
        own = await self._r(lambda r: r.xreadgroup(GROUP, consumer, {stream: "0"}, count=10))
        for _, entries in own or []:
            found += [(_s(i), _s(f.get("job_id") or f.get(b"job_id"))) for i, f in entries if f]
        idle_ms = int(self.visibility_timeout * 1000)
        claimed = await self._r(
            lambda r: r.xautoclaim(stream, GROUP, consumer, idle_ms, "0-0", count=10)
        )
        for i, f in claimed[1] if claimed else []:
            if f:
                found.append((_s(i), _s(f.get("job_id") or f.get(b"job_id"))))
        new = await self._r(lambda r: r.xreadgroup(GROUP, consumer, {stream: ">"}, count=1))
        for _, entries in new or []:
            found += [(_s(i), _s(f.get("job_id") or f.get(b"job_id"))) for i, f in entries if f]
        return found

    async def claim(self, consumer: str, token: str) -> Delivery | None:
        """Return the next job this worker may run (lease taken, attempt counted), or None."""
        await self.ensure_group()
        stream = self.key("stream")
        lease_ms = int(self.visibility_timeout * 1000)
        for entry_id, job_id in await self._entries(consumer):
            job = await self.get(job_id)
            if job is None or job.status in ("done", "dead"):
                # Processed (or unknown): the mark stops re-processing.
                await self._cmd("xack", stream, GROUP, entry_id)
                continue
            got = await self._cmd("eval", _ACQUIRE, 1, self.key("lease", job_id), token, lease_ms)
            if not int(got):
                continue  # another live worker runs it
            fields = {"status": "running", "started_at": time.time(), "worker": consumer}
            await self._cmd("hset", self.key("job", job_id), mapping=fields)
            await self._cmd("hincrby", self.key("job", job_id), "attempts", 1)
            return Delivery(entry_id, await self.get(job_id) or job, token)
        return None

    async def heartbeat(self, delivery: Delivery, consumer: str) -> bool:
        """Renew the lease and reset the entry's idle time; False if the lease was lost."""
        lease_ms = int(self.visibility_timeout * 1000)
        lease = self.key("lease", delivery.job.id)
        kept = await self._r(lambda r: r.eval(_RENEW, 1, lease, delivery.token, lease_ms))
        await self._r(
            lambda r: r.xclaim(
                self.key("stream"), GROUP, consumer, 0, [delivery.entry_id], justid=True
            )
        )
        return bool(int(kept))

    async def complete(self, delivery: Delivery, result: dict[str, Any] | None = None) -> None:
        """Mark the job done (processed), acknowledge it and release its lease."""
        fields = {"status": "done", "finished_at": time.time(), "error": ""}
        fields["result"] = json.dumps(result or {}, sort_keys=True, default=str)
        await self._finish(delivery, fields)

    async def fail(self, delivery: Delivery, error: str, *, permanent: bool = False) -> Job:
        """Record a failure: schedule a retry with backoff, or dead-letter the job.

        Args:
            delivery: The job's delivery.
            error: What went wrong (shown by `athena jobs`).
            permanent: The failure cannot succeed on retry: dead-letter at once.
        """
        job_key = self.key("job", delivery.job.id)
        failures = int(await self._r(lambda r: r.hincrby(job_key, "failures", 1)))
        now = time.time()
        if permanent:
            error = f"{error} (not retried: invalid input fails the same way every time)"
        if permanent or failures >= self.max_attempts:
            fields: dict[str, Any] = {"status": "dead", "error": error, "finished_at": now}
            letter = {"job_id": delivery.job.id, "error": error, "attempts": failures}
            await self._finish(delivery, fields, dead=letter)
        else:
            due = now + self.backoff_seconds * 2 ** (failures - 1)
            fields = {"status": "retrying", "error": error, "next_at": due}
            await self._finish(delivery, fields, retry_at=due)
        return await self.get(delivery.job.id) or delivery.job

    async def _finish(
        self,
        delivery: Delivery,
        fields: dict[str, Any],
        *,
        dead: dict[str, Any] | None = None,
        retry_at: float | None = None,
    ) -> None:
        job_id = delivery.job.id
        args = {
            "fields": {k: str(v) for k, v in fields.items()},
            "dead": {k: str(v) for k, v in dead.items()} if dead is not None else None,
            "retry_at": retry_at,
            "job_id": job_id,
            "group": GROUP,
            "entry": delivery.entry_id,
        }
        keys = [
            self.key("job", job_id),
            self.key("dead"),
            self.key("delayed"),
            self.key("stream"),
            self.key("lease", job_id),
        ]
        payload = json.dumps({k: v for k, v in args.items() if v is not None})
        await self._r(lambda r: r.eval(_FINISH, len(keys), *keys, payload))

    async def outstanding(self) -> int:
        """Jobs not finished: pending, waiting for a retry, or running (what `--drain` waits for).

        A job running on a worker that died counts too: it is taken over once its lease
        and entry have been idle for the visibility timeout.
        """
        counts = await self.counts()
        return counts["pending"] + counts["retrying"] + counts["running"]

    async def reset(self) -> None:
        """Delete every key of this queue (tests, `athena db` style maintenance)."""
        ids = [_s(i) for i in await self._r(lambda r: r.zrange(self.key("all"), 0, -1))]
        keys = [self.key(p) for p in ("stream", "all", "delayed", "dead")]
        keys += [self.key("job", i) for i in ids] + [self.key("lease", i) for i in ids]
        await self._r(lambda r: r.delete(*keys))
        self._group_ready = False
