"""``ade daemon run --socket PATH`` deletes nothing but its own stale socket and
changes the mode of no folder it did not create; the README's ``/tmp`` example works."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest

from engine.errors import AdeError
from engine.rpc.lifecycle import InstanceLock, bind_socket
from engine.rpc.paths import prepare_socket_dir
from tui.cli import main as ade_main


@pytest.fixture
def shared_dir(short_dir: Path) -> Path:
    """A folder like ``/tmp``: sticky and world-writable, existing before the daemon runs."""
    shared = short_dir / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    return shared


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_socket_in_a_shared_folder_leaves_its_mode_alone(
    make_daemon: Any, shared_dir: Path
) -> None:
    path = shared_dir / "ade-alt.sock"
    daemon = make_daemon("--socket", str(path))
    assert _mode(shared_dir) == 0o1777  # was chmod-ed to 0700
    assert stat.S_ISSOCK(path.lstat().st_mode)
    assert _mode(path) == 0o600
    assert ade_main(["daemon", "status", "--socket", str(path)]) == 0
    lock = shared_dir / "ade-alt.sock.lock"
    assert lock.exists()  # its own lock, not a `daemon.lock` shared by every --socket user
    assert not (shared_dir / "daemon.lock").exists()
    assert daemon.stop() == 0
    assert not path.exists()
    assert _mode(shared_dir) == 0o1777


def test_a_missing_socket_folder_is_created_private(make_daemon: Any, short_dir: Path) -> None:
    path = short_dir / "fresh" / "deeper" / "alt.sock"
    daemon = make_daemon("--socket", str(path))
    assert _mode(path.parent) == 0o700  # ours: made private
    daemon.stop()


def test_a_regular_file_at_the_socket_path_survives_a_refused_start(
    shared_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = shared_dir / "notes.sock"
    precious.write_text("precious")
    code = ade_main(["daemon", "run", "--socket", str(precious), "--backfill-delay", "0"])
    assert code == 2
    assert "not a socket" in capsys.readouterr().err
    assert precious.read_text() == "precious"  # the shutdown path used to unlink it


def test_a_live_socket_that_is_not_ours_to_replace_is_kept(shared_dir: Path) -> None:
    path = shared_dir / "live.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    try:
        with pytest.raises(AdeError, match="something is listening"):
            bind_socket(path, private_dir=False)
        assert stat.S_ISSOCK(path.lstat().st_mode)
    finally:
        listener.close()


def test_a_stale_socket_of_ours_is_replaced(shared_dir: Path) -> None:
    path = shared_dir / "stale.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: a daemon killed with -9
    bound = bind_socket(path, private_dir=False)
    try:
        assert path.lstat().st_ino == bound.identity[1]
    finally:
        bound.sock.close()
        bound.remove()
    assert not path.exists()


def test_shutdown_removes_only_the_socket_it_bound(shared_dir: Path) -> None:
    path = shared_dir / "moved.sock"
    bound = bind_socket(path, private_dir=False)
    bound.sock.close()
    path.unlink()
    path.write_text("someone else's file now")
    bound.remove()
    assert path.read_text() == "someone else's file now"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder someone else owns")
def test_a_shared_folder_owned_by_another_user_is_usable(shared_dir: Path) -> None:
    """A normal user's ``/tmp`` is root's: the README example was refused ("belongs to uid
    0, not to us") — or, run as root, it chmod-ed /tmp to 0700."""
    os.chown(shared_dir, 65534, 65534)
    assert prepare_socket_dir(shared_dir, private=False) == shared_dir
    assert _mode(shared_dir) == 0o1777
    with pytest.raises(AdeError, match="belongs to uid 65534"):
        prepare_socket_dir(shared_dir, private=True)  # the default runtime folder must be ours


def test_a_lock_file_planted_by_a_symlink_is_refused(shared_dir: Path, short_dir: Path) -> None:
    target = short_dir / "victim.txt"
    target.write_text("keep me")
    (shared_dir / "alt.sock.lock").symlink_to(target)
    with pytest.raises(AdeError, match="lock file"):
        InstanceLock.beside(shared_dir / "alt.sock").acquire(shared_dir / "alt.sock")
    assert target.read_text() == "keep me"  # was truncated and overwritten with our pid
