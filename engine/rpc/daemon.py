"""Running the daemon: wire the pieces, take the lock, serve, and clean up on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.actions import SearchDomain
from engine.basics.logs import LOGGER_ROOT, get_logger
from engine.rpc.lifecycle import BoundSocket, InstanceLock, bind_socket
from engine.rpc.limits import ServerLimits
from engine.rpc.paths import config_dir, prepare_socket_dir, socket_path
from engine.rpc.project_marker import is_project, is_registered, require_project
from engine.rpc.registry import registry_path
from engine.rpc.roles import ensure_cto_token
from engine.rpc.router import MachineRouter
from engine.rpc.server import DaemonServer
from engine.rpc.services import (
    BACKFILL_DELAY_S,
    DaemonHost,
    ServicePool,
    embedded_factory,
    frozen_after_open,
)
from engine.rpc.start_backoff import note_started
from engine.semantic import enabled as semantic_enabled

log = get_logger(__name__)


@dataclass(frozen=True, slots=True)
class DaemonOptions:
    """Everything ``ade daemon run`` can set."""

    socket: Path | None = None
    """Default: ``engine.rpc.paths.socket_path()``."""
    config: Path | None = None
    """Default: ``engine.rpc.paths.config_dir()``."""
    log_file: Path | None = None
    """Also log to this file (stderr always gets the log)."""
    backfill_delay: float = BACKFILL_DELAY_S
    limits: ServerLimits = field(default_factory=ServerLimits)
    verbose: bool = False
    auto_started: bool = False
    """Started by ``ade search`` for the next search (``engine.rpc.autostart``): said by
    ``rpc.status``; its idle exit is in ``limits``."""
    renderer: str | None = None
    """The module rendering ``search.cli`` answers (``engine.search_cli``); ``None``: fallback."""


def configure_logging(options: DaemonOptions) -> None:
    """Log lines to stderr (the journal under systemd) and optionally to a file."""
    root = logging.getLogger(LOGGER_ROOT)
    root.setLevel(logging.DEBUG if options.verbose else logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if options.log_file is not None:
        options.log_file.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(options.log_file, encoding="utf-8"))
    for handler in handlers:
        handler.setFormatter(fmt)
        root.addHandler(handler)


def run_daemon(options: DaemonOptions) -> int:
    """Serve until SIGTERM/SIGINT; return the exit code.

    Raises:
        AdeError: another daemon is running, or the socket path is unusable.
    """
    default = options.socket is None
    sock_file = socket_path() if options.socket is None else options.socket
    config = options.config if options.config is not None else config_dir()
    # The default runtime folder is ours and made private; a --socket folder that exists (a
    # shared /tmp) keeps its mode: only the 0600 socket and the peer uid check guard it.
    prepare_socket_dir(sock_file.parent, private=default)
    lock = InstanceLock.beside(sock_file)
    lock.acquire(sock_file)
    registry = registry_path(config)

    def allow(root: Path) -> None:
        # Only a project (.ade/ or a git work tree) or a registered root is served: any other
        # folder (/, /etc) would get an .ade/cache and be indexed (only a project is served).
        if not is_project(root):
            require_project(root, is_git=False, registered=is_registered(root, registry))

    opener = embedded_factory(options.backfill_delay, options.limits.query_hold)
    pool = ServicePool(frozen_after_open(opener), allow)
    server: DaemonServer | None = None
    bound: BoundSocket | None = None
    try:
        token = ensure_cto_token(config)
        bound = bind_socket(sock_file, private_dir=default)
        note_started(sock_file)  # bound: searches may start daemons here again
        if semantic_enabled():  # the daemon holds the model: no query waits for its load
            from engine.semantic.model import preload_in_background

            preload_in_background()
        sock = bound.sock
        router = MachineRouter(pool.client_for, registry)
        domain = SearchDomain(DaemonHost(pool, router.query), options.renderer)

        def status() -> dict[str, Any]:
            projects = [str(r) for r in pool.roots()]
            return {"socket": str(sock_file), "projects": projects, "autoStarted": auto_started}

        auto_started = options.auto_started

        server = DaemonServer(
            domain,
            token,
            status=status,
            limits=options.limits,
            interrupt_thread=pool.interrupt_thread,
        )
        signum = asyncio.run(_serve(server, sock, sock_file))
        log.info("ade daemon stopping: disposing %d services", len(pool.roots()))
    finally:
        if bound is not None:  # first: no client should reach a daemon that is going away
            bound.remove()  # only the socket we made: never what sat at the path before
        pool.close_all()  # in-flight engine calls see their service closed and return
        if server is not None:
            server.join()
        if bound is None:  # refused before serving (the path is taken, the token unusable…)
            lock.discard()
        else:
            lock.release()
    log.info("ade daemon stopped")
    # Ctrl+C in the foreground is 130, as everywhere in ade (and fzf); SIGTERM is a clean stop.
    return 128 + signal.SIGINT if signum == signal.SIGINT else 0


async def _serve(server: DaemonServer, sock: Any, sock_file: Path) -> int | None:
    """Serve until a signal stops the daemon (or the server ends by itself); which signal."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    got: list[int] = []

    def stop_on(signum: int) -> None:
        got.append(signum)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop_on, signum)
    # Said only now: a SIGINT/SIGTERM sent as soon as the daemon says it listens must reach the
    # handlers above (before them it killed the process and left the socket behind).
    log.info("ade daemon listening on %s", sock_file)
    await server.serve(sock, stop)
    return got[0] if got else None
