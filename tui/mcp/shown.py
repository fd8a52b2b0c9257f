"""Every text an MCP answer carries passes here: secrets redacted, control sequences removed,
and each field and answer held under a size cap that says when it cut.

The text a model reads is what the CLI prints: the engine's redaction (``engine.redaction``)
and the CLI's one output sanitizer, ``tui.printable.printable``.
"""

from __future__ import annotations

from engine.redaction import redact_secrets, redact_title
from tui.printable import printable

CUT_MARK = "…[cut]"
"""Ends a field cut to its cap, so the model can tell a cut text from a short one."""


def shown_text(text: str) -> str:
    """A body (snippet, message, scrollback, file lines) as the model may read it."""
    return printable(redact_secrets(text))


def shown_title(text: str) -> str:
    """A one-line field (title, command, subject) as the model may read it."""
    return printable(redact_title(text))


def capped(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` characters (the mark included), and whether it was."""
    if len(text) <= limit:
        return text, False
    return text[: max(limit - len(CUT_MARK), 0)] + CUT_MARK, True
