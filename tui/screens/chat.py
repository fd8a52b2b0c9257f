"""The chat transcript screen: a session's messages, scrolled to one event and marked."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from engine.links.details import (
    DetailError,
    chat_focus,
    chat_text,
    message_events,
    read_chat_events,
)
from engine.project.model import ChatEvent
from tui.logic.terms import highlight_terms, terms_pattern

WINDOW_MESSAGES = 150
"""Messages mounted on each side of the target: a long agent session has thousands, and one
widget per message is what makes mounting slow."""

BODY_CHARS = 4000
"""Characters of one message shown; tool outputs can be megabytes."""

_ROLE = {
    "user_message": "you",
    "assistant_message": "assistant",
    "tool_call": "tool call",
    "tool_result": "tool result",
}


class ChatMessage(Static):
    """One message of the transcript."""


class ChatScreen(Screen[None]):
    """Transcript of the chat at ``path``; ``seq`` None means the latest message."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "back")]

    def __init__(self, path: Path, seq: int | None, query: str, title: str) -> None:
        super().__init__()
        self.path = path
        self.seq = seq
        self.query_text = query
        self.title_text = title

    def compose(self) -> ComposeResult:
        yield Static(self.title_text, id="chat-title")
        yield VerticalScroll(id="chat-messages")
        yield Static("loading…", id="chat-status")

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="chat-load")
    def _load(self) -> None:
        try:
            events = message_events(read_chat_events(self.path))
        except DetailError as err:
            self.app.call_from_thread(self._show_status, f"⚠ {err}")
            return
        focus, note = chat_focus(events, self.seq)
        self.app.call_from_thread(self._loaded, events, focus, note)

    def _loaded(self, events: list[ChatEvent], focus: int | None, note: str | None) -> None:
        box = self.query_one("#chat-messages", VerticalScroll)
        pattern = terms_pattern(highlight_terms(self.query_text))
        low = 0 if focus is None else max(0, focus - WINDOW_MESSAGES)
        high = len(events) if focus is None else focus + WINDOW_MESSAGES + 1
        widgets: list[ChatMessage] = []
        target: ChatMessage | None = None
        for index in range(low, min(high, len(events))):
            event = events[index]
            body = Content(chat_text(event)[:BODY_CHARS])
            if pattern is not None:
                for match in pattern.finditer(body.plain):
                    body = body.stylize("bold $text-accent", match.start(), match.end())
            head = Content.styled(f"{_ROLE.get(event.type, event.type)} · #{event.seq}", "bold")
            widget = ChatMessage(Content.assemble(head, "\n", body))
            widget.add_class(event.type.replace("_", "-"))
            if index == focus:
                widget.add_class("-target")
                target = widget
            widgets.append(widget)
        box.mount_all(widgets)
        if target is not None:
            self.call_after_refresh(box.scroll_to_widget, target, animate=False, top=False)
        where = f"message {focus + 1} of {len(events)}" if focus is not None else ""
        self._show_status("  ·  ".join(p for p in (note, where, "esc back") if p))

    def _show_status(self, text: str) -> None:
        self.query_one("#chat-status", Static).update(text)

    def action_back(self) -> None:
        self.dismiss(None)
