"""Node and edge tools: create or update entities and relationships, add a mitigant."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from tools._common import DEFAULT_CONFIDENCE, ToolContext, dumps, tally


class UpsertEntityArgs(BaseModel):
    """Arguments of `upsert_entity`."""

    label: str = Field(description="Ontology label: RiskFactor, Rule, Outcome, Mitigant or Source.")
    name: str = Field(description="Entity name, e.g. 'Gas Station'.")
    summary: str = Field(default="", description="One-sentence description.")
    properties: dict[str, Any] = Field(default_factory=dict, description="Domain properties.")
    confidence: float = Field(
        default=DEFAULT_CONFIDENCE, ge=0.0, le=1.0, description="How sure you are (0..1)."
    )
    source_id: str | None = Field(default=None, description="Id of the knowledge text.")


class UpsertRelationshipArgs(BaseModel):
    """Arguments of `upsert_relationship`."""

    source_label: str = Field(description="Label of the start node.")
    source_name: str = Field(description="Name of the start node (it must exist).")
    relation: str = Field(description="TRIGGERS, RESULTS_IN, OVERRIDES or DERIVED_FROM.")
    target_label: str = Field(description="Label of the end node.")
    target_name: str = Field(description="Name of the end node (it must exist).")
    fact: str = Field(
        description="Self-contained sentence with the nuance: thresholds, hard/soft, exceptions."
    )
    properties: dict[str, Any] = Field(default_factory=dict, description="Edge properties.")
    confidence: float = Field(
        default=DEFAULT_CONFIDENCE, ge=0.0, le=1.0, description="How sure you are (0..1)."
    )
    source_id: str | None = Field(default=None, description="Id of the knowledge text.")


class AddMitigantArgs(BaseModel):
    """Arguments of `add_mitigant`."""

    mitigant: str = Field(description="The control, e.g. 'Fire suppression system installed'.")
    rule_name: str = Field(description="Name of the existing Rule it can override.")
    fact: str = Field(default="", description="How and when the mitigant overrides the rule.")
    mitigant_fields: list[str] = Field(
        default_factory=list, description="Boolean data-dictionary fields that show it."
    )
    confidence: float = Field(
        default=DEFAULT_CONFIDENCE, ge=0.0, le=1.0, description="How sure you are (0..1)."
    )
    source_id: str | None = Field(default=None, description="Id of the knowledge text.")


def create_upsert_entity_tool(ctx: ToolContext) -> BaseTool:
    """Return the `upsert_entity` tool (create a node, or update it if it exists)."""

    async def upsert_entity(
        label: str,
        name: str,
        summary: str = "",
        properties: dict[str, Any] | None = None,
        confidence: float = DEFAULT_CONFIDENCE,
        source_id: str | None = None,
    ) -> tuple[str, Any]:
        async with ctx.lock:
            result = await ctx.memory.upsert_entity(
                ctx.namespace,
                label,
                name,
                summary=summary,
                properties=properties,
                source=source_id or ctx.default_source,
                confidence=confidence,
            )
        artifact = tally({result.status: 1})
        return dumps({"label": label, "name": name, "status": result.status}), artifact

    return StructuredTool.from_function(
        coroutine=upsert_entity,
        name="upsert_entity",
        description=(
            "Create a graph node, or update it when a node of the same label and name exists. "
            "The label must be one of the ontology's node labels."
        ),
        args_schema=UpsertEntityArgs,
        response_format="content_and_artifact",
    )


def create_upsert_relationship_tool(ctx: ToolContext) -> BaseTool:
    """Return the `upsert_relationship` tool (create or update an edge between two nodes)."""

    async def upsert_relationship(
        source_label: str,
        source_name: str,
        relation: str,
        target_label: str,
        target_name: str,
        fact: str,
        properties: dict[str, Any] | None = None,
        confidence: float = DEFAULT_CONFIDENCE,
        source_id: str | None = None,
    ) -> tuple[str, Any]:
        memory, ns = ctx.memory, ctx.namespace
        async with ctx.lock:
            result = await memory.upsert_relationship(
                ns,
                memory.entity_key(ns, source_label, source_name),
                relation,
                memory.entity_key(ns, target_label, target_name),
                fact=fact,
                properties=properties,
                source=source_id or ctx.default_source,
                confidence=confidence,
            )
        artifact = tally(edges={result.status: 1})
        text = f"{source_name} -{relation}-> {target_name}: {result.status}"
        return text, artifact

    return StructuredTool.from_function(
        coroutine=upsert_relationship,
        name="upsert_relationship",
        description=(
            "Create or update an edge between two existing nodes, named by label and name. "
            "Allowed: RiskFactor-TRIGGERS->Rule, Rule-RESULTS_IN->Outcome, "
            "Mitigant-OVERRIDES->Rule, Rule-DERIVED_FROM->Source."
        ),
        args_schema=UpsertRelationshipArgs,
        response_format="content_and_artifact",
    )


def create_add_mitigant_tool(ctx: ToolContext) -> BaseTool:
    """Return the `add_mitigant` tool (a Mitigant node and its OVERRIDES edge to a Rule)."""

    async def add_mitigant(
        mitigant: str,
        rule_name: str,
        fact: str = "",
        mitigant_fields: list[str] | None = None,
        confidence: float = DEFAULT_CONFIDENCE,
        source_id: str | None = None,
    ) -> tuple[str, Any]:
        memory, ns = ctx.memory, ctx.namespace
        source = source_id or ctx.default_source
        rule_key = memory.entity_key(ns, "Rule", rule_name)
        async with ctx.lock:
            if await memory.get_entity(ns, rule_key) is None:
                raise ValueError(f"rule {rule_name!r} does not exist; write the rule first")
            node = await memory.upsert_entity(
                ns, "Mitigant", mitigant, source=source, confidence=confidence
            )
            edge = await memory.upsert_relationship(
                ns,
                node.key,
                "OVERRIDES",
                rule_key,
                fact=fact or f"'{mitigant}' can override rule '{rule_name}'.",
                properties={"rule_name": rule_name, "mitigant_fields": mitigant_fields or []},
                source=source,
                confidence=confidence,
            )
        artifact = tally({node.status: 1}, {edge.status: 1})
        return dumps({"mitigant": mitigant, "rule": rule_name, "edge": edge.status}), artifact

    return StructuredTool.from_function(
        coroutine=add_mitigant,
        name="add_mitigant",
        description="Record a mitigant that can override (waive or soften) an existing rule.",
        args_schema=AddMitigantArgs,
        response_format="content_and_artifact",
    )
