"""Which client answers the server's tools: the daemon when one runs, in process otherwise.

The same service as ``ade search`` (``tui.search_run``): a running daemon answers over its socket
and does its own catch-up; without one, the project's embedded service is opened once and caught
up before every answer (stat-only when nothing changed), so a transcript line written before a
call is seen by it — the CLI's read-your-writes promise. A daemon that fails for its own
reasons is dropped and the call is answered in process; a daemon that comes up later is used from
the next call on. Nothing here rebuilds, resumes or writes a project file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from engine.client import SearchClient
from engine.errors import AdeError, ProjectError, UsageError
from engine.project.lane_memo import one_listing
from engine.project.model import Project

T = TypeVar("T")


class Backend:
    """One project's search client for a long-running server, reopened when it fails."""

    def __init__(self, project: str | None, *, no_daemon: bool = False) -> None:
        self._project_arg = project
        self._no_daemon = no_daemon
        self._client: SearchClient | None = None
        self._embedded = False

    def call(self, ask: Callable[[SearchClient], T]) -> T:
        """``ask(client)`` on a current client; a failing daemon is retried once in process.

        Raises:
            UsageError / ProjectError: the caller's input (bad query, no project): never retried.
        """
        with one_listing():
            client = self._current()
            try:
                return ask(client)
            except (UsageError, ProjectError):
                raise
            except AdeError:
                if self._embedded:
                    raise
            self._drop()  # the daemon failed for its own reasons: answer in process
            client = self._current(daemon=False)
            return ask(client)

    def project(self) -> Project:
        """The project the answers are about (raises ``ProjectError`` when there is none)."""
        return self.call(lambda client: client.project)

    def close(self) -> None:
        self._drop()

    def _current(self, *, daemon: bool = True) -> SearchClient:
        use_daemon = daemon and not self._no_daemon
        if self._client is not None and self._embedded and use_daemon:
            found = self._daemon(self._client.project)  # a daemon started since: use it
            if found is not None:
                self._drop()
                self._client, self._embedded = found, False
        if self._client is None:
            project = self._locate()
            found = self._daemon(project) if use_daemon else None
            if found is not None:
                self._client, self._embedded = found, False
            else:
                from engine.embedded import EmbeddedClient

                self._client = EmbeddedClient.open(
                    project.root, start_worker=False, project=project
                )
                self._embedded = True
        if self._embedded:
            self._client.service.catch_up(history_seconds=_history_seconds())  # type: ignore[attr-defined]
        return self._client

    def _locate(self) -> Project:
        from engine.project.locate import open_project
        from tui.search_run import ensure_project

        root = Path(self._project_arg).expanduser() if self._project_arg else None
        project = open_project(root)
        ensure_project(project)  # a folder that is no project is said, never indexed
        return project

    @staticmethod
    def _daemon(project: Project) -> SearchClient | None:
        from engine.rpc.client import connect_daemon

        try:
            return connect_daemon(project_root=project.root, restart=False)
        except AdeError:
            return None

    def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with _quietly():
                client.close()


def _history_seconds() -> float:
    from tui.search_run import CLI_HISTORY_SECONDS

    return CLI_HISTORY_SECONDS


@contextmanager
def _quietly() -> Iterator[None]:
    with suppress(AdeError, OSError):
        yield
