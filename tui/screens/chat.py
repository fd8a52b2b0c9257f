"""The chat transcript screen: a session's messages, scrolled to one event and marked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Static

from engine.links.details import (
    DetailError,
    chat_focus,
    chat_text,
    message_events,
    message_numbers,
    read_chat_events,
)
from engine.project.model import ChatEvent
from tui.logic.terms import highlight_terms, terms_pattern
from tui.printable import printable

WINDOW_MESSAGES = 150
"""Messages mounted on each side of the target: a long agent session has thousands, and one
widget per message is what makes mounting slow."""

BODY_CHARS = 4000
"""Characters of one message shown; tool outputs can be megabytes."""

_ROLE = {
    "user_message": "you",
    "assistant_message": "assistant",
    "system_message": "system",
    "tool_call": "tool call",
    "tool_result": "tool result",
}


class ChatMessage(Static):
    """One message of the transcript; re-rendered with a new pattern when `/` searches."""

    def __init__(self, event: ChatEvent, number: int, pattern: re.Pattern[str] | None) -> None:
        self.head = printable(f"{_ROLE.get(event.type, event.type)} · #{number}")
        self.text = printable(chat_text(event)[:BODY_CHARS])
        super().__init__(self.marked(pattern))

    def marked(self, pattern: re.Pattern[str] | None) -> Content:
        body = Content(self.text)
        if pattern is not None:
            for match in pattern.finditer(body.plain):
                body = body.stylize("bold underline $text-accent", match.start(), match.end())
        return Content.assemble(Content.styled(self.head, "bold"), "\n", body)

    def matches(self, pattern: re.Pattern[str] | None) -> bool:
        return pattern is not None and pattern.search(self.text) is not None


class ChatScreen(Screen[None]):
    """Transcript of the chat at ``path``; ``seq`` None means the latest message. ``n``/``N``
    step between the messages that match the query, ``/`` searches for other words (as the
    scrollback does)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back"),
        Binding("n", "next_match", "next match"),
        Binding("N", "previous_match", "previous match"),
        Binding("slash", "search", "search"),
    ]

    def __init__(self, path: Path, seq: int | None, query: str, title: str) -> None:
        super().__init__()
        self.path = path
        self.seq = seq
        self.query_text = query
        self.title_text = printable(title)
        self.pattern: re.Pattern[str] | None = None
        self.messages: list[ChatMessage] = []
        self.current: int | None = None
        """Index in ``messages`` of the message n/N stand on (the target when it opens)."""
        self.note: str | None = None
        self.first = 0
        """Index in the chat's messages of ``messages[0]`` (a long chat is mounted in a window)."""
        self.total = 0

    def compose(self) -> ComposeResult:
        yield Static(Content(self.title_text), id="chat-title")  # text, never markup
        yield VerticalScroll(id="chat-messages")
        yield Input(placeholder="search this chat", id="chat-search")
        yield Static("loading…", id="chat-status")

    def on_mount(self) -> None:
        self.query_one("#chat-search", Input).display = False
        self._load()

    @work(thread=True, exclusive=True, group="chat-load")
    def _load(self) -> None:
        try:
            events = message_events(read_chat_events(self.path))
        except DetailError as err:
            self.app.call_from_thread(self._failed, f"⚠ {err}")
            return
        focus, note = chat_focus(events, self.seq)
        numbers = message_numbers(self.path, events)
        self.app.call_from_thread(self._loaded, events, numbers, focus, note)

    def _loaded(
        self, events: list[ChatEvent], numbers: list[int], focus: int | None, note: str | None
    ) -> None:
        box = self.query_one("#chat-messages", VerticalScroll)
        self.pattern = terms_pattern(highlight_terms(self.query_text))
        low = 0 if focus is None else max(0, focus - WINDOW_MESSAGES)
        high = len(events) if focus is None else focus + WINDOW_MESSAGES + 1
        target: ChatMessage | None = None
        for index in range(low, min(high, len(events))):
            event = events[index]
            widget = ChatMessage(event, numbers[index], self.pattern)
            widget.add_class(event.type.replace("_", "-"))
            if index == focus:
                widget.add_class("-target")
                target = widget
                self.current = len(self.messages)
            self.messages.append(widget)
        box.mount_all(self.messages)
        if target is not None:
            self.call_after_refresh(box.scroll_to_widget, target, animate=False, top=False)
        self.first, self.total = low, len(events)
        self.note = note
        self._show_status(self._match_place())

    def _hits(self) -> list[int]:
        return [i for i, message in enumerate(self.messages) if message.matches(self.pattern)]

    def _match_place(self) -> str:
        """``match 2 of 5`` when the current message is a hit, else how many hits there are."""
        hits = self._hits()
        if not hits:
            return "" if self.pattern is None else "not found"
        if self.current in hits:
            return f"match {hits.index(self.current) + 1} of {len(hits)}"
        return f"{len(hits)} match{'es' if len(hits) != 1 else ''}"

    def _step(self, step: int, *, wrap: bool = False) -> None:
        if self.pattern is None:
            self._show_status("no search terms")
            return
        hits = self._hits()
        if not hits:
            self._show_status("not found")
            return
        here = -1 if self.current is None and step > 0 else self.current
        if here is None:
            here = len(self.messages)
        ahead = [i for i in hits if (i > here if step > 0 else i < here)]
        if not ahead and not wrap:
            self._show_status(f"no more matches  ·  {self._match_place()}")
            return
        found = (ahead or hits)[0 if step > 0 else -1]
        self._move_to(found)

    def _move_to(self, index: int) -> None:
        if self.current is not None:
            self.messages[self.current].remove_class("-current")
        self.current = index
        message = self.messages[index]
        message.add_class("-current")
        self.query_one("#chat-messages", VerticalScroll).scroll_to_widget(message, animate=False)
        self._show_status(self._match_place())

    def action_next_match(self) -> None:
        self._step(1)

    def action_previous_match(self) -> None:
        self._step(-1)

    def action_search(self) -> None:
        box = self.query_one("#chat-search", Input)
        box.display = True
        box.focus()

    @on(Input.Submitted, "#chat-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.input.display = False
        self.query_one("#chat-messages", VerticalScroll).focus()
        self.pattern = terms_pattern(highlight_terms(event.value))
        for message in self.messages:
            message.update(message.marked(self.pattern))
        self._step(1, wrap=True)  # from where the reader stands, then from the top

    def _show_status(self, extra: str = "") -> None:
        # Where the reader stands follows n/N (it named the opening message only).
        where = (
            None
            if self.current is None
            else f"message {self.first + self.current + 1} of {self.total}"
        )
        parts = (self.note, where, extra, "n/N matches  / search  esc back")
        self.query_one("#chat-status", Static).update(Content("  ·  ".join(p for p in parts if p)))

    def _failed(self, text: str) -> None:
        self.query_one("#chat-status", Static).update(Content(printable(text)))

    def action_back(self) -> None:
        box = self.query_one("#chat-search", Input)
        if box.display:
            box.display = False
            self.query_one("#chat-messages", VerticalScroll).focus()
            return
        self.dismiss(None)
