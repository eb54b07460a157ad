"""Which embedder each namespace was written with (name, model, dimension).

The identity is recorded at a namespace's first write, in a Redis hash beside its
graph (`athena:{<group_id>}:embedder`: the hash tag keeps it in the graph's cluster
slot). Reads of the namespace embed with the recorded embedder. A write with another
one raises `EmbedderMismatchError`, which names `athena reembed`. With
`ATHENA_EMBEDDER=auto` and no injected embedder the record decides for both, so
setting `OPENAI_API_KEY` later does not switch an offline namespace to OpenAI vectors.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.embedders import Embedder, OpenAIEmbedder, WordLlamaEmbedder
from memory.settings import Settings

if TYPE_CHECKING:
    from memory.backend.falkordb import Database

logger = logging.getLogger(__name__)


class EmbedderMismatchError(ValueError):
    """A namespace's vectors come from another embedder than the one asked to write."""


@dataclass(frozen=True)
class EmbedderIdentity:
    """What made a namespace's vectors."""

    name: str
    model: str
    dim: int

    def __str__(self) -> str:
        return f"{self.name} {self.model} ({self.dim}-d)"


def identity_key(group_id: str) -> str:
    """The Redis hash holding a namespace's embedder identity."""
    return f"athena:{{{group_id}}}:embedder"


def identity_of(embedder: Embedder) -> EmbedderIdentity:
    """The identity of an embedder (its dimension probed when still unknown)."""
    if int(embedder.dim) <= 0 and isinstance(embedder, OpenAIEmbedder):
        embedder.probe()
    model = str(getattr(embedder, "model", "") or "default")
    return EmbedderIdentity(str(embedder.name), model, int(embedder.dim))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


# Records the identity whole, in one step: unless a whole record is there already
# (`replace` = ARGV[1] "1": always). A record missing a field (a writer of an older
# version died between its two writes) is completed, never read half.
_RECORD = """
if ARGV[1] ~= '1' and redis.call('HEXISTS', KEYS[1], 'dim') == 1
   and redis.call('HEXISTS', KEYS[1], 'name') == 1 then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'model', ARGV[3], 'dim', ARGV[4])
return 1
"""


def _parse(raw: Any) -> EmbedderIdentity | None:
    """A whole record as an identity; None for no record, or one missing a field."""
    fields = {_text(k): _text(v) for k, v in (raw or {}).items()}
    name, model, dim = fields.get("name"), fields.get("model") or "default", fields.get("dim")
    if name and dim and dim.isdigit():
        return EmbedderIdentity(name, model, int(dim))
    if fields:
        logger.warning("ignoring an incomplete embedder record %s", sorted(fields))
    return None


async def recorded_identity(db: Database, group_id: str) -> EmbedderIdentity | None:
    """The identity recorded for a namespace graph, or None (none yet, or not whole)."""
    return _parse(await db.call(lambda: db.client.connection.hgetall(identity_key(group_id))))


async def record_identity(
    db: Database, group_id: str, identity: EmbedderIdentity, *, replace: bool = False
) -> EmbedderIdentity:
    """Record the identity unless one is there (or `replace`); return the one in force.

    The record is written whole in one atomic step, so processes writing a new
    namespace at once all agree on the first one recorded, and no reader sees a part.
    """
    key = identity_key(group_id)
    args = ("1" if replace else "0", identity.name, identity.model, str(identity.dim))
    written = await db.call(lambda: db.client.connection.eval(_RECORD, 1, key, *args))
    if written:
        return identity
    return await recorded_identity(db, group_id) or identity


async def forget_identity(db: Database, group_id: str) -> None:
    """Drop a namespace's record (its graph was deleted)."""
    await db.call(lambda: db.client.connection.delete(identity_key(group_id)))


