"""Snippet text from the source: a page's bodies, re-derived from the transcripts (index-size budget).

Chat messages and terminal chunks are the bulk of the index, and their text is already on disk:
the index keeps only where each came from (``IndexDoc.source_span``) and the fingerprint of the
text it indexed. For the page being shown, a chat message is parsed again from its JSONL line and
a terminal chunk is chunked and sanitized again from its raw byte range, with the very functions
the ingester used (``message_body``, ``chunk_terminal_bytes``), and redacted again when it is
not already the indexed text as it is (:func:`_with_redacted`). Nothing is shown unless the
result has the indexed text's fingerprint: a transcript rewritten, compressed,
gone or unreadable gives an empty snippet (the hit keeps its title) and the source is marked so
the next catch-up re-ingests it (``engine.index.sources.mark_for_reingest``).

The body helpers live here, below both rooms, because ``engine.ingest.docs`` builds the indexed
text with them and the query path must build exactly the same text.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Iterable
from typing import Any

import apsw

from engine.basics.memo import BytesMemo
from engine.index.documents import StoredBody, body_fingerprint, fetch_bodies
from engine.index.sources import mark_for_reingest
from engine.project.model import ChatEvent, Project, is_valid_session_id
from engine.project.safe_io import dumps_json
from engine.project.tally import WarningTally
from engine.project.transcripts import parse_chat_lines
from engine.redaction import redact_secrets
from engine.terminal.sanitize import sanitize_indexed_text

MAX_MESSAGE_CHARS = 256 * 1024
"""Longest message body indexed (a pasted base64 image is megabytes of noise): the rest is cut."""

TRUNCATED_MARK = " [… truncated]"
"""Appended to a body that was cut, so a reader of the snippet knows there is more."""

MAX_SPAN_BYTES = 64 * 1024 * 1024
"""A stored span longer than this is not read back for a snippet (a damaged row, not a chunk)."""


def clean_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Sanitize, redact and cap one body for indexing."""
    sanitized, cut = _sanitized(text, limit)
    body = redact_secrets(sanitized)
    return body + TRUNCATED_MARK if cut else body


def _sanitized(text: str, limit: int = MAX_MESSAGE_CHARS) -> tuple[str, bool]:
    """The sanitized, capped body before redaction, and whether it was cut."""
    cut = len(text) > limit
    return sanitize_indexed_text(text[:limit] if cut else text), cut


def event_text(event: ChatEvent) -> str | None:
    """The raw searchable text of a chat event, or None when the event carries none."""
    data = event.data
    if event.type in ("user_message", "assistant_message", "system_message"):
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
    return redact_secrets(_chunk_text(raw, offset, alt_screen))


def _chunk_text(raw: bytes, offset: int, alt_screen: bool) -> str:
    """:func:`chunk_body` before redaction."""
    # Imported on first use: the chunker costs a warm CLI search ~10-20 ms to import, paid only
    # when a terminal chunk is on the page (the start-up budget).
    from engine.terminal.chunking import ChunkerState, chunk_terminal_bytes

    result = chunk_terminal_bytes(raw, offset, force=True, state=ChunkerState(alt_screen))
    return "".join(chunk.text for chunk in result.chunks)


def snippet_texts(
    conn: apsw.Connection,
    project: Project,
    bodies: dict[int, StoredBody],
    stale_sources: set[str] | None = None,
) -> dict[int, str]:
    """The text to cut each row's snippet from: stored, or re-derived and checked; "" when the
    source no longer gives the indexed text (and that source is marked for re-ingestion, or
    added to ``stale_sources`` for a caller inside a read snapshot to mark after it).

    A page often holds several hits of one transcript: each transcript is opened once, and its
    spans are read in offset order, nearby ones in one ``pread``.
    """
    out: dict[int, str] = {}
    stale: set[str] = set()
    by_source: dict[str, list[tuple[int, StoredBody]]] = {}
    for rowid, stored in bodies.items():
        if stored.text is not None:
            out[rowid] = stored.text
        else:
            by_source.setdefault(stored.source_key or "", []).append((rowid, stored))
    ade_dir = _ade_dir(project.root) if by_source else ""  # one Path, not one a transcript
    for key, rows in by_source.items():
        texts = _derive_source(ade_dir, key, [stored for _, stored in rows])
        for (rowid, _), text in zip(rows, texts, strict=True):
            out[rowid] = "" if text is None else text
            if text is None and key:
                stale.add(key)
    if stale_sources is not None:
        stale_sources.update(stale)
        return out
    for key in sorted(stale):
        mark_for_reingest(conn, key)
    return out


@functools.lru_cache(maxsize=16)
def _ade_dir(root: os.PathLike[str]) -> str:
    """``Project.ade_dir`` as text (joined once a process, not once a page)."""
    return os.path.join(os.fspath(root), ".ade")


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


