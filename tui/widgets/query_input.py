"""The palette's query line: an ``Input`` that never holds a control character.

A query pasted from a terminal or a web page can carry escape sequences and bidi overrides;
the input line echoes its value, so they would reach the terminal (``tui.printable``). Every way
text enters — a key, a paste, ``--query``, a value set by the screen — ends in ``replace`` or
the ``value`` validator, and both drop them (a newline or tab becomes a space: one line).
"""

from __future__ import annotations

from textual.widgets import Input

from tui.printable import printable_input


class QueryInput(Input):
    """An ``Input`` whose value is always printable (see the module docstring)."""

    def replace(self, text: str, start: int, end: int) -> None:
        """Insert ``text`` (made printable) over ``start:end``; the cursor lands after it."""
        super().replace(printable_input(text), start, end)

    def validate_value(self, value: str) -> str:
        """A value set directly (``--query``, the screen) is made printable too."""
        return printable_input(value)
