"""A parsed terminal recording, independent of the file format it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


class RecordingError(ValueError):
    """The file is not a valid recording of the requested format; ``str()`` is one line."""


@dataclass(frozen=True, slots=True)
class Recording:
    """What an importer extracts: the raw output bytes and what the file says about the run.

    Every field but ``output`` may be unknown (``None``); the caller falls back to the file's
    name and modification time.
    """

    output: bytes
    format: str
    title: str | None = None
    command: str | None = None
    tool: str | None = None
    created_at: datetime | None = None
    ended_at: datetime | None = None
    exit_code: int | None = None
    warnings: tuple[str, ...] = field(default=())
    finished: bool = False
    """The file itself says the run ended (``script``'s ``Script done`` trailer)."""


def program_name(command: str | None) -> str | None:
    """``"/usr/bin/zsh -l"`` → ``"zsh"``: the tool a command line ran, for the session's ``tool``."""
    if not command or not command.strip():
        return None
    first = command.strip().split()[0]
    return first.rsplit("/", 1)[-1] or None
