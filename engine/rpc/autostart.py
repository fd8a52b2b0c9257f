"""``ade search`` starting the daemon for the next search, as watchman, Bazel or Gradle do.

A search that found no daemon answers in its own process, prints, and only then starts one in
the background (``start_daemon_in_background``): a new session with no terminal, stdio on
``/dev/null``, the log in ``daemon.log`` beside the socket, and the socket the client looks for
(the child resolves the same runtime folder from the same environment); it starts serving once
the search has exited. Two searches starting
at once start two processes and one daemon: the instance lock makes the second exit with a log
line (``serve_auto_started``). A daemon that cannot start says so in its log and leaves a
marker that stops the searches of the next 15 minutes from spawning another
(``engine.rpc.start_backoff``); the search that started it has already answered.

An auto-started daemon exits after ``AUTO_IDLE_EXIT_S`` without a request; one the user starts
(``ade daemon run``) runs until stopped unless given ``--idle-exit``.

An agent's shell (``ADE_SESSION_ID`` set) may start it too: it runs as the user either way. Roles
are bound per connection by the token each client presents, never by the daemon's environment;
the agent variables are still removed from the child so nothing it runs (git, a catch-up) sees
an agent's identity.
"""

from __future__ import annotations

import os
import sys

from engine.errors import AdeError
from engine.rpc.connection import SWITCH, daemon_switched_off

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping

    from engine.rpc.daemon import DaemonOptions

AUTO_IDLE_EXIT_S = 1800.0
"""30 minutes: longer than the gaps between searches in a stretch of work (each gap outlived
means one in-process search, ~0.3-0.6 s on the 330 MB corpus, and a restart), short enough that
a daemon left from the morning gives its memory (index pages, up to ~256 MiB) back within the
hour. sccache uses 10 minutes, Gradle and Bazel 3 hours."""

__all__ = ["SWITCH", "autostart_allowed"]  # SWITCH: ``ADE_DAEMON``, checked in one place

AGENT_VARIABLES = ("ADE_SESSION_ID", "ADE_ROLE", "ADE_TERMINAL_SESSION_ID")
"""Who the spawning shell is: none of the daemon's business (see the module doc)."""

LOG_NAME = "daemon.log"

_CHILDREN: list[subprocess.Popen[bytes]] = []
"""Daemons this process started (see ``_spawn``)."""

RESTART_WAIT_S = 15.0
"""Longest a client that lost its daemon waits for the one it starts to answer."""


def autostart_allowed(env: Mapping[str, str] | None = None) -> bool:
    """False when ``ADE_DAEMON`` turns the daemon off (``connection.daemon_switched_off``)."""
    return not daemon_switched_off(env)


_BOOT = """\
import os, sys
fd, marker = int(sys.argv[1]), sys.argv[2]
if fd >= 0:
    os.read(fd, 1)
    os.close(fd)
try:
    from engine.rpc.cli_args import main
except Exception as err:
    if marker:
        try:
            os.makedirs(os.path.dirname(marker), 0o700, exist_ok=True)
            out = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.write(out, f"ade cannot be imported: {err!r}\\nlog: \\n".encode())
            os.close(out)
        except OSError:
            pass
    sys.exit(2)
sys.exit(main(sys.argv[3:]))
"""
"""The auto-started daemon's first lines. It waits for EOF on the pipe ``fd`` (when not -1), i.e.
until the search that started it has exited: on two shared cores its imports would otherwise
take the CPU from that exit (measured: the spawn's ~0.5 ms grew to ~7 ms of the search's
process). An install too broken to import the daemon still leaves the start-failure ``marker``
(``engine.rpc.start_backoff``), written without importing ade."""


def daemon_command(
    executable: str = sys.executable,
    after_fd: int | None = None,
    marker: str | None = None,
    renderer: str | None = None,
) -> list[str]:
    """The auto-started daemon's command line: ``-P`` so a project folder's own modules never
    shadow ade's (the child runs in ``/`` anyway). ``after_fd``: wait for EOF on that pipe
    first; ``marker``: where a failed import is recorded (``_BOOT``); ``renderer``: the module
    that renders its ``search.cli`` answers (named by the front end: ``engine.search_cli``)."""
    options = ["--auto-started", *(["--renderer", renderer] if renderer else [])]
    if after_fd is None and marker is None:
        return [executable, "-P", "-m", "engine.rpc", *options]
    fd = -1 if after_fd is None else after_fd
    return [executable, "-P", "-c", _BOOT, str(fd), marker or "", *options]


def start_daemon_in_background(
    env: dict[str, str] | None = None, renderer: str | None = None
) -> int | None:
    """Start a daemon detached from this process; its pid, or ``None`` when none could start.

    It starts serving once this process has exited (it waits on a pipe only this process holds
    open). Never raises: the caller has answered its search and exits with that answer's code.
    ``renderer``: see ``daemon_command``.
    """
    environ = dict(os.environ) if env is None else env
    child = _spawn(environ, after_exit=True, tell=True, renderer=renderer)
    return None if child is None else child.pid


