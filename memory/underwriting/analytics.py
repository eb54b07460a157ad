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
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson
from pydantic import BaseModel, ConfigDict, Field

from memory.backend.readcache import read_cache, read_through
from memory.backend.rows import NODE_FIELDS, entity_from_row
from memory.model import EntityRecord, Namespace, SearchHit, as_namespace, entity_key
from memory.underwriting.condition_kind import CURRENT_EDGE, RULE_NODES, condition_index
from memory.underwriting.conditions import ConditionIndex, Route
from memory.underwriting.rulebook import rule_from_properties
from memory.underwriting.visualize import draw_graph
from schemas.fields import DataDictionary, cached_data_dictionary
from schemas.rules import PRODUCT_TYPES, ExtractedRule

if TYPE_CHECKING:
    from memory.graph import GraphMemory

OVERFETCH = 4
RULE_HITS = "rule-hits"  # read-cache space: a text's rule hits by text alone
_CURRENT = CURRENT_EDGE


class RuleHit(BaseModel):
    """One rule matching a query: its best-scoring edge."""

    model_config = ConfigDict(frozen=True)

    rule_name: str = Field(description="The rule the edge belongs to.")
    source: str = Field(description="Name of the edge's source node.")
    relation: str = Field(description="Edge relation, e.g. TRIGGERS.")
    target: str = Field(description="Name of the edge's target node.")
    fact: str = Field(description="The edge's fact text.")
    properties: dict[str, Any] = Field(default_factory=dict, description="Edge properties.")
    score: float = Field(description="Search score (higher is better).")


class DecisionPath(BaseModel):
    """RiskFactor -> Rule -> Outcome of one rule, with everything an audit needs."""

    model_config = ConfigDict(frozen=True)

    rule_name: str = Field(description="The rule.")
    risk_factor: str | None = Field(default=None, description="The risk that triggers it.")
    outcomes: list[str] = Field(default_factory=list, description="Outcome nodes it results in.")
    mitigants: list[str] = Field(default_factory=list, description="Mitigants that override it.")
    source: str | None = Field(default=None, description="Document it is derived from.")
    source_type: str | None = Field(default=None, description="manual, sme, production...")
    sources: list[str] = Field(
        default_factory=list, description="Every document it is derived from: 'name (type)'."
    )
    product_type: str | None = Field(default=None, description="Product it applies to.")
    action: str | None = Field(default=None, description="What it prescribes.")
    threshold: dict[str, Any] | None = Field(default=None, description="Numeric boundary.")
    threshold_type: str | None = Field(default=None, description="hard or soft.")
    soft_limit: float | None = Field(default=None, description="Historical exception limit.")
    historical_exceptions: str | None = Field(default=None, description="Known deviations.")
    conditions: list[dict[str, Any]] = Field(default_factory=list, description="Trigger.")
    mitigant_fields: list[str] = Field(default_factory=list, description="Mitigant flags.")
    score: float | None = Field(default=None, description="Search score when found by text.")

    def describe(self) -> str:
        """Return the path as one line, e.g. ``Gas Station -> Gas Station Auto-Refer -> Refer``."""
        outcome = ", ".join(self.outcomes) or "?"
        return f"{self.risk_factor or '?'} -> {self.rule_name} -> {outcome}"


def canonical_product(product_type: str | None) -> str | None:
    """Return the canonical spelling of a product (``bop`` -> ``BOP``); None stays None.

    Raises:
        ValueError: Not a known product; the message lists the allowed ones.
    """
    if product_type is None or not str(product_type).strip():
        return None
    for product in PRODUCT_TYPES:
        if product.casefold() == str(product_type).strip().casefold():
            return product
    raise ValueError(f"unknown product type {product_type!r}; allowed: {', '.join(PRODUCT_TYPES)}")


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
        hits = [_rule_hits(h, limit * 2) for h in found]
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
                key: _rule_hits(h, limit * 2)[:limit] for key, h in zip(missing, found, strict=True)
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
        return [
            path for name in names if (path := found.get(name) or read.get(name)) is not None
        ]

    async def _load_paths(self, names: list[str]) -> dict[str, DecisionPath | None]:
        """The decision path of each name (None for a rule with no current edge)."""
        rows = await self._rows(  # by the p_rule_name index (a typed pattern scans nodes)
            f"MATCH ()-[e:RELATES_TO]->() WHERE e.p_rule_name IN $names AND {_CURRENT} "
            "RETURN e.p_rule_name AS rule, e.name AS relation, startNode(e).name AS source, "
            "endNode(e).name AS target, e.props_json AS props",
            {"names": names},
        )
        edges: dict[str, list[_PathEdge]] = {}
        for row in rows:
            props = _props(row["props"])
            edge = _PathEdge(row["relation"], row["source"], row["target"], props)
            edges.setdefault(row["rule"], []).append(edge)
        return {name: _path(name, edges[name]) if name in edges else None for name in names}

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


