"""Documents built from project records (DESIGN §3 table): sessions, messages, PRs, git.

Pure functions from reader records to ``IndexDoc``: no I/O, no database. Every indexed body goes
through ``clean_text`` — control characters out (the snippet markers ``\\x01``/``\\x02`` can then
never occur in indexed text) and token-shaped secrets replaced by a marker — and every title,
subject and command line through ``redact_title``: a token in a title is stored, shown and
found like one in a body.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engine.index.db import IndexDoc
from engine.project.model import Branch, ChatEvent, Commit, PrSnapshot, SessionMeta
from engine.project.safe_io import dumps_json
from engine.redaction import redact_secrets, redact_title
from engine.terminal.chunking import sanitize_indexed_text

MAX_MESSAGE_CHARS = 256 * 1024
"""Longest message body indexed (a pasted base64 image is megabytes of noise): the rest is cut."""

TRUNCATED_MARK = " [… truncated]"
"""Appended to a body that was cut, so a reader of the snippet knows there is more."""


def ms(moment: datetime | None) -> int:
    """Milliseconds since the epoch (0 for unknown)."""
    return int(moment.timestamp() * 1000) if moment is not None else 0


def clean_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Sanitize, redact and cap one body for indexing."""
    cut = len(text) > limit
    body = redact_secrets(sanitize_indexed_text(text[:limit] if cut else text))
    return body + TRUNCATED_MARK if cut else body


def session_title(meta: SessionMeta | None, sid: str, transcript_title: str | None) -> str:
    """The title shown for a session: its latest ``session_title`` event, else the metadata."""
    if transcript_title:
        return redact_title(transcript_title)
    if meta is not None:
        return redact_title(meta.title or meta.command or sid)
    return sid


def session_doc(
    kind: str, sid: str, meta: SessionMeta | None, title: str, updated_at: int
) -> IndexDoc:
    """The ``chat:<sid>`` / ``terminal:<sid>`` document: the session found by its title."""
    title = redact_title(title)
    return IndexDoc(
        doc_id=f"{kind}:{sid}",
        kind=kind,
        title=title,
        rank_title=title,
        body="",
        updated_at=max(updated_at, ms(meta.updated_at) if meta else 0),
        session_id=sid,
        lane_id=meta.lane_id if meta else None,
        anchor=None,
        source_key=f"{kind}:{sid}",
        tool=meta.tool if meta is not None and kind == "chat" else None,
    )


def _event_text(event: ChatEvent) -> str | None:
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


def message_id(event: ChatEvent) -> str | None:
    """The doc id suffix of an event that owns a searchable body, or None when it owns none.

    A ``user_message`` owns its body only when ``accepted`` (or without a status, as older writers
    produce); ``processed``/``unprocessed`` snapshots change delivery state only. A tool result
    shares its call's id, so it takes a ``:result`` suffix.
    """
    if event.type == "user_message":
        status = event.data.get("status", "accepted")
        if status != "accepted":
            return None
    elif event.type not in ("assistant_message", "tool_call", "tool_result"):
        return None
    base = event.event_id or f"seq-{event.seq}"
    return f"{base}:result" if event.type == "tool_result" else base


def message_doc(
    sid: str, event: ChatEvent, title: str, lane_id: str | None, fallback_ms: int,
    tool: str | None = None,
) -> IndexDoc | None:  # fmt: skip
    """The ``chat:<sid>:<messageId>`` document of one event, or None when it owns no body."""
    mid = message_id(event)
    text = _event_text(event)
    if mid is None or text is None:
        return None
    return IndexDoc(
        doc_id=f"chat:{sid}:{mid}",
        kind="chat",
        title=redact_title(title),
        rank_title="",
        body=clean_text(text),
        updated_at=ms(event.ts) or fallback_ms,
        session_id=sid,
        lane_id=lane_id,
        anchor=str(event.seq),
        source_key=f"chat:{sid}",
        tool=tool,
    )


def chunk_doc(
    sid: str, offset: int, text: str, title: str, lane_id: str | None, updated_at: int
) -> IndexDoc:
    """The ``terminal:<sid>@<offset>`` document of one sanitized chunk."""
    return IndexDoc(
        doc_id=f"terminal:{sid}@{offset}",
        kind="terminal",
        title=redact_title(title),
        rank_title="",
        body=redact_secrets(text),
        updated_at=updated_at,
        session_id=sid,
        lane_id=lane_id,
        anchor=str(offset),
        source_key=f"terminal:{sid}",
    )


def pr_doc(pr: PrSnapshot, lane_id: str | None) -> IndexDoc:
    """The ``pr:<number>`` document: title, body and every comment."""
    parts = [pr.body, *(f"{c.author}: {c.body}" for c in pr.comments)]
    title = redact_title(pr.title)
    return IndexDoc(
        doc_id=f"pr:{pr.number}",
        kind="pr",
        title=f"#{pr.number} {title}",
        rank_title=title,
        body=clean_text("\n\n".join(p for p in parts if p)),
        updated_at=ms(pr.updated_at),
        session_id=None,
        lane_id=lane_id,
        anchor=str(pr.number),
        source_key=f"pr:{pr.number}",
    )


def commit_doc(commit: Commit, lane_id: str) -> IndexDoc:
    """The ``commit:<sha>`` document, attributed to ``lane_id``."""
    message = f"{commit.subject}\n\n{commit.body}".strip()
    subject = redact_title(commit.subject)
    return IndexDoc(
        doc_id=f"commit:{commit.sha}",
        kind="commit",
        title=subject,
        rank_title=subject,
        body=clean_text(f"{message}\n{commit.author}"),
        updated_at=ms(commit.committed_at),
        session_id=None,
        lane_id=lane_id,
        anchor=commit.sha,
        source_key="git",
    )


def branch_doc(branch: Branch, lane_id: str) -> IndexDoc:
    """The ``branch:<name>`` document (primary lane only)."""
    return IndexDoc(
        doc_id=f"branch:{branch.name}",
        kind="branch",
        title=redact_title(branch.name),
        rank_title=redact_title(branch.name),
        body=clean_text(branch.tip_subject),
        updated_at=ms(branch.updated_at),
        session_id=None,
        lane_id=lane_id,
        anchor=branch.name,
        source_key="git",
    )
