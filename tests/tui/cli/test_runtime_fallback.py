"""Without ``XDG_RUNTIME_DIR`` the daemon's socket is in ``$TMPDIR/ade-<uid>`` (start-up budget).

A machine without a systemd user session (a container, ssh into a minimal box, this one) has no
``XDG_RUNTIME_DIR``. The socket's folder then came from ``platformdirs``' cache folder, whose
import (with ``tempfile``, ``shutil``, ``urllib.parse`` behind it) cost ~9 ms of every
daemon-answered search. Each check runs a real daemon and a fresh client interpreter with no
``ADE_RUNTIME_DIR`` nor ``XDG_RUNTIME_DIR``: only ``TMPDIR`` says where the folder goes.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW, loaded_modules, wait_until_listening

from tui.daemon_search import SEARCH_RENDERER

RUNTIME_VARIABLES = ("ADE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR")


def _env(temporary: Path) -> dict[str, str]:
    # ADE_DAEMON=off (the suite's) would mean the daemon is not used
    dropped = {*CLEAN_ENV, *RUNTIME_VARIABLES, "ADE_DAEMON"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(ADE_NOW=DEMO_NOW, ADE_CONFIG_DIR=str(temporary / "cfg"), TMPDIR=str(temporary))
    return env


def _start_daemon(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "engine.rpc", "--log-file", str(log), "--backfill-delay", "0",
               "--renderer", SEARCH_RENDERER]  # fmt: skip
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture
def temporary() -> Iterator[Path]:
    """A ``TMPDIR`` of the test's own, short enough for a socket path."""
    folder = Path(tempfile.mkdtemp(prefix="ade-tmp-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_daemon_without_xdg_runtime_dir_serves_from_tmpdir_and_its_client_stays_light(
    warm_demo: Path, temporary: Path
) -> None:
    env = _env(temporary)
    log = temporary / "daemon.log"
    proc = _start_daemon(env, log)
    try:
        wait_until_listening(proc, log)
        folder = temporary / f"ade-{os.getuid()}"
        assert stat.S_ISSOCK((folder / "daemon.sock").lstat().st_mode)
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700

        argv = ["search", "--project", str(warm_demo), "timeout", "--json"]
        assert loaded_modules(argv, env)[0] == 0  # the daemon opens the project once
        # As a wheel install runs it: this checkout's editable finder imports urllib.parse.
        code, modules = loaded_modules(argv, env, site=False)
        assert code == 0
        assert "apsw" not in modules  # answered by the daemon, not in process
        assert not {"platformdirs", "tempfile", "shutil", "urllib.parse"} & modules
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a folder someone else owns")
def test_a_folder_of_that_name_someone_else_made_is_refused(temporary: Path) -> None:
    """``/tmp`` is everyone's: another user may make ``ade-<our uid>`` first. The daemon must
    not listen in it (that user could connect), and says why in one line."""
    planted = temporary / f"ade-{os.getuid()}"
    planted.mkdir(mode=0o777)
    os.chown(planted, 65534, 65534)
    proc = _start_daemon(_env(temporary), temporary / "daemon.log")
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:  # it listened after all: no daemon outlives the test
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert b"belongs to uid 65534, not to us" in err
    assert b"Traceback" not in err
    assert not (planted / "daemon.sock").exists()
