"""Snippet text from the source: a page's bodies, re-derived from the transcripts (issue 14.2).

Chat messages and terminal chunks are the bulk of the index, and their text is already on disk:
the index keeps only where each came from (``IndexDoc.source_span``) and the fingerprint of the
text it indexed. For the page being shown, a chat message is parsed again from its JSONL line and
a terminal chunk is chunked and sanitized again from its raw byte range, with the very functions
the ingester used (``message_body``, ``chunk_terminal_bytes``), and redacted again. Nothing is
shown unless the result has the indexed text's fingerprint: a transcript rewritten, compressed,
gone or unreadable gives an empty snippet (the hit keeps its title) and the source is marked so
the next catch-up re-ingests it (``engine.index.db.mark_for_reingest``).

The body helpers live here, below both rooms, because ``engine.ingest.docs`` builds the indexed
text with them and the query path must build exactly the same text.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import apsw

from engine.index.db import StoredBody, body_fingerprint, fetch_bodies, mark_for_reingest
from engine.project.model import ChatEvent, Project, is_valid_session_id
from engine.project.safe_io import dumps_json
from engine.project.tally import WarningTally
from engine.project.transcripts import parse_chat_lines
from engine.redaction import redact_secrets
from engine.terminal.sanitize import clean_text as strip_controls

MAX_MESSAGE_CHARS = 256 * 1024
"""Longest message body indexed (a pasted base64 image is megabytes of noise): the rest is cut."""

TRUNCATED_MARK = " [… truncated]"
"""Appended to a body that was cut, so a reader of the snippet knows there is more."""

MAX_SPAN_BYTES = 64 * 1024 * 1024
"""A stored span longer than this is not read back for a snippet (a damaged row, not a chunk)."""


def sanitize_text(text: str) -> str:
    """``engine.terminal.chunking.sanitize_indexed_text`` without importing the chunker (a chat
    snippet must not pay for it; a test checks the two agree): a lone ``\r`` becomes a newline,
    escape sequences and controls but ``\n``/``\t`` go."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return strip_controls(text)


def clean_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Sanitize, redact and cap one body for indexing."""
    cut = len(text) > limit
    body = redact_secrets(sanitize_text(text[:limit] if cut else text))
    return body + TRUNCATED_MARK if cut else body


def event_text(event: ChatEvent) -> str | None:
    """The raw searchable text of a chat event, or None when the event carries none."""
    data = event.data
    if event.type in ("user_message", "assistant_message"):
        text = data.get("text")
        return text if isinstance(text, str) else None
    if event.type == "tool_call":
        name = data.get("name")
        tool_input = data.get("input")
        rendered = tool_input if isinstance(tool_input, str) else _dump(tool_input)
        return f"{name if isinstance(name, str) else 'tool'} {rendered}".strip()
    if event.type == "tool_result":
        output = data.get("output")
        return output if isinstance(output, str) else _dump(output)
    return None


def _dump(value: Any) -> str:
    if value is None:
        return ""
    return dumps_json(value, sort_keys=True)


def message_body(event: ChatEvent) -> str | None:
    """The indexed body of a chat event's document (None: the event has no text)."""
    text = event_text(event)
    return None if text is None else clean_text(text)


def chunk_body(raw: bytes, offset: int, alt_screen: bool = False) -> str:
    """The indexed body of a terminal chunk whose raw bytes are ``raw`` (at ``offset``)."""
    # Imported on first use: the chunker costs a warm CLI search ~10-20 ms to import, paid only
    # when a terminal chunk is on the page (issue 14.4's start-up budget).
    from engine.terminal.chunking import ChunkerState, chunk_terminal_bytes

    result = chunk_terminal_bytes(raw, offset, force=True, state=ChunkerState(alt_screen))
    return redact_secrets("".join(chunk.text for chunk in result.chunks))


