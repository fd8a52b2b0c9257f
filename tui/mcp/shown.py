"""Every text an MCP answer carries passes here: secrets redacted, control sequences removed,
and each field and answer held under a size cap that says when it cut.

The text a model reads is what the CLI prints: the engine's redaction (``engine.redaction``)
and one printable pass. ``printable`` is this package's only sanitizer, kept in one function so
the CLI's own output sanitizer can replace it in one place.
"""

from __future__ import annotations

import re

from engine.redaction import redact_secrets, redact_title

_ESCAPES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])"
    r"|\x9b[0-?]*[ -/]*[@-~]|\x9d[^\x07\x9c]*(?:\x07|\x9c)?"
)
"""CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, two-byte escapes, and their C1
forms: a clipboard write (OSC 52), a hidden link (OSC 8) or a cleared screen (CSI 2J) in a PR
title or a scrollback line never reaches whatever shows the model's answer."""

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What is left after the sequences: C0 and C1 controls but newline and tab, line and paragraph
separators, and the bidirectional overrides that make text read other than it is stored."""

CUT_MARK = "…[cut]"
"""Ends a field cut to its cap, so the model can tell a cut text from a short one."""


def printable(text: str) -> str:
    """``text`` without escape sequences or control characters (newline and tab kept)."""
    if text.isprintable():
        return text
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


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
