"""Fixtures for the daemon tests: a real ``python -m engine.rpc`` subprocess on a real socket."""

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
from collections.abc import Iterator
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


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A short private folder: pytest's tmp_path can push a socket path past 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ade-rpc-", dir="/tmp"))
    yield path
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


@pytest.fixture
def daemon(make_daemon: Any) -> Daemon:
    """One running daemon with short deadlines so stalled-client tests stay fast."""
    return make_daemon("--frame-deadline", "0.5", "--idle-timeout", "5")  # type: ignore[no-any-return]
