"""Scale-out pieces that need no server: URLs, hash tags, the replica read rule."""

from __future__ import annotations

from typing import Any

import pytest
from redis.crc import key_slot

from memory import Namespace
from memory.backend.connection import (
    COMMAND_TIMEOUT_SECONDS,
    _pool_from_url,
    open_socket,
    redis_url,
    url_kwargs,
)
from memory.backend.replicas import DOWN_SECONDS, ReadReplicas
from memory.sessions.queue import DEFAULT_PREFIX, JobQueue, tagged_prefix
from memory.sessions.store import SESSIONS_INDEX, session_key
from memory.settings import Settings

#: The parts of a queue's keys (see `JobQueue.key`).
QUEUE_KEYS = [("stream",), ("all",), ("dead",), ("delayed",), ("job", "j1"), ("lease", "j1")]


def _queue(prefix: str) -> JobQueue:
    """A queue's key names (no server needed to name them)."""
    return JobQueue(db=None, prefix=prefix)  # type: ignore[arg-type]


def test_cluster_urls_keep_their_credentials_or_have_none() -> None:
    wait = COMMAND_TIMEOUT_SECONDS
    assert url_kwargs("falkor://alice:s3cret@db.example:7000") == {
        "host": "db.example", "port": 7000, "username": "alice", "password": "s3cret",
        "socket_timeout": wait,
    }  # fmt: skip
    assert url_kwargs("redis://127.0.0.1:6380") == {
        "host": "127.0.0.1", "port": 6380, "socket_timeout": wait,
    }  # fmt: skip
    assert url_kwargs("redis://h:1?socket_timeout=2")["socket_timeout"] == 2
    assert url_kwargs("falkors://:pw@h:1")["ssl"] is True
    assert redis_url("falkors://h:1") == "rediss://h:1"
    with pytest.raises(ValueError, match=r"must start with redis://, rediss://, falkor://"):
        url_kwargs("http://db.example:6379")


def test_a_long_command_is_not_taken_for_a_lost_connection() -> None:
    # redis-py gives up on a reply after 5 s by default: a bulk commit or a whole-graph
    # read at 100k rules on a busy server takes longer, and was broken off and re-run.
    # What each way of connecting waits for a reply: minutes, not seconds, and finite (a
    # server that died is still noticed); a timeout the URL names is honoured.
    sock = open_socket("/nonexistent/falkordb.sock", pool_size=2)
    waits = [
        sock.client.connection.connection_pool.connection_kwargs["socket_timeout"],
        _pool_from_url("redis://h:1", 2).connection_kwargs["socket_timeout"],
        url_kwargs("falkor://h:1")["socket_timeout"],
    ]
    assert all(300 <= float(wait) < float("inf") for wait in waits), waits
    assert (
        float(_pool_from_url("redis://h:1?socket_timeout=3", 2).connection_kwargs["socket_timeout"])
        == 3
    )


def test_keys_that_scripts_touch_together_share_a_hash_tag() -> None:
    # Every key of one queue lands in one cluster slot (its scripts touch several at once),
    # whatever prefix the queue was given; two queues are two sets of keys.
    for prefix in (DEFAULT_PREFIX, "test:1", "app:{q}", "jobs"):
        keys = [_queue(prefix).key(*parts) for parts in QUEUE_KEYS]
        assert len(set(keys)) == len(keys)
        assert {key_slot(k.encode()) for k in keys} == {key_slot(keys[0].encode())}, keys
    assert _queue("test:1").key("stream") != _queue("test:2").key("stream")
    assert tagged_prefix("test:1") == "{test:1}"
    assert tagged_prefix("app:{q}") == "app:{q}"  # a tag it has is kept
    with pytest.raises(ValueError, match="non-empty key prefix"):
        tagged_prefix(" ")
    # A session's counters hash like the session's graph (same cluster node).
    for sid in ("s.1", "chat-42", "Jane@x_2"):
        graph = Namespace.session(sid).group_id
        assert key_slot(session_key(sid).encode()) == key_slot(graph.encode()), sid
    assert session_key("s.1") != session_key("s_1")
    assert SESSIONS_INDEX.startswith("athena:{sessions}")


