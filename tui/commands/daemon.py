"""``ade daemon [run|status|stop]``: the local search daemon (DESIGN §7, docs/daemon.md).

``run`` (the default) serves in the foreground until SIGTERM or Ctrl-C — run it under systemd or
in a spare terminal. ``status`` asks the running daemon about itself (exit 1 when none runs).
``stop`` sends SIGTERM to the daemon's pid, learned from the kernel through the socket, and waits
for it to remove its socket.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from engine.errors import AdeError
from engine.rpc.cli_args import add_run_arguments, serve_from_args
from engine.rpc.client import MalformedReply, UntrustedDaemon, open_connection
from engine.rpc.paths import socket_path

STOP_WAIT_S = 15.0
"""How long ``ade daemon stop`` waits for services to dispose before giving up."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``ade daemon``."""
    parser.add_argument(
        "action",
        nargs="?",
        choices=("run", "status", "stop"),
        default="run",
        help="run in the foreground (default), show status, or stop the running daemon",
    )
    parser.add_argument("--json", action="store_true", help="status as JSON")
    add_run_arguments(parser)
    from tui.daemon_search import SEARCH_RENDERER

    parser.set_defaults(renderer=SEARCH_RENDERER)  # `ade daemon run` answers search.cli


def run(args: argparse.Namespace) -> int:
    """Dispatch the action; exit 0 ok, 1 no daemon running, 2 usage error."""
    if args.action == "status":
        return _status(as_json=args.json, socket=args.socket)
    if args.action == "stop":
        return _stop(socket=args.socket)
    return serve_from_args(args)


def _status(*, as_json: bool, socket: Path | None = None) -> int:
    try:
        connection = open_connection(socket=socket)
    except UntrustedDaemon as err:  # refused before the token or a signal is sent
        print(f"ade daemon: refusing: {err}", file=sys.stderr)
        return 2
    if connection is None:
        print(f"no ade daemon is running (socket {socket or socket_path()})", file=sys.stderr)
        if socket is None:  # only the default socket's daemon is auto-started
            from engine.rpc.autostart import last_start_failure

            for line in last_start_failure():
                print(line, file=sys.stderr)
        return 1
    try:
        status = connection.call("rpc.status", {}, 5.0)
        if not isinstance(status, dict):
            raise MalformedReply("the ade daemon's status is not an object")
        status["role"] = connection.hello.get("role")
    except AdeError as err:
        print(f"ade daemon: {err}", file=sys.stderr)
        return 2
    finally:
        connection.close()
    if as_json:
        print(json.dumps(status, indent=2, sort_keys=True))
        return 0
    projects = status.get("projects")
    projects = projects if isinstance(projects, list) else []
    lines = [
        f"ade daemon {status.get('version')} running, pid {status.get('pid')}",
        f"  socket:      {status.get('socket')}",
        f"  uptime:      {_number(status.get('uptimeMs')) // 1000} s",
        f"  connections: {status.get('connections')}",
        f"  your role:   {status.get('role')}",
        f"  started:     {_started_line(status)}",
        f"  projects:    {len(projects)} open",
        *(f"    {root}" for root in projects),
    ]
    from tui.printable import printable  # the reply names folders: any name is possible

    print(printable("\n".join(lines)))
    return 0


def _number(value: object) -> int:
    """A count from the status, 0 when the daemon sent something else."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _started_line(status: dict[str, object]) -> str:
    """Who started the daemon and when it exits by itself (``engine.rpc.autostart``)."""
    how = "by `ade search` (auto-started)" if status.get("autoStarted") else "by hand"
    limit, left = status.get("idleExitS"), status.get("idleExitInS")
    if not isinstance(limit, int | float) or not isinstance(left, int | float):
        return f"{how}; runs until stopped"
    return f"{how}; exits after {_duration(limit)} without a request (in {_duration(left)})"


def _duration(seconds: float) -> str:
    if seconds >= 120:
        return f"{seconds / 60:.0f} min"
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True


def _stop(*, socket: Path | None = None) -> int:
    try:
        connection = open_connection(socket=socket)
    except UntrustedDaemon as err:  # refused before the token or a signal is sent
        print(f"ade daemon: refusing: {err}", file=sys.stderr)
        return 2
    if connection is None:
        print(f"no ade daemon is running (socket {socket or socket_path()})", file=sys.stderr)
        return 1
    pid = connection.peer_pid()
    connection.close()
    if pid is None or pid <= 0:
        print("could not learn the daemon's pid", file=sys.stderr)
        return 2
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling another process's exit: there is nothing to wait on
    if _alive(pid):
        print(f"ade daemon (pid {pid}) did not stop within {STOP_WAIT_S:g} s", file=sys.stderr)
        return 2
    print(f"stopped ade daemon (pid {pid})", file=sys.stderr)
    return 0
