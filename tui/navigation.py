"""Where a palette row leads: resolves a row to a target record (no Textual, may do I/O).

Runs on a worker thread. A session is looked up in the palette's local list first, then in a
fresh listing (an archived or not-yet-listed session still lands); a session gone meanwhile
gives a ``Gone`` record with the message to show (RELIABILITY 21).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from engine.client import SearchClient
from engine.errors import AdeError
from engine.links.deeplink import DeepLink, parse_deep_link
from engine.links.details import (
    Context,
    Detail,
    artifact_detail,
    branch_detail,
    chat_context,
    commit_detail,
    file_detail,
    lane_detail,
    linear_detail,
    pr_detail,
    scrollback_context,
)
from engine.project.git import GitError, run_git
from engine.project.model import SessionMeta
from tui.logic.rows import PaletteRow


@dataclass(frozen=True, slots=True)
class OpenScrollback:
    path: Path
    offset: int
    title: str


@dataclass(frozen=True, slots=True)
class OpenChat:
    path: Path
    seq: int | None
    title: str


@dataclass(frozen=True, slots=True)
class OpenDetail:
    kind: str
    title: str
    loader: Callable[[], Detail]


@dataclass(frozen=True, slots=True)
class Gone:
    message: str


Target = OpenScrollback | OpenChat | OpenDetail | Gone


def row_link(row: PaletteRow) -> DeepLink | None:
    """The parsed deep link of a row, or None for commands and unparseable links."""
    if not row.deep_link:
        return None
    try:
        return parse_deep_link(row.deep_link)
    except AdeError:
        return None


def print_form(row: PaletteRow) -> str | None:
    """What ``ade palette --print`` prints: ``path:line`` for a file hit, else the deep link."""
    link = row_link(row)
    if link is not None and link.kind == "file":
        return f"{link.target}:{link.line or 1}"
    return row.deep_link


def find_session(
    client: SearchClient, sid: str, known: Sequence[SessionMeta]
) -> SessionMeta | None:
    """The session ``sid`` from ``known`` (the palette's list), else from a fresh listing."""
    for session in known:
        if session.id == sid:
            return session
    for session in client.list_sessions(include_archived=True):
        if session.id == sid:
            return session
    return None


def resolve(client: SearchClient, row: PaletteRow, known: Sequence[SessionMeta]) -> Target:
    """The target of ``row``; never raises for a vanished target (gives ``Gone``)."""
    link = row_link(row)
    if link is None:
        return Gone(f"nothing to open for {row.title!r}")
    if link.kind in {"chat", "terminal"}:
        return _session_target(client, link, known)
    return OpenDetail(link.kind, link.target, _detail_loader(client, link, row))


def _session_target(client: SearchClient, link: DeepLink, known: Sequence[SessionMeta]) -> Target:
    session = find_session(client, link.target, known)
    if session is None:
        return Gone(f"session {link.target} is gone (deleted since it was indexed)")
    path = client.transcript_path(session.id)
    if path is None:
        return Gone(f"session {session.title!r} is gone (its transcript was removed)")
    title = f"{session.title}  ({session.id})"
    if link.kind == "chat":
        return OpenChat(path, link.event, title)
    return OpenScrollback(path, link.offset or 0, title)


def _lane_root(client: SearchClient, lane_id: str | None) -> Path:
    lanes = client.list_lanes()
    for lane in lanes:
        if lane.id == lane_id or (lane_id is None and lane.primary):
            return lane.path
    return client.project.root


def _detail_loader(client: SearchClient, link: DeepLink, row: PaletteRow) -> Callable[[], Detail]:
    project = client.project
    if link.kind == "pr":
        return partial(pr_detail, project, int(link.target))
    if link.kind == "commit":
        return partial(commit_detail, _lane_root(client, row.item.lane_id if row.item else None),
                       link.target)  # fmt: skip
    if link.kind == "branch":
        return partial(branch_detail, _lane_root(client, None), link.target)
    if link.kind == "file":
        return partial(_file, client, link)
    if link.kind == "artifact":
        return partial(artifact_detail, project, link.target)
    if link.kind == "lane":
        return partial(_lane, client, link.target)
    return partial(linear_detail, link.target, row.title, row.snippet)


def _file(client: SearchClient, link: DeepLink) -> Detail:
    return file_detail(_lane_root(client, link.lane), link.target, link.line)


def _lane(client: SearchClient, lane_id: str) -> Detail:
    for lane in client.list_lanes():
        if lane.id == lane_id:
            try:
                log = run_git(lane.path, "log", "-n", "8", "--format=%h %s", "--")
            except GitError:
                log = ""
            return lane_detail(lane, client.list_sessions(), log, client.project.root)
    raise AdeError(f"lane {lane_id} is gone")


def preview_record(
    client: SearchClient,
    row: PaletteRow,
    known: Sequence[SessionMeta],
    pattern: re.Pattern[str] | None = None,
) -> Context | Detail | str:
    """What the preview pane shows for ``row``: context lines, a detail, or a one-line message."""
    if row.kind == "command":
        return f"command: {row.title}"
    target = resolve(client, row, known)
    try:
        if isinstance(target, Gone):
            return target.message
        if isinstance(target, OpenScrollback):
            return scrollback_context(
                target.path, target.offset, before=3, after=30, focus_pattern=pattern
            )
        if isinstance(target, OpenChat):
            return chat_context(target.path, target.seq, radius=2)
        return target.loader()
    except AdeError as err:
        return str(err)
