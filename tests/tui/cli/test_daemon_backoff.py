"""A daemon `ade search` started that could not start is not spawned again by every search.

Real processes as in test_daemon_autostart.py. A spawned daemon exists when the search that
started it exits (it waits for that exit) and writes its log line before it exits itself, so
"no daemon process right after the search, and still one failure in the log" proves none was
spawned. Time passes by moving the marker's mtime back (``os.utime``), never by sleeping.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_machine import ROOT, Machine, private_machine

from engine.rpc.autostart import daemon_command
from engine.rpc.start_backoff import BACKOFF_S, failure_marker, may_start, read_failure


@pytest.fixture
def machine() -> Iterator[Machine]:
    yield from private_machine()


def _search(machine: Machine, demo: Path) -> subprocess.CompletedProcess[str]:
    return machine.ade("search", "--project", str(demo), "timeout", "--json")


def _marker(machine: Machine) -> Path:
    return Path(failure_marker(str(machine.socket), machine.env))


def _failures(machine: Machine) -> int:
    return machine.log.read_text().count("ade daemon could not start")


def _fail_once(machine: Machine, demo: Path) -> Path:
    """A file where the socket goes (a failure that lasts): one search, one failed daemon."""
    machine.runtime.mkdir(mode=0o700)
    machine.socket.write_text("not a socket\n")
    assert _search(machine, demo).returncode == 0
    machine.wait_until(0)
    assert _failures(machine) == 1
    return _marker(machine)


def _age(marker: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(marker, (then, then))


def test_a_failed_start_leaves_a_marker_and_the_next_searches_spawn_nothing(
    warm_demo: Path, machine: Machine
) -> None:
    local = machine.ade("search", "--project", str(warm_demo), "timeout", "--json", "--no-daemon")
    marker = _fail_once(machine, warm_demo)
    reason, log = read_failure(str(marker))
    assert "exists and is not a socket" in reason
    assert log == str(machine.log)
    assert marker.stat().st_mode & 0o777 == 0o600  # nobody told yet
    written = marker.stat().st_mtime_ns
    for _ in range(2):
        again = _search(machine, warm_demo)
        assert (again.returncode, again.stdout, again.stderr) == (
            local.returncode,
            local.stdout,
            local.stderr,
        )  # stderr no terminal: not a word
        assert machine.daemons() == []
    assert _failures(machine) == 1
    assert marker.stat().st_mtime_ns == written  # no retry claimed


def test_after_the_backoff_one_search_retries_and_a_failed_retry_backs_off_again(
    warm_demo: Path, machine: Machine
) -> None:
    marker = _fail_once(machine, warm_demo)
    _age(marker, BACKOFF_S + 60)
    assert _search(machine, warm_demo).returncode == 0
    machine.wait_until(0)
    assert _failures(machine) == 2  # the one retry, failed again
    assert time.time() - marker.stat().st_mtime < 60  # a fresh marker: the clock starts again
    assert _search(machine, warm_demo).returncode == 0
    assert machine.daemons() == []
    assert _failures(machine) == 2


def test_a_daemon_that_starts_removes_the_marker(warm_demo: Path, machine: Machine) -> None:
    marker = _fail_once(machine, warm_demo)
    machine.socket.unlink()  # the user's fix
    _age(marker, BACKOFF_S + 60)
    assert _search(machine, warm_demo).returncode == 0
    machine.wait_listening()
    machine.wait_until(1)
    assert not marker.exists()


def test_a_lost_lock_race_leaves_no_marker(machine: Machine) -> None:
    first = subprocess.Popen(daemon_command(), env=machine.env, cwd="/", stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        machine.wait_listening()
        second = subprocess.run(daemon_command(marker=str(_marker(machine))), env=machine.env,
                                cwd="/", capture_output=True, timeout=60, check=False)  # fmt: skip
        assert second.returncode == 0
        assert "ade daemon not started: an ade daemon is already running" in (
            machine.log.read_text()
        )
        assert not _marker(machine).exists()
    finally:
        first.terminate()
        first.wait(timeout=60)


def _search_on_a_terminal(machine: Machine, demo: Path) -> str:
    """What the search writes to stderr when stderr is a terminal (a pty)."""
    main, side = pty.openpty()
    try:
        done = subprocess.run(machine.command("search", "--project", str(demo), "timeout", "--json"),
                              env=machine.env, cwd=ROOT, stdout=subprocess.PIPE, stderr=side,
                              timeout=60, check=False)  # fmt: skip
    finally:
        os.close(side)
    assert done.returncode == 0
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: everything written has been read and the other side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return b"".join(chunks).decode().replace("\r\n", "\n")


def test_the_user_is_told_once_and_only_on_a_terminal(warm_demo: Path, machine: Machine) -> None:
    marker = _fail_once(machine, warm_demo)
    assert _search(machine, warm_demo).stderr == ""  # a pipe: nobody to tell, nor marked told
    assert marker.stat().st_mode & 0o777 == 0o600
    told = _search_on_a_terminal(machine, warm_demo)
    assert told.splitlines() == [
        f"ade: the background daemon could not start ({machine.socket} exists and is not a "
        f"socket: move it away and retry; see {machine.log}); searching in process"
    ]
    assert marker.stat().st_mode & 0o777 == 0o400
    assert _search_on_a_terminal(machine, warm_demo) == ""
    assert machine.daemons() == []


def test_daemon_status_mentions_the_last_failure(warm_demo: Path, machine: Machine) -> None:
    _fail_once(machine, warm_demo)
    done = machine.ade("daemon", "status")
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0].startswith("no ade daemon is running")
    assert "could not start (0 min ago)" in lines[1]
    assert "exists and is not a socket" in lines[1]
    assert f"see {machine.log}; the next `ade search` tries again in 15 min" in lines[2]


def test_a_broken_install_leaves_the_marker_too(
    warm_demo: Path, machine: Machine, tmp_path: Path
) -> None:
    """An ``engine`` that cannot be imported (an upgrade half done): the daemon's first lines
    record it without ade; the next search then spawns nothing (it would have made the log)."""
    shadow = tmp_path / "shadow"
    (shadow / "engine").mkdir(parents=True)
    (shadow / "engine" / "__init__.py").write_text("")
    marker = _marker(machine)
    broken = subprocess.run(daemon_command(marker=str(marker)),
                            env={**machine.env, "PYTHONPATH": str(shadow)}, cwd="/",
                            capture_output=True, timeout=60, check=False)  # fmt: skip
    assert broken.returncode == 2
    reason, log = read_failure(str(marker))
    assert reason.startswith("ade cannot be imported: ImportError(")  # the shadow engine
    assert log == ""
    assert _search(machine, warm_demo).returncode == 0
    assert machine.daemons() == []
    assert not machine.log.exists()


def test_a_marker_from_a_clock_set_back_does_not_hold_forever(tmp_path: Path) -> None:
    marker = tmp_path / "daemon-failed-x"
    marker.write_text("reason\nlog: \n")
    now = marker.stat().st_mtime
    assert not may_start(str(marker), now=now + BACKOFF_S - 1)
    assert may_start(str(marker), now=now - BACKOFF_S - 1)  # written "in the future"
    assert marker.stat().st_mtime == pytest.approx(
        now - BACKOFF_S - 1
    )  # claimed: the next waits again
    assert not may_start(str(marker), now=now - BACKOFF_S)
    assert may_start(str(tmp_path / "none"))


def test_a_daemon_that_failed_after_binding_records_no_start_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.rpc import start_backoff

    monkeypatch.setenv("ADE_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setattr(start_backoff, "_listening", False)
    socket = str(tmp_path / "daemon.sock")
    marker = Path(failure_marker(socket))
    start_backoff.record_failure(str(marker), "before binding", None)
    assert read_failure(str(marker)) == ("before binding", "")
    start_backoff.note_started(socket)
    assert not marker.exists()
    start_backoff.record_failure(str(marker), "while serving", None)
    assert not marker.exists()  # it did start: searches need not hold back


def test_the_marker_folder_follows_xdg_state_without_importing_platformdirs() -> None:
    from engine.rpc.start_backoff import state_folder

    assert state_folder({"ADE_CONFIG_DIR": "/c", "XDG_STATE_HOME": "/s", "HOME": "/h"}) == "/c"
    assert state_folder({"XDG_STATE_HOME": "/s", "HOME": "/h"}) == "/s/ade"
    assert state_folder({"XDG_STATE_HOME": "rel", "HOME": "/h"}) == "/h/.local/state/ade"
    probe = (
        "import sys; from engine.rpc.start_backoff import failure_marker; "
        "print(failure_marker('/r/daemon.sock', {'HOME': '/h'}), 'platformdirs' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, timeout=60)  # fmt: skip
    folder, imported = done.stdout.split()
    assert (os.path.dirname(folder), imported) == ("/h/.local/state/ade", "False")


def test_a_palette_restarting_its_daemon_stops_at_the_first_failed_start(machine: Machine) -> None:
    """``restart_daemon`` spawned again and again for 15 s while each start failed; the marker
    the first one leaves (written before it exits) ends the loop after one."""
    from engine.rpc.autostart import restart_daemon

    machine.runtime.mkdir(mode=0o700)
    machine.socket.write_text("not a socket\n")
    assert restart_daemon(machine.socket, env=machine.env) is False
    machine.wait_until(0)
    assert _failures(machine) == 1
    assert _marker(machine).exists()
