"""The generation counter (television's model): every search request carries the generation it
was made for, and an answer whose generation is no longer current is dropped."""

from __future__ import annotations

import threading


class Generation:
    """A thread-safe, monotonically increasing request stamp."""

    def __init__(self) -> None:
        self._value = 0
        self._lock = threading.Lock()

    @property
    def current(self) -> int:
        return self._value

    def advance(self) -> int:
        """Start a new request: every older stamp becomes stale. Returns the new stamp."""
        with self._lock:
            self._value += 1
            return self._value

    def is_current(self, stamp: int) -> bool:
        """True when ``stamp`` belongs to the latest request."""
        return stamp == self._value
