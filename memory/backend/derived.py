"""In-process indexes derived from a graph, kept current from its change log.

A *derived kind* (the BM25 index of facts, the underwriting condition index...)
says how to build its state from a graph, how to apply a `Change` to it, and
how to save and load it. `DerivedIndexes.get` returns a kind's state for a
graph, current as of the newest commit:

1. the state this process already holds, or a snapshot saved on disk by any
   process (a warm start), is caught up by reading the change log from the
   offset it reflects (one round trip when nothing is new) and applying the
   uuids that changed (one read of just those);
2. only on first load with no usable snapshot, after the graph was cleared
   (its epoch changed), or when the log was trimmed past the offset, is the
   state built from the whole graph.

States are shared by every memory of the process that talks to the same server,
so a graph run that opens its own memory finds them warm. Snapshots live under
the data dir (owner-only), one file per graph and kind, with the epoch and
offset they reflect; writing one is atomic (a temp file renamed into place).
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import os
import tempfile
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator, Sized
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from memory.backend.changelog import (
    START,
    Change,
    head_commands,
    parse_head,
    parse_poll,
    poll_commands,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")
POLL_COUNT = 500  # log entries read per round trip while catching up
SAVE_AFTER = 50  # entries applied to a loaded state before its snapshot is refreshed
HELD_MAX = 64  # states kept per process, least recently used dropped first
FREEZE_FROM = 10_000  # entries from which a state is moved out of the cyclic GC's way


class Reader(Protocol):
    """What a derived kind reads through: read-only queries and raw key/stream commands."""

    @property
    def target(self) -> str:
        """Where the server is (identifies whose states may be shared)."""
        ...

    async def query(
        self,
        group_id: str,
        cypher: str,
        params: dict[str, Any] | None = None,
        *,
        read_only: bool = False,
        timeout_ms: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run Cypher on one graph."""
        ...

    async def execute(self, commands: list[tuple[Any, ...]]) -> list[Any]:
        """Run raw commands in one round trip and return their replies."""
        ...


async def read_by_ids(
    reader: Reader,
    group_id: str,
    cypher: str,
    ids: Iterable[str],
    *,
    name: str = "uuids",
    chunk: int = 1000,
) -> list[dict[str, Any]]:
    """Run a read query with `ids` (sorted) as its list parameter `name`, a chunk at a time."""
    values = sorted(ids)
    rows: list[dict[str, Any]] = []
    for i in range(0, len(values), chunk):
        rows += await reader.query(group_id, cypher, {name: values[i : i + chunk]})
    return rows


class DerivedKind(Protocol[T]):
    """How one kind of in-process index is built, updated and persisted."""

    name: str  # file-name safe
    version: int  # bump when the snapshot format changes
    # (a kind may set `persist = False`: its state is never saved as a snapshot)

    async def build(self, reader: Reader, group_id: str) -> T:
        """Build the state from the whole graph."""
        ...

    async def apply(self, reader: Reader, group_id: str, state: T, change: Change) -> T:
        """Bring the state up to date with a change (re-reading just what it names)."""
        ...

    def dump(self, state: T) -> bytes:
        """Serialise the state."""
        ...

    def load(self, data: bytes) -> T:
        """Deserialise a state written by `dump`."""
        ...


@dataclass(frozen=True)
class _Held:
    epoch: str
    offset: str
    state: Any
    unsaved: int = 0  # entries applied since the snapshot on disk was written


_HELD: OrderedDict[tuple[str, str, str], _Held] = OrderedDict()
_LOCKS: dict[tuple[int, str, str, str], asyncio.Lock] = {}
# What happened, per kind name: builds, loads (snapshots), applies. For tests and bench.
EVENTS: Counter[str] = Counter()


