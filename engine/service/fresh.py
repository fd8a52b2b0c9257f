"""Answers that read the caller's writes (docs/freshness.md): the daemon catches up before it answers.

A write that completed before a search started (a transcript line, an import, a recording, a
commit, a shrunk transcript) is in that search's answer on every path. The in-process CLI has
always caught up first; a daemon's watcher and writer thread are quick but not synchronous, so
the daemon's answer catches up too (``SearchService.catch_up_for_answer``): the warm manifest
check when nothing changed (a few ``scandir`` calls and one ``meta`` row), an ingest of what
changed otherwise. Requests that arrive while one catch-up runs share the next one (never one
each), and an answer waits at most ``engine.client.CATCH_UP_BOUND_S`` for it, then answers
with what is there and says so. The contract is docs/freshness.md.

Every request (fresh or not) also stats the index file once: a file deleted or replaced under
the daemon is reopened and compared with the sources again (``Drainer.connection``), never
served as an empty "ready" index.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.index.db import file_identity
from engine.service.catch_up import STILL_INDEXING, CatchUp, catch_up_bound

if TYPE_CHECKING:
    from engine.ingest.drain import Drainer
    from engine.project.model import Project


FRESH_HISTORY_S = 0.25
"""How long an answer's catch-up runs commit-history slices. One slice missed a new commit in 6 of 6
tries on the demo (a pass
may plan several walks, and the one holding the new commit need not come first)."""


class SharedCatchUp:
    """One catch-up at a time, shared: a request is served by a catch-up that *started* after
    it arrived (one already running may have stat'ed the sources before the caller's write),
    and every request waiting meanwhile is served by the same next one."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._started = 0
        self._finished = 0
        self._running = False
        self._complete = True

    def run(self, catch_up: Callable[[float], bool], bound: float) -> bool:
        """Have ``catch_up(deadline)`` run once after this call began, waiting at most ``bound``
        seconds; True when the one that served this call finished everything it found."""
        deadline = time.monotonic() + bound
        with self._cond:
            target = self._started + 1
            while self._finished < target:
                if not self._running:
                    self._started += 1
                    self._running = True
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._cond.wait(remaining)
            else:
                return self._complete
            mine = self._started
        complete = False
        try:
            complete = catch_up(deadline)
        finally:
            with self._cond:
                self._running = False
                self._finished = mine
                self._complete = complete
                self._cond.notify_all()
        return complete


class FreshAnswers:
    """The read-your-writes side of one project's search service: the catch-up before an
    answer, the replaced index file noticed, and what the answer says about them."""

    def __init__(self, project: Project, drainer: Drainer, catching: CatchUp) -> None:
        self.project = project
        self.drainer = drainer
        self.catching = catching
        self._shared_catch_up = SharedCatchUp()
        self._local = threading.local()

    def catch_up_for_answer(self, bound: float | None = None) -> None:
        """Catch up before this thread's next answer (shared with concurrent requests, at most
        ``bound`` seconds, default ``CATCH_UP_BOUND_S``); that answer says when it could not
        finish. Only a service with a writer thread needs it: the CLI caught up on open."""
        limit = catch_up_bound() if bound is None else bound

        def once(deadline: float) -> bool:
            # A new commit's pass is a few small walks (one per tip group that moved): they fit
            # in a short budget. A first pass of a huge history does not, and is left to the
            # writer: background work the answers already mention.
            return self.catching.catch_up(
                history_seconds=FRESH_HISTORY_S, deadline=deadline, check_drift=False
            )

        if self.catching.closed():
            return
        if not self._shared_catch_up.run(once, limit):
            self._local.fresh_note = STILL_INDEXING

    def notice_replaced_index(self) -> None:
        """One ``stat`` per request: the index file the writer holds was deleted or replaced
        (``rm -rf .ade/cache``) → reopen it now, which queues the re-ingest and says so."""
        held = self.drainer.held_identity()
        if held is None or file_identity(self.project.index_path) == held:
            return
        with self.drainer.lock:
            self.drainer.connection()

    def take_fresh_note(self) -> str | None:
        """What this answer says about its catch-up (said once): the index file re-made
        under the daemon, rotten rows a pass cut out, or the bound reached with sources still
        queued."""
        notes: list[str] = []
        if (replaced := self.drainer.replaced_note) is not None:
            self.drainer.replaced_note = None
            notes.append(replaced)
        if (healed := self.drainer.healed_note) is not None:
            self.drainer.healed_note = None
            notes.append(healed)
        if (cut_short := getattr(self._local, "fresh_note", None)) is not None:
            self._local.fresh_note = None
            notes.append(cut_short)
        return "; ".join(notes) or None
