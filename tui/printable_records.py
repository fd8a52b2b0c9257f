"""The palette's records made printable before a widget paints them (``tui.printable``).

A preview, a detail screen and ``ade open`` show the same records (``engine.links.details``):
their titles, fields, bodies and context lines are other people's text. The palette makes the
whole record printable where it arrives from its loader, so no widget paints a raw field.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from tui.printable import printable

if TYPE_CHECKING:
    from engine.links.details import Context, Detail


def printable_context(context: Context) -> Context:
    """``context`` with every line and the note printable (offsets and numbers unchanged)."""
    lines = tuple(replace(line, text=printable(line.text)) for line in context.lines)
    note = None if context.note is None else printable(context.note)
    return replace(context, lines=lines, note=note)


def printable_detail(detail: Detail) -> Detail:
    """``detail`` with its title, fields, body and note printable."""
    return replace(
        detail,
        title=printable(detail.title),
        fields=tuple((printable(name), printable(value)) for name, value in detail.fields),
        body=printable(detail.body),
        note=None if detail.note is None else printable(detail.note),
    )
