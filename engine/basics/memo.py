"""Bounded memos for a long-lived process: what a pure function of some bytes gave, kept with
those bytes (:class:`BytesMemo`), and a plain dict kept under a size (:func:`remember`).

BytesMemo: what a pure function of some bytes gave, kept with those bytes (a page's work shown
again).

A snippet's text is derived from a transcript's bytes, a terminal hit's matching line found in
them: both are pure functions of the bytes read (and of a few small arguments, the key). A page
asked again (the palette re-asking as a word is typed, the next page of the same hits) reads the
bytes anew and, when they are the very bytes a kept answer came from, takes that answer: one
comparison instead of parsing, sanitizing and chunking again. Nothing kept can outlive a change of
the file, as the bytes are always read and compared. Bounded by the bytes it holds, oldest
dropped first; a lock, as the service's reader threads share one.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


def remember(memo: dict[_K, _V], key: _K, value: _V, limit: int) -> _V:
    """``memo[key] = value``, ``memo`` emptied first when it holds ``limit`` entries: a memo
    keyed by stat or environment signatures (which change) stays bounded in a daemon that runs
    for days, and refills from the next asks. Returns ``value``."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


MISSING: object = object()
"""What :meth:`BytesMemo.get` returns when no answer for those bytes is kept."""


class BytesMemo(Generic[_V]):
    """Answers keyed by a small key, each kept with the bytes it was computed from."""

    def __init__(self, max_bytes: int, max_entry: int) -> None:
        self.max_bytes, self.max_entry = max_bytes, max_entry
        self._held: dict[Hashable, tuple[bytes, _V, int]] = {}
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable, raw: bytes) -> _V | object:
        """The answer kept for ``key`` when it came from exactly ``raw``, else :data:`MISSING`."""
        kept = self._held.get(key)
        return kept[1] if kept is not None and kept[0] == raw else MISSING

    def put(self, key: Hashable, raw: bytes, answer: _V, size: int = 0) -> None:
        """Keep ``answer`` (``size`` more bytes than ``raw`` held by it) for ``key`` and ``raw``."""
        size += len(raw)
        if size > self.max_entry:
            return
        with self._lock:
            old = self._held.pop(key, None)
            if old is not None:
                self._size -= old[2]
            self._held[key] = (raw, answer, size)
            self._size += size
            while self._size > self.max_bytes:
                self._size -= self._held.pop(next(iter(self._held)))[2]

    def clear(self) -> None:
        with self._lock:
            self._held.clear()
            self._size = 0
