"""What ``ade palette --print-command`` prints: a hit as it belongs on a shell's command line.

A shell command's hit (``ade term`` with prompt marks) gives its command line, as atuin's
search does; a file hit its path, quoted for the shell; any other hit its deep link (which
``ade open`` takes). The key bindings of docs/palette.md put it at the cursor.
"""

from __future__ import annotations

import shlex

from tui.logic.merge import COMMAND_DOC_SUFFIX
from tui.logic.rows import PaletteRow
from tui.navigation import print_form, row_link


def command_line_form(row: PaletteRow) -> str | None:
    """The command, the quoted path, or the deep link of ``row`` (None: nothing to print)."""
    item = row.item
    if item is not None and item.doc_id.endswith(COMMAND_DOC_SUFFIX) and row.title.startswith("$ "):
        command = row.title[2:].rsplit("  (", 1)[0]  # "$ make test  (exit 2, 1.2s, in /src)"
        if command and command != "(command)":
            return command
    link = row_link(row)
    if link is not None and link.kind == "file":
        return shlex.quote(link.target)
    return print_form(row)
