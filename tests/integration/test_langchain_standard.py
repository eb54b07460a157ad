"""LangChain's own standard suites over the retriever, embeddings and tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_tests.integration_tests import (
    EmbeddingsIntegrationTests,
    RetrieversIntegrationTests,
    ToolsIntegrationTests,
)
from langchain_tests.unit_tests import EmbeddingsUnitTests, ToolsUnitTests

from memory import GraphMemory, Namespace, Settings
from memory.underwriting import apply_rule_graph, rule_graph
from schemas.rules import ExtractedRule
from tools.langchain import (
    CheckRiskAppetiteTool,
    GraphMemoryRetriever,
    TraceDecisionPathTool,
    WordLlamaEmbeddings,
    memory_tools,
)

NS = "agent:langchain-std"
SETTINGS: dict[str, Settings] = {}


def _rule(name: str, risk: str, action: str, value: str) -> ExtractedRule:
    return ExtractedRule(
        rule_name=name,
        risk_factor=risk,
        risk_category="occupancy",
        product_type="ALL",
        action=action,
        outcome_description=f"{risk} risks are handled with {action}.",
        source="LangChain Test Manual",
        source_type="manual",
        confidence="high",
        conditions=[{"field": "occupancy", "operator": "eq", "value": value}],
    )


RULES = [
    _rule("Fireworks Store Decline", "Fireworks Store", "decline", "fireworks store"),
    _rule("Fireworks Warehouse Refer", "Fireworks Warehouse", "refer", "fireworks warehouse"),
    _rule("Fireworks Display Exclude", "Fireworks Display", "exclude", "fireworks display"),
    _rule("Trampoline Park Decline", "Trampoline Park", "decline", "trampoline park"),
]


@pytest.fixture(scope="module", autouse=True)
def _seeded(falkordb_dir: Path) -> None:
    settings = Settings(ATHENA_DATA_DIR=falkordb_dir)
    SETTINGS["s"] = settings

    async def seed() -> None:
        async with GraphMemory(settings) as memory:
            await memory.clear(Namespace.parse(NS))
            for rule in RULES:
                await apply_rule_graph(memory, NS, rule_graph(rule), source="lc-test")

    asyncio.run(seed())


class TestGraphMemoryRetriever(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[GraphMemoryRetriever]:
        return GraphMemoryRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"namespace": NS, "settings": SETTINGS["s"]}

    @property
    def retriever_query_example(self) -> str:
        return "fireworks"


def test_retriever_documents_carry_rule_metadata() -> None:
    docs = GraphMemoryRetriever(namespace=NS, settings=SETTINGS["s"], k=2).invoke("trampoline")
    assert docs[0].metadata["rule_name"] == "Trampoline Park Decline"
    assert docs[0].metadata["source"] == "LangChain Test Manual"
    assert docs[0].metadata["action"] == "decline" and docs[0].metadata["score"] > 0


class TestWordLlamaEmbeddingsUnit(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[WordLlamaEmbeddings]:
        return WordLlamaEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {}


class TestWordLlamaEmbeddingsIntegration(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[WordLlamaEmbeddings]:
        return WordLlamaEmbeddings

    @property
    def embedding_model_params(self) -> dict[str, Any]:
        return {}


class TestCheckRiskToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self) -> type[CheckRiskAppetiteTool]:
        return CheckRiskAppetiteTool

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"namespace": NS, "settings": SETTINGS["s"]}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"risk": "fireworks store", "product_type": "BOP"}


class TestCheckRiskToolIntegration(ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> type[CheckRiskAppetiteTool]:
        return CheckRiskAppetiteTool

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"namespace": NS, "settings": SETTINGS["s"]}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"risk": "fireworks store", "product_type": "BOP"}


class TestTracePathToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self) -> type[TraceDecisionPathTool]:
        return TraceDecisionPathTool

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"namespace": NS, "settings": SETTINGS["s"]}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"risk": "Trampoline Park"}


class TestTracePathToolIntegration(ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> type[TraceDecisionPathTool]:
        return TraceDecisionPathTool

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {"namespace": NS, "settings": SETTINGS["s"]}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"risk": "Trampoline Park"}


async def test_memory_tools_answer_from_the_graph() -> None:
    check, trace = memory_tools(NS, settings=SETTINGS["s"], k=3)
    assert "Fireworks Store Decline" in await check.ainvoke({"risk": "fireworks store"})
    path = trace.invoke({"risk": "Trampoline Park", "product_type": "GL"})
    assert path.startswith("- Trampoline Park -> Trampoline Park Decline ->")
    assert "LangChain Test Manual" in path
    [_, empty] = memory_tools("agent:langchain-never-written", settings=SETTINGS["s"])
    assert "No decision paths" in empty.invoke({"risk": "Zeppelin Hangar"})
