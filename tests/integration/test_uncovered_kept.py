"""Rule-like sentences no rule covers are kept on their text's episode for a reviewer."""

from __future__ import annotations

import pytest

from agents.ingestion import IngestionPipeline
from memory import GraphMemory, Namespace
from memory.model import SourceItem
from memory.underwriting.review_queue import UncoveredText, uncovered_sentences
from schemas.ingestion import KnowledgeText

pytestmark = pytest.mark.integration

READ = "Any BOP risk with more than 25 employees is referred to a team lead."
UNREAD = (
    "Owing to the survey backlog, the company does not insure anything when the surveyor is away."
)
TEXT = KnowledgeText(
    id="u1", text=f"{READ} {UNREAD} Thanks for reading.", source="Desk memo", source_type="manual"
)


async def test_uncovered_sentences_are_kept_once_and_follow_the_text(
    memory: GraphMemory, namespace: Namespace
) -> None:
    assert await uncovered_sentences(memory, namespace) == []  # no graph yet
    report = await IngestionPipeline(memory, namespace).run([TEXT])
    assert report.rules_written == 1
    assert [(u.text_id, u.sentence) for u in report.uncovered] == [("u1", UNREAD)]
    kept = [UncoveredText("u1", "Desk memo (manual)", (UNREAD,))]
    assert await uncovered_sentences(memory, namespace) == kept

    # The same text again: skipped, or extracted again and its episode left alone.
    again = await IngestionPipeline(memory, namespace).run([TEXT])
    assert again.texts_skipped == 1
    redone = await IngestionPipeline(memory, namespace, skip_ingested=False).run([TEXT])
    assert redone.sources.unchanged == 1 and redone.sources.updated == 0
    assert await uncovered_sentences(memory, namespace) == kept
    [source] = await memory.sources(namespace)
    assert source.content == TEXT.text  # the episode itself is as it was

    # Writing the episode without a coverage report keeps the sentences of its text.
    [status] = await memory.add_sources(
        namespace, [SourceItem("u1", TEXT.text, "Desk memo (manual)", tuple(source.mentions))]
    )
    assert status == "unchanged"
    assert await uncovered_sentences(memory, namespace) == kept
    assert await uncovered_sentences(memory, namespace, limit=0) == []

    # A new version of the text that every rule covers drops them.
    changed = TEXT.model_copy(update={"text": READ})
    await IngestionPipeline(memory, namespace).run([changed])
    assert await uncovered_sentences(memory, namespace) == []


async def test_only_texts_with_uncovered_sentences_are_listed(
    memory: GraphMemory, namespace: Namespace
) -> None:
    other = KnowledgeText(id="u0", text=READ, source="Guide", source_type="manual")
    await IngestionPipeline(memory, namespace).run([other, TEXT])
    assert [t.text_id for t in await uncovered_sentences(memory, namespace)] == ["u1"]
    assert [t.text_id for t in await uncovered_sentences(memory, namespace, limit=1)] == ["u1"]
    # A changed text written without a coverage report keeps no sentences of its old text.
    await memory.add_sources(namespace, [SourceItem("u1", "Something else entirely.")])
    assert await uncovered_sentences(memory, namespace) == []
