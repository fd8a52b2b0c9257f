"""Where a palette row leads: the engine's link resolver, turned into what the palette opens.

Runs on a worker thread. The link is resolved through the client (``SearchClient.resolve_link``,
the resolver ``ade open`` uses too): a session is looked up in the palette's local list first,
then in a fresh listing; a hit of another registered project is resolved in that project; a
target gone meanwhile gives a ``Gone`` record with the message to show (RELIABILITY 21).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import AdeError
from engine.links.deeplink import DeepLink, parse_deep_link
from engine.links.details import Context, Detail, chat_context, scrollback_context
from engine.links.resolve import ChatTarget, TerminalTarget, load_detail
from engine.links.resolve import Gone as EngineGone
from tui.logic.rows import PaletteRow

if TYPE_CHECKING:
    from engine.client import SearchClient
    from engine.project.model import SessionMeta


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


def resolve(client: SearchClient, row: PaletteRow, known: Sequence[SessionMeta]) -> Target:
    """The target of ``row``; never raises for a vanished target (gives ``Gone``)."""
    link = row_link(row)
    if link is None:
        return Gone(f"nothing to open for {row.title!r}")
    item = row.item
    root = Path(item.project_root) if item is not None and item.project_root else None
    target = client.resolve_link(
        link,
        known=known,
        lane_hint=item.lane_id if item is not None else None,
        project_root=root,
        title=row.title,
        snippet=row.snippet,
    )
    if isinstance(target, EngineGone):
        return Gone(target.message)
    if isinstance(target, ChatTarget):
        return OpenChat(target.path, target.event, target.title)
    if isinstance(target, TerminalTarget):
        return OpenScrollback(target.path, target.offset, target.title)
    return OpenDetail(link.kind, link.target, partial(load_detail, target))


def preview_record(
    client: SearchClient,
    row: PaletteRow,
    known: Sequence[SessionMeta],
) -> Context | Detail | str:
    """What the preview pane shows for ``row``: context lines, a detail, or a one-line message."""
    from tui.printable import printable
    from tui.printable_records import printable_context, printable_detail

    if row.kind == "command":
        return printable(f"command: {row.title}")
    target = resolve(client, row, known)
    try:
        if isinstance(target, Gone):
            return printable(target.message)
        if isinstance(target, OpenScrollback):
            found = scrollback_context(target.path, target.offset, before=3, after=30)
            return printable_context(found)
        if isinstance(target, OpenChat):
            return printable_context(chat_context(target.path, target.seq, radius=2))
        return printable_detail(target.loader())
    except AdeError as err:
        return printable(str(err))
