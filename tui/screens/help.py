"""The help screen: keys (from the same table the palette dispatches on) and query syntax."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.logic.keys import PALETTE_KEYS

QUERY_HELP = """\
words          all must match (prefix): fix login
"a phrase"     exact phrase          -word   leave out     a|b   either
kind:pr        only that kind: chat terminal pr commit branch lane file
               artifact linear (Tab / Shift+Tab cycle kinds)
lane:NAME      one lane (id, name, folder, branch, main); Ctrl+L: this one
session:ID     one session           tool:claude   one agent's chats
since:7d       newer than 7d / 24h / 2w / 2026-06-01
until:DATE     older than (the day included)
exit:fail      shell commands that failed (exit:2, exit:ok); cwd:DIR  run there;
took:5s        ran 5 s or more (took:<1s, took:1s..1m)

In the scrollback: n / N next / previous match, / search, g / G top / bottom, esc back."""
"""Query syntax summary (DESIGN §5)."""


class HelpScreen(ModalScreen[None]):
    """Keys and query syntax; any of escape, q or f1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,f1", "close", "close")]

    def compose(self) -> ComposeResult:
        keys = [
            Content.assemble((f"{binding.key:<12}", "bold $text-accent"), binding.label)
            for binding in PALETTE_KEYS
        ]
        with VerticalScroll(id="help-box"):
            yield Static(Content.styled("Keys", "bold"))
            yield Static(Content("\n").join(keys))
            yield Static(Content.styled("\nQuery", "bold"))
            yield Static(QUERY_HELP)

    def action_close(self) -> None:
        self.dismiss(None)
