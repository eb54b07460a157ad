"""The memory a graph node works on: the one a caller injected, or one it opens."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from memory import GraphMemory, Settings

__all__ = ["memory_for"]


@asynccontextmanager
async def memory_for(
    injected: GraphMemory | None, settings: Callable[[], Settings]
) -> AsyncIterator[GraphMemory]:
    """Yield the injected memory (left open), or one opened from `settings()` and closed after.

    Args:
        injected: The memory a Python caller passed in its run context, if any.
        settings: Where the settings come from when none was injected (read only then).
    """
    if injected is not None:
        yield injected
        return
    async with GraphMemory(settings()) as memory:
        yield memory
