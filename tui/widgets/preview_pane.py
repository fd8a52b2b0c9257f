"""The preview pane: the context of the highlighted row (scrollback lines, chat messages, a
commit's message and stat, a PR body, file lines)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from tui.widgets.result_list import MATCH_STYLE, match_style

if TYPE_CHECKING:
    from engine.links.details import Context, Detail


def context_content(
    context: Context, pattern: re.Pattern[str] | None, style: str = MATCH_STYLE
) -> Content:
    """Lines of ``context``, the focus line marked with ``▶`` and matches in ``style``."""
    lines: list[Content] = []
    for index, line in enumerate(context.lines):
        body = Content(line.text)
        if pattern is not None:
            for match in pattern.finditer(line.text):
                body = body.stylize(style, match.start(), match.end())
        focused = index == context.focus
        marker = ("▶ ", "bold $text-accent") if focused else "  "
        row = Content.assemble(marker, body)
        lines.append(row.stylize("on $boost") if focused else row)
    if context.note:
        lines.insert(0, Content.styled(context.note, "$text-warning"))
    return Content("\n").join(lines)


def fields_content(detail: Detail) -> Content:
    """``name  value`` lines, names muted and aligned."""
    width = max((len(name) for name, _ in detail.fields), default=0)
    lines = [
        Content.assemble((f"{name:<{width}}  ", "$text-muted"), value)
        for name, value in detail.fields
    ]
    return Content("\n").join(lines)


def detail_content(detail: Detail) -> Content:
    """A detail's title, fields and body."""
    parts = [Content.styled(detail.title, "bold"), fields_content(detail), Content(detail.body)]
    return Content("\n\n").join(part for part in parts if part.plain)


class PreviewPane(VerticalScroll, can_focus=False):
    """Right-hand pane of the palette."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static("", id="preview-body")

    def show(self, record: Context | Detail | str, pattern: re.Pattern[str] | None) -> None:
        """Paint a record returned by ``tui.navigation.preview_record``."""
        from engine.links.details import Context, Detail

        if isinstance(record, Context):
            content = context_content(record, pattern, match_style(self.app.no_color))
        elif isinstance(record, Detail):
            content = detail_content(record)
        else:
            content = Content.styled(record, "$text-muted")
        self.query_one("#preview-body", Static).update(content)
        self.scroll_home(animate=False)
