"""Per-command boundaries from OSC 133 shell-integration marks in a raw terminal stream.

Shells with integration (fish, recent bash/zsh setups, starship, VS Code's and kitty's scripts)
wrap each prompt and command in marks: ``ESC ] 133 ; A`` prompt start, ``B`` prompt end (the user
types now), ``C`` command start (its output follows), ``D ; <exit>`` command done; each ends with
BEL or ``ESC \\``. VS Code's ``ESC ] 633 ; E ; <command line>`` states the command line outright;
otherwise it is the visible text typed between ``B`` and ``C``. Offsets are raw byte offsets into
the log, so a command's output is exactly ``log[output_start:end]``. ``ESC ] 7 ; file://host/path``
(sent by the prompt hooks ``ade term`` installs, and by many shells' own) states the folder the
next command runs in; the time given with the bytes holding ``C`` is when the command started.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import unquote, urlsplit

from engine.terminal.sanitize import sanitize_lines

_MARK_RE = re.compile(
    rb"\x1b\](?:(133|633);([A-Z])((?:;[^\x07\x1b]*)?)|7;([^\x07\x1b]*))(?:\x07|\x1b\\)"
)
_PARTIAL_RE = re.compile(rb"\x1b(?:\][0-9]{0,3}(?:;[^\x07\x1b]*)?\x1b?)?\Z")
"""A mark that may still be arriving at the end of a read: keep it for the next feed."""

MAX_PENDING = 4096
"""Longest unterminated mark carried between reads; past this it is not a mark we can use."""

MAX_TYPED = 4096
"""Bytes of typed command line kept between ``B`` and ``C`` (a paste can be huge)."""


@dataclass(frozen=True, slots=True)
class CommandMark:
    """One finished command: its line, exit status and where it sits in the log."""

    command: str
    exit_code: int | None
    prompt_start: int
    output_start: int
    end: int
    cwd: str | None = None
    """The folder it ran in (the last OSC 7 before it started), when the shell said."""
    started_at: datetime | None = None
    """When its ``C`` mark was read, when the feeder gave times."""


class Osc133Tracker:
    """Feed raw bytes in order; collect the commands whose ``D`` mark arrived."""

    def __init__(self) -> None:
        self._pending = b""
        self._pending_at = 0
        self._prompt: int | None = None
        self._typed_at: int | None = None
        self._typed = b""
        self._explicit: str | None = None
        self._output: int | None = None
        self._command = ""
        self._cwd: str | None = None
        self._command_cwd: str | None = None
        self._started_at: datetime | None = None
        self._at: datetime | None = None

    def feed(self, data: bytes, offset: int, at: datetime | None = None) -> list[CommandMark]:
        """Scan ``data`` (which starts at raw byte ``offset``, read at ``at``); return commands
        finished in it."""
        self._at = at
        if self._pending:
            data, offset = self._pending + data, self._pending_at
            self._pending = b""
        done: list[CommandMark] = []
        pos = 0
        for match in _MARK_RE.finditer(data):
            self._collect_typed(data[pos : match.start()])
            pos = match.end()
            finished = self._mark(match, offset)
            if finished is not None:
                done.append(finished)
        tail = _PARTIAL_RE.search(data, max(pos, len(data) - MAX_PENDING))
        cut = tail.start() if tail is not None and tail.start() >= pos else len(data)
        self._collect_typed(data[pos:cut])
        if cut < len(data):
            self._pending, self._pending_at = data[cut:], offset + cut
        return done

    def _collect_typed(self, piece: bytes) -> None:
        if self._typed_at is not None and len(self._typed) < MAX_TYPED:
            self._typed += piece[: MAX_TYPED - len(self._typed)]

    def _mark(self, match: re.Match[bytes], offset: int) -> CommandMark | None:
        if match.group(4) is not None:
            self._cwd = _folder(match.group(4)) or self._cwd
            return None
        family, code, args = match.group(1), match.group(2), match.group(3)[1:]
        start, end = offset + match.start(), offset + match.end()
        if family == b"633":
            if code == b"E":
                self._explicit = _unescape_633(args.split(b";")[0])
            return None
        if code == b"A":
            self._prompt, self._typed_at, self._typed, self._output = start, None, b"", None
            self._explicit = None
        elif code == b"B":
            self._typed_at, self._typed = end, b""
        elif code == b"C":
            self._command = self._explicit or _visible(self._typed)
            self._output, self._typed_at = end, None
            self._command_cwd, self._started_at = self._cwd, self._at
        elif code == b"D" and self._output is not None:
            mark = CommandMark(
                command=self._command,
                exit_code=_exit(args),
                prompt_start=self._prompt if self._prompt is not None else self._output,
                output_start=self._output,
                end=start,
                cwd=self._command_cwd,
                started_at=self._started_at,
            )
            self._prompt = self._output = None
            self._explicit = None
            return mark
        return None


def _visible(typed: bytes) -> str:
    """What the typed bytes show once echo, escapes and backspaces are resolved."""
    lines, _ = sanitize_lines(typed, False)
    shown = [line.strip() for line in lines if line and line.strip()]
    return shown[-1] if shown else ""


def _folder(url: bytes) -> str | None:
    """The path of an OSC 7 ``file://host/path`` (percent-decoded), None when it is not one."""
    parts = urlsplit(url.decode("utf-8", errors="replace"))
    if parts.scheme != "file" or not parts.path.startswith("/"):
        return None
    return unquote(parts.path)


def _exit(args: bytes) -> int | None:
    try:
        return int(args.split(b";")[0]) if args else None
    except ValueError:
        return None


def _unescape_633(raw: bytes) -> str:
    """VS Code escapes ``;`` as ``\\x3b`` and ``\\`` as ``\\\\`` in the ``E`` command line."""
    text = raw.decode("utf-8", errors="replace")
    return re.sub(r"\\\\|\\x([0-9a-fA-F]{2})", _unescape_one, text)


def _unescape_one(match: re.Match[str]) -> str:
    return "\\" if match.group(0) == "\\\\" else chr(int(match.group(1), 16))
