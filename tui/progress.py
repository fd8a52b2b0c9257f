"""A one-line progress bar on stderr, drawn only when stderr is a terminal.

Called from the ingesting thread; it writes at most ~20 times a second so a fast rebuild of
thousands of sources does not spend its time drawing.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

_MIN_INTERVAL_SECONDS = 0.05


class StderrProgress:
    """``progress(done, total)`` callback drawing ``label [#####-----] 12/30``."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self._label = label
        self._stream = stream or sys.stderr
        self._enabled = self._stream.isatty()
        self._last = time.monotonic()  # a catch-up done within the interval draws nothing
        self._drawn = False
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        if not self._enabled or total <= 0:
            return
        now = time.monotonic()
        with self._lock:
            if done < total and now - self._last < _MIN_INTERVAL_SECONDS:
                return
            self._last = now
            width = 30
            filled = int(width * min(done, total) / total)
            bar = "#" * filled + "-" * (width - filled)
            self._stream.write(f"\r{self._label} [{bar}] {done}/{total}")
            self._stream.flush()
            self._drawn = True

    def finish(self) -> None:
        """Clear the bar so results start on a clean line."""
        if self._drawn:
            self._stream.write("\r\x1b[2K")
            self._stream.flush()
