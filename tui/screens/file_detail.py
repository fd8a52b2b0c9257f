"""The file detail screen: syntax-highlighted lines around the linked line; ``e`` opens $EDITOR."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import ClassVar

from rich.syntax import Syntax
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from engine.links.details import Detail
from tui.screens.detail import DetailScreen


class FileDetailScreen(DetailScreen):
    """Lines of one file with the target line marked."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *DetailScreen.BINDINGS,
        Binding("e", "edit", "open in $EDITOR"),
    ]

    def show_detail(self, detail: Detail) -> None:
        super().show_detail(detail)
        syntax = Syntax(
            detail.body,
            detail.language or "text",
            line_numbers=True,
            start_line=detail.first_line,
            highlight_lines={detail.focus_line} if detail.focus_line else None,
            theme="ansi_dark",
            word_wrap=False,
        )
        self.query_one("#detail-body", Static).update(syntax)
        self.query_one("#detail-status", Static).update(
            Content("  ·  ".join(p for p in (detail.note, "e edit", "esc back") if p))
        )

    def action_edit(self) -> None:
        """Suspend the palette and run ``$EDITOR +line path`` (no shell; the path is absolute so it can never read as an option)."""
        detail = self.detail
        if detail is None or detail.path is None:
            return
        editor = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        line = f"+{detail.focus_line or 1}"
        with self.app.suspend():
            subprocess.run([*editor, line, str(detail.path)], check=False)
