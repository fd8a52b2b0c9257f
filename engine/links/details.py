"""The context behind a link, as plain records: reused by the palette's screens and preview pane
and by ``ade open``. Headless (no Textual, no rich) and read-only.

Every function lands on the nearest valid place instead of failing when the target moved (an
offset past the end, a chat event that is gone) and says so in ``note`` (RELIABILITY 21).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.errors import AdeError, DeepLinkError
from engine.links.targets import resolve_file_target
from engine.project.artifacts import list_artifacts
from engine.project.git import GitError, run_git
from engine.project.model import ChatEvent, Lane, Project, SessionMeta, is_valid_session_id
from engine.project.prs import read_pr
from engine.project.safe_io import dumps_json, open_regular, read_regular
from engine.project.tally import WarningTally
from engine.project.transcripts import (
    TranscriptError,
    parse_chat_lines,
    read_transcript,
)

ANSI_RE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
"""CSI, OSC (BEL or ST terminated) and two-byte escapes: what a PTY transcript carries."""

CONTEXT_WINDOW_BYTES = 64 * 1024
"""Bytes read on each side of an offset for scrollback context: dozens of long lines."""

CHAT_READ_LIMIT = 64 * 1024 * 1024
"""Largest chat transcript read whole for context; chats are small, this bounds a hostile one."""

FILE_MAX_BYTES = 2 * 1024 * 1024
"""Files larger than this are not shown in a detail view (binary dumps, lock files)."""


def _redacted(detail: Detail) -> Detail:
    """``detail`` with secrets in its title, fields and body replaced by markers, as in the index:
    a PR, commit, branch, lane, artifact or issue screen shows no more than its search hit did."""
    from engine.redaction import redact_secrets, redact_title

    return replace(
        detail,
        title=redact_title(detail.title),
        fields=tuple((name, redact_title(value)) for name, value in detail.fields),
        body=redact_secrets(detail.body),
    )


class DetailError(AdeError):
    """The target cannot be shown at all (gone, unreadable, outside its lane)."""


@dataclass(frozen=True, slots=True)
class TextLine:
    """One line of a transcript or file: ``offset`` is the raw byte offset of its first byte,
    ``number`` the 1-based line number where known."""

    text: str
    offset: int = 0
    number: int = 0


@dataclass(frozen=True, slots=True)
class Context:
    """Lines around a target; ``focus`` indexes the target line in ``lines`` (or None)."""

    lines: tuple[TextLine, ...]
    focus: int | None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class Detail:
    """A PR, commit, branch, lane, file, artifact or Linear issue, ready to print or paint."""

    kind: str
    title: str
    fields: tuple[tuple[str, str], ...] = ()
    body: str = ""
    language: str | None = None
    """Syntax of ``body`` for highlighting (file details): a lexer name, or None for plain text."""
    first_line: int = 1
    focus_line: int | None = None
    note: str | None = None
    path: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def strip_ansi(data: bytes) -> bytes:
    """Remove escape sequences (colours, cursor moves, titles) from raw terminal bytes."""
    return ANSI_RE.sub(b"", data)


def final_frame(line: bytes) -> bytes:
    """What a terminal shows for a line of ``\\r``-separated progress frames: each frame
    overwrites the previous one from column 0, so the last frame wins, with the tail of a longer
    earlier frame still visible (the terminal never erased it)."""
    line = line.rstrip(b"\r")
    if b"\r" not in line:
        return line
    shown = b""
    for frame in line.split(b"\r"):
        shown = frame + shown[len(frame) :] if len(frame) < len(shown) else frame
    return shown


def scrollback_context(
    path: Path,
    offset: int,
    *,
    before: int = 5,
    after: int = 15,
    keep_ansi: bool = False,
) -> Context:
    """Scrollback lines around byte ``offset`` of a terminal transcript (plain or ``.gz``).

    The line containing ``offset`` is the focus (a hit's link offset is its matching line, see
    ``engine.links.places``). An offset past the end lands on the last line with a note.

    Raises:
        DetailError: the transcript is missing or unreadable.
    """
    try:
        start = max(0, offset - CONTEXT_WINDOW_BYTES)
        piece = read_transcript(path, start, 2 * CONTEXT_WINDOW_BYTES)
    except TranscriptError as err:
        raise DetailError(f"cannot read the scrollback: {err}") from None
    note = None
    if offset >= piece.total_size:
        note = f"offset {offset} is past the end ({piece.total_size} bytes); showing the end"
        start = max(0, piece.total_size - CONTEXT_WINDOW_BYTES)
        piece = read_transcript(path, start, CONTEXT_WINDOW_BYTES)
        offset = max(0, piece.total_size - 1)
    lines = _split_lines(piece.data, piece.start, skip_partial_head=piece.start > 0)
    focus = _line_at(lines, offset)
    shown = lines[max(0, focus - before) : focus + after + 1]
    records = tuple(
        TextLine(text=_display(raw, keep_ansi), offset=line_offset) for line_offset, raw in shown
    )
    return Context(lines=records, focus=min(focus, before), note=note)


def _split_lines(data: bytes, base: int, *, skip_partial_head: bool) -> list[tuple[int, bytes]]:
    lines: list[tuple[int, bytes]] = []
    pos = 0
    if skip_partial_head:
        first = data.find(b"\n")
        pos = first + 1 if first >= 0 else 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        lines.append((base + pos, data[pos:end]))
        pos = end + 1
    return lines or [(base, b"")]


def _line_at(lines: list[tuple[int, bytes]], offset: int) -> int:
    found = 0
    for index, (line_offset, _) in enumerate(lines):
        if line_offset <= offset:
            found = index
        else:
            break
    return found


def _display(raw: bytes, keep_ansi: bool) -> str:
    frame = final_frame(raw)
    text = frame if keep_ansi else strip_ansi(frame)
    return text.decode("utf-8", errors="replace").replace("\t", "    ")


def read_chat_events(path: Path) -> list[ChatEvent]:
    """Every parseable event of a chat transcript (plain or ``.gz``); bad lines are skipped.

    A Claude Code or Codex transcript is read with its own parser (subagent files included).

    Raises:
        DetailError: the transcript is missing or unreadable.
    """
    from engine.external.view import external_format, read_external_events

    tool = external_format(path)
    if tool is not None:
        try:
            return read_external_events(path, tool)
        except OSError as err:
            raise DetailError(f"cannot read the chat: {err.strerror or err}") from None
    try:
        piece = read_transcript(path, 0, CHAT_READ_LIMIT)
    except TranscriptError as err:
        raise DetailError(f"cannot read the chat: {err}") from None
    events, _ = parse_chat_lines(piece.data, 0, "details", WarningTally())
    return events


def transcript_bytes(path: Path) -> bytes:
    """The whole transcript at ``path``, inflated when it is a ``.gz`` compaction (the scrollback
    view of a compacted terminal slices it in memory).

    Raises:
        DetailError: the transcript is missing or unreadable.
    """
    try:
        return read_transcript(path, 0, 1 << 62).data
    except TranscriptError as err:
        raise DetailError(f"cannot read the scrollback: {err}") from None


def plain_transcript_fd(path: Path) -> int:
    """A read-only descriptor of the plain transcript at ``path`` (the caller closes it), opened
    only when it is a regular file: a FIFO swapped in never blocks the scrollback.

    Raises:
        OSError: missing, unreadable, or not a regular file (``UnsafeFile``).
    """
    with open_regular(path) as handle:
        return os.dup(handle.fileno())


def chat_text(event: ChatEvent) -> str:
    """The readable body of an event: message text, tool call input or tool output."""
    data = event.data
    for key in ("text", "output", "title"):
        value = data.get(key)
        if isinstance(value, str):
            return value
    if event.type == "tool_call":
        return f"{data.get('name', 'tool')}({dumps_json(data.get('input'))})"
    return ""


def message_events(events: list[ChatEvent]) -> list[ChatEvent]:
    """Events a reader sees as messages: one per user message id (the accepted one), every
    assistant message, tool call and result. Later delivery-state snapshots are folded away."""
    seen: set[str] = set()
    shown: list[ChatEvent] = []
    for event in events:
        if event.type == "session_title":
            continue
        if event.type == "user_message":
            key = event.event_id or f"seq:{event.seq}"
            if key in seen:
                continue
            seen.add(key)
        shown.append(event)
    return shown


def chat_focus(events: list[ChatEvent], seq: int | None) -> tuple[int | None, str | None]:
    """Index of the event with ``seq`` in ``events``, else the nearest earlier one, with a note."""
    if not events:
        return None, "the chat has no messages"
    if seq is None:
        return len(events) - 1, None
    best = 0
    for index, event in enumerate(events):
        if event.seq == seq:
            return index, None
        if event.seq < seq:
            best = index
    return best, f"event {seq} is not in the chat any more; showing the nearest message"


def message_numbers(path: Path, events: list[ChatEvent]) -> list[int]:
    """The number a reader sees on each of ``events`` (``message_events`` of ``path``): an
    ``.ade`` chat's own event number (its links' ``event=``); for another agent's transcript,
    whose anchors are byte offsets or part counters, its place 1..N."""
    from engine.external.view import external_format

    if external_format(path) is None:
        return [event.seq for event in events]
    return list(range(1, len(events) + 1))


def chat_context(path: Path, seq: int | None, *, radius: int = 2) -> Context:
    """The chat message with ``seq`` and ``radius`` neighbours each side, as text lines."""
    events = message_events(read_chat_events(path))
    focus, note = chat_focus(events, seq)
    if focus is None:
        return Context(lines=(), focus=None, note=note)
    low = max(0, focus - radius)
    picked = events[low : focus + radius + 1]
    numbers = message_numbers(path, events)[low : focus + radius + 1]
    lines = tuple(
        TextLine(text=f"{_role(e)}: {chat_text(e)}", offset=e.offset, number=number)
        for e, number in zip(picked, numbers, strict=True)
    )
    return Context(lines=lines, focus=focus - low, note=note)


def _role(event: ChatEvent) -> str:
    notice = event.data.get("notice")
    if event.type == "system_message" and isinstance(notice, str) and notice:
        return f"system ({notice})"  # what the agent injected: never shown as the user's
    return {
        "user_message": "user",
        "assistant_message": "assistant",
        "system_message": "system",
        "tool_call": "tool call",
        "tool_result": "tool result",
    }.get(event.type, event.type)


def _when(moment: datetime | None) -> str:
    return moment.isoformat(timespec="minutes") if moment is not None else ""


def pr_detail(
    project: Project, number: int, review: str | None = None, comment: str | None = None
) -> Detail:
    """The PR snapshot ``.ade/prs/<number>.json``, read and validated by the project reader;
    ``review``/``comment``: the review or diff comment a link lands on, shown first."""
    from engine.links.pr_review_detail import reviews_body

    pr = read_pr(project, int(number))
    if pr is None:
        raise DetailError(f"PR #{number} is not available (missing or malformed snapshot)")
    body = pr.body
    for said in pr.comments:
        body += f"\n\n— {said.author} ({_when(said.created_at)}):\n{said.body}"
    landed, reviews, note = reviews_body(pr, review, comment)
    body = "\n\n".join(part for part in (landed, body, reviews) if part)
    return _redacted(
        Detail(
            kind="pr",
            title=f"#{pr.number} {pr.title}",
            fields=(
                ("state", pr.state),
                ("author", pr.author),
                ("branch", f"{pr.head_branch} → {pr.base_branch}"),
                ("url", pr.url),
                ("updated", _when(pr.updated_at)),
            ),
            body=body,
            note=note,
        )
    )


def commit_detail(repo: Path, sha: str) -> Detail:
    """``git show --stat`` of ``sha``: subject, author, date, full message and the diffstat."""
    if not re.fullmatch(r"[0-9a-fA-F]{4,64}", sha):
        raise DeepLinkError(f"not a commit sha: {sha!r}")
    try:
        out = run_git(
            repo, "show", "--stat", "--no-color", "--format=%H%n%an%n%aI%n%s%n%n%b%x00", sha, "--"
        )
    except GitError as err:
        raise DetailError(f"commit {sha[:12]} is not available: {err}") from None
    head, _, stat = out.partition("\x00")
    full, author, date, subject, *rest = (head + "\n\n\n\n").split("\n", 4)
    message = rest[0].strip() if rest else ""
    return _redacted(
        Detail(
            kind="commit",
            title=subject,
            fields=(("commit", full), ("author", author), ("date", date)),
            body=(message + "\n\n" if message else "") + stat.strip("\n"),
        )
    )


def branch_detail(repo: Path, name: str) -> Detail:
    """A branch: its tip commit and the most recent commits on it (``name`` may be the hashed
    form of a name that holds a secret, ``engine.redaction.ids``)."""
    from engine.redaction.ids import is_hashed, resolve_ref

    if is_hashed(name):
        try:
            names = run_git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
        except GitError as err:
            raise DetailError(f"branch {name!r} is not available: {err}") from None
        name = resolve_ref(name, names.splitlines()) or name
    try:
        log = run_git(repo, "log", "-n", "10", "--format=%h %s", f"refs/heads/{name}", "--")
    except GitError as err:
        raise DetailError(f"branch {name!r} is not available: {err}") from None
    return _redacted(
        Detail(kind="branch", title=name, fields=(("branch", name),), body=log.rstrip("\n"))
    )


def lane_detail(
    lane: Lane, sessions: list[SessionMeta], repo_log: str = "", root: Path | None = None
) -> Detail:
    """A lane: where it is, its branch, its sessions (newest first) and its recent commits.

    ``root`` (the project folder) makes the path relative when the lane lives inside it.
    """
    where = str(lane.path)
    if root is not None and lane.path.is_relative_to(root):
        where = str(lane.path.relative_to(root)) or "."
    owned = sorted(
        (s for s in sessions if s.lane_id == lane.id), key=lambda s: s.updated_at, reverse=True
    )
    lines = [f"{s.kind:<8} {s.title}  ({s.id})" for s in owned] or ["(no sessions)"]
    body = "Sessions\n" + "\n".join(lines)
    if repo_log:
        body += "\n\nRecent commits\n" + repo_log.rstrip("\n")
    return _redacted(
        Detail(
            kind="lane",
            title=lane.name,
            fields=(
                ("lane", lane.id),
                ("path", where),
                ("branch", lane.branch or "(detached)"),
                ("primary", "yes" if lane.primary else "no"),
            ),
            body=body,
        )
    )


def file_detail(lane_root: Path, relative: str, line: int | None, *, radius: int = 12) -> Detail:
    """Lines of a file around ``line`` (1-based), resolved strictly inside ``lane_root``.

    Raises:
        DeepLinkError: the path escapes the lane (``..``, absolute, symlink out).
        DetailError: the file is missing, too big or unreadable.
    """
    path = resolve_file_target(lane_root, relative)
    try:
        if path.stat().st_size > FILE_MAX_BYTES:
            raise DetailError(f"{relative} is too large to show")
        # read_regular: a FIFO in a lane would block the read forever.
        text = read_regular(path, FILE_MAX_BYTES).decode("utf-8", errors="replace")
    except OSError as err:
        raise DetailError(f"{relative}: {err.strerror or err}") from None
    all_lines = text.splitlines()
    note = None
    target = line or 1
    if target > max(1, len(all_lines)):
        note = f"line {target} is past the end ({len(all_lines)} lines); showing the end"
        target = max(1, len(all_lines))
    first = max(1, target - radius)
    body = "\n".join(all_lines[first - 1 : target + radius])
    return Detail(
        kind="file",
        title=relative,
        fields=(("file", relative), ("line", str(target))),
        body=body,
        language=_language(relative),
        first_line=first,
        focus_line=target,
        note=note,
        path=path,
    )


_LANGUAGES: dict[str, str] = {
    ".py": "python", ".ts": "typescript", ".tsx": "tsx", ".js": "javascript", ".md": "markdown",
    ".json": "json", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".sh": "bash",
    ".rs": "rust", ".go": "go", ".css": "css", ".html": "html", ".sql": "sql",
}  # fmt: skip
"""File suffix → lexer name for the syntax-highlighted file view."""


def _language(relative: str) -> str | None:
    return _LANGUAGES.get(Path(relative).suffix.lower())


def artifact_detail(project: Project, artifact_id: str) -> Detail:
    """``.ade/artifacts/<id>.json`` through the project reader (which refuses escaping paths)."""
    if not is_valid_session_id(artifact_id):
        raise DeepLinkError(f"not an artifact id: {artifact_id!r}")
    found = [a for a in list_artifacts(project, WarningTally()) if a.id == artifact_id]
    if not found:
        raise DetailError(f"artifact {artifact_id} is not available (missing or malformed record)")
    art = found[0]
    fields = (
        ("kind", art.kind),
        ("path", art.path),
        ("laneId", art.lane_id or ""),
        ("sessionId", art.session_id or ""),
        ("createdAt", _when(art.created_at)),
    )
    return _redacted(Detail(kind="artifact", title=art.title or artifact_id, fields=fields))


def linear_detail(identifier: str, title: str = "", snippet: str = "") -> Detail:
    """A Linear issue as the search hit described it (nothing is stored locally)."""
    shown = title if title.startswith(identifier) else f"{identifier} {title}".strip()
    return _redacted(
        Detail(kind="linear", title=shown, fields=(("issue", identifier),), body=snippet)
    )
