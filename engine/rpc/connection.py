"""``DaemonConnection``: one greeted socket to the daemon, and nothing of the engine.

Kept apart from ``engine.rpc.client`` (the ``SearchClient`` over the socket) so a command that
only forwards a request and prints the answer (``ade search`` with a daemon running, the start-up budget)
imports the framing, the socket paths and the role token, not the project reader or the index.
The wire is coded with the standard library's own C parts of ``json`` (msgspec's import alone
costs more than a daemon's answer, and the ``json`` package's decoder imports ``re``); the
values are the same plain builtins either way. A request is written by
``framing.compact_json`` and an answer read by ``framing.decode_json_line`` (the same text and
values as ``json.dumps``/``json.loads``). The socket is the
interpreter's built-in ``_socket`` and the lock ``_thread``'s: the ``socket`` and ``threading``
modules (with ``selectors``, ``array``, ``select``) cost ~4 ms of imports per process for
nothing a Unix socket client uses (start-up budget). ``call_once`` sends the greeting and the request
in one write, so a one-shot command waits for one round trip, not two, and does what it needs
for the answer (``meanwhile``) while it waits.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import _socket
import _thread
import itertools
import os

from engine.errors import AdeError, CursorError, ProjectError, UsageError
from engine.rpc.framing import compact_json, decode_json_line, encode_frame
from engine.rpc.paths import (
    UntrustedDaemon,
    check_peer,
    check_socket_path,
    config_folder,
    socket_file,
    socket_to_trust,
)
from engine.rpc.roles import CTO_METHODS, client_token

TYPE_CHECKING = False  # a daemon-answered search imports neither `typing` nor `pathlib`
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

SWITCH = "ADE_DAEMON"
"""``ADE_DAEMON=off`` (or ``0``, ``no``, ``false``): no daemon is started or used; every search
answers in its own process (``docs/daemon-switches.md``)."""

_OFF = frozenset({"off", "0", "no", "false"})

LOST = "ADE_DAEMON_LOST"
"""Set by the compiled ``ade`` launcher (native/ade_launcher.c) when it execs this client after
the daemon was lost with its request sent (``timed out``, ``connection closed by the daemon``…):
the next search call warns and answers in process as if that had happened to it, instead of
waiting on the same wedged daemon a second time. Removed from the environment when read."""

CONTEXT_NOT_SERVED = -32003
"""``engine.basics.caller_env.CONTEXT_NOT_SERVED`` (not imported: a forwarded search stays light)."""

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


class MalformedReply(AdeError):
    """The daemon's answer is not what the wire contract allows (not JSON, wrong shape, fields
    of the wrong type, links that are no deep links): the caller answers in process instead."""


class ContextNotServed(AdeError):
    """This daemon cannot answer in the caller's environment (``engine.basics.caller_env``): the
    caller answers in its own process, saying nothing."""


class DaemonLost(AdeError):
    """The daemon went away during a call and no daemon answered the reconnect (it was
    stopped, or an auto-started one reached its idle exit: ``engine.rpc.autostart``)."""


class DaemonConnection:
    """One socket to the daemon, reconnected transparently when the daemon closed it idle.

    Args:
        path: the socket path.
        token: the CTO token to present, or ``None`` to be an agent.
        timeout: seconds for connecting and for the hello exchange.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        token: str | None,
        timeout: float = CONNECT_TIMEOUT_S,
        context: dict[str, str] | None = None,
    ) -> None:
        self.path = path
        self._token = token
        self._context = context
        self._timeout = timeout
        self._sock: _socket.socket | None = None
        self._buffer = b""
        self._ids = itertools.count(1)
        self._lock = _thread.allocate_lock()
        self._interrupted = False
        self.hello: dict[str, Any] = {}

    def open(self) -> None:
        """Connect and say hello (binding the role). Raises ``OSError`` on failure."""
        self._connect()
        self.hello = _hello(self._exchange("rpc.hello", self._hello_params(), self._timeout)[1])

    def _connect(self) -> None:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(self._timeout)
        try:
            sock.connect(os.fsencode(self.path))
            check_peer(sock, self.path)  # before the first byte (the token) is sent
        except (OSError, UntrustedDaemon):
            sock.close()
            raise
        self._sock, self._buffer = sock, b""

    def _hello_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"ctoToken": self._token} if self._token else {}
        if self._context is not None:
            params["context"] = self._context
        return params

    @property
    def context_served(self) -> bool:
        """Whether the daemon said, greeting us, that it answers in our context."""
        return self.hello.get("contextServed", True) is not False

    def send_with_greeting(self, method: str, params: dict[str, Any]) -> None:
        """Connect and send the hello and one request in a single write (the daemon answers a
        connection's frames in order, so the role is bound before the request runs);
        ``read_greeting`` then reads the hello's answer and ``read_answer`` the request's.

        Raises:
            OSError / AdeError: no daemon to send to.
        """
        self._connect()
        assert self._sock is not None
        hello = _frame(next(self._ids), "rpc.hello", self._hello_params())
        self._sock.sendall(hello + _frame(next(self._ids), method, params))

    def read_greeting(self) -> None:
        """Read the answer to the hello ``send_with_greeting`` sent.

        Raises:
            OSError / EOFError / AdeError / ValueError: no daemon greeted us.
        """
        self.hello = _hello(self._answer(self._read_line()))

    def read_answer(self, timeout: float | None) -> tuple[bytes, Any]:
        """The answer line of the request ``send_with_greeting`` sent, and its result.

        Raises:
            DaemonError / UsageError / CursorError / ProjectError: the daemon's error answer.
            OSError / EOFError: the connection broke first.
        """
        assert self._sock is not None
        self._sock.settimeout(timeout)
        line = self._read_line()
        return line, self._answer(line)

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
                        raise DaemonLost(f"lost the ade daemon at {self.path}: {err}") from None
        raise AssertionError("unreachable")

    def _exchange(
        self, method: str, params: dict[str, Any], timeout: float | None
    ) -> tuple[bytes, Any]:
        assert self._sock is not None
        self._sock.settimeout(timeout)
        self._sock.sendall(_frame(next(self._ids), method, params))
        line = self._read_line()
        return line, self._answer(line)

    def _read_line(self) -> bytes:
        assert self._sock is not None
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed by the daemon")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    @staticmethod
    def _answer(line: bytes) -> Any:
        """The result of one answer line.

        Raises:
            MalformedReply: the line is no JSON-RPC answer.
            DaemonError / UsageError / CursorError / ProjectError: the daemon's error answer.
        """
        try:
            response = decode_json_line(line)
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            raise MalformedReply("the ade daemon's answer is not JSON") from None
        if not isinstance(response, dict) or ("error" in response) == ("result" in response):
            raise MalformedReply("the ade daemon's answer is no JSON-RPC response")
        if "error" in response:
            raise _error_from(response["error"])
        return response["result"]

    def _drop(self) -> None:
        if self._sock is not None:
            try:  # noqa: SIM105 -- contextlib is not imported here (the start-up budget)
                self._sock.close()
            except OSError:
                pass
        self._sock, self._buffer = None, b""

    def interrupt(self) -> None:
        """Abort a call blocked on the socket (it raises; the next call reconnects).

        The daemon sees the hang-up and interrupts the query it was running for this call.
        """
        self._interrupted = True
        sock = self._sock
        if sock is not None:
            try:  # noqa: SIM105 -- contextlib is not imported here (the start-up budget)
                sock.shutdown(_socket.SHUT_RDWR)
            except OSError:
                pass

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


