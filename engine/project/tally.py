"""Per-source counts of input the reader skipped (DESIGN §2: "skipped and counted, never fatal").

Every reader takes a ``WarningTally`` and adds to it instead of raising: a malformed JSON line, an
unknown event type, an unreadable file. The index status reports the counts per source key
(``chat:<sid>``, ``terminal:<sid>``, ``sessions``, ``prs``, ``lanes``, ``artifacts``…).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import threading
from collections import Counter

MAX_REASONS_PER_SOURCE = 8
"""Distinct reasons remembered per source: enough to diagnose, bounded so a hostile file cannot grow memory."""


MAX_ONCE_KEYS = 4096
"""Problems remembered by ``add_once``; past that they are counted every time (memory bound)."""


class WarningTally:
    """Thread-safe counter of skipped or malformed input, keyed by source.

    The ingestion worker and query threads may add concurrently; a lock keeps counts exact.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._reasons: dict[str, dict[str, int]] = {}
        self._once: set[tuple[str, str, str]] = set()
        """``(source, reason, what)`` counted by ``add_once``."""

    def add(self, source: str, reason: str, n: int = 1) -> None:
        """Count ``n`` skipped items of ``source`` for ``reason`` (``n <= 0`` is ignored)."""
        if n <= 0:
            return
        with self._lock:
            self._counts[source] += n
            reasons = self._reasons.setdefault(source, {})
            if reason in reasons or len(reasons) < MAX_REASONS_PER_SOURCE:
                reasons[reason] = reasons.get(reason, 0) + n

    def add_once(self, source: str, reason: str, what: str = "") -> None:
        """Count a problem of one file once however often it is read (the sessions folder is
        listed several times a run: a FIFO there is one warning, not one per listing).

        ``what``: the thing the problem is about when ``reason`` does not name it (a file's
        path under the reason ``no cwd``): each ``what`` is counted once."""
        with self._lock:
            if (source, reason, what) in self._once:
                return
            if len(self._once) < MAX_ONCE_KEYS:
                self._once.add((source, reason, what))
        self.add(source, reason)

    def merge(self, other: WarningTally) -> None:
        """Add every count of ``other`` (its reasons too) to this tally; what ``other`` counted
        with ``add_once`` is counted once here too, however often it is merged."""
        with other._lock:
            once = set(other._once)
        for source, count in other.snapshot().items():
            reasons = other.reasons(source)
            for reason, n in reasons.items():
                whats = [what for s, r, what in once if (s, r) == (source, reason)]
                for what in whats:
                    self.add_once(source, reason, what)
                self.add(source, reason, n - len(whats))
            self.add(source, "other reasons", count - sum(reasons.values()))

    def forget(self, other: WarningTally) -> None:
        """Take back what merging ``other`` added (its counts, reasons and once-keys): the
        warnings of a listing that a newer listing replaces (``engine.ingest.drain_passes``)."""
        with other._lock:
            counts = dict(other._counts)
            reasons = {source: dict(r) for source, r in other._reasons.items()}
            once = set(other._once)
        with self._lock:
            self._once -= once
            for source, n in counts.items():
                left = self._counts[source] - n
                mine = self._reasons.get(source, {})
                taken = 0
                for reason, k in reasons.get(source, {}).items():
                    if reason in mine:
                        mine[reason] -= k
                        taken += k
                if n > taken and "other reasons" in mine:  # merged past MAX_REASONS_PER_SOURCE
                    mine["other reasons"] -= n - taken
                for reason in [r for r, k in mine.items() if k <= 0]:
                    del mine[reason]
                if left > 0:
                    self._counts[source] = left
                else:
                    del self._counts[source]
                    self._reasons.pop(source, None)

    def snapshot(self) -> dict[str, int]:
        """A copy of the counts per source key, sorted by key."""
        with self._lock:
            return dict(sorted(self._counts.items()))

    def reasons(self, source: str) -> dict[str, int]:
        """Counts per reason for one source (at most ``MAX_REASONS_PER_SOURCE`` reasons)."""
        with self._lock:
            return dict(self._reasons.get(source, {}))

    def by_reason(self) -> dict[str, int]:
        """Counts per reason over every source (a count past a source's remembered reasons
        under ``other reasons``)."""
        out: dict[str, int] = {}
        with self._lock:
            for source, count in self._counts.items():
                reasons = self._reasons.get(source, {})
                for reason, n in reasons.items():
                    out[reason] = out.get(reason, 0) + n
                rest = count - sum(reasons.values())
                if rest > 0:
                    out["other reasons"] = out.get("other reasons", 0) + rest
        return out

    def total(self) -> int:
        """Sum over every source."""
        with self._lock:
            return sum(self._counts.values())