def test_pool_size_and_read_urls_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALKORDB_POOL_SIZE", "16")
    monkeypatch.setenv("FALKORDB_READ_URLS", "redis://r1:6379, redis://r2:6379,")
    settings = Settings()
    assert settings.falkordb_pool_size == 16
    assert settings.read_urls == ["redis://r1:6379", "redis://r2:6379"]
    monkeypatch.setenv("FALKORDB_POOL_SIZE", "0")
    with pytest.raises(ValueError, match="FALKORDB_POOL_SIZE"):
        Settings()


class FakeNode:
    """A server answering INFO replication with an offset the test moves."""

    def __init__(self, offset: int, *, replica: bool) -> None:
        self.offset, self.replica, self.infos = offset, replica, 0
        self.connection = self

    async def info(self, section: str) -> dict[str, Any]:
        assert section == "replication"
        self.infos += 1
        if isinstance(self.offset, Exception):
            raise self.offset
        key = "slave_repl_offset" if self.replica else "master_repl_offset"
        return {key: self.offset}


async def test_the_writer_reads_the_primary_until_the_replica_has_its_commit() -> None:
    now = [100.0]
    primary, replica = FakeNode(500, replica=False), FakeNode(500, replica=True)
    router = ReadReplicas(primary, [replica], clock=lambda: now[0])
    assert await router.client_for("agent__a") is replica  # nothing written here: replica
    assert replica.infos == 0

    primary.offset = 900
    await router.committed("agent__a")
    replica.offset = 700  # lagging behind the commit
    assert await router.client_for("agent__a") is None
    assert await router.client_for("agent__b") is replica  # other namespaces unaffected
    replica.offset = 900
    assert await router.client_for("agent__a") is replica
    checks = replica.infos
    assert await router.client_for("agent__a") is replica  # caught up: no more checks
    assert replica.infos == checks
    assert router.reads == {"primary": 1, "replica": 4}

    primary.offset = 1000
    await router.committed("agent__a")
    replica.offset = ConnectionError("replica down")  # type: ignore[assignment]
    assert await router.client_for("agent__a") is None
    assert await router.client_for("agent__b") is None  # skipped while down
    now[0] += DOWN_SECONDS + 1
    replica.offset = 1000
    assert await router.client_for("agent__b") is replica


def test_each_namespace_reads_one_replica() -> None:
    router = ReadReplicas(object(), [object(), object(), object()])
    picks = {router.index(f"agent__n{i}") for i in range(30)}
    assert picks == {0, 1, 2}
    assert router.index("agent__n1") == ReadReplicas(object(), [1, 2, 3]).index("agent__n1")


def test_the_load_section_replaces_the_previous_one(tmp_path: Any) -> None:
    from bench.load import LOAD_END, LOAD_START, load_section, write_load_section

    run = {"servers": 1, "clients": 1, "per_second": 10.0, "p50_ms": 90.0, "p95_ms": 120.0,
           "errors": 0, "server_cpu_s": [9.0], "db_cpu_s": 1.0, "client_cpu_s": 0.5,
           "seconds": 10.0}  # fmt: skip
    four = {**run, "clients": 4, "per_second": 17.0, "p95_ms": 300.0}
    results = {"runs": [run, four], "cores": 2, "backend": "embedded", "dataset": "dev",
               "seconds": 10.0}  # fmt: skip
    report = tmp_path / "benchmarks.md"
    report.write_text("# Benchmarks\n\nkept text\n")
    write_load_section(report, load_section(results, "athena bench --load"))
    write_load_section(report, load_section(results, "athena bench --load --seconds 10"))
    text = report.read_text()
    assert text.count(LOAD_START) == 1 and text.count(LOAD_END) == 1 and "kept text" in text
    assert "--seconds 10" in text
    assert "| 1 | 4 | 17.0 | 1.70 | 90.0 | 300.0 | 0 | 9.0 | 1.0 | 0.5 | 1.05 |" in text


def test_a_refused_login_is_reported_as_one() -> None:
    from redis.exceptions import AuthenticationError
    from redis.exceptions import ConnectionError as RedisConnectionError

    from memory.backend.connection import credentials_checked

    with pytest.raises(AuthenticationError):
        with credentials_checked():
            raise RedisConnectionError("invalid username-password pair or user is disabled.")
    with pytest.raises(RedisConnectionError) as caught:
        with credentials_checked():
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")
    assert not isinstance(caught.value, AuthenticationError)
