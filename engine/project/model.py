"""Plain, immutable records the project reader returns (DESIGN §2).

These are internal (snake_case, never on the wire); the wire form lives in ``engine.types``.
All datetimes are timezone-aware; the reader refuses naive ones.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

SESSION_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,128}")
"""Session ids that may become file names; anything else is rejected (no traversal, no NUL)."""

SessionKind = Literal["chat", "terminal"]

ChatEventType = Literal[
    "user_message", "assistant_message", "system_message", "tool_call", "tool_result",
    "session_title",
]  # fmt: skip
"""``system_message``: text the agent put into the conversation itself (a compaction summary, a
command's output, an interruption notice: docs/agents.md "What is hidden"), never the user's
words: indexed with the role ``system`` and found only by ``role:system``."""
CHAT_EVENT_TYPES: frozenset[str] = frozenset(
    {"user_message", "assistant_message", "system_message", "tool_call", "tool_result",
     "session_title"}
)  # fmt: skip


def is_valid_session_id(value: str) -> bool:
    """True when ``value`` is a session id we accept as a file name component."""
    return bool(SESSION_ID_RE.fullmatch(value)) and value not in {".", ".."}


class Project(msgspec.Struct, frozen=True):
    """A project directory and its identity.

    ``ade_dir`` is ``root / ".ade"`` whether or not it exists; ``is_git`` says whether ``root`` is
    inside a git work tree (git sources are skipped otherwise).
    """

    root: Path
    id: str
    name: str
    is_git: bool

    @property
    def ade_dir(self) -> Path:
        return self.root / ".ade"

    @property
    def cache_dir(self) -> Path:
        return self.ade_dir / "cache"

    @property
    def index_path(self) -> Path:
        return self.cache_dir / "search-index.db"


class SessionMeta(msgspec.Struct, frozen=True):
    """One chat or terminal session (``.ade/sessions/<id>.json``)."""

    id: str
    kind: SessionKind
    title: str
    lane_id: str | None
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None = None
    archived: bool = False
    tool: str | None = None
    command: str | None = None
    exit_code: int | None = None
    source: str = "ade"
    """Where the transcript comes from: ``ade`` (.ade/), ``claude``, ``codex``, ``import``…"""
    transcript_path: Path | None = None
    """Set for sessions whose transcript lives outside ``.ade/`` (Claude Code, Codex)."""


class ChatEvent(msgspec.Struct, frozen=True):
    """One parsed line of a chat transcript.

    ``offset`` is the byte offset of the line's first byte in the (decompressed) transcript, so a
    reader can resume or link exactly. ``data`` keeps the whole decoded object for type-specific
    fields (``id``, ``text``, ``status``, ``name``, ``input``, ``output``, ``title``).
    """

    seq: int
    ts: datetime | None
    type: ChatEventType
    offset: int
    data: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def event_id(self) -> str | None:
        value = self.data.get("id")
        return value if isinstance(value, str) and value else None


class PrComment(msgspec.Struct, frozen=True):
    author: str
    body: str
    created_at: datetime | None


class PrReview(msgspec.Struct, frozen=True):
    """A review's summary (``gh pr view --json reviews``): its verdict and the text around it."""

    id: str
    author: str
    body: str
    state: str
    submitted_at: datetime | None


class PrReviewComment(msgspec.Struct, frozen=True):
    """A comment on a line of the diff, written as part of a review (GitHub's pull comments)."""

    id: str
    review_id: str | None
    author: str
    body: str
    path: str
    line: int | None
    created_at: datetime | None


class PrSnapshot(msgspec.Struct, frozen=True):
    """``.ade/prs/<number>.json`` — the shape of ``gh pr view --json``."""

    number: int
    title: str
    body: str
    state: str
    author: str
    head_branch: str
    base_branch: str
    url: str
    updated_at: datetime
    comments: tuple[PrComment, ...] = ()
    reviews: tuple[PrReview, ...] = ()
    review_comments: tuple[PrReviewComment, ...] = ()


class Lane(msgspec.Struct, frozen=True):
    """An isolated working copy. The primary lane is the main worktree (id ``primary``)."""

    id: str
    name: str
    path: Path
    branch: str | None
    primary: bool


class Artifact(msgspec.Struct, frozen=True):
    """``.ade/artifacts/<id>.json``; ``path`` is resolved relative to the artifacts folder."""

    id: str
    title: str
    kind: str
    path: str
    lane_id: str | None
    session_id: str | None
    created_at: datetime


class Commit(msgspec.Struct, frozen=True):
    sha: str
    subject: str
    body: str
    author: str
    committed_at: datetime


class Branch(msgspec.Struct, frozen=True):
    name: str
    tip_sha: str
    tip_subject: str
    updated_at: datetime