def _rule_hits(hits: Sequence[SearchHit], limit: int) -> list[RuleHit]:
    """Collapse edge hits into rule hits: a rule scores the sum of its edges' scores."""
    best: dict[str, Any] = {}  # name -> its first (best) edge
    total: dict[str, float] = {}
    for hit in hits:
        rel = hit.relationship
        name = rel.properties.get("rule_name")
        if not isinstance(name, str):
            continue
        total[name] = total.get(name, 0.0) + hit.score
        if name not in best:
            best[name] = rel
    ranked = sorted(best, key=lambda name: -total[name])
    # Only the hits returned are built, each once, with its rule's total score.
    return [
        RuleHit(
            rule_name=name,
            source=(rel := best[name]).source_name,
            relation=rel.relation,
            target=rel.target_name,
            fact=rel.fact,
            properties=rel.properties,
            score=total[name],
        )
        for name in ranked[:limit]
    ]


def _props(text: str | None) -> dict[str, Any]:
    """An edge's stored properties (orjson: a path reads several per rule)."""
    if not text:
        return {}
    try:
        props: dict[str, Any] = orjson.loads(text)
    except orjson.JSONDecodeError:  # what only `json` writes (huge integers, NaN)
        props = json.loads(text)
    return props


class _PathEdge(NamedTuple):
    """What a decision path needs of one edge."""

    relation: str
    source_name: str
    target_name: str
    properties: dict[str, Any]


def route_path(name: str, route: Route) -> DecisionPath:
    """A rule's decision path from its route: what `_path` makes of its edges' endpoints.

    Ordered as `_path` orders edges: outcomes and mitigants by name, the first source
    by name as `source`, the last risk factor by name as `risk_factor`.
    """
    risks, outcomes, mitigants, sources = [], [], [], []
    for relation, other in sorted(route):
        if relation == "TRIGGERS":
            risks.append(other)
        elif relation == "RESULTS_IN":
            outcomes.append(other)
        elif relation == "OVERRIDES":
            mitigants.append(other)
        elif relation == "DERIVED_FROM":
            sources.append(other)
    return DecisionPath(
        rule_name=name,
        risk_factor=risks[-1] if risks else None,
        outcomes=outcomes,
        mitigants=mitigants,
        source=sources[0] if sources else None,
    )


def _path(name: str, edges: list[_PathEdge]) -> DecisionPath:
    """Assemble one rule's decision path from its edges."""
    values: dict[str, Any] = {"rule_name": name, "outcomes": [], "mitigants": []}
    for rel in sorted(edges, key=lambda r: (r.relation, r.source_name, r.target_name)):
        props = rel.properties
        values.setdefault("product_type", props.get("product_type"))
        values.setdefault("action", props.get("action"))
        if rel.relation == "TRIGGERS":
            values["risk_factor"] = rel.source_name
            for key in ("threshold", "threshold_type", "soft_limit", "historical_exceptions"):
                values[key] = props.get(key)
            values["conditions"] = props.get("conditions") or []
        elif rel.relation == "RESULTS_IN":
            values["outcomes"].append(rel.target_name)
        elif rel.relation == "OVERRIDES":
            values["mitigants"].append(rel.source_name)
            values["mitigant_fields"] = props.get("mitigant_fields") or []
        elif rel.relation == "DERIVED_FROM":
            values.setdefault("source", rel.target_name)
            values.setdefault("source_type", props.get("source_type"))
            values.setdefault("sources", []).append(
                f"{rel.target_name} ({props.get('source_type') or '?'})"
            )
    return DecisionPath.model_validate(values)
