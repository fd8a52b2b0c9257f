"""A bounded window of a transcript's lines, indexed by line-break byte offsets (Toolong's model).

The scrollback screen never reads a whole transcript: it loads a window of bytes around the
target offset, keeps the byte offset of every line start inside it, and grows the window at
either end as the reader scrolls there. A byte offset becomes a line index by bisecting the
line-start list. Plain files are read with ``os.pread``; a ``.gz`` is inflated once (gzip cannot
seek) through the engine's reader, which also handles a half-written ``.gz``.

Pure Python with no Textual: the screen calls it from a worker thread and paints the result.
"""

from __future__ import annotations

import os
import re
import threading
from bisect import bisect_right
from pathlib import Path

from engine.project.safe_io import open_regular
from engine.project.transcripts import read_transcript

WINDOW_BYTES = 2 * 1024 * 1024
"""Bytes loaded on each side of the target: tens of thousands of lines, ~10 ms to index."""

MAX_WINDOW_BYTES = 24 * 1024 * 1024
"""Memory bound of one open scrollback; beyond it the far end is dropped as the window slides."""

_NEWLINE = re.compile(b"\n")


class _Source:
    """Random access to a transcript's bytes: pread on a plain file, slices of an inflated gz."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        self._buffer: bytes | None = None
        self._fd: int | None = None
        if path.name.endswith(".gz"):
            whole = read_transcript(path, 0, 1 << 62)
            self._buffer = whole.data
        else:
            with open_regular(path) as handle:  # never blocks on a FIFO swapped in
                self._fd = os.dup(handle.fileno())

    def size(self) -> int:
        if self._buffer is not None:
            return len(self._buffer)
        assert self._fd is not None
        return os.fstat(self._fd).st_size

    def read(self, start: int, end: int) -> bytes:
        if self._buffer is not None:
            return self._buffer[start:end]
        assert self._fd is not None
        with self._lock:
            return os.pread(self._fd, max(0, end - start), start)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class LineWindow:
    """Lines ``[0, line_count)`` of the window ``[start, end)`` of one transcript.

    ``starts[i]`` is the byte offset of line ``i``; line ``i`` ends just before ``starts[i+1]``
    (or at ``end``). The window always begins at a line start and ends after a ``\\n`` or at the
    file's end, so a line is never cut in two.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._source = _Source(path)
        self.start = 0
        self.end = 0
        self._data = b""
        self.starts: list[int] = []

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def size(self) -> int:
        """Current length of the transcript in bytes."""
        return self._source.size()

    def close(self) -> None:
        self._source.close()

    def load_around(self, offset: int, span: int = WINDOW_BYTES) -> int:
        """Load the window around ``offset`` (clamped into the file) and return its line index."""
        size = self.size()
        offset = max(0, min(offset, max(0, size - 1)))
        low = self._line_start_before(max(0, offset - span))
        high = self._line_end_after(min(size, offset + span), size)
        self._set(low, self._source.read(low, high))
        return self.line_at(offset)

    def _line_start_before(self, offset: int) -> int:
        """The start of the line containing ``offset``: just past the previous ``\\n``."""
        if offset == 0:
            return 0
        probe = offset
        while probe > 0:
            low = max(0, probe - 65536)
            found = self._source.read(low, probe).rfind(b"\n")
            if found >= 0:
                return low + found + 1
            probe = low
        return 0

    def _line_end_after(self, offset: int, size: int) -> int:
        """Just past the next ``\\n`` at or after ``offset`` (or the file's end)."""
        probe = offset
        while probe < size:
            high = min(size, probe + 65536)
            found = self._source.read(probe, high).find(b"\n")
            if found >= 0:
                return probe + found + 1
            probe = high
        return size

    def _set(self, start: int, data: bytes) -> None:
        self.start = start
        self.end = start + len(data)
        self._data = data
        self.starts = [start] + [start + m.end() for m in _NEWLINE.finditer(data)]
        if self.starts and self.starts[-1] >= self.end and len(self.starts) > 1:
            self.starts.pop()
        if not data:
            self.starts = []

    def line_at(self, offset: int) -> int:
        """Index of the line holding byte ``offset`` (clamped into the window)."""
        if not self.starts:
            return 0
        return max(0, min(bisect_right(self.starts, offset) - 1, len(self.starts) - 1))

    def line_bytes(self, index: int) -> bytes:
        """Raw bytes of line ``index`` without its ``\\n`` (and a trailing ``\\r``)."""
        low = self.starts[index] - self.start
        high = (
            self.starts[index + 1] - self.start if index + 1 < len(self.starts) else len(self._data)
        )
        return self._data[low:high].rstrip(b"\n")

    def extend_up(self, span: int = WINDOW_BYTES) -> int:
        """Load ``span`` more bytes above the window; returns how many lines were added on top."""
        if self.start == 0:
            return 0
        low = self._line_start_before(max(0, self.start - span))
        prefix = self._source.read(low, self.start)
        data = prefix + self._data
        if len(data) > MAX_WINDOW_BYTES:
            data = data[: self._trim_point(data, MAX_WINDOW_BYTES)]
        self._set(low, data)
        return prefix.count(b"\n")

    def extend_down(self, span: int = WINDOW_BYTES) -> int:
        """Load ``span`` more bytes below the window (also picks up live appends).

        Returns how many lines were dropped from the top to stay under ``MAX_WINDOW_BYTES``.
        """
        size = self.size()
        if self.end >= size:
            return 0
        high = self._line_end_after(min(size, self.end + span), size)
        data = self._data + self._source.read(self.end, high)
        dropped = 0
        start = self.start
        if len(data) > MAX_WINDOW_BYTES:
            cut = data.find(b"\n", len(data) - MAX_WINDOW_BYTES) + 1
            dropped = data[:cut].count(b"\n")
            data = data[cut:]
            start += cut
        self._set(start, data)
        return dropped

    @staticmethod
    def _trim_point(data: bytes, limit: int) -> int:
        cut = data.rfind(b"\n", 0, limit)
        return cut + 1 if cut >= 0 else limit

    def find(self, pattern: re.Pattern[bytes], from_line: int, step: int) -> int | None:
        """The next line after (``step`` 1) or before (``step`` -1) ``from_line`` whose raw bytes
        match ``pattern``, searching the loaded window only."""
        index = from_line + step
        while 0 <= index < self.line_count:
            if pattern.search(self.line_bytes(index)):
                return index
            index += step
        return None
