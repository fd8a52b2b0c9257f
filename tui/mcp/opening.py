"""The ``open`` tool: an ade:// link → the text around its anchor, in a bounded window that
says what it left out.

The text is ``ade open``'s (``tui.open_format``: the ``>`` gutter marks the anchor), redacted
and made printable; the window is ``context`` lines (chat: messages) on each side, and the whole
text at most ``WINDOW_CAP`` characters.
"""

from __future__ import annotations

import json
from typing import Any

from engine.client import SearchClient
from engine.errors import ProjectError, UsageError
from engine.links.deeplink import parse_deep_link
from engine.links.details import (
    Context,
    DetailError,
    TextLine,
    chat_focus,
    chat_text,
    message_events,
    read_chat_events,
    scrollback_context,
)
from engine.links.resolve import ChatTarget, Gone, LinkTarget, TerminalTarget, load_detail
from tui.mcp.catalog import MAX_CONTEXT
from tui.mcp.shown import capped, shown_text, shown_title
from tui.open_format import format_context, format_detail

WINDOW_CAP = 16_000
"""Characters of one ``open`` answer's text: a screenful of scrollback or a few long messages;
a wider look is another call with a larger ``context`` or a neighbouring link."""

DEFAULT_CONTEXT = {"chat": 2, "terminal": 10, "file": 10}
"""``ade open``'s defaults: a short exchange for a chat, a screenful for a terminal or a file."""


class OpenFailed(Exception):
    """The link is well formed but its target cannot be shown (gone, unreadable)."""


def open_link(backend: Any, arguments: dict[str, Any]) -> str:
    """The ``open`` answer for ``arguments`` (the ``open`` schema) as JSON text.

    Raises:
        UsageError: a malformed link, a link of another project, a bad ``context``.
        OpenFailed: the target is gone.
    """
    raw = arguments.get("link")
    if not isinstance(raw, str) or not raw.strip():
        raise UsageError("link must be an ade:// link as search gives it")
    context = arguments.get("context")
    if context is not None and (
        isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= MAX_CONTEXT
    ):
        raise UsageError(f"context must be between 0 and {MAX_CONTEXT}, got {context!r}")
    link = parse_deep_link(raw.strip())
    radius = DEFAULT_CONTEXT.get(link.kind, 10) if context is None else context

    def ask(client: SearchClient) -> dict[str, Any]:
        project = client.project
        if link.project_id is not None and link.project_id != project.id:
            raise ProjectError(
                f"the link belongs to project {link.project_id!r}, not {project.id!r} "
                f"({project.root}); start the server with --project for that project"
            )
        return _window(client.resolve_link(link), radius)

    answer = backend.call(ask)
    text, cut = capped(shown_text(answer.pop("text")), WINDOW_CAP)
    answer["text"] = text
    if cut:
        answer.setdefault("leftOut", []).append(
            f"the text was cut at {WINDOW_CAP:,} characters; ask with a smaller context"
        )
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def _window(target: LinkTarget, radius: int) -> dict[str, Any]:
    if isinstance(target, Gone):
        raise OpenFailed(target.message)
    try:
        if isinstance(target, ChatTarget):
            return _chat(target, radius)
        if isinstance(target, TerminalTarget):
            return _terminal(target, radius)
        detail = load_detail(target, radius=radius, artifact_text=True)
    except DetailError as err:
        raise OpenFailed(str(err)) from None
    answer: dict[str, Any] = {
        "kind": detail.kind,
        "title": shown_title(detail.title),
        "text": format_detail(detail),
    }
    if detail.kind == "file" and detail.first_line > 1:
        answer["leftOut"] = [f"lines 1-{detail.first_line - 1} before the window"]
    if detail.note:
        answer["note"] = shown_title(detail.note)
    return answer


def _chat(target: ChatTarget, radius: int) -> dict[str, Any]:
    events = message_events(read_chat_events(target.path))
    focus, note = chat_focus(events, target.event)
    low = max(0, (focus or 0) - radius)
    high = min(len(events), (focus or 0) + radius + 1)
    lines = tuple(
        TextLine(text=f"{_role(e.type)}: {chat_text(e)}", offset=e.offset, number=e.seq)
        for e in events[low:high]
    )
    found = Context(lines=lines, focus=None if focus is None else focus - low, note=note)
    answer: dict[str, Any] = {
        "kind": "chat",
        "title": shown_title(target.title),
        "session": target.session.id,
        "text": format_context(found, numbered=True),
    }
    left = []
    if low:
        left.append(f"{low} earlier message(s)")
    if len(events) > high:
        left.append(f"{len(events) - high} later message(s)")
    if left:
        answer["leftOut"] = left
    if note:
        answer["note"] = note
    return answer


def _terminal(target: TerminalTarget, radius: int) -> dict[str, Any]:
    found = scrollback_context(target.path, target.offset, before=radius, after=radius)
    answer: dict[str, Any] = {
        "kind": "terminal",
        "title": shown_title(target.title),
        "session": target.session.id,
        "text": format_context(found, numbered=False),
    }
    if found.lines and found.lines[0].offset > 0:
        answer["leftOut"] = [f"the scrollback before byte {found.lines[0].offset}"]
    if found.focus is not None and len(found.lines) - found.focus - 1 >= radius:
        answer.setdefault("leftOut", []).append("any scrollback after the last line shown")
    if found.note:
        answer["note"] = found.note
    return answer


def _role(event_type: str) -> str:
    return {
        "user_message": "user",
        "assistant_message": "assistant",
        "system_message": "system",
        "tool_call": "tool call",
        "tool_result": "tool result",
    }.get(event_type, event_type)
