"""Daemon lifecycle (RELIABILITY 22): permissions, stale socket, single instance, clean shutdown,
and the peer-uid check."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.actions import SearchDomain
from engine.basics.logs import AUDIT_LOGGER
from engine.errors import AdeError
from engine.rpc.lifecycle import (
    InstanceLock,
    PeerCredentials,
    bind_socket,
    peer_allowed,
    peer_credentials,
)
from engine.rpc.paths import SUN_PATH_MAX, check_socket_path, runtime_dir, socket_path
from engine.rpc.server import DaemonServer
from tui.cli import main as ade_main


def test_socket_is_private_and_in_a_private_folder(daemon: Any) -> None:
    assert stat.S_IMODE(daemon.runtime.stat().st_mode) == 0o700
    info = daemon.socket.lstat()
    assert stat.S_ISSOCK(info.st_mode)
    assert stat.S_IMODE(info.st_mode) & 0o077 == 0
    token = daemon.config / "cto.token"
    assert stat.S_IMODE(token.stat().st_mode) == 0o600


def test_sigterm_removes_the_socket_and_exits_zero(daemon: Any) -> None:
    conn = daemon.connect()
    assert "result" in conn.call("rpc.status")
    assert daemon.stop() == 0
    assert not daemon.socket.exists()
    assert conn.closed_by_peer()
    assert "ade daemon stopped" in daemon.log_text()


def test_sigint_also_shuts_down_cleanly_and_exits_130(daemon: Any) -> None:
    """Ctrl+C on ``ade daemon run`` in the foreground: clean, and 130 as everywhere."""
    daemon.proc.send_signal(signal.SIGINT)
    assert daemon.proc.wait(timeout=20) == 130
    assert not daemon.socket.exists()


def test_second_daemon_is_refused_with_a_clear_message(daemon: Any) -> None:
    second = subprocess.run(
        daemon.command(), env=daemon.env, capture_output=True, text=True, timeout=30
    )
    assert second.returncode == 2
    assert f"already running (pid {daemon.proc.pid}" in second.stderr
    assert "ade daemon stop" in second.stderr
    # The first daemon is untouched and still serving on its socket.
    assert daemon.connect().call("rpc.status")["result"]["pid"] == daemon.proc.pid


def test_daemon_status_and_stop_honour_socket(
    make_daemon: Any,
    short_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``ade daemon status|stop --socket PATH`` talk to the daemon on PATH, not the default one."""
    custom = short_dir / "alt" / "custom.sock"
    daemon = make_daemon("--socket", str(custom))
    assert custom.exists()
    assert not daemon.socket.exists()  # nothing at the default path
    monkeypatch.setenv("ADE_RUNTIME_DIR", str(daemon.runtime))
    monkeypatch.setenv("ADE_CONFIG_DIR", str(daemon.config))
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    assert ade_main(["daemon", "status"]) == 1  # the default socket: no daemon there
    capsys.readouterr()
    assert ade_main(["daemon", "status", "--socket", str(custom)]) == 0
    out = capsys.readouterr().out
    assert f"pid {daemon.proc.pid}" in out
    assert f"socket:      {custom}" in out
    assert ade_main(["daemon", "stop", "--socket", str(custom)]) == 0
    assert daemon.proc.wait(timeout=20) == 0
    assert not custom.exists()
    assert ade_main(["daemon", "status", "--socket", str(custom)]) == 1
    assert str(custom) in capsys.readouterr().err


def test_stale_socket_file_is_replaced(make_daemon: Any) -> None:
    first = make_daemon()
    first.proc.send_signal(signal.SIGKILL)  # dies without cleaning up
    first.proc.wait(timeout=10)
    assert first.socket.exists()
    with pytest.raises(ConnectionRefusedError):
        first.connect()
    second = make_daemon()
    assert second.connect().call("rpc.status")["result"]["pid"] == second.proc.pid


def test_a_regular_file_at_the_socket_path_is_not_deleted(short_dir: Path) -> None:
    runtime = short_dir / "run"
    runtime.mkdir(mode=0o700)
    squatter = runtime / "daemon.sock"
    squatter.write_text("precious")
    with pytest.raises(AdeError, match="not a socket"):
        bind_socket(squatter)
    assert squatter.read_text() == "precious"


def test_instance_lock_is_exclusive(short_dir: Path) -> None:
    first, second = InstanceLock(short_dir), InstanceLock(short_dir)
    first.acquire(short_dir / "daemon.sock")
    with pytest.raises(AdeError, match=f"already running \\(pid {os.getpid()}"):
        second.acquire(short_dir / "daemon.sock")
    first.release()
    second.acquire(short_dir / "daemon.sock")
    second.release()


def test_runtime_dir_precedence() -> None:
    assert runtime_dir({"ADE_RUNTIME_DIR": "/a", "XDG_RUNTIME_DIR": "/b"}) == Path("/a")
    assert runtime_dir({"XDG_RUNTIME_DIR": "/run/user/1"}) == Path("/run/user/1/ade")
    assert str(os.getuid()) in runtime_dir({}).name


def test_socket_path_over_the_limit_is_refused() -> None:
    long_dir = "/tmp/" + "x" * (SUN_PATH_MAX - len("/tmp/") - len("/daemon.sock") + 1)
    with pytest.raises(AdeError, match="107-byte limit"):
        socket_path({"ADE_RUNTIME_DIR": long_dir})
    check_socket_path(Path("/tmp/" + "x" * (SUN_PATH_MAX - len("/tmp/"))))


def test_peer_allowed_only_for_the_same_uid() -> None:
    assert peer_allowed(PeerCredentials(pid=1, uid=1000, gid=1000), own_uid=1000)
    assert not peer_allowed(PeerCredentials(pid=1, uid=1001, gid=1000), own_uid=1000)
    assert not peer_allowed(PeerCredentials(pid=1, uid=0, gid=0), own_uid=1000)


def test_peer_credentials_are_the_kernels() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        peer = peer_credentials(left)
    assert (peer.pid, peer.uid, peer.gid) == (os.getpid(), os.getuid(), os.getgid())


class _NoHost:
    def query(self, root: Path, args: Any, *, fresh: bool = True) -> Any:
        raise AssertionError("a refused peer must never reach the engine")

    index_status = rebuild_index = query


async def test_connection_from_another_uid_is_refused(
    short_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The real server loop and socket, told that its own uid is someone else's."""
    path = short_dir / "run" / "daemon.sock"
    sock = bind_socket(path).sock
    server = DaemonServer(SearchDomain(_NoHost()), "token", own_uid=os.getuid() + 1)
    stop = asyncio.Event()
    serving = asyncio.create_task(server.serve(sock, stop))
    caplog.set_level(logging.WARNING, logger=AUDIT_LOGGER)
    reader, writer = await asyncio.open_unix_connection(str(path))
    writer.write(b'{"jsonrpc":"2.0","id":1,"method":"search.query","params":{}}\n')
    await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(), 10)
    except ConnectionResetError:  # closed with our request unread
        answer = b""
    assert answer == b""  # closed, nothing answered
    writer.close()
    stop.set()
    await serving
    assert f"refused connection from uid {os.getuid()}" in caplog.text
