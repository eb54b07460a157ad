"""A crash's AOF tail is rewritten without transactions only when that loads the same data."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.backend.aoftail import loads_unindexed, tail_empty, unwrap_transactions, unwrapped


def resp(*args: str) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def commit(n: int) -> bytes:
    rows = '[{`uuid`:"u' + str(n) + '"}]'
    query = "CYPHER rows=" + rows + " UNWIND $rows AS row MERGE (n {uuid: row.uuid})"
    return (
        resp("MULTI")
        + resp("SELECT", "0")
        + resp("GRAPH.QUERY", "g", query)
        + resp("XADD", "athena:{g}:log", f"{n}-0", "nodes", f"u{n}")
        + resp("EXEC")
    )


def folder_with_tail(tmp_path: Path, tail: bytes) -> Path:
    folder = tmp_path / "appendonlydir"
    folder.mkdir(parents=True)
    (folder / "appendonly.aof.manifest").write_text(
        "file appendonly.aof.1.base.rdb seq 1 type b\n"
        "file appendonly.aof.1.incr.aof seq 1 type i startoffset 0\n"
    )
    (folder / "appendonly.aof.1.incr.aof").write_bytes(tail)
    return folder


def test_committed_transactions_keep_their_commands_in_order() -> None:
    out = unwrapped(commit(1) + resp("PING") + commit(2))
    expected = b"".join(
        [resp("SELECT", "0"), commit(1).split(resp("SELECT", "0"))[1].split(resp("EXEC"))[0]]
    )
    assert out.startswith(expected)
    assert b"MULTI" not in out and b"EXEC" not in out
    assert out.count(b"GRAPH.QUERY") == 2 and out.count(b"XADD") == 2 and b"PING" in out
    assert out.index(b"u1") < out.index(b"PING") < out.index(b"u2")


def test_what_redis_would_drop_is_dropped() -> None:
    whole = commit(1) + commit(2)
    # The crash cut the second commit short: mid-command, or before its EXEC.
    assert unwrapped(whole[:-7]).count(b"GRAPH.QUERY") == 1
    assert unwrapped(whole[: -len(resp("EXEC"))]).count(b"GRAPH.QUERY") == 1
    assert unwrapped(whole[:5]) == b""


def test_a_file_that_is_not_resp_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="RESP"):
        unwrapped(b"garbage\r\n")
    folder = folder_with_tail(tmp_path, b"garbage\r\n")
    assert loads_unindexed(folder) is False  # the server loads it the slow way
    assert (folder / "appendonly.aof.1.incr.aof").read_bytes() == b"garbage\r\n"


def test_a_small_tail_is_replaced_and_a_large_one_left(tmp_path: Path) -> None:
    small = folder_with_tail(tmp_path / "a", commit(1) + commit(2))
    assert not tail_empty(small)
    assert loads_unindexed(small) is True
    assert (small / "appendonly.aof.1.incr.aof").read_bytes() == unwrapped(commit(1) + commit(2))
    assert list(small.glob(".*")) == []  # no temporary file left behind
    tail = b"".join(commit(n) for n in range(20))
    large = folder_with_tail(tmp_path / "b", tail)
    assert unwrap_transactions(large, max_lookups=10) is False
    assert (large / "appendonly.aof.1.incr.aof").read_bytes() == tail


def test_no_tail_needs_nothing(tmp_path: Path) -> None:
    folder = folder_with_tail(tmp_path, b"")
    assert tail_empty(folder) and loads_unindexed(folder)
    assert tail_empty(tmp_path / "missing")
