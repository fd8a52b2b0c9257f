"""The palette's search client: which one (daemon or in-process) and its life cycle.

``open_palette_client`` picks the daemon's client when a daemon serves this user (unless
``--no-daemon``), else the embedded service with its watcher. ``ClientSlot`` holds the current
client for the app: it is opened on a thread of its own *after* the palette has painted (the
engine import and the index opening are most of the start-up time), swapped on ``project:
switch``, and closed once. No Textual here: worker threads wait on the slot, the UI thread
only peeks at it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from engine.errors import AdeError

if TYPE_CHECKING:  # the palette imports no engine module before its first paint
    from engine.client import SearchClient

Opener: TypeAlias = "Callable[[Path | None], SearchClient]"
"""Opens the client of the project at a root (``None``: as ``open_project`` finds it)."""

WAIT_SLICE_S = 0.05
"""How often a waiting worker re-checks whether it was cancelled (threads cannot be woken by
Textual's cancellation): short enough that a superseded search ends before the next frame."""

JOIN_TIMEOUT_S = 10.0
"""Longest wait, at exit, for an opener still running (opening a project takes well under 1 s)."""


def open_palette_client(
    root: Path | None,
    *,
    use_daemon: bool,
    watch: bool,
    warn: Callable[[str], None] | None = None,
) -> SearchClient:
    """The daemon's client for ``root`` when a daemon answers, else the embedded service.

    Args:
        root: The project folder, or ``None`` for the current project.
        use_daemon: False for ``--no-daemon``: always run the search in this process.
        watch: Run the file watcher in process (embedded only; the daemon watches by itself).
        warn: Told, in one line, why a daemon found is not used (``UntrustedDaemon``: its
            socket, folder or process is not the user's); the palette shows it.

    Raises:
        ProjectError: the folder does not exist or cannot be read.
    """
    from tui.everywhere_client import EverywhereClient, is_no_project

    here = is_no_project(root)  # no project here: every project ade knows (docs/search.md)
    if use_daemon:
        from engine.rpc.client import UntrustedDaemon, connect_daemon
        from tui.daemon_search import SEARCH_RENDERER

        try:  # docs/freshness.md
            daemon = connect_daemon(project_root=root, fresh_once=True, renderer=SEARCH_RENDERER)
        except UntrustedDaemon as err:
            daemon = None
            if warn is not None:
                warn(f"not using the ade daemon: {err}; searching in this process")
        if daemon is not None:
            return daemon if here is None else EverywhereClient(here, daemon)
    if here is not None:
        return EverywhereClient(here)
    from engine.embedded import EmbeddedClient

    return EmbeddedClient.open(root, watch=watch, backfill_delay=0.0)


class ClientSlot:
    """The app's current client, possibly still opening.

    Args:
        client: A client opened by the caller (the caller closes it), or ``None``.
        opener: How to open a project's client; the slot closes what it opened.
    """

    def __init__(self, client: SearchClient | None, opener: Opener | None) -> None:
        self._client = client
        self._opener = opener
        self._owned = False
        self._error: str | None = None
        self._closing = False
        self._ticket = 0
        self._lock = threading.Lock()
        self._open_lock = threading.Lock()
        """Serialises openers: two quick switches must not open two indexes at once."""
        self._threads: list[threading.Thread] = []
        self._notes: list[str] = []
        self.ready = threading.Event()
        """Set when a client (or an error) is there; cleared while one is opening."""
        if client is not None:
            self.ready.set()

    @property
    def can_open(self) -> bool:
        """Whether the slot can open projects itself (``project: switch`` needs it)."""
        return self._opener is not None

    def current(self) -> SearchClient | None:
        """The client if it is open, without waiting (for the UI thread)."""
        return self._client

    @property
    def error(self) -> str | None:
        """Why the last opening failed, if it did."""
        return self._error

    def note(self, text: str) -> None:
        """Keep a warning of the opener's for the UI (any thread)."""
        with self._lock:
            self._notes.append(text)

    def take_notes(self) -> list[str]:
        """The warnings kept since the last call (the UI shows each once)."""
        with self._lock:
            notes, self._notes = self._notes, []
        return notes

    def wait(self, cancelled: Callable[[], bool] = lambda: False) -> SearchClient:
        """The client, waiting for it while it opens (worker threads only).

        Raises:
            AdeError: the opening failed, the palette is closing, or ``cancelled()`` turned true.
        """
        while not self.ready.wait(WAIT_SLICE_S):
            if cancelled():
                raise AdeError("cancelled while the project was opening")
        with self._lock:
            if self._closing:
                raise AdeError("the palette is closing")
            if self._client is None:
                raise AdeError(self._error or "no project is open")
            return self._client

    def open_async(self, root: Path | None, done: Callable[[str | None], None]) -> None:
        """Close the current client (if ours) and open ``root`` on a thread of its own.

        ``done(error)`` is called on that thread when the newest opening finished (``None``
        on success); an opening overtaken by a newer one closes its client and calls nothing.
        """
        if self._opener is None:
            raise AdeError("this palette cannot open other projects")
        with self._lock:
            self._ticket += 1
            ticket, old, owned = self._ticket, self._client, self._owned
            self._client, self._owned, self._error = None, False, None
            self.ready.clear()
        if old is not None:
            old.interrupt()  # a query still running on it ends now
        thread = threading.Thread(
            target=self._open, args=(ticket, root, old if owned else None, done),
            name="ade-open-project", daemon=True,
        )  # fmt: skip
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def _open(
        self,
        ticket: int,
        root: Path | None,
        old: SearchClient | None,
        done: Callable[[str | None], None],
    ) -> None:
        assert self._opener is not None
        with self._open_lock:
            if old is not None:
                old.close()
            if ticket != self._ticket or self._closing:
                return
            try:
                client: SearchClient | None = self._opener(root)
                error = None
            except AdeError as err:
                client, error = None, str(err)
            except Exception as err:  # a broken index must not leave the palette hanging
                client, error = None, f"cannot open the project: {err}"
            with self._lock:
                stale = ticket != self._ticket or self._closing
                if not stale:
                    self._client, self._owned, self._error = client, True, error
                    self.ready.set()
            if stale:
                if client is not None:
                    client.close()
                return
        done(error)

    def interrupt(self) -> None:
        """Abort any query running on the current client (UI thread: never waits)."""
        client = self._client
        if client is not None:
            client.interrupt()

    def shut(self) -> None:
        """The palette is leaving: wake every waiter (they raise) and interrupt queries."""
        with self._lock:
            self._closing = True
            self.ready.set()
        self.interrupt()

    def close(self) -> None:
        """Shut, wait for a running opener, and close the client if the slot opened it."""
        self.shut()
        for thread in self._threads:
            thread.join(JOIN_TIMEOUT_S)
        with self._lock:
            client, owned = self._client, self._owned
            self._client, self._owned = None, False
        if client is not None and owned:
            client.close()
