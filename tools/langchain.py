"""LangChain integration: a retriever, an embeddings class and tools over graph memory.

They plug graph memory into any LangChain or LangGraph app (`memory_tools()`
returns the read-only tools). Each call opens a `GraphMemory` from the given
(or environment) settings and closes it after, so the objects are plain,
serialisable configuration and work from sync and async code alike.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    AsyncCallbackManagerForToolRun,
    CallbackManagerForRetrieverRun,
    CallbackManagerForToolRun,
)
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from memory.embedders import WordLlamaEmbedder
from memory.settings import Settings, load_settings
from memory.underwriting import (
    GraphAnalytics,
    RiskQuestion,
    RuleHit,
    check_risk,
    hits_text,
    paths_text,
    trace_risk,
)

T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from sync code, also when an event loop is already running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def _rule_hits(
    settings: Settings | None, namespace: str, query: str, product_type: str | None, k: int
) -> list[tuple[RuleHit, str | None]]:
    """Return the best rules for a query with the document each rule came from."""
    from memory import GraphMemory

    async with GraphMemory(settings or load_settings()) as memory:
        hits = await check_risk(memory, namespace, query, product_type, limit=k)
        rules = await GraphAnalytics(memory, namespace).rules([h.rule_name for h in hits])
        sources = {r.rule_name: r.source for r in rules}
    return [(hit, sources.get(hit.rule_name)) for hit in hits]


def _document(hit: RuleHit, source: str | None) -> Document:
    props = hit.properties
    return Document(
        page_content=hit.fact,
        metadata={
            "rule_name": hit.rule_name,
            "product_type": props.get("product_type"),
            "action": props.get("action"),
            "source": source,
            "relation": hit.relation,
            "score": hit.score,
        },
    )


class GraphMemoryRetriever(BaseRetriever):
    """Rules from graph memory as LangChain `Document`s, one per rule, best first.

    The page content is the rule's fact text; metadata holds the rule name,
    product, action, source document and score.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    namespace: str = Field(default="agent:athena", description="Namespace to search.")
    product_type: str | None = Field(default=None, description="Keep this product's and ALL rules.")
    k: int = Field(default=5, ge=1, description="Most documents to return.")
    settings: Settings | None = Field(default=None, description="None reads the environment.")

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        hits = run_sync(
            _rule_hits(self.settings, self.namespace, query, self.product_type, k or self.k)
        )
        return [_document(h, source) for h, source in hits]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, k: int | None = None
    ) -> list[Document]:
        hits = await _rule_hits(
            self.settings, self.namespace, query, self.product_type, k or self.k
        )
        return [_document(h, source) for h, source in hits]


class WordLlamaEmbeddings(Embeddings):
    """The offline embedder (WordLlama weights inside its wheel) as LangChain `Embeddings`."""

    def __init__(self, dim: int = 256) -> None:
        self._embedder = WordLlamaEmbedder(dim)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts; never touches the network."""
        return [v.tolist() for v in self._embedder.embed(texts)]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self.embed_documents([text])[0]


class _MemoryTool(BaseTool):
    """A tool that opens graph memory for each call (plain, serialisable fields)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    namespace: str = "agent:athena"
    k: int = 5
    settings: Settings | None = None

    def _run(
        self,
        risk: str,
        product_type: str | None = None,
        run_manager: CallbackManagerForToolRun | None = None,
    ) -> str:
        return run_sync(self._arun(risk, product_type))

    async def _arun(
        self,
        risk: str,
        product_type: str | None = None,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> str:
        raise NotImplementedError  # pragma: no cover - every subclass answers


class CheckRiskAppetiteTool(_MemoryTool):
    """Look up the underwriting rules that apply to a risk (a self-contained LangChain tool)."""

    name: str = "memory_check_risk"
    description: str = (
        "Find the underwriting rules that apply to a risk factor for a product: each with "
        "its action, thresholds (hard or soft), exceptions and source."
    )
    args_schema: type[BaseModel] = RiskQuestion

    async def _arun(
        self,
        risk: str,
        product_type: str | None = None,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> str:
        from memory import GraphMemory

        async with GraphMemory(self.settings or load_settings()) as memory:
            hits = await check_risk(memory, self.namespace, risk, product_type, limit=self.k)
        return hits_text(hits, risk)


class TraceDecisionPathTool(_MemoryTool):
    """Explain a risk's decision paths (risk -> rule -> outcome, mitigants, source)."""

    name: str = "memory_trace_path"
    description: str = (
        "Explain how a risk factor is decided: each rule it triggers with the outcome, "
        "the mitigants that can override it and the document it comes from."
    )
    args_schema: type[BaseModel] = RiskQuestion

    async def _arun(
        self,
        risk: str,
        product_type: str | None = None,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> str:
        from memory import GraphMemory

        async with GraphMemory(self.settings or load_settings()) as memory:
            paths = await trace_risk(memory, self.namespace, risk, product_type, limit=self.k)
        return paths_text(paths, risk)


def memory_tools(
    namespace: str = "agent:athena", *, settings: Settings | None = None, k: int = 5
) -> list[BaseTool]:
    """Return the read-only memory tools for any LangChain or LangGraph agent.

    Args:
        namespace: Namespace the tools read.
        settings: Where the memory lives; None reads the environment on each call.
        k: Most rules or paths per answer.
    """
    return [
        CheckRiskAppetiteTool(namespace=namespace, settings=settings, k=k),
        TraceDecisionPathTool(namespace=namespace, settings=settings, k=k),
    ]