class EmbedderChooser:
    """Picks the embedder of each namespace for reads and writes (see the module doc).

    Args:
        settings: Run settings (key and base URL for OpenAI embedders).
        default: The embedder the settings (or the caller) chose.
        explicit: True when that choice was explicit (`ATHENA_EMBEDDER` or an injected
            embedder): a write into a namespace recorded with another one is an error.
    """

    def __init__(self, settings: Settings, default: Embedder, *, explicit: bool) -> None:
        self.settings = settings
        self.default = default
        self.explicit = explicit
        self._records: dict[str, EmbedderIdentity | None] = {}
        self._built: dict[EmbedderIdentity, Embedder] = {}

    def forget(self, group_id: str) -> None:
        """Drop what is known of a namespace (after it was cleared or re-embedded)."""
        self._records.pop(group_id, None)

    async def record(self, db: Database, group_id: str) -> EmbedderIdentity | None:
        """The namespace's recorded identity (cached per process)."""
        if group_id not in self._records:
            self._records[group_id] = await recorded_identity(db, group_id)
        return self._records[group_id]

    async def default_identity(self) -> EmbedderIdentity:
        """The identity of the default embedder (probing an unknown dimension once)."""
        return await asyncio.to_thread(identity_of, self.default)

    async def for_read(self, db: Database, group_id: str) -> Embedder:
        """The embedder of the namespace's vectors (the default when none is recorded)."""
        found = await self.record(db, group_id)
        return self.default if found is None else self.build(found)

    async def for_write(self, db: Database, group_id: str) -> Embedder:
        """The embedder writes must use; records the default at the first write.

        Raises:
            EmbedderMismatchError: The namespace was written with another embedder and
                this run asked explicitly for a different one.
        """
        found = await self.record(db, group_id)
        mine = await self.default_identity()
        if found is None:
            found = await record_identity(db, group_id, mine)
            self._records[group_id] = found
        if found != mine and self.explicit:
            raise EmbedderMismatchError(
                f"namespace graph {group_id} was written with {found} embeddings, but this run "
                f"embeds with {mine}; re-embed it with `athena reembed` (or keep "
                f"ATHENA_EMBEDDER={found.name})"
            )
        return self.build(found)

    def build(self, identity: EmbedderIdentity) -> Embedder:
        """An embedder of this identity (the default one when it matches).

        Raises:
            EmbedderMismatchError: The identity needs OpenAI and no key is set.
        """
        if identity in self._built:
            return self._built[identity]
        default = self.default
        if (default.name, str(getattr(default, "model", "") or "default")) == (
            identity.name,
            identity.model,
        ) and int(default.dim) in (0, identity.dim):
            embedder: Embedder = default
        elif identity.name == "wordllama":
            embedder = WordLlamaEmbedder(identity.dim)
        elif identity.name == "openai":
            if not self.settings.openai_api_key:
                raise EmbedderMismatchError(
                    f"this namespace was written with {identity} embeddings: reading it needs "
                    "OPENAI_API_KEY, or re-embed it offline with "
                    "`athena reembed --embedder wordllama`"
                )
            embedder = OpenAIEmbedder(
                identity.model,
                self.settings.openai_api_key,
                self.settings.openai_base_url,
                dim=identity.dim,
            )
        else:
            raise EmbedderMismatchError(f"unknown embedder {identity.name!r} recorded")
        self._built[identity] = embedder
        return embedder


VECTOR_BATCH = 256


Commit = Callable[[str, Sequence[tuple[str, dict[str, Any]]], Any], Awaitable[None]]


async def reembed(
    db: Database,
    commit: Commit,
    group_id: str,
    embedder: Embedder,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Re-embed every entity name and edge fact of a namespace graph with `embedder`.

    The vector index is rebuilt for the new dimension and the identity replaced
    (a `GraphMemory` of this process then forgets what it knew: `embedders.forget`).

    Args:
        db: The namespace graph's database.
        commit: The store's commit path (`GraphMemory.commit`): every write goes through it.
        group_id: The namespace graph.
        embedder: The embedder to switch to.
        on_progress: Called with (items done, items total).

    Returns:
        Counts of what was re-embedded, and the old and new identities.
    """
    from memory.backend.changelog import Change
    from memory.embedders import embed_async

    old = await recorded_identity(db, group_id)
    new = await asyncio.to_thread(identity_of, embedder)
    nodes = await db.query(
        group_id, "MATCH (n:Entity) RETURN n.uuid AS id, n.name AS text", read_only=True
    )
    edges = await db.query(
        group_id,
        "MATCH ()-[e:RELATES_TO]->() RETURN e.uuid AS id, e.fact AS text",
        read_only=True,
    )
    total, done = len(nodes) + len(edges), 0
    await db.drop_vector_index(group_id)
    updates = (
        ("MATCH (n:Entity {uuid: row.id}) SET n.name_embedding = vecf32(row.v)", nodes),
        ("MATCH ()-[e:RELATES_TO {uuid: row.id}]->() SET e.fact_embedding = vecf32(row.v)", edges),
    )
    for cypher, rows in updates:
        for start in range(0, len(rows), VECTOR_BATCH):
            chunk: Sequence[dict[str, Any]] = rows[start : start + VECTOR_BATCH]
            vectors = await embed_async(embedder, [str(r["text"] or "") for r in chunk])
            payload = [{"id": r["id"], "v": v} for r, v in zip(chunk, vectors, strict=True)]
            ids = [str(r["id"]) for r in chunk]
            change = Change.of(edges=ids) if "RELATES_TO" in cypher else Change.of(nodes=ids)
            await commit(group_id, [(f"UNWIND $rows AS row {cypher}", {"rows": payload})], change)
            done += len(chunk)
            if on_progress is not None:
                on_progress(done, total)
    await record_identity(db, group_id, new, replace=True)
    await db.create_vector_index(group_id, new.dim)
    return {
        "graph": group_id,
        "entities": len(nodes),
        "edges": len(edges),
        "from": str(old) if old else None,
        "to": str(new),
    }
