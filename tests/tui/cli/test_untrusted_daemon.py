"""A daemon socket that is not the user's own, and a daemon of the user's own that
answers garbage. ``ade search`` warns one line and answers in process; ``ade daemon
status|stop`` refuse with one line; nothing (query, project path, CTO token) reaches the
impostor. The impostor is ``fake_daemon.py`` run as ``nobody`` (needs root and ``setpriv``).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW, Run

FAKE = Path(__file__).resolve().parents[2] / "engine" / "rpc" / "fake_daemon.py"
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin") or sys.executable

needs_second_uid = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="running a daemon as another user needs root and setpriv",
)


def _ade(argv: list[str], runtime: Path, home: Path) -> Run:
    """The real entry point with the daemon allowed (the suite turns it off) in ``runtime``."""
    env = {k: v for k, v in os.environ.items() if k not in (*CLEAN_ENV, "ADE_DAEMON")}
    env |= {"ADE_RUNTIME_DIR": str(runtime), "ADE_CONFIG_DIR": str(home / "config"),
            "HOME": str(home), "ADE_NOW": DEMO_NOW}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", "from tui.cli import main_entry; main_entry()", *argv],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    return Run(done.returncode, done.stdout, done.stderr)


def _in_process(root: Path, *rest: str) -> Run:
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV} | {"ADE_NOW": DEMO_NOW}
    done = subprocess.run(
        [sys.executable, "-c", "from tui.cli import main_entry; main_entry()",
         "search", "--project", str(root), "--no-daemon", *rest],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    return Run(done.returncode, done.stdout, done.stderr)


class Fake:
    """A running ``fake_daemon.py``; ``received`` is every byte clients sent it."""

    def __init__(self, socket: Path, record: Path, proc: subprocess.Popen[str]) -> None:
        self.socket, self.record, self.proc = socket, record, proc

    @property
    def received(self) -> bytes:
        return self.record.read_bytes() if self.record.exists() else b""


@pytest.fixture
def shared() -> Iterator[Path]:
    """A short folder in /tmp every user may enter (sockets paths are short; ``nobody`` cannot
    traverse pytest's own tmp folders)."""
    folder = Path(tempfile.mkdtemp(prefix="ade-t-", dir="/tmp"))
    folder.chmod(0o777)
    shutil.copy(FAKE, folder / "fake.py")
    (folder / "fake.py").chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def start_fake(shared: Path) -> Iterator[Callable[..., Fake]]:
    procs: list[subprocess.Popen[str]] = []

    def start(socket: Path, mode: str = "ok", *, as_nobody: bool) -> Fake:
        record = shared / f"record-{len(procs)}"
        command = [SYSTEM_PYTHON, str(shared / "fake.py"), str(socket), str(record), mode]
        if as_nobody:
            command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"  # listening: no waiting by the clock
        return Fake(socket, record, proc)

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def _nobody() -> tuple[int, int]:
    entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def _runtime_owned_by_nobody(shared: Path) -> Path:
    runtime = shared / "run"
    runtime.mkdir(mode=0o700)
    os.chown(runtime, *_nobody())
    return runtime


def _runtime_ours_socket_nobodys(shared: Path, start_fake: Callable[..., Fake]) -> Path:
    runtime = shared / "run"
    runtime.mkdir()
    runtime.chmod(0o777)  # nobody binds the socket, then the folder is ours and private again
    start_fake(runtime / "daemon.sock", as_nobody=True)
    runtime.chmod(0o700)
    return runtime


def _runtime_ours_peer_nobodys(shared: Path, start_fake: Callable[..., Fake]) -> Path:
    runtime = _runtime_ours_socket_nobodys(shared, start_fake)
    os.chown(runtime / "daemon.sock", os.getuid(), os.getgid())  # the file lies; the peer not
    return runtime


@needs_second_uid
@pytest.mark.parametrize("setup", ["folder", "socket", "peer"])
def test_a_daemon_of_another_user_gets_nothing_and_the_search_answers_here(
    indexed_demo: Path, shared: Path, start_fake: Callable[..., Fake], tmp_path: Path, setup: str
) -> None:
    if setup == "folder":
        runtime = _runtime_owned_by_nobody(shared)
        start_fake(runtime / "daemon.sock", as_nobody=True)
    elif setup == "socket":
        runtime = _runtime_ours_socket_nobodys(shared, start_fake)
    else:
        runtime = _runtime_ours_peer_nobodys(shared, start_fake)
    run = _ade(["search", "--project", str(indexed_demo), "timeout", "--json"], runtime, tmp_path)
    expected = _in_process(indexed_demo, "timeout", "--json")
    assert (run.code, run.out) == (expected.code, expected.out)
    assert run.err.count("\n") == 1
    assert run.err.startswith("warning: not using the ade daemon: ")
    assert "searching in this process" in run.err
    assert "Traceback" not in run.err
    # No query, no project path, no token: the impostor's record stays empty (or unwritten)
    assert all(r.read_bytes() == b"" for r in shared.glob("record-*"))
    assert {p.name for p in runtime.iterdir()} <= {"daemon.sock"}  # nothing auto-started there


@needs_second_uid
@pytest.mark.parametrize("action", ["status", "stop"])
@pytest.mark.parametrize("setup", ["socket", "peer"])
def test_daemon_status_and_stop_refuse_another_users_socket(
    shared: Path, start_fake: Callable[..., Fake], tmp_path: Path, action: str, setup: str
) -> None:
    socket = shared / "x.sock"
    fake = start_fake(socket, as_nobody=True)
    if setup == "peer":
        os.chown(socket, os.getuid(), os.getgid())
    run = _ade(["daemon", action, "--socket", str(socket)], tmp_path / "run", tmp_path)
    assert run.code == 2
    assert run.out == ""
    assert run.err.count("\n") == 1, run.err
    assert "Traceback" not in run.err
    assert fake.received == b""  # no CTO token, no request
    assert fake.proc.poll() is None  # and no signal either


@pytest.mark.parametrize("mode", ["notjson", "shape", "shadow", "escape", "render-escape"])
def test_a_daemon_answering_garbage_costs_one_line_and_the_search_answers_here(
    indexed_demo: Path, shared: Path, start_fake: Callable[..., Fake], tmp_path: Path, mode: str
) -> None:
    runtime = shared / "run"
    runtime.mkdir(mode=0o700)
    fake = start_fake(runtime / "daemon.sock", mode, as_nobody=False)
    run = _ade(["search", "--project", str(indexed_demo), "timeout", "--json"], runtime, tmp_path)
    expected = _in_process(indexed_demo, "timeout", "--json")
    assert b"search.cli" in fake.received  # the daemon was asked: it is ours
    assert (run.code, run.out) == (expected.code, expected.out)
    assert run.err.count("\n") == 1, run.err
    assert run.err.startswith("warning: ")
    assert "Traceback" not in run.err
    assert "\x1b" not in run.out + run.err
    assert "/etc/shadow" not in run.out


@pytest.mark.parametrize("mode", ["notjson", "shape"])
def test_status_survives_a_daemon_answering_garbage(
    indexed_demo: Path, shared: Path, start_fake: Callable[..., Fake], tmp_path: Path, mode: str
) -> None:
    runtime = shared / "run"
    runtime.mkdir(mode=0o700)
    start_fake(runtime / "daemon.sock", mode, as_nobody=False)
    run = _ade(["search", "--project", str(indexed_demo), "--status"], runtime, tmp_path)
    assert "Traceback" not in run.err
    assert run.err.count("\n") <= 1, run.err
    assert run.code == 0
    assert "documents:" in run.out, run.out  # the in-process status


def test_a_daemon_that_refuses_its_socket_leaves_no_lock_file(tmp_path: Path) -> None:
    socket = tmp_path / "x.sock"
    socket.write_text("not a socket: the daemon must not replace it")
    run = _ade(["daemon", "run", "--socket", str(socket)], tmp_path / "run", tmp_path)
    assert run.code != 0
    assert run.err.count("\n") == 1, run.err
    assert not (tmp_path / "x.sock.lock").exists()
    assert socket.read_text().startswith("not a socket")
