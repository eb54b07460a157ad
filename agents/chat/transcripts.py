"""Session transcripts as knowledge texts under the size limit, chunked by turns.

A long session is not one text: its user turns are packed, in order, into texts of at
most `MAX_TEXT_CHARS` characters, each naming the messages it holds as provenance
(``conv-42#1-17``, source ``Conversation conv-42 (messages 1-17)``). A single turn over
the limit is split at paragraph, then line, then sentence boundaries (a hard cut only
when a sentence alone is over the limit). A transcript that fits in one text and
starts at the first message keeps the conversation id itself as its id.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agents.ingestion.loaders import MAX_TEXT_CHARS
from schemas.ingestion import KnowledgeText

_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"))


@dataclass(frozen=True)
class Turn:
    """One user message of a session: its number in the session and its text."""

    number: int
    text: str


def split_long(text: str, limit: int = MAX_TEXT_CHARS) -> list[str]:
    """Split `text` into pieces of at most `limit` characters at the coarsest boundary."""
    if len(text) <= limit:
        return [text]
    for pattern in _BREAKS:
        parts = [p for p in pattern.split(text) if p.strip()]
        if len(parts) > 1:
            break
    else:
        return [text[i : i + limit] for i in range(0, len(text), limit)]
    pieces: list[str] = []
    current = ""
    for part in parts:
        if len(part) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces += split_long(part, limit)
        elif current and len(current) + 1 + len(part) > limit:
            pieces.append(current)
            current = part
        else:
            current = f"{current}\n{part}" if current else part
    return pieces + ([current] if current else [])


def turns_of(transcript: str) -> list[Turn]:
    """Turns of a plain transcript (one user message per line), numbered from 1."""
    lines = [line for line in transcript.splitlines() if line.strip()]
    return [Turn(n, line) for n, line in enumerate(lines, 1)]


def transcript_texts(
    conversation: str,
    turns: Sequence[Turn],
    *,
    source: str | None = None,
    limit: int = MAX_TEXT_CHARS,
) -> list[KnowledgeText]:
    """Pack turns into texts of at most `limit` characters, each with its provenance.

    Args:
        conversation: The conversation id.
        turns: The user turns to ingest, in order.
        source: Document name of the conversation (default ``Conversation <id>``).
        limit: Most characters per text.
    """
    source = source or f"Conversation {conversation}"
    pieces = [(t.number, piece) for t in turns for piece in split_long(t.text.strip(), limit)]
    chunks: list[list[tuple[int, str]]] = []
    size = 0
    for number, piece in pieces:
        if chunks and size + 1 + len(piece) <= limit:
            chunks[-1].append((number, piece))
            size += 1 + len(piece)
        else:
            chunks.append([(number, piece)])
            size = len(piece)
    if len(chunks) == 1 and chunks[0][0][0] <= 1:
        body = "\n".join(p for _, p in chunks[0])
        return [KnowledgeText(id=conversation, text=body, source=source, source_type="sme")]
    texts, used = [], set()
    for chunk in chunks:
        first, last = chunk[0][0], chunk[-1][0]
        span = f"{first}" if first == last else f"{first}-{last}"
        tid, k = f"{conversation}#{span}", 1
        while tid in used:  # one long message split over several texts
            k += 1
            tid = f"{conversation}#{span}.{k}"
        used.add(tid)
        texts.append(
            KnowledgeText(
                id=tid,
                text="\n".join(p for _, p in chunk),
                source=f"{source} (messages {span})",
                source_type="sme",
            )
        )
    return texts
