"""A session file read whole for parsing, never hanging and never holding a huge line whole.

For the stores re-derived on each change (Gemini CLI's JSON-lines file and its legacy
one-document ``.json``): complete lines only, a line past ``LINE_CAP`` replaced by its closed
head (indexed marked and counted), at most ``READ_LIMIT`` bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.external.agent_format import TRUNCATED_MARK
from engine.project.json_salvage import salvage_cut_line
from engine.project.safe_io import Bounds, open_regular

READ_LIMIT = 64 * 1024 * 1024
"""Most bytes of one session file kept for parsing (a huge line counts only its cut head)."""

LINE_CAP = 32 * 1024 * 1024
"""Longest line parsed whole (as ``WriteTuning.long_line_cap``); a longer one is cut
to its first ``CUT_HEAD_BYTES``, closed into valid JSON, indexed marked and counted."""

CUT_HEAD_BYTES = 4 * 1024 * 1024
_CHUNK = 1024 * 1024  # < LINE_CAP: a line held whole inside one chunk is never too long


@dataclass
class SessionBytes:
    """What ``read_session_file`` kept of a file: its bytes, lines cut, whether it stopped early."""

    data: bytes
    cut_lines: int = 0
    clipped: bool = False


def read_session_file(path: Path, *, document: bool, bounds: Bounds | None = None) -> SessionBytes:
    """A session file's bytes, never hanging and never holding a huge line whole.

    ``open_regular``'s rules (a FIFO, socket or directory, or a link out of ``bounds``, raises
    ``UnsafeFile``). A JSON-lines file keeps its complete lines only (the torn tail is the
    writer's, not ours yet); a line longer than ``LINE_CAP`` is replaced by its closed head.
    A legacy document is read whole up to ``READ_LIMIT``.

    Raises:
        OSError: missing, unreadable or refused.
    """
    with open_regular(path, bounds) as handle:
        if document:
            data = handle.read(READ_LIMIT + 1)
            return SessionBytes(data[:READ_LIMIT], clipped=len(data) > READ_LIMIT)
        out = bytearray()
        line = bytearray()
        cutting = False
        found = SessionBytes(b"")
        while chunk := handle.read(_CHUNK):
            first = chunk.find(b"\n")
            if first < 0:
                cutting = _grow(line, chunk, cutting)
                continue
            cutting = _grow(line, chunk[:first], cutting)
            if cutting:
                out += salvage_cut_line(bytes(line), TRUNCATED_MARK)
                found.cut_lines += 1
            else:
                out += line + b"\n"
            last = chunk.rfind(b"\n")
            out += chunk[first + 1 : last + 1]
            line, cutting = bytearray(chunk[last + 1 :]), False
            if len(out) > READ_LIMIT:
                found.clipped = True
                out = out[: out.rfind(b"\n", 0, READ_LIMIT) + 1]
                break
        found.data = bytes(out)
        return found


def _grow(line: bytearray, piece: bytes, cutting: bool) -> bool:
    """Append ``piece`` to the line being read unless it is already cut; cut it past the cap."""
    if cutting:
        return True
    line += piece
    if len(line) > LINE_CAP:
        del line[CUT_HEAD_BYTES:]
        return True
    return False
