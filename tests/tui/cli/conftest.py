"""Fixtures for the `ade search` / `ade open` command-line tests.

``indexed_demo``: one writable copy of the demo per module, indexed once, for read-only queries.
``demo_copy``: a fresh writable copy per test (for tests that change transcripts or the index).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW, copy_demo, run_main, search_argv

from engine.agent_table import entry
from tests.engine.external.agent_homes import install_home
from tui.cli import main


@pytest.fixture(autouse=True)
def _cli_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CLEAN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ADE_NOW", DEMO_NOW)


@pytest.fixture(scope="module")
def indexed_demo(demo_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo whose index is built (first ``ade search`` run catches up)."""
    root = copy_demo(demo_project, tmp_path_factory.mktemp("cli") / "demo")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ADE_NOW", DEMO_NOW)
        for name in CLEAN_ENV:
            mp.delenv(name, raising=False)
        assert main(["search", "--project", str(root), "--no-daemon", "--status"]) == 0
    return root


@pytest.fixture
def demo_copy(demo_project: Path, tmp_path: Path) -> Path:
    """A fresh writable copy of the demo for one test."""
    return copy_demo(demo_project, tmp_path / "demo")


@pytest.fixture
def warm_demo(
    demo_copy: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """A fresh copy of the demo, indexed and warm: later searches find nothing to ingest."""
    # A home of its own: this machine's Claude Code or Codex folders are never read.
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert run_main(capsys, search_argv(demo_copy, "--status")).code == 0  # builds the index
    # The demo's malformed lines are counted on the first pass; the second finds nothing new
    # and stores the manifest, so later runs are warm (the start-up budget).
    assert run_main(capsys, search_argv(demo_copy, "--status")).code == 0
    return demo_copy


@pytest.fixture
def queried_demo(warm_demo: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``warm_demo`` after its first query, as a project is once searched: the origin remote's
    slug is remembered too (``engine.project.origin_memo``), which only that first query asks
    git for (and imports ``subprocess`` to)."""
    assert run_main(capsys, search_argv(warm_demo, "timeout", "--json")).code == 0
    return warm_demo


@pytest.fixture
def agent_home(
    demo_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Path]:
    """Installs an agent's fixture (``tests/fixtures/agents/<name>/``) for ``demo_copy``: a
    ``HOME`` of the test's own, the agent's home moved there by its variable (else at its default
    under ``HOME``), the project's sessions in the copy and the second lane's in ``elsewhere``,
    a folder of no project. Returns the agent's home."""

    def install(name: str) -> Path:
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        line = entry(name)
        home = tmp_path / "home" / line.default
        if line.variable is not None:
            home = tmp_path / "agent-home"
            monkeypatch.setenv(line.variable, str(home))
        return install_home(name, home, demo_copy, tmp_path / "elsewhere")

    return install