def _frame(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    # UTF-8 as msgspec wrote it: a lone surrogate raises UnicodeEncodeError here too.
    return encode_frame(compact_json(message).encode())


def _hello(result: Any) -> dict[str, Any]:
    if not isinstance(result, dict):
        raise MalformedReply("the ade daemon's greeting is not an object")
    return result


def _error_from(error: Any) -> AdeError:
    if not isinstance(error, dict):
        return AdeError("malformed error from the ade daemon")
    code, message = error.get("code", 0), error.get("message", "error")
    if not isinstance(message, str):
        return MalformedReply("malformed error from the ade daemon")
    data = error.get("data")
    kind = data.get("type") if isinstance(data, dict) else None
    if code == CONTEXT_NOT_SERVED:
        return ContextNotServed(message)
    if isinstance(kind, str) and kind in _ERRORS:
        return _ERRORS[kind](message)
    return DaemonError(code if isinstance(code, int) else 0, message)


def daemon_switched_off(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``ADE_DAEMON`` turns the daemon off: the one check every search client makes
    before connecting (``call_once``, ``connect_daemon``) and before starting one (autostart)."""
    value = (os.environ if env is None else env).get(SWITCH, "")
    return value.strip().lower() in _OFF


def open_connection(
    *,
    timeout: float = CONNECT_TIMEOUT_S,
    env: dict[str, str] | None = None,
    socket: str | os.PathLike[str] | None = None,
    context: dict[str, str] | None = None,
) -> DaemonConnection | None:
    """A connected, greeted ``DaemonConnection``, or ``None`` when no daemon answers.

    Args:
        timeout: connect and greeting timeout in seconds.
        env: environment to resolve the socket and config folders from (default: ours).
        socket: the daemon's socket path (``ade daemon --socket``); default: the runtime folder.
        context: the caller's context (``engine.basics.caller_env``), greeted with: the hello then
            says whether the daemon answers in it (``DaemonConnection.context_served``).

    Raises:
        UntrustedDaemon: the socket, its folder or the daemon is not the user's own
            (``engine.rpc.paths.socket_to_trust``, ``check_peer``); nothing was sent.
    """
    try:
        path = socket if socket is not None else socket_file(env)
        check_socket_path(path)
    except AdeError:
        return None
    trusted = socket_to_trust(path, private=socket is None)
    if trusted is None:
        return None
    connection = DaemonConnection(trusted, client_token(config_folder(env), env), timeout, context)
    try:
        connection.open()
    except UntrustedDaemon:
        connection.close()
        raise
    except (OSError, EOFError, AdeError, ValueError):  # ValueError: not JSON
        connection.close()
        return None
    return connection


def call_once(
    method: str,
    params: dict[str, Any],
    timeout: float | None,
    *,
    env: dict[str, str] | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> tuple[bytes, Any] | None:
    """One request on a connection of its own, greeted in the same write: the answer line and
    its result, or ``None`` when no daemon answers the greeting (``open_connection``'s ``None``).
    ``meanwhile`` runs once the request is sent, while the daemon answers (the imports the
    caller needs for the answer), whether or not a daemon then greets us.

    Raises:
        UntrustedDaemon: the socket, its folder or the daemon is not the user's own.
        MalformedReply: the answer is not a JSON-RPC response.
        DaemonError / UsageError / CursorError / ProjectError: the daemon's error answer.
        ContextNotServed: the daemon cannot answer in our environment (answer in process).
        AdeError: the daemon greeted us and was lost before answering.
    """
    lost = os.environ.pop(LOST, None) if method.startswith("search.") else None
    if daemon_switched_off(env):
        return None
    try:
        path = socket_file(env)
    except AdeError:
        return None
    if socket_to_trust(path, private=True) is None:
        return None
    if lost is not None:  # the launcher lost this daemon already (see LOST)
        raise DaemonLost(f"lost the ade daemon at {path}: {lost}")
    if method.startswith("search."):  # answered in our environment, or refused (caller_env)
        from engine.basics.caller_env import caller_context

        params = {**params, "context": caller_context()}  # ours: env only names the socket
    # The role matters only to the CTO's methods: a search asks for no token (see CTO_METHODS)
    token = client_token(config_folder(env), env) if method in CTO_METHODS else None
    connection = DaemonConnection(path, token)
    try:
        try:
            connection.send_with_greeting(method, params)
        except UntrustedDaemon:
            raise
        except (OSError, AdeError):
            return None
        if meanwhile is not None:
            meanwhile()
        try:
            connection.read_greeting()
        except (OSError, EOFError, AdeError, ValueError):  # ValueError: not JSON
            return None
        try:
            return connection.read_answer(timeout)
        except (OSError, EOFError) as err:
            raise DaemonLost(f"lost the ade daemon at {path}: {err}") from None
    finally:
        connection.close()
