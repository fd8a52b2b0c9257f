"""The palette routes through a running daemon (docs/daemon.md): a real ``python -m engine.rpc``
subprocess on a real socket serves the hits the palette paints; ``--no-daemon`` stays in-process.

Waiting for the daemon to bind and to finish its backfill polls another process with a deadline
(there is nothing of ours to drive), as the daemon tests do.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.rpc.client import DaemonClient, connect_daemon
from tui.app import PaletteApp
from tui.palette_client import open_palette_client
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.result_list import ResultList

from .conftest import make_app, opened, settle

DEADLINE_S = 30.0
"""Generous for a shared 2-core box: the demo's backfill takes about a second."""


@pytest.fixture
def daemon_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real daemon with private runtime and config folders, which this process also uses.

    The folder is short and under /tmp: a socket path must fit in 107 bytes.
    """
    base = Path(tempfile.mkdtemp(prefix="ade-pal-", dir="/tmp"))
    env = {**os.environ, "ADE_RUNTIME_DIR": str(base / "run"), "ADE_CONFIG_DIR": str(base / "cfg"),
           "ADE_NOW": "2026-06-15T12:00:00+00:00"}  # fmt: skip
    env.pop("ADE_SESSION_ID", None)
    log = base / "daemon.log"
    command = [sys.executable, "-m", "engine.rpc", "--log-file", str(log), "--backfill-delay", "0"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not (log.exists() and "listening on" in log.read_text()):
            assert proc.poll() is None, "the daemon exited at start"
            assert time.monotonic() < deadline, "the daemon did not start"
            time.sleep(0.02)
        monkeypatch.delenv("ADE_DAEMON", raising=False)  # the suite's "off" means none is used
        monkeypatch.setenv("ADE_RUNTIME_DIR", env["ADE_RUNTIME_DIR"])
        monkeypatch.setenv("ADE_CONFIG_DIR", env["ADE_CONFIG_DIR"])
        yield log
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        shutil.rmtree(base, ignore_errors=True)


def wait_indexed_by_daemon(root: Path) -> None:
    client = connect_daemon(project_root=root)
    assert client is not None, "no daemon answered"
    try:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            status = client.index_status()
            if status.backfill_completed_at is not None and status.pending_sources == 0:
                return
            assert time.monotonic() < deadline, f"the daemon did not index {root}"
            time.sleep(0.05)  # the daemon's writer thread does the work
    finally:
        client.close()


def palette(root: Path, *, use_daemon: bool) -> PaletteApp:
    opener = partial(open_palette_client, use_daemon=use_daemon, watch=False)
    return make_app(None, opener=opener, root=root)


async def test_palette_shows_hits_served_by_the_daemon(daemon_env: Path, demo_copy: Path) -> None:
    wait_indexed_by_daemon(demo_copy)
    app = palette(demo_copy, use_daemon=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press(*"healthz")  # typed while the project may still be opening
            await opened(pilot)
            client = app.clients.current()
            assert isinstance(client, DaemonClient)
            hits = [r for r in app.screen.query_one(ResultList).rows if not r.local]
            assert any(r.kind == "terminal" for r in hits)
            status = str(app.screen.query_one("#status").render())
            assert "docs" in status  # the daemon's index status reached the footer
            # Activation works over the daemon client too (listings are local file reads).
            listing = app.screen.query_one(ResultList)
            listing.highlighted = listing.rows.index(next(r for r in hits if r.kind == "terminal"))
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ScrollbackScreen)
    finally:
        app.clients.close()


async def test_no_daemon_stays_in_process_beside_a_running_daemon(
    daemon_env: Path, demo_copy: Path
) -> None:
    app = palette(demo_copy, use_daemon=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await opened(pilot)
            assert isinstance(app.clients.current(), EmbeddedClient)
    finally:
        app.clients.close()


def test_without_a_daemon_the_opener_is_embedded(demo_copy: Path) -> None:
    client = open_palette_client(demo_copy, use_daemon=True, watch=False)
    try:
        assert isinstance(client, EmbeddedClient)  # the autouse fixture points at no daemon
    finally:
        client.close()
