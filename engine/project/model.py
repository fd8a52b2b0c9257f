"""Plain, immutable records the project reader returns (DESIGN §2).

These are internal (snake_case, never on the wire); the wire form lives in ``engine.types``.
All datetimes are timezone-aware; the reader refuses naive ones.
"""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError
from datetime import datetime
from operator import attrgetter
from pathlib import Path
from typing import Any, ClassVar, Literal

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


_set = object.__setattr__
"""How the records' ``__init__`` stores a field past the frozen ``__setattr__``."""


class _Record:
    """What ``@dataclass(frozen=True, slots=True)`` generates, written once for every record.

    ``dataclass`` compiles six methods from source per class at import, ~0.7 ms a class: nine
    records cost every ``ade search`` ~6 ms of start-up (issue 5). Each record lists its fields in
    ``__slots__`` and writes its own ``__init__``; equality, hashing, ``repr``, immutability,
    ``__match_args__`` and pickling/copying behave as the dataclass versions did. ``__slots__``
    is in field order (it is the order of ``repr``, equality and the constructor), not sorted.
    """

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _fields: ClassVar[tuple[str, ...]]
    _values: ClassVar[attrgetter[tuple[Any, ...]]]

    def __init_subclass__(cls) -> None:
        fields: tuple[str, ...] = cls.__dict__["__slots__"]
        cls._fields = fields
        cls._values = attrgetter(*fields)
        setattr(cls, "__match_args__", fields)  # noqa: B010 (mypy refuses a plain assignment)

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({parts})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values(self) == self._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return self._values(self)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._fields, state, strict=True):
            _set(self, name, value)


class Project(_Record):
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
        _set(self, "root", root)
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "is_git", is_git)

    @property
    def ade_dir(self) -> Path:
        return self.root / ".ade"

    @property
    def cache_dir(self) -> Path:
        return self.ade_dir / "cache"

    @property
    def index_path(self) -> Path:
        return self.cache_dir / "search-index.db"


class SessionMeta(_Record):
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
        _set(self, "id", id)
        _set(self, "kind", kind)
        _set(self, "title", title)
        _set(self, "lane_id", lane_id)
        _set(self, "created_at", created_at)
        _set(self, "updated_at", updated_at)
        _set(self, "ended_at", ended_at)
        _set(self, "archived", archived)
        _set(self, "tool", tool)
        _set(self, "command", command)
        _set(self, "exit_code", exit_code)
        _set(self, "source", source)
        _set(self, "transcript_path", transcript_path)


class ChatEvent(_Record):
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
        _set(self, "seq", seq)
        _set(self, "ts", ts)
        _set(self, "type", type)
        _set(self, "offset", offset)
        _set(self, "data", {} if data is None else data)

    @property
    def event_id(self) -> str | None:
        value = self.data.get("id")
        return value if isinstance(value, str) and value else None


class PrComment(_Record):
    __slots__ = ("author", "body", "created_at")
    author: str
    body: str
    created_at: datetime | None

    def __init__(self, author: str, body: str, created_at: datetime | None) -> None:
        _set(self, "author", author)
        _set(self, "body", body)
        _set(self, "created_at", created_at)


class PrSnapshot(_Record):
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
        _set(self, "number", number)
        _set(self, "title", title)
        _set(self, "body", body)
        _set(self, "state", state)
        _set(self, "author", author)
        _set(self, "head_branch", head_branch)
        _set(self, "base_branch", base_branch)
        _set(self, "url", url)
        _set(self, "updated_at", updated_at)
        _set(self, "comments", comments)


class Lane(_Record):
    """An isolated working copy. The primary lane is the main worktree (id ``primary``)."""

    __slots__ = ("id", "name", "path", "branch", "primary")  # noqa: RUF023
    id: str
    name: str
    path: Path
    branch: str | None
    primary: bool

    def __init__(self, id: str, name: str, path: Path, branch: str | None, primary: bool) -> None:
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "path", path)
        _set(self, "branch", branch)
        _set(self, "primary", primary)


class Artifact(_Record):
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
        _set(self, "id", id)
        _set(self, "title", title)
        _set(self, "kind", kind)
        _set(self, "path", path)
        _set(self, "lane_id", lane_id)
        _set(self, "session_id", session_id)
        _set(self, "created_at", created_at)


class Commit(_Record):
    __slots__ = ("sha", "subject", "body", "author", "committed_at")  # noqa: RUF023
    sha: str
    subject: str
    body: str
    author: str
    committed_at: datetime

    def __init__(
        self, sha: str, subject: str, body: str, author: str, committed_at: datetime
    ) -> None:
        _set(self, "sha", sha)
        _set(self, "subject", subject)
        _set(self, "body", body)
        _set(self, "author", author)
        _set(self, "committed_at", committed_at)


class Branch(_Record):
    __slots__ = ("name", "tip_sha", "tip_subject", "updated_at")
    name: str
    tip_sha: str
    tip_subject: str
    updated_at: datetime

    def __init__(self, name: str, tip_sha: str, tip_subject: str, updated_at: datetime) -> None:
        _set(self, "name", name)
        _set(self, "tip_sha", tip_sha)
        _set(self, "tip_subject", tip_subject)
        _set(self, "updated_at", updated_at)
