"""Detail screens for PRs, commits, branches, lanes, artifacts and Linear issues.

Each kind gets its content from one headless function of ``engine.links.details`` (run on a worker
thread: git and file reads stay off the UI thread); the screen paints the ``Detail`` record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from engine.errors import AdeError
from engine.links.details import Detail
from tui.logic.rows import KIND_ICON, KIND_LABEL
from tui.printable import printable
from tui.widgets.preview_pane import fields_content

DetailLoader = Callable[[], Detail]
"""Builds the record on a worker thread; may raise ``AdeError`` with a one-line message."""


class DetailScreen(Screen[None]):
    """One PR, commit, branch, lane, artifact or Linear issue."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "back")]

    def __init__(self, kind: str, title: str, loader: DetailLoader) -> None:
        super().__init__()
        self.kind = kind
        self.title_text = printable(title)
        self.loader = loader
        self.detail: Detail | None = None

    def compose(self) -> ComposeResult:
        icon = KIND_ICON.get(self.kind, " ")
        label = KIND_LABEL.get(self.kind, self.kind)
        title = f"{icon} {label[:-1] if label.endswith('s') else label} · {self.title_text}"
        yield Static(Content(title), id="detail-title")  # text, never markup
        with VerticalScroll(id="detail-scroll"):
            yield Static("", id="detail-fields")
            yield Static("loading…", id="detail-body")
        yield Static("esc back", id="detail-status")

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="detail-load")
    def _load(self) -> None:
        try:
            detail = self.loader()
        except AdeError as err:
            self.app.call_from_thread(self._failed, str(err))
            return
        from tui.printable_records import printable_detail

        self.app.call_from_thread(self.show_detail, printable_detail(detail))

    def _failed(self, message: str) -> None:
        shown = Content.styled(f"⚠ {printable(message)}", "$text-error")
        self.query_one("#detail-body", Static).update(shown)

    def show_detail(self, detail: Detail) -> None:
        """Paint ``detail`` (subclasses paint the body differently)."""
        self.detail = detail
        self.query_one("#detail-title", Static).update(
            Content(f"{KIND_ICON.get(detail.kind, ' ')} {detail.title}")
        )
        self.query_one("#detail-fields", Static).update(fields_content(detail))
        self.query_one("#detail-body", Static).update(self.body_content(detail))
        if detail.note:
            self.query_one("#detail-status", Static).update(Content(f"{detail.note}  ·  esc back"))

    def body_content(self, detail: Detail) -> Content:
        """The body as plain text (markup in PR bodies is shown, never interpreted)."""
        return Content(detail.body)

    def action_back(self) -> None:
        self.dismiss(None)
