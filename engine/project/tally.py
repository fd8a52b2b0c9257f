"""Per-source counts of input the reader skipped (DESIGN §2: "skipped and counted, never fatal").

Every reader takes a ``WarningTally`` and adds to it instead of raising: a malformed JSON line, an
unknown event type, an unreadable file. The index status reports the counts per source key
(``chat:<sid>``, ``terminal:<sid>``, ``sessions``, ``prs``, ``lanes``, ``artifacts``…).
"""

from __future__ import annotations

import threading
from collections import Counter

MAX_REASONS_PER_SOURCE = 8
"""Distinct reasons remembered per source: enough to diagnose, bounded so a hostile file cannot grow memory."""


class WarningTally:
    """Thread-safe counter of skipped or malformed input, keyed by source.

    The ingestion worker and query threads may add concurrently; a lock keeps counts exact.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._reasons: dict[str, dict[str, int]] = {}

    def add(self, source: str, reason: str, n: int = 1) -> None:
        """Count ``n`` skipped items of ``source`` for ``reason`` (``n <= 0`` is ignored)."""
        if n <= 0:
            return
        with self._lock:
            self._counts[source] += n
            reasons = self._reasons.setdefault(source, {})
            if reason in reasons or len(reasons) < MAX_REASONS_PER_SOURCE:
                reasons[reason] = reasons.get(reason, 0) + n

    def snapshot(self) -> dict[str, int]:
        """A copy of the counts per source key, sorted by key."""
        with self._lock:
            return dict(sorted(self._counts.items()))

    def reasons(self, source: str) -> dict[str, int]:
        """Counts per reason for one source (at most ``MAX_REASONS_PER_SOURCE`` reasons)."""
        with self._lock:
            return dict(self._reasons.get(source, {}))

    def total(self) -> int:
        """Sum over every source."""
        with self._lock:
            return sum(self._counts.values())
