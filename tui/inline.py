"""``ade palette --height N[%]``: the palette under the prompt, like ``fzf --height`` (docs/palette.md).

Textual's inline mode (``LinuxInlineDriver``) draws below the cursor without the alternate screen,
so the shell's lines stay above it and come back when it closes. The driver is the one
``App.run(inline=True)`` picks, sized by the controlling terminal (``tui.terminal_size``) so that
``x=$(ade palette --height 40% --print)`` measures the terminal, not the captured stdout; every
screen of the palette gets the asked height (a percentage of the terminal's).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.driver import Driver

MIN_LINES = 6
"""The query line, a few hits and the footer: below this the palette shows nothing useful."""

_HEIGHT_RE = re.compile(r"(\d{1,4})(%?)")


def parse_height(value: str) -> str:
    """``12`` or ``40%`` → the Textual height (``12``, ``40vh``); an argparse type.

    Raises:
        argparse.ArgumentTypeError: not a line count of at least ``MIN_LINES`` or a 1-100 %.
    """
    match = _HEIGHT_RE.fullmatch(value.strip())
    if match is not None:
        number, percent = int(match.group(1)), bool(match.group(2))
        if percent and 1 <= number <= 100:
            return f"{number}vh"
        if not percent and number >= MIN_LINES:
            return str(number)
    raise argparse.ArgumentTypeError(
        f"invalid height {value!r}: use a number of lines (at least {MIN_LINES}) or a percentage"
        " of the terminal, e.g. --height 15 or --height 40%"
    )


def make_inline(app: App[Any], height: str) -> None:
    """Run ``app`` inline, ``height`` tall (a value of ``parse_height``), from its next ``run()``.

    The app must not have started: its driver class and stylesheet are read when it runs.
    """
    from textual.drivers.linux_inline_driver import LinuxInlineDriver

    from tui.terminal_size import sized_driver

    app.driver_class = sized_driver(whole_writes(LinuxInlineDriver))
    # Every screen (results, scrollback, chat, help) keeps the one height, with a floor so a
    # percentage of a small terminal still shows the query line and the footer.
    app.stylesheet.add_source(
        f"Screen:inline {{ height: {height}; min-height: {MIN_LINES}; border-top: none;"
        " border-bottom: none; }",
        read_from=(__file__, "make_inline"),
        is_default_css=False,
    )


def whole_writes(driver: type[Driver]) -> type[Driver]:
    """``driver`` whose ``write`` hands every byte to the terminal, however the kernel splits it.

    ``LinuxInlineDriver.write`` is ``sys.__stderr__.write``. Under ``PYTHONUNBUFFERED=1`` (or
    ``-u``) that text stream sits on the raw ``FileIO`` with ``write_through``, which makes one
    ``write(2)`` and drops what it did not take. A terminal write blocked on a full pty (a slow or
    loaded terminal) returns short when a signal arrives (the kernel hands over 2048-byte
    chunks), so the tail of a frame was lost: with it the frame's ``ESC[8A`` that takes the
    cursor back to the palette's first row, and the next frames drew 8 rows lower, under a stale
    query box (benchmarks/journal/2026-12-07-inline-height.md). The text layer is flushed first
    so earlier writes keep their order.
    """

    def write(_self: Driver, data: str) -> None:
        stream = sys.__stderr__  # where LinuxInlineDriver draws
        if stream is None:
            return
        stream.flush()
        pending = memoryview(data.encode(stream.encoding, stream.errors or "strict"))
        fd = stream.fileno()
        while pending:
            pending = pending[os.write(fd, pending) :]

    return type(driver.__name__, (driver,), {"write": write})
