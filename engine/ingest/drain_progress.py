"""What a drain's ``progress(done, total)`` counts: one unit a source, and one a
commit of the commit-history pass.

The history source runs in slices, each re-queued until its pass is done. Counted as one more
source each time, a bar over its n slices read n/(n+1): nearly full from the first slice of a
pass that takes most of the time (30,000 commits: ``1/2``, ``2/3`` … for ten seconds). Counted by
the pass's own commits it moves as the work does. The first slice of a pass adds its commits to
the total, so the bar can step back once, within the first moments of a first index.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import apsw

from engine.ingest.history import history_status
from engine.types import ProgressCallback

HISTORY_KIND = "history"


class DrainProgress:
    """Counts what a drain has run and reports it to ``progress``."""

    def __init__(self, progress: ProgressCallback | None, queued: int) -> None:
        self._progress = progress
        self._sources_total = max(queued, 1)
        self._sources_done = 0
        self._commits_done = 0
        self._commits_total = 0

    def ran(self, kind: str, remaining: int, conn: apsw.Connection) -> None:
        """One entry of ``kind`` ran; ``remaining`` sources are queued (a history pass still
        under way re-queued itself: it is one of them)."""
        if kind == HISTORY_KIND:
            status = history_status(conn)
            if status is not None:
                self._commits_done = status.done
                # ``total`` is "about": a pass may find more commits than it planned for.
                about = status.total or 0
                self._commits_total = max(about, status.done) if status.indexing else status.done
            if status is None or not status.indexing:
                self._sources_done += 1
        else:
            self._sources_done += 1
        self._sources_total = max(self._sources_total, self._sources_done + remaining)
        if self._progress is not None:
            self._progress(
                self._sources_done + self._commits_done,
                self._sources_total + self._commits_total,
            )
