"""``DaemonClient``: the ``SearchClient`` protocol over the daemon's socket, for one project.

Front ends call ``connect_daemon(root)``; ``None`` (fast: a missing socket file or a refused
connect costs well under a millisecond) means "no daemon, run in-process". Index work goes over
the socket; session and lane listings and transcript paths are plain file reads of the project,
done locally exactly as the embedded client does them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import msgspec

from engine.basics.caller_env import caller_context
from engine.client import LocalReads, ProgressCallback
from engine.errors import ProjectError
from engine.links.listings import ProjectListings
from engine.project.locate import open_project
from engine.project.model import Project
from engine.rpc.connection import (
    CALL_TIMEOUT_S,
    CONNECT_TIMEOUT_S,
    DaemonConnection,
    DaemonError,
    DaemonLost,
    MalformedReply,
    daemon_switched_off,
    open_connection,
)
from engine.rpc.paths import UntrustedDaemon
from engine.rpc.reply_check import check_search_result
from engine.types import (
    IndexStatus,
    RebuildResult,
    SearchQueryArgs,
    SearchQueryResult,
    from_wire,
    to_wire,
)

_T = TypeVar("_T", bound=msgspec.Struct)

__all__ = [
    "CALL_TIMEOUT_S",
    "CONNECT_TIMEOUT_S",
    "DaemonClient",
    "DaemonConnection",
    "DaemonError",
    "MalformedReply",
    "UntrustedDaemon",
    "connect_daemon",
    "open_connection",
]


class DaemonClient(LocalReads):
    """The ``SearchClient`` of one project, served by the daemon.

    ``restart``: a call that finds the daemon gone starts one (``engine.rpc.autostart``) and is
    sent again once it answers — a palette left open past an auto-started daemon's idle exit
    searches on. A one-shot command passes False: it answers in process instead.

    ``fresh_once``: only the first query asks the daemon to catch up first (docs/freshness.md):
    a palette sees what was there when it opened, then keeps its typing debounce and the
    watcher's pace; without it every query catches up (a one-shot command's only query).

    ``renderer``: the ``search.cli`` renderer a restarted daemon gets
    (``engine.rpc.autostart.daemon_command``).
    """

    def __init__(
        self,
        connection: DaemonConnection,
        project: Project,
        *,
        restart: bool = True,
        env: dict[str, str] | None = None,
        fresh_once: bool = False,
        renderer: str | None = None,
    ) -> None:
        super().__init__(lambda: ProjectListings(project))
        self._renderer = renderer
        self._conn = connection
        self._fresh_once = fresh_once
        self._asked = False
        self._project = project
        self._restart = restart
        self._env = env

    def _call(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        try:
            return self._conn.call(method, params, timeout)
        except DaemonLost:
            from engine.rpc.autostart import restart_daemon

            if not self._restart or not restart_daemon(self._conn.path, self._env, self._renderer):
                raise
        return self._conn.call(method, params, timeout)

    @property
    def project(self) -> Project:
        return self._project

    @property
    def connection(self) -> DaemonConnection:
        return self._conn

    def _root(self) -> dict[str, Any]:
        # Every request carries the caller's context (engine.basics.caller_env), read when it is sent
        return {"projectRoot": str(self._project.root), "context": caller_context()}

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        params = {k: v for k, v in to_wire(args).items() if v is not None}
        if self._fresh_once and self._asked:
            params["fresh"] = False  # sent only when false: the default is a caught-up answer
        self._asked = True
        result = self._call("search.query", {**params, **self._root()}, CALL_TIMEOUT_S)
        check_search_result(result)
        return _decoded(result, SearchQueryResult)

    def index_status(self) -> IndexStatus:
        result = self._call("search.indexStatus", self._root(), CALL_TIMEOUT_S)
        return _decoded(result, IndexStatus)

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult:
        if progress is not None:
            progress(0, 1)
        result = _decoded(self._conn.call("search.rebuildIndex", self._root(), None), RebuildResult)
        if progress is not None:
            progress(1, 1)
        return result

    def interrupt(self) -> None:
        self._conn.interrupt()

    def close(self) -> None:
        self._conn.close()


def _decoded(result: Any, type_: type[_T]) -> _T:
    """``from_wire``, with a daemon's answer that breaks the contract as ``MalformedReply``."""
    try:
        return from_wire(result, type_)
    except msgspec.ValidationError as err:
        raise MalformedReply(f"the ade daemon's answer breaks the wire contract: {err}") from None


def connect_daemon(
    project_root: Path | None = None,
    *,
    timeout: float = CONNECT_TIMEOUT_S,
    env: dict[str, str] | None = None,
    restart: bool = True,
    fresh_once: bool = False,
    renderer: str | None = None,
) -> DaemonClient | None:
    """A ``DaemonClient`` for the project at ``project_root`` (default: as ``open_project`` finds
    it), or ``None`` fast when no daemon is running, ``ADE_DAEMON`` is off, or the daemon says
    it cannot answer in this caller's context. ``restart``, ``fresh_once``, ``renderer``: see
    ``DaemonClient``.

    Raises:
        ProjectError: the project folder does not exist (same as in-process).
        UntrustedDaemon: a socket is there but it, its folder or its daemon is not the user's
            own (``engine.rpc.paths``): nothing was sent; the caller warns and runs in process.
    """
    if daemon_switched_off(env):
        return None
    connection = open_connection(timeout=timeout, env=env, context=caller_context())
    if connection is None:
        return None
    if not connection.context_served:  # another TZ, git variable…: answered in process
        connection.close()
        return None
    try:
        project = open_project(project_root)
    except ProjectError:
        connection.close()
        raise
    return DaemonClient(connection, project, restart=restart, env=env, fresh_once=fresh_once,
                        renderer=renderer)  # fmt: skip
