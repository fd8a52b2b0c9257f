"""``ADE_DAEMON=off`` means off (docs/daemon-switches.md): with a daemon running, no search uses it — neither
the forwarded ``ade search``, the full path (``--status``), nor the palette's client — and none is
started. ``--no-daemon`` is the same for one command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_ade
from daemon_machine import Machine

from engine.embedded import EmbeddedClient
from engine.rpc.client import DaemonClient, connect_daemon
from engine.rpc.connection import call_once, daemon_switched_off
from tui.palette_client import open_palette_client


@pytest.fixture
def caller(module_daemon: Machine, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """This process finds the module's running daemon; ``ADE_DAEMON`` is the suite's ``off``."""
    for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR"):
        monkeypatch.setenv(name, module_daemon.env[name])
    monkeypatch.setenv("ADE_DAEMON", "off")
    return module_daemon


def _served(machine: Machine, root: Path) -> bool:
    return f"opened search service for {root.resolve()}" in machine.log.read_text()


def test_off_means_no_running_daemon_answers_a_search(caller: Machine, repo: Path) -> None:
    env = {name: caller.env[name] for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR")}
    before = caller.daemons()
    for flags in ([], ["--status"]):  # the forwarded search and the full path
        run = run_ade(["search", "--project", str(repo), "--json", *flags, "first"],
                      env={**env, "ADE_DAEMON": "off"})  # fmt: skip
        assert run.code == 0, run.err
        assert json.loads(run.out)
    assert not _served(caller, repo), "a search used the daemon with ADE_DAEMON=off"
    assert caller.daemons() == before, "a search started a daemon with ADE_DAEMON=off"
    # The positive control: the same search without the switch is the daemon's
    run = run_ade(
        ["search", "--project", str(repo), "--json", "first"], env={**env, "ADE_DAEMON": "on"}
    )
    assert run.code == 0, run.err
    assert _served(caller, repo)


def test_off_means_the_clients_never_connect(caller: Machine, repo: Path) -> None:
    assert daemon_switched_off()
    assert connect_daemon(repo) is None
    params = {"query": "first", "projectRoot": str(repo)}
    assert call_once("search.query", params, 10.0) is None
    client = open_palette_client(repo, use_daemon=True, watch=False)
    try:
        assert isinstance(client, EmbeddedClient)
    finally:
        client.close()


def test_the_clients_connect_without_the_switch(
    caller: Machine, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADE_DAEMON", "on")
    client = open_palette_client(repo, use_daemon=True, watch=False)
    try:
        assert isinstance(client, DaemonClient)
    finally:
        client.close()


@pytest.mark.parametrize("value", ["off", "OFF", " 0 ", "no", "false"])
def test_every_spelling_of_off_is_off(value: str) -> None:
    assert daemon_switched_off({"ADE_DAEMON": value})
    assert not daemon_switched_off({"ADE_DAEMON": "on"})
    assert not daemon_switched_off({})
