"""Every crash tail is rewritten without transactions before a start, whatever its size (issue 24).

A client's command while the server replays a transaction of the append-only file
kills it, so no start may replay one; the size of the tail only decides whether the
server builds its indexes before or after loading.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from memory.backend import aoftail
from memory.backend.aoftail import prepare_tail, unwrapped
from tests.unit.test_aoftail import commit, folder_with_tail, resp

TAIL = "appendonly.aof.1.incr.aof"


def test_a_long_tail_is_unwrapped_and_loaded_with_indexes_first(tmp_path: Path) -> None:
    data = b"".join(commit(n) for n in range(30))
    folder = folder_with_tail(tmp_path, data)
    (folder / TAIL).chmod(0o600)
    plan = prepare_tail(folder, max_lookups=10)
    assert plan.lookups == 30 and not plan.transactions and not plan.delay_indexing
    assert (folder / TAIL).read_bytes() == unwrapped(data)
    assert b"MULTI" not in (folder / TAIL).read_bytes()
    assert stat.S_IMODE((folder / TAIL).stat().st_mode) == 0o600  # owner-only, as before
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


def test_a_short_tail_loads_with_its_indexing_delayed(tmp_path: Path) -> None:
    folder = folder_with_tail(tmp_path, commit(1) + commit(2))
    plan = prepare_tail(folder)
    assert plan.delay_indexing and plan.lookups == 2 and not plan.transactions


def test_what_a_crash_cut_short_is_dropped_and_annotations_kept(tmp_path: Path) -> None:
    annotation = b"#TS:1700000000\r\n"
    whole = annotation + commit(1) + resp("PING") + commit(2)
    folder = folder_with_tail(tmp_path, whole[: -len(resp("EXEC"))])  # no EXEC: never ran
    assert prepare_tail(folder).lookups == 1
    kept = (folder / TAIL).read_bytes()
    assert kept.startswith(annotation) and kept.count(b"GRAPH.QUERY") == 1
    assert kept.endswith(resp("PING"))


def test_a_tail_without_transactions_is_left_untouched(tmp_path: Path) -> None:
    folder = folder_with_tail(tmp_path, unwrapped(commit(1) + commit(2)))
    before = (folder / TAIL).stat()
    assert prepare_tail(folder).lookups == 2
    after = (folder / TAIL).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_tail_that_cannot_be_rewritten_is_left_whole_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = commit(1) + commit(2)
    folder = folder_with_tail(tmp_path, data)

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(aoftail.os, "replace", full)
    plan = prepare_tail(folder)
    assert plan.transactions and not plan.delay_indexing  # the server must be left alone
    assert (folder / TAIL).read_bytes() == data
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []
