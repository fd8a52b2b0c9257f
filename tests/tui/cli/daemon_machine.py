"""A private runtime and config folder for tests that run real daemons (`ade search` starts
them): found by that folder in their environment and stopped by pid when the test ends."""

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

from cli_helpers import CLEAN_ENV, DEMO_NOW

ROOT = Path(__file__).resolve().parents[3]
WAIT_S = 30.0


class Machine:
    """A private runtime and config folder: the daemons `ade` starts there, and `ade` itself."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.runtime = base / "run"
        self.socket = self.runtime / "daemon.sock"
        self.log = self.runtime / "daemon.log"
        self.env = {k: v for k, v in os.environ.items() if k not in (*CLEAN_ENV, "ADE_DAEMON")}
        self.env.update(
            ADE_NOW=DEMO_NOW, ADE_RUNTIME_DIR=str(self.runtime), ADE_CONFIG_DIR=str(base / "cfg")
        )

    def command(self, *argv: str) -> list[str]:
        # -P: the cwd (a project folder with its own modules) never shadows an import
        return [sys.executable, "-P", "-c", "from tui.cli import main_entry; main_entry()", *argv]

    def ade(self, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(*argv), env={**self.env, **env}, cwd=ROOT,
                              capture_output=True, text=True, timeout=60, check=False)  # fmt: skip

    def daemons(self) -> list[int]:
        """Pids of the live daemon processes started in this runtime folder (lock losers too)."""
        marker = f"ADE_RUNTIME_DIR={self.env['ADE_RUNTIME_DIR']}".encode()
        return [int(entry) for entry in os.listdir("/proc")
                if entry.isdigit() and _started_here(int(entry), marker)]  # fmt: skip

    def wait_listening(self) -> None:
        deadline = time.monotonic() + WAIT_S
        while not _answers(self.socket):
            assert time.monotonic() < deadline, f"no daemon came up: {self._log_text()}"
            time.sleep(0.02)  # another process binding its socket: nothing to block on

    def wait_until(self, count: int) -> list[int]:
        """The daemon pids once exactly ``count`` are left (lock losers take a moment to exit)."""
        deadline = time.monotonic() + WAIT_S
        while len(pids := self.daemons()) != count:
            assert time.monotonic() < deadline, (pids, self._log_text())
            time.sleep(0.02)  # another process's exit: nothing to wait on
        return pids

    def status(self, **env: str) -> dict[str, object]:
        done = self.ade("daemon", "status", "--json", **env)
        assert done.returncode == 0, done.stderr
        status: dict[str, object] = json.loads(done.stdout)
        return status

    def stop_all(self) -> None:
        for pid in self.daemons():
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + WAIT_S
        while (left := self.daemons()) and time.monotonic() < deadline:
            time.sleep(0.05)  # another process's exit: nothing to wait on
        for pid in left:
            os.kill(pid, signal.SIGKILL)

    def _log_text(self) -> str:
        return self.log.read_text() if self.log.exists() else "(no log)"


PF_KTHREAD = 0x00200000
"""``/proc/<pid>/stat`` flags: a kernel thread, which never has a command line."""


def _started_here(pid: int, marker: bytes) -> bool:
    """Whether ``pid`` is a live daemon whose environment holds ``marker``.

    A process whose command line reads empty is not decided yet: it is mid-exec (``Popen``
    returns once exec has closed its close-on-exec pipe, before the kernel has laid out the new
    argv and environ; under load a spawned daemon can sit there until after the search that
    started it has exited) or exiting (its memory released before it becomes a zombie). Every
    live process has a command line since Linux 5.18 (an empty argv gets ``""``), so it is read
    again until it has one or is gone.
    """
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            return False  # gone, or another user's (its environ is not ours to read)
        state, flags = stat[0], int(stat[6])
        if state == "Z" or flags & PF_KTHREAD:
            return False
        if cmdline:
            return marker in environ and b"engine.rpc" in cmdline
        assert time.monotonic() < deadline, f"pid {pid} has no command line"
        time.sleep(0.001)  # another process's exec or exit: nothing to wait on


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def private_machine() -> Iterator[Machine]:
    """A ``Machine`` in a fresh folder, its daemons stopped and the folder removed after."""
    base = Path(tempfile.mkdtemp(prefix="ade-as-", dir="/tmp"))  # a socket path fits 107 bytes
    machine = Machine(base)
    try:
        yield machine
    finally:
        machine.stop_all()
        shutil.rmtree(base, ignore_errors=True)