class DerivedIndexes:
    """The derived states of one connection's graphs (see the module docstring).

    Args:
        reader: The backend to read graphs and logs through.
        snapshot_dir: Where snapshots are kept; None keeps nothing on disk.
    """

    def __init__(self, reader: Reader, snapshot_dir: Path | None) -> None:
        self.reader = reader
        self.snapshot_dir = snapshot_dir

    async def get(self, group_id: str, kind: DerivedKind[T]) -> T:
        """Return `kind`'s state for the graph, current as of its newest commit."""
        key = (self.reader.target, group_id, kind.name)
        # One lock per state and event loop: states are shared by every memory of the
        # process, and an asyncio lock serves one loop.
        lock = _LOCKS.setdefault((id(asyncio.get_running_loop()), *key), asyncio.Lock())
        async with lock:
            held = _HELD.get(key)
            if held is None:
                held = await asyncio.to_thread(self._load, group_id, kind)
            if held is not None:
                held = await self._catch_up(group_id, kind, held)
            if held is None:
                held = await self._build(group_id, kind)
            _HELD[key] = held
            _HELD.move_to_end(key)
            while len(_HELD) > HELD_MAX:
                _HELD.popitem(last=False)
            state: T = held.state
            return state

    async def _catch_up(self, group_id: str, kind: DerivedKind[Any], held: _Held) -> _Held | None:
        """Apply the log entries after the held offset; None when a rebuild is needed."""
        offset, change, read = held.offset, Change(), 0
        while True:
            replies = await self.reader.execute(poll_commands(group_id, offset, POLL_COUNT))
            epoch, gap, entries = parse_poll(replies, offset)
            if epoch != held.epoch or gap:
                reason = "the graph was cleared" if epoch != held.epoch else "the log was trimmed"
                logger.info("rebuilding %s of %s: %s", kind.name, group_id, reason)
                return None
            for entry, entry_change in entries:
                offset, change = entry, change | entry_change
            read += len(entries)
            if len(entries) < POLL_COUNT:
                break
        if not read:
            return held
        state = await kind.apply(self.reader, group_id, held.state, change)
        EVENTS[f"{kind.name}:apply"] += 1
        held = replace(held, offset=offset, state=state, unsaved=held.unsaved + read)
        if held.unsaved >= SAVE_AFTER:
            held = await asyncio.to_thread(self._save, group_id, kind, held)
        return held

    async def _build(self, group_id: str, kind: DerivedKind[Any]) -> _Held:
        # The offset is read first: commits during the build are applied again later,
        # which is harmless (applying re-reads the current state of what changed).
        epoch, offset = parse_head(await self.reader.execute(head_commands(group_id)))
        # The build's own awaits are its reads; nothing else runs long.
        with collection_paused():
            state = await kind.build(self.reader, group_id)
        EVENTS[f"{kind.name}:build"] += 1
        _freeze(state)
        return await asyncio.to_thread(self._save, group_id, kind, _Held(epoch, offset, state))

    # -- snapshots ------------------------------------------------------------------------

    def _path(self, group_id: str, kind: DerivedKind[Any]) -> Path | None:
        if self.snapshot_dir is None or not getattr(kind, "persist", True):
            return None
        server = hashlib.sha256(self.reader.target.encode()).hexdigest()[:16]
        return self.snapshot_dir / server / group_id / f"{kind.name}.v{kind.version}.snap"

    def _load(self, group_id: str, kind: DerivedKind[Any]) -> _Held | None:
        path = self._path(group_id, kind)
        if path is None or not path.is_file():
            return None
        try:
            with path.open("rb") as snapshot:  # the body read in one piece, not copied after
                head = snapshot.readline()
                body = snapshot.read(os.fstat(snapshot.fileno()).st_size - len(head))
            meta = json.loads(head)
            with collection_paused():
                state = kind.load(body)
        except (OSError, ValueError, KeyError) as exc:
            logger.warning("ignoring unreadable index snapshot %s: %s", path, exc)
            return None
        EVENTS[f"{kind.name}:load"] += 1
        _freeze(state)
        return _Held(str(meta["epoch"]), str(meta.get("offset") or START), state)

    def _save(self, group_id: str, kind: DerivedKind[Any], held: _Held) -> _Held:
        path = self._path(group_id, kind)
        if path is None:
            return held
        try:
            for folder in (path.parents[2], path.parents[1], path.parent):
                folder.mkdir(exist_ok=True, mode=0o700)  # owner-only, like the data dir
            head = json.dumps({"epoch": held.epoch, "offset": held.offset}).encode()
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".snap-")
            with os.fdopen(fd, "wb") as out:
                out.write(head + b"\n" + kind.dump(held.state))
            os.replace(tmp, path)
            for old in path.parent.glob(f"{kind.name}.v*.snap"):
                if old != path:  # another version's snapshot: never loaded again
                    old.unlink(missing_ok=True)
        except OSError as exc:  # a read-only or full disk costs a warm start, nothing more
            logger.warning("could not save index snapshot %s: %s", path, exc)
            return held
        return replace(held, unsaved=0)


@contextmanager
def collection_paused() -> Iterator[None]:
    """Keep the cyclic GC out of a bulk allocation (it rescans every young object).

    For allocations that make no cycles and live long (a state being built or loaded,
    rules being parsed): collections during them free nothing, and over a large heap
    they made such work several times slower. `_freeze` moves them out of its way after.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _freeze(state: object) -> None:
    """Move a large long-lived state out of the cyclic GC's way (avoids long pauses).

    Only the youngest generation is collected first (the cycles the state's own
    build or load left): a full collection scans every object the process holds
    (about 70 ms after a fresh `athena decide`'s imports); older cycles left in the
    frozen set are a bounded cost.
    """
    if isinstance(state, Sized) and len(state) >= FREEZE_FROM:
        gc.collect(0)
        gc.freeze()


def held(kind_name: str) -> list[Any]:
    """The states of one kind this process holds (of every server and graph)."""
    return [h.state for key, h in _HELD.items() if key[2] == kind_name]


def forget(target: str | None = None) -> None:
    """Drop the states this process holds (of one server, or all): the next get reloads."""
    for key in [k for k in _HELD if target is None or k[0] == target]:
        del _HELD[key]


__all__ = [
    "EVENTS",
    "DerivedIndexes",
    "DerivedKind",
    "Reader",
    "collection_paused",
    "forget",
    "held",
    "read_by_ids",
]