def restart_daemon(
    path: str | os.PathLike[str], env: dict[str, str] | None = None, renderer: str | None = None
) -> bool:
    """After a lost daemon at ``path``: start one and wait (bounded) until it answers; False
    when auto-start is off, ``path`` is not the default socket (a ``--socket`` daemon is the
    user's to start) or none came up. A daemon still shutting down holds the lock: the one
    started beside it exits, and another is started. ``renderer``: see ``daemon_command``."""
    import time

    from engine.rpc.paths import socket_file

    env = dict(os.environ) if env is None else env
    try:
        if os.fspath(path) != socket_file(env) or not _folder_ours(os.fspath(path)):
            return False
    except AdeError:
        return False
    deadline = time.monotonic() + RESTART_WAIT_S
    child = None
    while time.monotonic() < deadline:
        if _answers(os.fspath(path)):
            return True
        if child is None or child.poll() is not None:
            child = _spawn(env, renderer=renderer)
            if child is None:
                return False
        time.sleep(0.05)  # another process binding its socket: nothing to block on
    return False


def last_start_failure() -> list[str]:
    """What ``ade daemon status`` says, when none runs, of the last auto-started daemon that
    could not start (``engine.rpc.start_backoff``); nothing when none is kept."""
    from engine.rpc.paths import socket_file
    from engine.rpc.start_backoff import failure_lines

    try:
        return failure_lines(socket_file())
    except AdeError:
        return []


def _folder_ours(sock: str) -> bool:
    """False when the runtime folder exists and is not the user's own (another user made
    ``/tmp/ade-<uid>`` first: ``engine.rpc.paths.folder_to_trust``): no daemon is started for it
    — it could not bind there, and the client has already said, once, why it is not used."""
    from engine.rpc.paths import UntrustedDaemon, folder_to_trust

    try:
        folder_to_trust(os.path.dirname(sock))
    except UntrustedDaemon:
        return False
    return True


def _answers(path: str) -> bool:
    import _socket

    probe = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        probe.connect(os.fsencode(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _spawn(
    env: dict[str, str],
    *,
    after_exit: bool = False,
    tell: bool = False,
    renderer: str | None = None,
) -> subprocess.Popen[bytes] | None:
    """``tell``: say once on stderr (a terminal) that a start failed recently, when it did."""
    if not autostart_allowed(env) or not sys.executable:
        return None
    from engine.rpc.paths import socket_file
    from engine.rpc.start_backoff import failure_marker, may_start

    try:
        sock = socket_file(env)  # a socket path too long to bind: no daemon could serve it
    except AdeError:
        return None
    if not _folder_ours(sock):
        return None
    marker = failure_marker(sock, env)
    if not may_start(marker, tell=tell):
        return None
    import subprocess

    child_env = {k: v for k, v in env.items() if k not in AGENT_VARIABLES}
    held = os.pipe() if after_exit else None  # both ends close-on-exec: no other child has them
    try:
        child = subprocess.Popen(
            daemon_command(
                after_fd=None if held is None else held[0], marker=marker, renderer=renderer
            ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            env=child_env,
            start_new_session=True,
            pass_fds=() if held is None else (held[0],),
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        if held is not None:
            os.close(held[1])
        return None
    finally:
        if held is not None:
            os.close(held[0])
    # The write end stays open until this process exits; the kernel closes it then.
    # Kept, never waited for: a long-lived parent (a palette) reaps the ones that have exited.
    _CHILDREN[:] = [old for old in _CHILDREN if old.poll() is None]
    _CHILDREN.append(child)
    return child


def serve_auto_started(options: DaemonOptions) -> int:
    """``python -m engine.rpc --auto-started``: log beside the socket, then serve; a daemon
    already holding the lock makes this one exit 0 with one log line. Any other failure to start
    leaves the marker that holds back the next searches' spawns (``engine.rpc.start_backoff``)."""
    from dataclasses import replace

    from engine.basics.logs import get_logger
    from engine.rpc.daemon import configure_logging, run_daemon
    from engine.rpc.lifecycle import InstanceTaken
    from engine.rpc.paths import SOCKET_NAME, prepare_socket_dir, socket_path
    from engine.rpc.start_backoff import failure_marker, record_failure

    log = get_logger(__name__)
    try:
        sock = options.socket if options.socket is not None else socket_path()
    except AdeError:
        return 2  # a socket path too long: no search spawns one for it (``_spawn``)
    marker = failure_marker(str(sock))
    try:
        prepare_socket_dir(sock.parent, private=options.socket is None)
        if options.log_file is None:
            name = LOG_NAME if sock.name == SOCKET_NAME else f"{sock.name}.log"
            options = replace(options, log_file=sock.parent / name)
        configure_logging(options)
    except (AdeError, OSError) as err:
        record_failure(marker, str(err), None)
        return 2  # nowhere to log: stdio is /dev/null, the search has answered already
    log.info("ade daemon started by `ade search` (idle exit after %g s)", options.limits.idle_exit)
    try:
        return run_daemon(options)
    except InstanceTaken as err:
        log.info("ade daemon not started: %s", err)
        return 0
    except Exception as err:
        log.error(
            "ade daemon could not start: %s", err, exc_info=not isinstance(err, AdeError | OSError)
        )
        record_failure(marker, str(err) or type(err).__name__, options.log_file)
        return 2
