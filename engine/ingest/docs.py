"""Documents built from project records (DESIGN §3 table): sessions, messages, PRs, git.

Pure functions from reader records to ``IndexDoc``: no I/O, no database. Every indexed body goes
through ``clean_text`` — control characters out (the snippet markers ``\\x01``/``\\x02`` can then
never occur in indexed text) and token-shaped secrets replaced by a marker — and every title,
subject and command line through ``redact_title``: a token in a title is stored, shown and
found like one in a body.
"""

from __future__ import annotations

from datetime import datetime

from engine.index.db import IndexDoc
from engine.kinds import SYSTEM_ROLE
from engine.project.model import Branch, ChatEvent, Commit, PrSnapshot, SessionMeta
from engine.query.source_text import MAX_MESSAGE_CHARS, TRUNCATED_MARK, clean_text, message_body
from engine.redaction import redact_secrets, redact_title

__all__ = ["MAX_MESSAGE_CHARS", "TRUNCATED_MARK", "clean_text"]


def ms(moment: datetime | None) -> int:
    """Milliseconds since the epoch (0 for unknown)."""
    return int(moment.timestamp() * 1000) if moment is not None else 0


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
    elif event.type not in ("assistant_message", "system_message", "tool_call", "tool_result"):
        return None
    base = event.event_id or f"seq-{event.seq}"
    return f"{base}:result" if event.type == "tool_result" else base


def message_doc(
    sid: str, event: ChatEvent, title: str, lane_id: str | None, fallback_ms: int,
    tool: str | None = None, span: tuple[int, int] | None = None,
) -> IndexDoc | None:  # fmt: skip
    """The ``chat:<sid>:<messageId>`` document of one event, or None when it owns no body.

    ``span`` is the event's line (offset, length) when the snippet can be re-read from it."""
    mid = message_id(event)
    body = None if mid is None else message_body(event)
    if mid is None or body is None:
        return None
    return IndexDoc(
        doc_id=f"chat:{sid}:{mid}",
        kind="chat",
        title=redact_title(title),
        rank_title="",
        body=body,
        updated_at=ms(event.ts) or fallback_ms,
        session_id=sid,
        lane_id=lane_id,
        anchor=str(event.seq),
        source_key=f"chat:{sid}",
        tool=tool,
        source_span=span,
        role=event_role(event),
    )


def event_role(event: ChatEvent) -> str | None:
    """The ``role`` column of an event's document: ``system`` for a notice the agent injected
    (found only by ``role:system``), None for the user's, the assistant's and the tools' own."""
    return SYSTEM_ROLE if event.type == "system_message" else None


def chunk_doc(
    sid: str, offset: int, text: str, title: str, lane_id: str | None, updated_at: int,
    raw_len: int | None = None,
) -> IndexDoc:  # fmt: skip
    """The ``terminal:<sid>@<offset>`` document of one sanitized chunk (``raw_len``: the raw
    bytes it was cut from, when its snippet is to be re-derived from them)."""
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
        source_span=None if raw_len is None else (offset, raw_len),
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


def branch_doc(branch: Branch, lane_id: str | None) -> IndexDoc:
    """The ``branch:<name>`` document, on the lane the branch is checked out in (None: in no
    lane); a name holding a secret is hashed in the id and anchor (``engine.redaction.ids``)."""
    from engine.redaction.ids import safe_ref

    ref = safe_ref(branch.name)
    return IndexDoc(
        doc_id=f"branch:{ref}",
        kind="branch",
        title=redact_title(branch.name),
        rank_title=redact_title(branch.name),
        body=clean_text(branch.tip_subject),
        updated_at=ms(branch.updated_at),
        session_id=None,
        lane_id=lane_id,
        anchor=ref,
        source_key="git",
    )
