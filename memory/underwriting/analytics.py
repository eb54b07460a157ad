"""The read side of the underwriting graph: query, trace, export, visualize.

`GraphAnalytics` is the seed's ``AthenaGraphAnalytics`` over `GraphMemory`:

* `query` / `check_risk_appetite`: the rules whose edges match a text (one hit
  per rule, scored by all its matching edges), filtered to a product's rules plus ``ALL`` rules.
* `trace`: full decision paths RiskFactor -> Rule -> Outcome with mitigants,
  source and threshold metadata, for audit.
* `rules_for_submission`: the rules that can fire on a submission's values,
  found through an index of their conditions (the by-field half of runtime
  retrieval, so a number that no text mentions still reaches its rule).
* `export` / `export_to_json`: every current rule in ``rules.jsonl`` shape plus
  ids and provenance.
* `visualize`: a PNG or a self-contained interactive HTML page of the graph.

A rule is *current* unless every edge it has was invalidated or expired.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory.backend.readcache import read_cache, read_through
from memory.backend.rows import NODE_FIELDS, entity_from_row
from memory.model import EntityRecord, Namespace, as_namespace, entity_key
from memory.underwriting.condition_kind import CURRENT_EDGE, RULE_NODES, condition_index
from memory.underwriting.conditions import ConditionIndex
from memory.underwriting.paths import (
    DecisionPath,
    PathEdge,
    RuleHit,
    canonical_product,
    path_of,
    props_of,
    route_path,
    rule_hits,
)
from memory.underwriting.rulebook import rule_from_properties
from memory.underwriting.visualize import draw_graph
from schemas.fields import DataDictionary, cached_data_dictionary
from schemas.rules import ExtractedRule

if TYPE_CHECKING:
    from memory.graph import GraphMemory

OVERFETCH = 4
RULE_HITS = "rule-hits"  # read-cache space: a text's rule hits by text alone
_CURRENT = CURRENT_EDGE


class GraphAnalytics:
    """Read-only analytics over one namespace of a `GraphMemory`.

    Args:
        memory: A connected graph memory.
        namespace: The namespace to read.
        fields: Data dictionary queries are read with; None uses the settings' one.
    """

    def __init__(
        self,
        memory: GraphMemory,
        namespace: Namespace | str,
        fields: DataDictionary | None = None,
    ) -> None:
        self.memory = memory
        self.namespace = as_namespace(namespace)
        self.fields = fields

    async def _rows(self, cypher: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        group_id = self.namespace.group_id
        if not await self.memory.db.has_graph(group_id):
            return []
        return await self.memory.db.query(group_id, cypher, params, read_only=True)

    # -- search ---------------------------------------------------------------------------

    async def query(
        self,
        text: str,
        product_type: str | None = None,
        limit: int = 10,
        as_of: datetime | None = None,
    ) -> list[RuleHit]:
        """Return the rules whose edges best match `text`, one hit per rule, best first.

        A rule scores the sum of its matching edges' scores (evidence from its
        trigger, outcome, mitigant and source facts adds up); its best edge is shown.
        Facts the text states ("a 200-seat restaurant") are read into field values
        and the rules they satisfy are fused into the ranking (`memory.query_reading`).

        Args:
            text: Free text, e.g. ``"gas station"`` or ``"employee count 22"``.
            product_type: Keep this product's rules and ``ALL`` rules; None keeps every rule.
            limit: Most rules to return.
            as_of: Match the rules as they stood at this time (superseded versions
                included, later ones not); None matches the current rules.

        Raises:
            ValueError: Empty text, a non-positive limit or an unknown product.
        """
        [hits] = await self.query_many([text], product_type, limit, as_of)
        return hits

    async def query_many(
        self,
        texts: Sequence[str],
        product_type: str | None = None,
        limit: int = 10,
        as_of: datetime | None = None,
        *,
        read_facts: bool = True,
    ) -> list[list[RuleHit]]:
        """`query` for several texts at once (one search round for all); one list per text.

        `read_facts` False ranks by text alone: for queries built from values the
        caller already looks up in the condition index (a submission's fields), reading
        them again into field values costs time and finds nothing new.

        Raises:
            ValueError: An empty text, a non-positive limit or an unknown product.
        """
        for text in texts:
            if not isinstance(text, str) or not text.strip():
                raise ValueError("query needs a non-empty text")
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        product = canonical_product(product_type)
        if not read_facts and as_of is None:
            return await self._ranked_by_text(texts, product, limit)
        search = asyncio.ensure_future(
            self.memory.search_many(
                self.namespace,
                texts,
                limit=max(limit * OVERFETCH, 20),
                partition=product,
                as_of=as_of,
            )
        )
        fields = None if as_of is not None or not read_facts else self._dictionary()
        conditions = None
        try:
            if fields is not None:  # read the queries while the text search runs
                from memory.underwriting.query_reading import read_queries

                conditions = await read_queries(self.memory, self.namespace, texts, product, fields)
        finally:
            found = await search
        hits = [rule_hits(h, limit * 2) for h in found]
        if conditions is None:
            return [h[:limit] for h in hits]
        return await self._fused(hits, conditions, limit)

    async def _ranked_by_text(
        self, texts: Sequence[str], product: str | None, limit: int
    ) -> list[list[RuleHit]]:
        """`query_many` by text alone, each text's hits kept until the next commit.

        A decision's field signals repeat from one submission to the next: a
        long-running reader collapses their edge hits into rule hits once per commit,
        not once per decision (the hits are frozen, shared by every caller).
        """
        cache = await read_cache(self.memory.db, self.namespace.group_id)

        async def search(missing: list[tuple[str, str | None, int]]) -> dict[Any, list[RuleHit]]:
            found = await self.memory.search_many(
                self.namespace,
                [text for text, _, _ in missing],
                limit=max(limit * OVERFETCH, 20),
                partition=product,
            )
            return {
                key: rule_hits(h, limit * 2)[:limit] for key, h in zip(missing, found, strict=True)
            }

        keys = [(text, product, limit) for text in texts]
        hits = await read_through(cache, RULE_HITS, keys, search)
        return [list(hits[key]) for key in keys]

    async def _fused(
        self, hits: list[list[RuleHit]], conditions: list[dict[str, float]], limit: int
    ) -> list[list[RuleHit]]:
        """Each query's hits re-ranked with the rules its stated facts satisfy."""
        from memory.underwriting.query_reading import fused_orders, trigger_rows

        rankings = [[(h.rule_name, h.score) for h in found] for found in hits]
        orders = fused_orders(rankings, conditions, limit)
        known = {h.rule_name: h for found in hits for h in found}
        missing = sorted({n for order in orders for n, _ in order if n not in known})
        for row in await trigger_rows(self.memory, self.namespace, missing) if missing else []:
            known.setdefault(
                row["rule"],
                RuleHit(
                    rule_name=row["rule"],
                    source=row["source"],
                    relation="TRIGGERS",
                    target=row["target"],
                    fact=row["fact"] or "",
                    properties=row["props"],
                    score=0.0,
                ),
            )
        return [
            [known[n].model_copy(update={"score": s}) for n, s in order if n in known]
            for order in orders
        ]

    def _dictionary(self) -> DataDictionary | None:
        """The data dictionary queries are read with (None when it cannot be loaded)."""
        if self.fields is None:
            self.fields = _settings_dictionary(self.memory.settings.fields_path)
        return self.fields

    async def check_risk_appetite(
        self, risk: str, product_type: str | None = None, limit: int = 10
    ) -> list[RuleHit]:
        """Domain alias of `query`: the rules that speak to a risk for a product."""
        return await self.query(risk, product_type=product_type, limit=limit)

    # -- paths ----------------------------------------------------------------------------

    async def trace(
        self, risk: str, product_type: str | None = None, limit: int = 10
    ) -> list[DecisionPath]:
        """Return the decision paths of a risk.

        The rules a RiskFactor of exactly that name triggers come first, then the
        rules found by searching for the text.

        Args:
            risk: A risk factor name or free text.
            product_type: Keep this product's rules and ``ALL`` rules.
            limit: Most paths to return.

        Raises:
            ValueError: Empty text, a non-positive limit or an unknown product.
        """
        product = canonical_product(product_type)
        hits = await self.query(risk, product_type=product, limit=limit)
        key = entity_key(self.namespace.group_id, "RiskFactor", risk)
        rows = await self._rows(
            "MATCH (s:Entity {entity_key: $key})-[e:RELATES_TO]->(:Entity) "
            f"WHERE e.name = 'TRIGGERS' AND {_CURRENT} RETURN e.p_rule_name AS name, "
            "e.p_product_type AS product ORDER BY name",
            {"key": key},
        )
        direct = [r["name"] for r in rows if product is None or r["product"] in ("ALL", product)]
        scores = {h.rule_name: h.score for h in hits}
        names = list(dict.fromkeys([*direct, *scores]))[:limit]
        paths = await self.paths(names)
        return [p.model_copy(update={"score": scores.get(p.rule_name)}) for p in paths]

    async def paths(self, rule_names: Iterable[str]) -> list[DecisionPath]:
        """Return the decision paths of the named rules, in the order given (unknown skipped)."""
        names = list(dict.fromkeys(rule_names))
        if not names:
            return []
        cache = await read_cache(self.memory.db, self.namespace.group_id)
        found = await read_through(cache, "path", names, self._load_paths)
        return [path for name in names if (path := found[name]) is not None]

    async def decision_paths(
        self, rule_names: Iterable[str], index: ConditionIndex
    ) -> list[DecisionPath]:
        """The decision paths that explain fired rules, from the condition index's routes.

        The index keeps each current rule's route (what its current edges connect it
        to, kept current from the change log like the rule itself), so explaining a
        decision costs no round trip. A path made from a route names the risk factor,
        outcomes, mitigants and sources of `paths`'s; the edges' other properties
        (threshold, conditions, source types) are the rule's own and are left out. A
        rule whose route the index does not hold is read as `paths` reads it.
        """
        names = list(dict.fromkeys(rule_names))
        if not names:
            return []

        async def from_routes(missing: list[str]) -> dict[str, DecisionPath | None]:
            routes = index.routes_named(missing)  # leaves out a rule whose route is unknown
            return {name: route_path(name, r) if r else None for name, r in routes.items()}

        cache = await read_cache(self.memory.db, self.namespace.group_id)
        found = await read_through(cache, "route", names, from_routes)
        rest = [name for name in names if name not in found]
        read = {p.rule_name: p for p in await self.paths(rest)} if rest else {}
        return [path for name in names if (path := found.get(name) or read.get(name)) is not None]

    async def _load_paths(self, names: list[str]) -> dict[str, DecisionPath | None]:
        """The decision path of each name (None for a rule with no current edge)."""
        rows = await self._rows(  # by the p_rule_name index (a typed pattern scans nodes)
            f"MATCH ()-[e:RELATES_TO]->() WHERE e.p_rule_name IN $names AND {_CURRENT} "
            "RETURN e.p_rule_name AS rule, e.name AS relation, startNode(e).name AS source, "
            "endNode(e).name AS target, e.props_json AS props",
            {"names": names},
        )
        edges: dict[str, list[PathEdge]] = {}
        for row in rows:
            props = props_of(row["props"])
            edge = PathEdge(row["relation"], row["source"], row["target"], props)
            edges.setdefault(row["rule"], []).append(edge)
        return {name: path_of(name, edges[name]) if name in edges else None for name in names}

    # -- structured rules -----------------------------------------------------------------

    async def rule_entities(self, where: str = "", **params: Any) -> list[EntityRecord]:
        """Return the current Rule nodes (optionally filtered by a Cypher condition on `n`)."""
        clause = f" AND ({where})" if where else ""
        rows = await self._rows(
            f"MATCH (n:Entity) WHERE n.label = 'Rule'{clause} {RULE_NODES}"
            f"RETURN {NODE_FIELDS} ORDER BY n.name",
            params,
        )
        return [entity_from_row(r) for r in rows]

    async def rules(
        self,
        names: Iterable[str] | None = None,
        product_type: str | None = None,
        *,
        index: ConditionIndex | None = None,
    ) -> list[ExtractedRule]:
        """Return the current structured rules (optionally only some names / one product).

        `index`: the namespace's condition index when the caller holds it (one look-up,
        one change-log poll, serves a whole decision).
        """
        product = canonical_product(product_type)
        if names is None:
            return _applicable(await self.rule_entities(), product)
        names = list(names)
        if not names:
            return []
        # The condition index keeps every current rule's document: no round trip.
        if index is None:
            index = await condition_index(self.memory, self.namespace)
        found = index.rules_named(dict.fromkeys(names))
        return [
            rule
            for name in sorted(found)
            for rule in found[name]
            if product is None or rule.product_type in ("ALL", product)
        ]

    async def rules_for_submission(
        self,
        values: Mapping[str, Any],
        product_type: str | None = None,
        *,
        index: ConditionIndex | None = None,
    ) -> list[ExtractedRule]:
        """Return the current rules that can fire on a submission, or that lack only its data.

        These are the rules with a condition on a submitted field whose conditions on
        submitted fields all hold (see `memory.underwriting.conditions.ConditionIndex`): the rules
        that fire, and those that would fire but for an absent field. Rules with a
        failing condition cannot change the decision and are not loaded.

        Args:
            values: The submission's canonical field values (None counts as absent).
            product_type: Keep this product's rules and ``ALL`` rules; None keeps every rule.
            index: The namespace's condition index when the caller holds it.
        """
        product = canonical_product(product_type)
        if index is None:
            index = await condition_index(self.memory, self.namespace)
        names = index.candidates(values, product)
        return await self.rules(names, product_type=product, index=index) if names else []

    async def rule_count(self) -> int:
        """Return how many current Rule nodes the namespace holds."""
        return len(await condition_index(self.memory, self.namespace))

    # -- export ---------------------------------------------------------------------------

    async def export(self) -> list[dict[str, Any]]:
        """Return every current rule in ``rules.jsonl`` shape plus ids and provenance.

        Each dict holds the rule's fields, ``id`` (graph uuid), ``entity_key`` and
        ``provenance`` (namespace, last writer, confidence, created / updated times).
        """
        exported = []
        for entity in await self.rule_entities():
            rule = rule_from_properties(entity.properties)
            body = rule.model_dump(mode="json") if rule else dict(entity.properties)
            body.setdefault("rule_name", entity.name)
            body["id"] = entity.uuid
            body["entity_key"] = entity.entity_key
            body["provenance"] = {
                "namespace": str(self.namespace),
                "last_update_source": entity.last_update_source,
                "confidence": entity.confidence,
                "created_at": entity.created_at.isoformat() if entity.created_at else None,
                "updated_at": entity.updated_at.isoformat() if entity.updated_at else None,
                "complete": rule is not None,
            }
            exported.append(body)
        return exported

    async def export_to_json(self, path: str | Path) -> int:
        """Write ``{"namespace", "rules": [...]}`` to `path`; return the number of rules."""
        rules = await self.export()
        document = {"namespace": str(self.namespace), "count": len(rules), "rules": rules}
        Path(path).write_text(json.dumps(document, indent=2, ensure_ascii=False), "utf-8")
        return len(rules)

    # -- visualize ------------------------------------------------------------------------

    async def visualize(self, path: str | Path, title: str | None = None) -> Path:
        """Draw the namespace's current graph, coloured by node type.

        Args:
            path: Output file: ``.png`` (networkx + matplotlib) or ``.html`` (a
                self-contained interactive page: zoom, pan, hover, click to highlight).
            title: Title of the picture; defaults to the namespace.

        Returns:
            The written path.

        Raises:
            ValueError: The suffix is neither ``.png`` nor ``.html``.
        """
        out = Path(path)
        suffix = out.suffix.lower()
        if suffix not in (".png", ".html", ".htm"):
            raise ValueError(f"visualize writes .png or .html files, got {str(out)!r}")
        entities = await self.memory.entities(self.namespace)
        edges = await self.memory.relationships(self.namespace)
        return draw_graph(entities, edges, out, title or f"Athena graph {self.namespace}")


def _settings_dictionary(path: Path | None) -> DataDictionary | None:
    try:
        return cached_data_dictionary(path)
    except ValueError:
        return None


def _applicable(entities: Iterable[EntityRecord], product: str | None) -> list[ExtractedRule]:
    rules = [rule_from_properties(e.properties) for e in entities]
    return [
        r
        for r in rules
        if r is not None and (product is None or r.product_type in ("ALL", product))
    ]
