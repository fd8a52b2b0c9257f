"""`ade search` starts the daemon for the next search when none answers (the start-up budget).

Real processes throughout: `ade` in child interpreters, the daemon they start detached in a
runtime folder of the test's own (``ADE_RUNTIME_DIR``), found afterwards by that folder in its
environment and stopped by pid when the test ends, so the suite never leaves a daemon behind.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_machine import ROOT, WAIT_S, Machine, private_machine

from engine.rpc.autostart import AUTO_IDLE_EXIT_S, autostart_allowed, daemon_command
from engine.rpc.idle import IdleClock
from engine.rpc.start_backoff import failure_marker, read_failure


@pytest.fixture
def machine() -> Iterator[Machine]:
    yield from private_machine()


def _same(a: subprocess.CompletedProcess[str], b: subprocess.CompletedProcess[str]) -> None:
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)


def test_a_search_without_a_daemon_starts_one_that_answers_the_next(
    warm_demo: Path, machine: Machine
) -> None:
    argv = ("search", "--project", str(warm_demo), "timeout", "--json")
    local = machine.ade(*argv, "--no-daemon")
    assert local.returncode == 0
    assert machine.daemons() == []
    first = machine.ade(*argv)
    _same(first, local)
    machine.wait_listening()
    status = machine.status()
    assert status["autoStarted"] is True
    assert status["idleExitS"] == AUTO_IDLE_EXIT_S
    assert status["projects"] == []  # nothing asked of it yet: the first search answered itself
    _same(machine.ade(*argv), local)
    status = machine.status()
    assert status["projects"] == [str(warm_demo.resolve())]  # the daemon answered the second
    text = machine.ade("daemon", "status").stdout
    assert "started:     by `ade search` (auto-started); exits after 30 min without a request" in (
        text
    )
    assert "ade daemon started by `ade search`" in machine.log.read_text()


def test_no_daemon_and_the_environment_opt_out_start_none(
    warm_demo: Path, machine: Machine
) -> None:
    argv = ("search", "--project", str(warm_demo), "timeout", "--json")
    assert machine.ade(*argv, "--no-daemon").returncode == 0
    assert machine.daemons() == []  # a spawned child exists before its parent exits
    for off in ("off", "0", "no", "False"):
        assert machine.ade(*argv, ADE_DAEMON=off).returncode == 0
        assert machine.daemons() == []
    assert not machine.socket.exists()
    assert not machine.log.exists()
    assert machine.ade(*argv, ADE_DAEMON="on").returncode == 0  # the positive control
    assert len(machine.daemons()) == 1


def test_a_status_query_starts_no_daemon(warm_demo: Path, machine: Machine) -> None:
    assert machine.ade("search", "--project", str(warm_demo), "--status").returncode == 0
    assert machine.daemons() == []


def test_two_searches_at_once_start_one_daemon(warm_demo: Path, machine: Machine) -> None:
    argv = ("search", "--project", str(warm_demo), "retry", "--json")
    local = machine.ade(*argv, "--no-daemon")
    searches = [
        subprocess.Popen(
            machine.command(*argv),
            env=machine.env,
            cwd=ROOT,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for search in searches:
        out, err = search.communicate(timeout=60)
        assert (search.returncode, out, err) == (local.returncode, local.stdout, local.stderr)
    machine.wait_listening()
    [pid] = machine.wait_until(1)
    assert machine.status()["pid"] == pid
    assert machine.log.read_text().count("listening on") == 1


def test_a_second_auto_started_daemon_exits_quietly(machine: Machine) -> None:
    """The instance lock decides: of two daemons started in the same instant one serves, the
    other exits 0 with one log line, whichever wins."""
    command = daemon_command()
    both = [subprocess.Popen(command, env=machine.env, cwd="/", stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(2)]  # fmt: skip
    try:
        machine.wait_listening()
        loser = next(iter(_first_exit(both)))
        assert loser.returncode == 0
        text = machine.log.read_text()
        assert text.count("ade daemon not started: an ade daemon is already running") == 1
        assert text.count("listening on") == 1
    finally:
        for proc in both:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=WAIT_S)


def _first_exit(procs: list[subprocess.Popen[bytes]]) -> list[subprocess.Popen[bytes]]:
    deadline = time.monotonic() + WAIT_S
    while not (done := [p for p in procs if p.poll() is not None]):
        assert time.monotonic() < deadline, "neither daemon exited"
        time.sleep(0.02)  # two children, either may exit: nothing single to wait on
    return done


def test_a_daemon_exits_by_itself_after_its_idle_limit(warm_demo: Path, machine: Machine) -> None:
    """`--idle-exit` (what an auto-started daemon gets, at 30 min): the process ends on its own,
    socket removed, exit 0; waited for with a bounded timeout, never slept through."""
    command = [*daemon_command(), "--idle-exit", "1"]
    daemon = subprocess.Popen(command, env=machine.env, cwd="/", stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        machine.wait_listening()
        argv = ("search", "--project", str(warm_demo), "timeout", "--json")
        assert machine.ade(*argv).returncode == 0  # a request, then nothing
        assert daemon.wait(timeout=WAIT_S) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    assert not machine.socket.exists()
    assert "exiting (idle exit)" in machine.log.read_text()


def test_a_daemon_started_by_hand_runs_until_stopped(machine: Machine) -> None:
    command = [sys.executable, "-P", "-m", "engine.rpc", "--log-file", str(machine.log)]
    daemon = subprocess.Popen(command, env=machine.env, cwd="/", stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        machine.wait_listening()
        status = machine.status()
        assert status["autoStarted"] is False
        assert status["idleExitS"] is None
        assert status["idleExitInS"] is None
        assert "started:     by hand; runs until stopped" in machine.ade("daemon", "status").stdout
    finally:
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=WAIT_S) == 0


@pytest.mark.parametrize("query", ["timeout", "zzznothingzzz"])
def test_a_daemon_that_cannot_start_changes_nothing_of_the_search(
    warm_demo: Path, machine: Machine, tmp_path: Path, query: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    machine.env["ADE_RUNTIME_DIR"] = str(blocker / "run")  # no runtime folder can be made there
    argv = ("search", "--project", str(warm_demo), query, "--json")
    local = machine.ade(*argv, "--no-daemon")
    assert local.returncode == (0 if query == "timeout" else 1)
    _same(machine.ade(*argv), local)
    machine.wait_until(0)  # the daemon it started has given up (and it did start: see below)
    # No runtime folder, no log: the failure is kept in the state folder (start_backoff)
    marker = failure_marker(str(blocker / "run" / "daemon.sock"), machine.env)
    reason, log = read_failure(marker)
    assert (reason, log) == (f"[Errno 20] Not a directory: '{blocker / 'run'}'", "")


def test_a_daemon_that_fails_to_start_costs_one_log_line(warm_demo: Path, machine: Machine) -> None:
    """A file where the socket should be: the daemon the search starts refuses it in its log
    and exits; the search answered as it would have without it."""
    machine.runtime.mkdir(mode=0o700)
    machine.socket.write_text("not a socket\n")
    argv = ("search", "--project", str(warm_demo), "timeout", "--json")
    local = machine.ade(*argv, "--no-daemon")
    _same(machine.ade(*argv), local)
    machine.wait_until(0)
    lines = machine.log.read_text().splitlines()
    assert [line for line in lines if "ERROR" in line] == [
        next(line for line in lines if "could not start" in line)
    ]
    assert "exists and is not a socket" in lines[-1]
    assert machine.socket.read_text() == "not a socket\n"


def test_an_agent_shell_starts_a_daemon_that_binds_roles_per_connection(
    warm_demo: Path, machine: Machine
) -> None:
    agent = {"ADE_SESSION_ID": "chat-agent-7", "ADE_ROLE": "worker"}
    argv = ("search", "--project", str(warm_demo), "timeout", "--json")
    assert machine.ade(*argv, **agent).returncode == 0
    machine.wait_listening()
    [pid] = machine.wait_until(1)
    environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert not [v for v in environ if v.startswith((b"ADE_SESSION_ID=", b"ADE_ROLE="))]
    assert machine.status()["role"] == "cto"  # the user's own CLI presents the token
    assert machine.status(**agent)["role"] == "agent"
    token = Path(machine.env["ADE_CONFIG_DIR"]) / "cto.token"
    assert token.stat().st_mode & 0o777 == 0o600


def test_the_switch_reads_off_values_only() -> None:
    assert autostart_allowed({})
    assert autostart_allowed({"ADE_DAEMON": "on"})
    assert not autostart_allowed({"ADE_DAEMON": " OFF "})
    assert not autostart_allowed({"ADE_DAEMON": "0"})


def test_the_idle_clock_counts_from_the_last_request_and_never_during_one() -> None:
    now = [100.0]
    clock = IdleClock(60.0, clock=lambda: now[0])
    now[0] = 130.0
    assert clock.idle_s() == 30.0
    assert clock.left_s() == 30.0
    clock.request_started()
    now[0] = 1000.0
    assert clock.idle_s() == 0.0
    assert clock.left_s() == 60.0
    clock.request_ended()
    now[0] = 1059.0
    assert clock.left_s() == 1.0
    now[0] = 1060.0
    # Past the limit with nothing running: returns at once, without the stop event.
    asyncio.run(asyncio.wait_for(clock.until_stopped_or_idle(asyncio.Event()), timeout=5))
    assert IdleClock(None).left_s() is None


def test_a_palette_client_outlives_the_idle_exit_of_its_daemon(
    warm_demo: Path, machine: Machine
) -> None:
    """A client kept open (the palette's) over an auto-started daemon that reached its idle
    exit starts another and searches on; a one-shot command's client (``restart=False``, the
    CLI answers in process instead) says the daemon is lost."""
    from engine.rpc.client import connect_daemon
    from engine.rpc.connection import DaemonLost
    from engine.types import SearchQueryArgs

    command = [*daemon_command(), "--idle-exit", "1"]
    first = subprocess.Popen(command, env=machine.env, cwd="/", stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    palette = one_shot = None
    try:
        machine.wait_listening()
        palette = connect_daemon(warm_demo, env=machine.env)
        one_shot = connect_daemon(warm_demo, env=machine.env, restart=False)
        assert palette is not None
        assert one_shot is not None
        args = SearchQueryArgs(query="timeout")
        before = palette.query(args)
        assert before.items
        assert first.wait(timeout=WAIT_S) == 0  # idle: it exits by itself
        with pytest.raises(DaemonLost):
            one_shot.query(args)
        assert palette.query(args).items == before.items  # answered by a new daemon
        [pid] = machine.wait_until(1)
        assert pid != first.pid
        assert machine.status()["autoStarted"] is True
    finally:
        for client in (palette, one_shot):
            if client is not None:
                client.close()
        if first.poll() is None:
            first.kill()
            first.wait()


def test_an_idle_exit_of_zero_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from tui.cli import main

    assert main(["daemon", "run", "--idle-exit", "0"]) == 2
    assert capsys.readouterr().err == "ade daemon: --idle-exit must be above 0 seconds (got 0)\n"


SPAWNER = """
import sys
from engine.rpc.autostart import start_daemon_in_background
print(start_daemon_in_background(), flush=True)
sys.stdin.read()  # the search's last moments, for as long as the test says
"""


def test_the_daemon_a_search_starts_waits_for_that_search_to_exit(machine: Machine) -> None:
    """The spawned daemon blocks on a pipe only its parent holds: its imports never take the
    CPU from the search's exit; it serves once the parent is gone."""
    parent = subprocess.Popen([sys.executable, "-c", SPAWNER], env=machine.env, cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        deadline = time.monotonic() + WAIT_S
        while "pipe_read" not in Path(f"/proc/{pid}/wchan").read_text():
            assert time.monotonic() < deadline, "the daemon does not wait on its pipe"
            time.sleep(0.02)  # the child's interpreter starting: nothing to block on
        assert not machine.socket.exists()  # blocked while the parent lives
        assert not machine.log.exists()
    finally:
        assert parent.stdin is not None
        parent.stdin.close()
        parent.wait(timeout=WAIT_S)
    machine.wait_listening()
    assert machine.status()["pid"] == pid
