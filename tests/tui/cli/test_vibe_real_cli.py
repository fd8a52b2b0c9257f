"""Sessions Mistral Vibe 3.0.3 really wrote (``tests/fixtures/agents/vibe/real/``) searched and
opened through the CLI on both paths: the project's session at its messages, the second lane's
tied to that lane, the reasoning never found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, run_main, search_argv

from engine.project.git import worktrees
from engine.project.lanes import lanes_from_worktrees
from engine.project.tally import WarningTally
from tests.engine.external.test_vibe_real_sessions import install_real

pytestmark = pytest.mark.usefixtures("cli_path")


def test_real_vibe_sessions_are_found_in_their_lanes_and_opened(
    demo_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lanes = lanes_from_worktrees(worktrees(demo_copy), WarningTally())
    second = next(lane for lane in lanes if lane.id != "primary")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("VIBE_HOME", str(install_real(tmp_path / "vibe-home", [lanes[0], second])))
    said = "> [4] assistant: The folder holds README.md and notes.txt, vibeanswerplum."
    items = found_and_opened(capsys, demo_copy, "vibe", ["vibeanswerplum"], said)
    assert items[0]["laneId"] == "primary"
    found_and_opened(capsys, demo_copy, "vibe", ["walrus"], "> [5] user: continue please, walrus")
    run = run_main(capsys, search_argv(demo_copy, "tool:vibe", "vibeanswerquince", "--json"))
    assert run.code == 0, run.err
    assert [item["laneId"] for item in json.loads(run.out)["items"]] == [second.id]
    never_found(capsys, demo_copy, "vibehiddenthought", "vibehiddensecond")
