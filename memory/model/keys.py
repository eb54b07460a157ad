"""Deterministic identities: entity keys and uuids derived from them."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
import uuid

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n\r.,;:!?\"'`()[]{}"
_NAMESPACE_UUID = uuid.UUID("6f1c1e4e-6a0b-4f53-9b1c-5a7d2f0a9e11")
_NAMESPACE_BYTES = _NAMESPACE_UUID.bytes
# Keys and uuids are pure functions of their text: a bulk load asks for the same ones
# again and again (shared entities, an edge's uuid in each step that plans it).
_CACHED = 1 << 16


@functools.lru_cache(maxsize=_CACHED)
def normalise_name(name: str) -> str:
    """Fold case, width and spacing so that 'Gas  Station.' and 'gas station' agree."""
    text = unicodedata.normalize("NFKC", name).casefold()
    return _SPACE.sub(" ", text).strip(_EDGE_PUNCT)


@functools.lru_cache(maxsize=_CACHED)
def entity_key(group_id: str, label: str, name: str) -> str:
    """Return the entity key: a hash of the normalised name, the label and the namespace."""
    raw = f"{group_id}\x1f{label}\x1f{normalise_name(name)}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


@functools.lru_cache(maxsize=_CACHED)
def stable_uuid(*parts: str) -> str:
    r"""Return a uuid5 determined by `parts` (the same parts always give the same uuid).

    The value `uuid.uuid5(_NAMESPACE_UUID, "\x1f".join(parts))` gives, computed
    without building `UUID` objects (a bulk load derives hundreds of thousands).
    """
    name = "\x1f".join(parts).encode("utf-8")
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + name, usedforsecurity=False).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    x = digest.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"
