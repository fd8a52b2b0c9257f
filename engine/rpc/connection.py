"""``DaemonConnection``: one greeted socket to the daemon, and nothing of the engine.

Kept apart from ``engine.rpc.client`` (the ``SearchClient`` over the socket) so a command that
only forwards a request and prints the answer (``ade search`` with a daemon running, issue 14.4)
imports the framing, the socket paths and the role token, not the project reader or the index.
The wire is coded with the standard library's ``json`` (msgspec's import alone costs more than
a daemon's answer); the values are the same plain builtins either way.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from engine.errors import AdeError, CursorError, ProjectError, UsageError
from engine.rpc.framing import encode_frame
from engine.rpc.paths import check_socket_path, config_dir, socket_path
from engine.rpc.roles import client_token

CONNECT_TIMEOUT_S = 0.5
"""A live daemon answers ``rpc.hello`` in about a millisecond; slower means wedged: run locally."""

CALL_TIMEOUT_S = 60.0
"""Longest wait for a query or status answer (a rebuild waits as long as it takes)."""

_ERRORS: dict[str, type[AdeError]] = {
    "CursorError": CursorError,
    "UsageError": UsageError,
    "DeepLinkError": UsageError,
    "ProjectError": ProjectError,
}


class DaemonError(AdeError):
    """The daemon refused or failed a request; ``code`` is the JSON-RPC error code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class DaemonConnection:
    """One socket to the daemon, reconnected transparently when the daemon closed it idle.

    Args:
        path: the socket path.
        token: the CTO token to present, or ``None`` to be an agent.
        timeout: seconds for connecting and for the hello exchange.
    """

    def __init__(self, path: Path, token: str | None, timeout: float = CONNECT_TIMEOUT_S) -> None:
        self.path = path
        self._token = token
        self._timeout = timeout
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._interrupted = False
        self.hello: dict[str, Any] = {}

    def open(self) -> None:
        """Connect and say hello (binding the role). Raises ``OSError`` on failure."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self._timeout)
        try:
            sock.connect(os.fsencode(self.path))
        except OSError:
            sock.close()
            raise
        self._sock, self._buffer = sock, b""
        params = {"ctoToken": self._token} if self._token else {}
        self.hello = self._exchange("rpc.hello", params, self._timeout)[1]

    def call(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        """Send one request and return its result, reconnecting once if the socket was dropped.

        Raises:
            DaemonError / UsageError / CursorError / ProjectError: the daemon's error answer.
            AdeError: the daemon is gone.
        """
        return self.call_line(method, params, timeout)[1]

    def call_line(
        self, method: str, params: dict[str, Any], timeout: float | None
    ) -> tuple[bytes, Any]:
        """``call``, returning the response line as received beside its decoded result (a
        caller that prints the wire form prints the daemon's own bytes)."""
        with self._lock:
            self._interrupted = False
            for attempt in (1, 2):
                try:
                    if self._sock is None:
                        self.open()
                    return self._exchange(method, params, timeout)
                except (OSError, EOFError) as err:
                    self._drop()
                    if self._interrupted:  # not a lost daemon: never re-send the request
                        raise AdeError("search interrupted") from None
                    if attempt == 2:
                        raise AdeError(f"lost the ade daemon at {self.path}: {err}") from None
        raise AssertionError("unreachable")

    def _exchange(
        self, method: str, params: dict[str, Any], timeout: float | None
    ) -> tuple[bytes, Any]:
        assert self._sock is not None
        request_id = next(self._ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self._sock.settimeout(timeout)
        # UTF-8 as msgspec wrote it: a lone surrogate raises UnicodeEncodeError here too.
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        self._sock.sendall(encode_frame(data))
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed by the daemon")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        response = json.loads(line)
        if "error" in response:
            raise _error_from(response["error"])
        return line, response["result"]

    def _drop(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        self._sock, self._buffer = None, b""

    def interrupt(self) -> None:
        """Abort a call blocked on the socket (it raises; the next call reconnects).

        The daemon sees the hang-up and interrupts the query it was running for this call.
        """
        self._interrupted = True
        sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Close the socket."""
        with self._lock:
            self._drop()

    def peer_pid(self) -> int | None:
        """The daemon's pid, from the kernel (``SO_PEERCRED``), for ``ade daemon stop``."""
        from engine.rpc.lifecycle import peer_credentials

        if self._sock is None:
            return None
        return peer_credentials(self._sock).pid


def _error_from(error: Any) -> AdeError:
    if not isinstance(error, dict):
        return AdeError("malformed error from the ade daemon")
    code, message = error.get("code", 0), str(error.get("message", "error"))
    data = error.get("data")
    kind = data.get("type") if isinstance(data, dict) else None
    if isinstance(kind, str) and kind in _ERRORS:
        return _ERRORS[kind](message)
    return DaemonError(code if isinstance(code, int) else 0, message)


def open_connection(
    *,
    timeout: float = CONNECT_TIMEOUT_S,
    env: dict[str, str] | None = None,
    socket: Path | None = None,
) -> DaemonConnection | None:
    """A connected, greeted ``DaemonConnection``, or ``None`` when no daemon answers.

    Args:
        timeout: connect and greeting timeout in seconds.
        env: environment to resolve the socket and config folders from (default: ours).
        socket: the daemon's socket path (``ade daemon --socket``); default: the runtime folder.
    """
    try:
        path = socket if socket is not None else socket_path(env)
        check_socket_path(path)
    except AdeError:
        return None
    if not path.exists():
        return None
    connection = DaemonConnection(path, client_token(config_dir(env), env), timeout)
    try:
        connection.open()
    except (OSError, EOFError, AdeError, ValueError):  # ValueError: not JSON
        connection.close()
        return None
    return connection
