"""Plain, immutable records the project reader returns (DESIGN §2).

These are internal (snake_case, never on the wire); the wire form lives in ``engine.types``.
All datetimes are timezone-aware; the reader refuses naive ones.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from engine.project.record import FrozenRecord, set_field

SESSION_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,128}")
"""Session ids that may become file names; anything else is rejected (no traversal, no NUL)."""

SessionKind = Literal["chat", "terminal"]

ChatEventType = Literal[
    "user_message", "assistant_message", "tool_call", "tool_result", "session_title"
]
CHAT_EVENT_TYPES: frozenset[str] = frozenset(
    {"user_message", "assistant_message", "tool_call", "tool_result", "session_title"}
)


def is_valid_session_id(value: str) -> bool:
    """True when ``value`` is a session id we accept as a file name component."""
    return bool(SESSION_ID_RE.fullmatch(value)) and value not in {".", ".."}


class Project(FrozenRecord):
    """A project directory and its identity.

    ``ade_dir`` is ``root / ".ade"`` whether or not it exists; ``is_git`` says whether ``root`` is
    inside a git work tree (git sources are skipped otherwise).
    """

    __slots__ = ("root", "id", "name", "is_git")  # noqa: RUF023
    root: Path
    id: str
    name: str
    is_git: bool

    def __init__(self, root: Path, id: str, name: str, is_git: bool) -> None:
        set_field(self, "root", root)
        set_field(self, "id", id)
        set_field(self, "name", name)
        set_field(self, "is_git", is_git)

    @property
    def ade_dir(self) -> Path:
        return self.root / ".ade"

    @property
    def cache_dir(self) -> Path:
        return self.ade_dir / "cache"

    @property
    def index_path(self) -> Path:
        return self.cache_dir / "search-index.db"


class SessionMeta(FrozenRecord):
    """One chat or terminal session (``.ade/sessions/<id>.json``)."""

    __slots__ = (  # noqa: RUF023
        "id",
        "kind",
        "title",
        "lane_id",
        "created_at",
        "updated_at",
        "ended_at",
        "archived",
        "tool",
        "command",
        "exit_code",
        "source",
        "transcript_path",
    )
    id: str
    kind: SessionKind
    title: str
    lane_id: str | None
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None
    archived: bool
    tool: str | None
    command: str | None
    exit_code: int | None
    source: str
    """Where the transcript comes from: ``ade`` (.ade/), ``claude``, ``codex``, ``import``…"""
    transcript_path: Path | None
    """Set for sessions whose transcript lives outside ``.ade/`` (Claude Code, Codex)."""

    def __init__(
        self,
        id: str,
        kind: SessionKind,
        title: str,
        lane_id: str | None,
        created_at: datetime,
        updated_at: datetime,
        ended_at: datetime | None = None,
        archived: bool = False,
        tool: str | None = None,
        command: str | None = None,
        exit_code: int | None = None,
        source: str = "ade",
        transcript_path: Path | None = None,
    ) -> None:
        set_field(self, "id", id)
        set_field(self, "kind", kind)
        set_field(self, "title", title)
        set_field(self, "lane_id", lane_id)
        set_field(self, "created_at", created_at)
        set_field(self, "updated_at", updated_at)
        set_field(self, "ended_at", ended_at)
        set_field(self, "archived", archived)
        set_field(self, "tool", tool)
        set_field(self, "command", command)
        set_field(self, "exit_code", exit_code)
        set_field(self, "source", source)
        set_field(self, "transcript_path", transcript_path)


class ChatEvent(FrozenRecord):
    """One parsed line of a chat transcript.

    ``offset`` is the byte offset of the line's first byte in the (decompressed) transcript, so a
    reader can resume or link exactly. ``data`` keeps the whole decoded object for type-specific
    fields (``id``, ``text``, ``status``, ``name``, ``input``, ``output``, ``title``).
    """

    __slots__ = ("seq", "ts", "type", "offset", "data")  # noqa: RUF023
    seq: int
    ts: datetime | None
    type: ChatEventType
    offset: int
    data: dict[str, Any]

    def __init__(
        self,
        seq: int,
        ts: datetime | None,
        type: ChatEventType,
        offset: int,
        data: dict[str, Any] | None = None,
    ) -> None:
        set_field(self, "seq", seq)
        set_field(self, "ts", ts)
        set_field(self, "type", type)
        set_field(self, "offset", offset)
        set_field(self, "data", {} if data is None else data)

    @property
    def event_id(self) -> str | None:
        value = self.data.get("id")
        return value if isinstance(value, str) and value else None


class PrComment(FrozenRecord):
    __slots__ = ("author", "body", "created_at")
    author: str
    body: str
    created_at: datetime | None

    def __init__(self, author: str, body: str, created_at: datetime | None) -> None:
        set_field(self, "author", author)
        set_field(self, "body", body)
        set_field(self, "created_at", created_at)


class PrSnapshot(FrozenRecord):
    """``.ade/prs/<number>.json`` — the shape of ``gh pr view --json``."""

    __slots__ = (  # noqa: RUF023
        "number",
        "title",
        "body",
        "state",
        "author",
        "head_branch",
        "base_branch",
        "url",
        "updated_at",
        "comments",
    )
    number: int
    title: str
    body: str
    state: str
    author: str
    head_branch: str
    base_branch: str
    url: str
    updated_at: datetime
    comments: tuple[PrComment, ...]

    def __init__(
        self,
        number: int,
        title: str,
        body: str,
        state: str,
        author: str,
        head_branch: str,
        base_branch: str,
        url: str,
        updated_at: datetime,
        comments: tuple[PrComment, ...] = (),
    ) -> None:
        set_field(self, "number", number)
        set_field(self, "title", title)
        set_field(self, "body", body)
        set_field(self, "state", state)
        set_field(self, "author", author)
        set_field(self, "head_branch", head_branch)
        set_field(self, "base_branch", base_branch)
        set_field(self, "url", url)
        set_field(self, "updated_at", updated_at)
        set_field(self, "comments", comments)


class Lane(FrozenRecord):
    """An isolated working copy. The primary lane is the main worktree (id ``primary``)."""

    __slots__ = ("id", "name", "path", "branch", "primary")  # noqa: RUF023
    id: str
    name: str
    path: Path
    branch: str | None
    primary: bool

    def __init__(self, id: str, name: str, path: Path, branch: str | None, primary: bool) -> None:
        set_field(self, "id", id)
        set_field(self, "name", name)
        set_field(self, "path", path)
        set_field(self, "branch", branch)
        set_field(self, "primary", primary)


class Artifact(FrozenRecord):
    """``.ade/artifacts/<id>.json``; ``path`` is resolved relative to the artifacts folder."""

    __slots__ = ("id", "title", "kind", "path", "lane_id", "session_id", "created_at")  # noqa: RUF023
    id: str
    title: str
    kind: str
    path: str
    lane_id: str | None
    session_id: str | None
    created_at: datetime

    def __init__(
        self,
        id: str,
        title: str,
        kind: str,
        path: str,
        lane_id: str | None,
        session_id: str | None,
        created_at: datetime,
    ) -> None:
        set_field(self, "id", id)
        set_field(self, "title", title)
        set_field(self, "kind", kind)
        set_field(self, "path", path)
        set_field(self, "lane_id", lane_id)
        set_field(self, "session_id", session_id)
        set_field(self, "created_at", created_at)


class Commit(FrozenRecord):
    __slots__ = ("sha", "subject", "body", "author", "committed_at")  # noqa: RUF023
    sha: str
    subject: str
    body: str
    author: str
    committed_at: datetime

    def __init__(
        self, sha: str, subject: str, body: str, author: str, committed_at: datetime
    ) -> None:
        set_field(self, "sha", sha)
        set_field(self, "subject", subject)
        set_field(self, "body", body)
        set_field(self, "author", author)
        set_field(self, "committed_at", committed_at)


class Branch(FrozenRecord):
    __slots__ = ("name", "tip_sha", "tip_subject", "updated_at")
    name: str
    tip_sha: str
    tip_subject: str
    updated_at: datetime

    def __init__(self, name: str, tip_sha: str, tip_subject: str, updated_at: datetime) -> None:
        set_field(self, "name", name)
        set_field(self, "tip_sha", tip_sha)
        set_field(self, "tip_subject", tip_subject)
        set_field(self, "updated_at", updated_at)