def _derive_source(ade_dir: str, key: str, rows: list[StoredBody]) -> list[str | None]:
    """The indexed text of each of one source's rows (None: not derivable, or not the same),
    the project's ``.ade`` folder being ``ade_dir``."""
    kind, _, sid = key.partition(":")
    path = plain_transcript(ade_dir, kind, sid) if kind in _FOLDERS else None
    spans = [
        s.span if s.span is not None and 0 < s.span[1] <= MAX_SPAN_BYTES else None for s in rows
    ]
    raws = read_spans(path, spans) if path is not None else [None] * len(rows)
    derive = _chat_bodies if kind == "chat" else _chunk_bodies
    out: list[str | None] = []
    for stored, span, raw in zip(rows, spans, raws, strict=True):
        text = None
        if span is not None and raw is not None:
            memo = (kind, span[0], stored.fingerprint)
            kept = _DERIVED.get(memo, raw)
            if isinstance(kept, str):
                text = kept
            else:
                text = next(
                    (t for t in derive(raw, span[0]) if body_fingerprint(t) == stored.fingerprint),
                    None,
                )
                if text is not None:
                    _DERIVED.put(memo, raw, text, len(text))
        out.append(text)
    return out


_DERIVED: BytesMemo[str] = BytesMemo(max_bytes=8 * 1024 * 1024, max_entry=256 * 1024)
"""The texts lately derived, each kept with the bytes it came from (``engine.basics.memo``:
a body is a pure function of its bytes, offset and kind), ~8 MB: a few hundred pages of
snippet sources (a chunk is a few KB)."""


def forget_derived_texts() -> None:
    """Drop the kept derived texts (the next page derives each again)."""
    _DERIVED.clear()


_FOLDERS = {"chat": ("chats", ".jsonl"), "terminal": ("terminals", ".log")}


def plain_transcript(ade_dir: str, kind: str, sid: str) -> str | None:
    """The plain transcript a span indexes, or None when it was compacted (or the id is bad).

    Cheaper than ``transcript_file``'s bounds check (a page holds up to 50 sessions): whatever
    the path now leads to, only text with the indexed fingerprint is ever shown, and
    ``read_spans`` refuses anything but a regular file without blocking on it.
    """
    if not is_valid_session_id(sid):
        return None
    folder, suffix = _FOLDERS[kind]
    plain = f"{ade_dir}{os.sep}{folder}{os.sep}{sid}{suffix}"  # os.path.join's, without its checks
    if os.path.lexists(plain + ".gz"):
        return None  # offsets index the plain file; a compacted one is re-ingested
    return plain


COALESCE_GAP_BYTES = 64 * 1024
"""Spans of one transcript at most this far apart are read with one ``pread``."""


def read_spans(path: str, spans: list[tuple[int, int] | None]) -> list[bytes | None]:
    """The bytes of each span of one file (None: absent, short, or the file is unreadable)."""
    out: list[bytes | None] = [None] * len(spans)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO put in its place never blocks
    except OSError:
        return out
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return out
        group: list[tuple[tuple[int, int], int]] = []
        start = end = 0
        for span, index in sorted((s, i) for i, s in enumerate(spans) if s is not None):
            offset, length = span
            if group and (
                offset > end + COALESCE_GAP_BYTES or offset + length - start > MAX_SPAN_BYTES
            ):
                _read_group(fd, start, end, group, out)
                group = []
            if not group:
                start = end = offset
            group.append((span, index))
            end = max(end, offset + length)
        if group:
            _read_group(fd, start, end, group, out)
    except OSError:
        return [None] * len(spans)
    finally:
        os.close(fd)
    return out


def _read_group(
    fd: int, start: int, end: int, group: list[tuple[tuple[int, int], int]], out: list[bytes | None]
) -> None:
    """Read ``start..end`` once and hand each span of ``group`` its slice."""
    block = os.pread(fd, end - start, start)
    for (offset, length), index in group:
        raw = block[offset - start : offset - start + length]
        out[index] = raw if len(raw) == length else None


def _chat_bodies(raw: bytes, offset: int) -> Iterable[str]:
    events, _ = parse_chat_lines(raw + b"\n", offset, "snippet", WarningTally())
    for event in events:
        text = event_text(event)
        if text is not None:
            sanitized, cut = _sanitized(text)
            yield from _with_redacted(sanitized, TRUNCATED_MARK if cut else "")


def _chunk_bodies(raw: bytes, offset: int) -> Iterable[str]:
    # A chunk's first line is visible text, so the stream is almost always outside the
    # alternate screen there; a line that leaves it before its text is the one exception.
    yield from _with_redacted(_chunk_text(raw, offset, False))
    yield from _with_redacted(_chunk_text(raw, offset, True))


def _with_redacted(text: str, suffix: str = "") -> Iterable[str]:
    """``text`` as it is, then redacted (when that differs), each with ``suffix``.

    The indexed body is the redacted text, so when the text as it is already has the indexed
    fingerprint, it *is* the indexed text (which the redactor left alone at ingestion) and the
    redaction pass — most of a chunk's cost — is skipped; a text that held a secret does not
    match unredacted and is shown only redacted, exactly as it was indexed.
    """
    yield text + suffix
    redacted = redact_secrets(text)
    if redacted != text:
        yield redacted + suffix


__all__ = [
    "MAX_MESSAGE_CHARS",
    "TRUNCATED_MARK",
    "chunk_body",
    "clean_text",
    "document_texts",
    "event_text",
    "message_body",
    "snippet_texts",
]
