"""Athena Memory over the Model Context Protocol (official SDK, FastMCP).

`build_server(settings)` returns a server whose tools read and write graph
memory; one `GraphMemory` is opened for the server's lifetime. Invalid
arguments come back as tool errors naming the argument, and the server keeps
serving. With `read_only=True` no mutating tool is registered.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, TypeAlias

from mcp.server.fastmcp import Context, FastMCP
from pydantic import Field, StrictBool

from memory import GraphMemory, Namespace, Settings, get_ontology, list_ontologies
from memory.underwriting import GraphAnalytics, canonical_product, check_risk, trace_risk
from schemas.rules import ExtractedRule

NamespaceArg: TypeAlias = Annotated[
    str | None, Field(description="Namespace, e.g. 'agent:athena'; default: the configured one")
]


class _State:
    """What the tools share for the server's lifetime."""

    def __init__(self, memory: GraphMemory, default_namespace: str) -> None:
        self.memory = memory
        self.default_namespace = default_namespace

    def namespace(self, value: str | None) -> Namespace:
        return Namespace.parse(value or self.default_namespace)


def _state(ctx: Context) -> _State:
    return ctx.request_context.lifespan_context  # type: ignore[no-any-return]


class _ProcessMemory:
    """One memory for every run of a stateless server in this process (opened on first use).

    A stateless HTTP server runs its lifespan once per request; opening a memory (and
    its connection pool) each time would cost more than many tool calls.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.memory: GraphMemory | None = None
        self.lock = asyncio.Lock()

    async def get(self) -> GraphMemory:
        async with self.lock:
            if self.memory is None:
                memory = GraphMemory(self.settings)
                await memory.connect()
                self.memory = memory
            return self.memory


def build_server(
    settings: Settings,
    *,
    read_only: bool = False,
    namespace: str | None = None,
    stateless: bool = False,
) -> FastMCP:
    """Return the MCP server over the memory the settings point at.

    Args:
        settings: Where the memory lives (embedded data dir or FALKORDB_URL).
        read_only: Register only the tools that do not write.
        namespace: Default namespace of the tools; None uses the settings'.
        stateless: Streamable HTTP without sessions: every request stands alone, so
            several server processes can answer behind one address. The memory is
            opened once per process and kept.
    """
    default = namespace or settings.namespace
    shared = _ProcessMemory(settings)

    @asynccontextmanager
    async def lifespan(_: FastMCP) -> AsyncIterator[_State]:
        if stateless:
            yield _State(await shared.get(), default)
            return
        async with GraphMemory(settings) as memory:
            yield _State(memory, default)

    server = FastMCP(
        "athena-memory",
        instructions=(
            "Graph memory of underwriting rules. Check rules with memory_check_risk, explain "
            "them with memory_trace_path, decide a submission with memory_decide."
        ),
        lifespan=lifespan,
        stateless_http=stateless,
    )
    _register_reads(server)
    if not read_only:
        _register_writes(server)
    return server


def _register_reads(server: FastMCP) -> None:
    @server.tool(description="Hybrid (keyword + meaning) search of a namespace's rule facts.")
    async def memory_search(
        ctx: Context,
        query: Annotated[str, Field(description="Free text, e.g. 'gas station fuel storage'")],
        limit: Annotated[int, Field(ge=1, le=100, description="Most results")] = 10,
        product_type: Annotated[str | None, Field(description="BOP, LRO, Property, GL")] = None,
        namespace: NamespaceArg = None,
    ) -> list[dict[str, Any]]:
        state = _state(ctx)
        hits = await state.memory.search(
            state.namespace(namespace),
            query,
            limit=limit,
            partition=canonical_product(product_type),
        )
        return [
            {
                "score": h.score,
                "relation": h.relationship.relation,
                "source": h.relationship.source_name,
                "target": h.relationship.target_name,
                "rule_name": h.relationship.properties.get("rule_name"),
                "fact": h.relationship.fact,
            }
            for h in hits
        ]

    @server.tool(description="Rules that apply to a risk factor, for one product and ALL.")
    async def memory_check_risk(
        ctx: Context,
        risk: Annotated[
            str, Field(description="Risk factor or situation, e.g. 'employee count 22'")
        ],
        product_type: Annotated[str | None, Field(description="BOP, LRO, Property, GL")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Most rules")] = 5,
        namespace: NamespaceArg = None,
    ) -> list[dict[str, Any]]:
        state = _state(ctx)
        hits = await check_risk(
            state.memory, state.namespace(namespace), risk, product_type, limit=limit
        )
        return [h.model_dump(mode="json") for h in hits]

    @server.tool(
        description="Decision paths RiskFactor -> Rule -> Outcome with mitigants and sources."
    )
    async def memory_trace_path(
        ctx: Context,
        risk: Annotated[str, Field(description="Risk factor, e.g. 'Gas Station'")],
        product_type: Annotated[str | None, Field(description="BOP, LRO, Property, GL")] = None,
        namespace: NamespaceArg = None,
    ) -> list[dict[str, Any]]:
        state = _state(ctx)
        paths = await trace_risk(state.memory, state.namespace(namespace), risk, product_type)
        return [p.model_dump(mode="json") for p in paths]

    @server.tool(description="Run the underwriting agent on a submission and return its decision.")
    async def memory_decide(
        ctx: Context,
        submission: Annotated[
            dict[str, Any], Field(description="Data-dictionary fields -> values")
        ],
        namespace: NamespaceArg = None,
        as_of: Annotated[
            str | None, Field(description="Decide by the rules valid on this ISO day")
        ] = None,
    ) -> dict[str, Any]:
        from agents.underwriting.service import decide_submission

        state = _state(ctx)
        decision = await decide_submission(
            state.memory, state.namespace(namespace), submission, as_of=as_of
        )
        return decision.model_dump(mode="json")

    @server.tool(description="Every current rule of a namespace as JSON (rules.jsonl shape).")
    async def memory_export_rules(
        ctx: Context, namespace: NamespaceArg = None
    ) -> list[dict[str, Any]]:
        return await GraphAnalytics(_state(ctx).memory, _state(ctx).namespace(namespace)).export()

    @server.tool(
        description="Open conflicts: current rules of one piece of knowledge that disagree "
        "(both texts, the fields), for a person to settle."
    )
    async def memory_conflicts(ctx: Context, namespace: NamespaceArg = None) -> list[dict]:
        from memory.underwriting.history import open_conflicts

        state = _state(ctx)
        return [c.to_dict() for c in await open_conflicts(state.memory, state.namespace(namespace))]

    @server.tool(description="A rule's versions in valid time, oldest first, with their sources.")
    async def memory_rule_history(
        ctx: Context,
        rule_name: Annotated[str, Field(description="The rule's exact name")],
        namespace: NamespaceArg = None,
    ) -> list[dict[str, Any]]:
        from memory.underwriting.history import rule_history

        state = _state(ctx)
        versions = await rule_history(state.memory, state.namespace(namespace), rule_name)
        if not versions:
            raise ValueError(f"no rule named {rule_name!r}")
        return [v.model_dump(mode="json") for v in versions]

    @server.tool(description="Names of the registered ontologies.")
    async def memory_list_ontologies() -> list[str]:
        return list_ontologies()

    @server.tool(description="One ontology's node types and relations, as prompt-ready markdown.")
    async def memory_get_ontology(
        name: Annotated[str, Field(description="Ontology name")] = "underwriting",
    ) -> str:
        return get_ontology(name).to_prompt_context()


def _register_writes(server: FastMCP) -> None:
    @server.tool(description="Write one structured underwriting rule (rules.jsonl shape).")
    async def memory_ingest_rule(
        ctx: Context,
        rule: Annotated[
            ExtractedRule, Field(description="The rule, in the dataset's rules.jsonl shape")
        ],
        source_id: Annotated[str | None, Field(description="Provenance id")] = None,
        namespace: NamespaceArg = None,
    ) -> dict[str, Any]:
        from agents.ingestion.checks import check_rules
        from memory.underwriting.claims import write_claims
        from schemas.fields import load_data_dictionary

        state = _state(ctx)
        check_rules([rule], load_data_dictionary(state.memory.settings.fields_path))
        source = source_id or rule.text_id or rule.source
        claim = rule if rule.text_id else rule.model_copy(update={"text_id": source})
        plan, nodes, edges = await write_claims(
            state.memory, state.namespace(namespace), [claim], source=source
        )
        joined = plan.joined.get(claim.rule_name, claim.rule_name)
        return {"rule_name": joined, "nodes": vars(nodes), "edges": vars(edges)}

    @server.tool(description="Attach a mitigant that can override an existing rule.")
    async def memory_add_mitigant(
        ctx: Context,
        rule_name: Annotated[str, Field(description="Existing rule's name")],
        mitigant: Annotated[str, Field(description="The mitigant, e.g. 'Sprinklered building'")],
        mitigant_fields: Annotated[list[str] | None, Field(description="Boolean fields")] = None,
        namespace: NamespaceArg = None,
    ) -> str:
        from tools import ToolContext, create_add_mitigant_tool

        state = _state(ctx)
        tool = create_add_mitigant_tool(ToolContext(state.memory, state.namespace(namespace)))
        args = {
            "rule_name": rule_name,
            "mitigant": mitigant,
            "mitigant_fields": list(mitigant_fields or []),
        }
        return str(await tool.ainvoke(args))

    @server.tool(description="Ingest raw knowledge text through the ingestion graph.")
    async def memory_run_pipeline(
        ctx: Context,
        text: Annotated[str, Field(description="Manual excerpt, SME note, case review...")],
        source: Annotated[str | None, Field(description="Document name")] = None,
        source_type: str | None = Field(
            default=None, description="manual|training|sme|production|compliance"
        ),
        source_id: Annotated[str | None, Field(description="Document or conversation id")] = None,
        namespace: NamespaceArg = None,
    ) -> dict[str, Any]:
        from agents.ingestion import IngestionPipeline

        state = _state(ctx)
        report = await IngestionPipeline(state.memory, state.namespace(namespace)).run(
            text, source=source, source_type=source_type, source_id=source_id
        )
        return report.model_dump(mode="json")

    @server.tool(description="Delete everything in a namespace. Needs confirm=true.")
    async def memory_clear_graph(
        ctx: Context,
        namespace: Annotated[str, Field(description="Namespace to clear, e.g. 'agent:scratch'")],
        confirm: Annotated[
            StrictBool, Field(description="Must be the JSON boolean true to clear")
        ] = False,
    ) -> str:
        if confirm is not True:
            raise ValueError("memory_clear_graph deletes data: call it again with confirm=true")
        ns = Namespace.parse(namespace)
        cleared = await _state(ctx).memory.clear(ns)
        return f"cleared {ns}" if cleared else f"{ns} was already empty"
