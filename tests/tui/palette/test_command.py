"""``ade palette`` options and exit codes (the app itself is replaced: no terminal here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.demo.copy import copy_demo
from tui import cli, terminal_streams
from tui.app import PaletteApp


@pytest.fixture
def project(demo_project: Path, tmp_path: Path) -> Path:
    """A private copy: ``ade palette`` starts a backfill that writes the index."""
    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    return root


@pytest.fixture
def fake_run(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {"result": None}

    def run(app: PaletteApp) -> str | None:
        seen["app"] = app
        return seen["result"]

    monkeypatch.setattr(PaletteApp, "run", run)
    # Nor the terminal: these tests run without one, and must not borrow the developer's.
    monkeypatch.setattr(terminal_streams, "ensure_terminal", lambda: None)
    return seen


def test_print_outputs_the_chosen_link(
    fake_run: dict[str, Any], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_run["result"] = "ade://pr/41?project=acme-payments-demo"
    argv = ["palette", "--project", str(project), "--print", "--query", "retry", "--no-watch"]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == "ade://pr/41?project=acme-payments-demo\n"
    app = fake_run["app"]
    assert app.print_mode
    assert app.initial_query == "retry"


def test_print_cancelled_exits_1_and_prints_nothing(
    fake_run: dict[str, Any], project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["palette", "--project", str(project), "--print", "--no-watch"]) == 1
    assert capsys.readouterr().out == ""


def test_bare_ade_opens_the_palette(fake_run: dict[str, Any], project: Path) -> None:
    assert cli.main(["--project", str(project), "--no-daemon", "--no-watch"]) == 0
    assert not fake_run["app"].print_mode


def test_missing_project_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["palette", "--project", str(tmp_path / "nope")]) == 2
    assert "ade palette:" in capsys.readouterr().err


def test_interrupted_palette_exits_130_with_or_without_print(
    fake_run: dict[str, Any], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl+C (the app's ``interrupted``) is 130 as in fzf; plain ``ade`` used to exit 0."""
    real = fake_run_interrupting(monkeypatch)
    assert cli.main(["--project", str(project), "--no-daemon", "--no-watch"]) == 130
    assert cli.main(["palette", "--project", str(project), "--print", "--no-watch"]) == 130
    assert real["runs"] == 2


def fake_run_interrupting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    seen = {"runs": 0}

    def run(app: PaletteApp) -> None:
        seen["runs"] += 1
        app.interrupted = True  # what the Ctrl+C binding sets before exiting

    monkeypatch.setattr(PaletteApp, "run", run)
    return seen
