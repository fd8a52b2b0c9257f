"""Fixtures for the daemon tests: a real ``python -m engine.rpc`` subprocess on a real socket,
a raw wire client, and real project folders.

Helpers are handed out as fixtures (the suite runs with ``--import-mode=importlib``, where a
test module cannot import a sibling helper module by name).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

START_TIMEOUT_S = 15.0


class RpcConn:
    """A raw line-oriented JSON-RPC connection (no client library: the tests speak the wire)."""

    def __init__(self, path: Path, timeout: float = 20.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self._buffer = b""
        self._ids = 0

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_line(self) -> Any:
        while b"\n" not in self._buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def raw(self, data: bytes) -> Any:
        self.send_raw(data + b"\n")
        return self.read_line()

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._ids += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._ids, "method": method}
        if params is not None:
            message["params"] = params
        response = self.raw(json.dumps(message).encode())
        assert response["id"] == self._ids
        return response  # type: ignore[no-any-return]

    def closed_by_peer(self) -> bool:
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()


class Daemon:
    """One daemon subprocess with its private runtime and config folders."""

    def __init__(self, base: Path, extra: list[str]) -> None:
        self.runtime = base / "run"
        self.config = base / "cfg"
        self.log = base / "daemon.log"
        self.socket = self.runtime / "daemon.sock"
        self.env = {
            **os.environ,
            "ADE_RUNTIME_DIR": str(self.runtime),
            "ADE_CONFIG_DIR": str(self.config),
            "ADE_NOW": "2026-06-15T12:00:00+00:00",
        }
        self.env.pop("ADE_SESSION_ID", None)
        self.env.pop("ADE_DAEMON", None)  # ADE_DAEMON=off (the suite's) means no daemon is used
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "engine.rpc", "--log-file", str(self.log),
            "--backfill-delay", "0", *self.extra,
        ]  # fmt: skip

    def start(self) -> Daemon:
        self.stderr = self.runtime.parent / "stderr.txt"
        with self.stderr.open("ab") as err:
            self.proc = subprocess.Popen(
                self.command(), env=self.env, stdout=subprocess.DEVNULL, stderr=err
            )
        seen = len(self.log_text())  # a restarted daemon appends to the same log
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(self.stderr.read_text())
            if "listening on" in self.log_text()[seen:]:
                return self
            time.sleep(0.02)  # waiting for another process to bind: nothing to block on
        raise AssertionError("daemon did not start")

    def connect(self, timeout: float = 20.0) -> RpcConn:
        return RpcConn(self.socket, timeout)

    def cto(self) -> RpcConn:
        conn = self.connect()
        token = (self.config / "cto.token").read_text().strip()
        assert conn.call("rpc.hello", {"ctoToken": token})["result"]["role"] == "cto"
        return conn

    def log_text(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def stop(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=20)


def write_chat_project(
    root: Path, project_id: str, name: str, messages: int, word: str = "zebra"
) -> Path:
    """A real project folder with one chat session of ``messages`` accepted user messages."""
    ade = root / ".ade"
    (ade / "sessions").mkdir(parents=True, exist_ok=True)
    (ade / "chats").mkdir(parents=True, exist_ok=True)
    (ade / "project.json").write_text(json.dumps({"id": project_id, "name": name}))
    sid = f"chat-{project_id}"
    meta = {
        "id": sid, "kind": "chat", "title": f"{name} planning", "laneId": None,
        "createdAt": "2026-06-01T10:00:00+00:00", "updatedAt": "2026-06-01T12:00:00+00:00",
        "endedAt": None, "archived": False, "tool": "claude",
    }  # fmt: skip
    (ade / "sessions" / f"{sid}.json").write_text(json.dumps(meta))
    lines = []
    for seq in range(1, messages + 1):
        event = {
            "seq": seq, "ts": f"2026-06-01T10:{seq // 60 % 60:02d}:{seq % 60:02d}+00:00",
            "type": "user_message", "id": f"m{seq}", "status": "accepted",
            "text": f"{word} note {seq} from {name}",
        }  # fmt: skip
        lines.append(json.dumps(event))
    (ade / "chats" / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    return root


def wait_indexed(conn: RpcConn, root: Path, timeout: float = 30.0) -> dict[str, Any]:
    """Poll ``search.indexStatus`` until the project's backfill has completed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = conn.call("search.indexStatus", {"projectRoot": str(root)})["result"]
        if status["backfillCompletedAt"] is not None and status["pendingSources"] == 0:
            return status  # type: ignore[no-any-return]
        time.sleep(0.05)  # the daemon's own writer thread is doing the work
    raise AssertionError(f"{root} was not indexed in {timeout}s")


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A short private folder: pytest's tmp_path can push a socket path past 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ade-rpc-", dir="/tmp"))
    yield path
    if not os.environ.get("ADE_KEEP_TEST_DIRS"):
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def make_daemon(short_dir: Path) -> Iterator[Any]:
    """Factory: ``make_daemon(*extra_args)`` starts a daemon; all are stopped at teardown."""
    started: list[Daemon] = []

    def make(*extra: str, start: bool = True) -> Daemon:
        daemon = Daemon(short_dir, list(extra))
        started.append(daemon)
        return daemon.start() if start else daemon

    yield make
    for daemon in started:
        if daemon.proc is not None and daemon.proc.poll() is None:
            daemon.stop()


PROTOCOL_DAEMON_ARGS = ("--frame-deadline", "0.5", "--idle-timeout", "5")
"""Short deadlines so stalled-client tests stay fast."""


@pytest.fixture
def daemon(make_daemon: Any) -> Daemon:
    """One running daemon with short deadlines so stalled-client tests stay fast."""
    return make_daemon(*PROTOCOL_DAEMON_ARGS)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def module_daemon_rpc() -> Iterator[Daemon]:
    """The ``daemon`` fixture's daemon, started once for a module's table of cases that each
    send it one bad frame and check that it still answers (on that connection and a new one):
    a case that killed or wedged it fails there, and every later case with it."""
    base = Path(tempfile.mkdtemp(prefix="ade-rpc-", dir="/tmp"))
    daemon = Daemon(base, list(PROTOCOL_DAEMON_ARGS)).start()
    try:
        yield daemon
    finally:
        daemon.stop()
        if not os.environ.get("ADE_KEEP_TEST_DIRS"):
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def chat_project() -> Callable[..., Path]:
    """``chat_project(root, id, name, messages)``: write a real project folder (see helper)."""
    return write_chat_project


@pytest.fixture
def rpc_wait_indexed() -> Callable[..., dict[str, Any]]:
    """``rpc_wait_indexed(conn, root)``: poll until the backfill is done and nothing is pending."""
    return wait_indexed