def snippet_texts(
    conn: apsw.Connection, project: Project, bodies: dict[int, StoredBody]
) -> dict[int, str]:
    """The text to cut each row's snippet from: stored, or re-derived and checked; "" when the
    source no longer gives the indexed text (and that source is marked for re-ingestion)."""
    out: dict[int, str] = {}
    stale: set[str] = set()
    paths: dict[str, Path | None] = {}  # a page often holds several hits of one session
    for rowid, stored in bodies.items():
        if stored.text is not None:
            out[rowid] = stored.text
            continue
        text = _derive(project, stored, paths)
        if text is None:
            out[rowid] = ""
            if stored.source_key:
                stale.add(stored.source_key)
        else:
            out[rowid] = text
    for key in sorted(stale):
        mark_for_reingest(conn, key)
    return out


def document_texts(
    conn: apsw.Connection, project: Project, doc_ids: Iterable[str]
) -> dict[str, str]:
    """The indexed text of the given documents, stored or re-derived (for checks and tools)."""
    wanted = list(doc_ids)
    rows: Any = conn.execute(
        "SELECT id, doc_id FROM docs WHERE doc_id IN (SELECT value FROM json_each(?))",
        (json.dumps(wanted),),
    )
    rowids = {int(r[0]): str(r[1]) for r in rows}
    texts = snippet_texts(conn, project, fetch_bodies(conn, rowids))
    return {rowids[rowid]: text for rowid, text in texts.items()}


def _derive(project: Project, stored: StoredBody, paths: dict[str, Path | None]) -> str | None:
    key = stored.source_key or ""
    kind, _, sid = key.partition(":")
    if stored.span is None or kind not in ("chat", "terminal"):
        return None
    offset, length = stored.span
    if key not in paths:
        paths[key] = _plain_transcript(project, kind, sid)
    path = paths[key]
    if path is None or not 0 < length <= MAX_SPAN_BYTES:
        return None
    raw = _read(path, offset, length)
    if raw is None:
        return None
    candidates = _chat_bodies(raw, offset) if kind == "chat" else _chunk_bodies(raw, offset)
    for text in candidates:
        if body_fingerprint(text) == stored.fingerprint:
            return text
    return None


_FOLDERS = {"chat": ("chats", ".jsonl"), "terminal": ("terminals", ".log")}


def _plain_transcript(project: Project, kind: str, sid: str) -> Path | None:
    """The plain transcript a span indexes, or None when it was compacted (or the id is bad).

    Cheaper than ``transcript_file``'s bounds check (a page holds up to 50 sessions): whatever
    the path now leads to, only text with the indexed fingerprint is ever shown, and ``_read``
    refuses anything but a regular file without blocking on it.
    """
    if not is_valid_session_id(sid):
        return None
    folder, suffix = _FOLDERS[kind]
    plain = project.ade_dir / folder / f"{sid}{suffix}"
    if os.path.lexists(plain.with_name(plain.name + ".gz")):
        return None  # offsets index the plain file; a compacted one is re-ingested
    return plain


def _read(path: Path, offset: int, length: int) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put in its place never blocks
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.pread(fd, length, offset)
    except OSError:
        return None
    finally:
        os.close(fd)
    return raw if len(raw) == length else None


def _chat_bodies(raw: bytes, offset: int) -> Iterable[str]:
    events, _ = parse_chat_lines(raw + b"\n", offset, "snippet", WarningTally())
    for event in events:
        body = message_body(event)
        if body is not None:
            yield body


def _chunk_bodies(raw: bytes, offset: int) -> Iterable[str]:
    # A chunk's first line is visible text, so the stream is almost always outside the
    # alternate screen there; a line that leaves it before its text is the one exception.
    yield chunk_body(raw, offset)
    yield chunk_body(raw, offset, alt_screen=True)


__all__ = [
    "MAX_MESSAGE_CHARS",
    "TRUNCATED_MARK",
    "chunk_body",
    "clean_text",
    "document_texts",
    "event_text",
    "message_body",
    "sanitize_text",
    "snippet_texts",
]
