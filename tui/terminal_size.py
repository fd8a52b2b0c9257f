"""The palette's size when stdout is not the terminal: ``x=$(ade palette --print)``.

Textual's Linux driver asks ``shutil.get_terminal_size()``, which reads stdout only: captured by
``$(…)``, stdout is a pipe and the answer is the 80x24 fallback, so the palette drew an 80x24 box
over the shell's larger screen. Like fzf, ask the controlling terminal instead: stdout, stderr or
stdin when one of them is a terminal, else ``/dev/tty``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.driver import Driver

DEV_TTY = "/dev/tty"


def terminal_size() -> tuple[int, int] | None:
    """(columns, lines) of the controlling terminal, ``COLUMNS``/``LINES`` first (as ``shutil``
    honours them); None when there is no terminal at all."""
    for stream in (sys.__stdout__, sys.__stderr__, sys.__stdin__):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            if stream is not None and os.isatty(stream.fileno()):
                size = os.get_terminal_size(stream.fileno())
                return _with_env(size.columns, size.lines)
    with contextlib.suppress(OSError):
        fd = os.open(DEV_TTY, os.O_RDONLY | os.O_NOCTTY)
        try:
            size = os.get_terminal_size(fd)
        finally:
            os.close(fd)
        return _with_env(size.columns, size.lines)
    return None


def _with_env(columns: int, lines: int) -> tuple[int, int]:
    def env(name: str, measured: int) -> int:
        value = os.environ.get(name, "")
        return int(value) if value.isdigit() and int(value) > 0 else measured

    return env("COLUMNS", columns) or 80, env("LINES", lines) or 24


def sized_driver(driver: type[Driver]) -> type[Driver]:
    """``driver`` asking :func:`terminal_size` first (drivers without the size hook as they are)."""
    if not hasattr(driver, "_get_terminal_size"):
        return driver

    def _get_terminal_size(self: Driver) -> tuple[int, int]:
        measured = terminal_size()
        return measured if measured is not None else base(self)

    base = driver._get_terminal_size
    return type(driver.__name__, (driver,), {"_get_terminal_size": _get_terminal_size})
