"""The condition index of a namespace as a derived index of its graph.

`condition_index(memory, namespace)` returns the namespace's `ConditionIndex`
(`memory.underwriting.conditions`) through `memory.backend.derived`: built once
from the current Rule nodes (with each rule's stored document), then kept
current from the namespace's change log, a changed rule replacing its entry in
place (writes by other processes included), and saved as a snapshot for a warm
start.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

import orjson

from memory.backend import read_by_ids
from memory.underwriting.conditions import ConditionIndex, Route
from memory.underwriting.documents import split_history
from schemas.rules import Condition

if TYPE_CHECKING:
    from memory.backend import Change, Reader
    from memory.graph import GraphMemory
    from memory.model import Namespace

logger = logging.getLogger(__name__)
CURRENT_EDGE = "e.invalid_at IS NULL AND e.expired_at IS NULL"
# The current Rule nodes `n`: a rule is current unless it was retired (`invalid_at`) or
# every edge it has was invalidated.
_LIVE = f"count(e) AS total, sum(CASE WHEN {CURRENT_EDGE} THEN 1 ELSE 0 END) AS live"
_STILL_CURRENT = "WHERE n.invalid_at IS NULL AND (total = 0 OR live > 0) "
RULE_NODES = f"OPTIONAL MATCH (n)-[e:RELATES_TO]-() WITH n, {_LIVE} {_STILL_CURRENT}"
# The same, with each rule's route: its current edges as [relation, other end's name].
_RULE_ROUTES = (
    f"OPTIONAL MATCH (n)-[e:RELATES_TO]-(m) WITH n, {_LIVE}, "
    f"collect(CASE WHEN {CURRENT_EDGE} AND e.p_rule_name = n.name THEN [e.name, m.name] END) "
    f"AS route {_STILL_CURRENT}"
)


def _rule_entry(
    uuid: str, name: str, props_json: str | None, route: list[list[str]] | None
) -> tuple[str, str, list[Condition], str | None, Route, str | None]:
    """(name, product, conditions, document, route, history) of a stored Rule node.

    The document is the rule's JSON form and the history the rest of the stored
    document (`memory.underwriting.documents.split_history`); one only `json` reads
    (huge integers, NaN) is kept whole. A malformed document gives no conditions
    (nothing to index).
    """
    pairs: Route = tuple(sorted((str(r), str(n)) for r, n in route or ()))
    try:
        props = orjson.loads(props_json or "{}")
    except orjson.JSONDecodeError:
        props = None
    try:
        data = props if props is not None else json.loads(props_json or "{}")
        conditions = [Condition.model_validate(c) for c in data.get("conditions") or []]
    except (ValueError, TypeError, AttributeError):  # not a structured rule
        return name, "", [], props_json, pairs, None
    document, history = props_json, None
    if props is not None:
        form, rest = split_history(props)
        document = orjson.dumps(form).decode()
        history = orjson.dumps(rest).decode() if rest else None
    return name, str(data.get("product_type") or ""), conditions, document, pairs, history


class ConditionKind:
    """The condition index as a derived index of a graph (see `memory.backend.derived`).

    Built from the current Rule nodes; a commit's change is applied by re-reading
    the Rule nodes it names (a rule's edges being retired makes it no longer
    current, and its endpoints are named too).
    """

    name = "conditions"
    version = 4  # 2: with each rule's document; 3: and its route; 4: history apart
    _RETURN = "RETURN n.uuid AS uuid, n.name AS name, n.props_json AS props, route"

    async def build(self, reader: Reader, group_id: str) -> ConditionIndex:
        """Index every current rule of the graph."""
        logger.info("building condition index of %s", group_id)
        rows = await reader.query(
            group_id,
            f"MATCH (n:Entity) WHERE n.label = 'Rule' {_RULE_ROUTES}{self._RETURN} ORDER BY n.name",
        )
        index = ConditionIndex()
        for r in rows:
            index.add(r["uuid"], *_rule_entry(r["uuid"], r["name"], r["props"], r["route"]))
        return index

    async def apply(
        self, reader: Reader, group_id: str, state: ConditionIndex, change: Change
    ) -> ConditionIndex:
        """Re-read the rules among the nodes the change names."""
        rows = await read_by_ids(
            reader,
            group_id,
            f"MATCH (n:Entity) WHERE n.uuid IN $uuids AND n.label = 'Rule' {_RULE_ROUTES}"
            f"{self._RETURN}",
            change.nodes,
        )
        live = {r["uuid"] for r in rows}
        for uuid in change.nodes - live:
            state.discard(uuid)
        for r in rows:
            state.add(r["uuid"], *_rule_entry(r["uuid"], r["name"], r["props"], r["route"]))
        return state

    def dump(self, state: ConditionIndex) -> bytes:
        """Serialise the index."""
        return state.to_bytes()

    def load(self, data: bytes) -> ConditionIndex:
        """Load a serialised index."""
        return ConditionIndex.from_bytes(data)


CONDITIONS = ConditionKind()


async def condition_index(memory: GraphMemory, namespace: Namespace) -> ConditionIndex:
    """The namespace's condition index, current as of its newest commit."""
    index: ConditionIndex = await memory.db.indexes.get(namespace.group_id, CONDITIONS)
    return index


__all__ = [
    "CONDITIONS",
    "CURRENT_EDGE",
    "RULE_NODES",
    "ConditionKind",
    "condition_index",
]
