"""Sessions the agents really wrote here (``tests/fixtures/agents/<name>/real/``: Mistral Vibe
3.0.3, Qwen Code 0.24.4, each recorded against a scripted model) searched and opened through the
CLI on both paths: the project's session at its messages (the resumed turn too), the second
lane's tied to that lane, the model's reasoning never found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, run_main, search_argv

from engine.agent_table import entry
from engine.project.git import worktrees
from engine.project.lanes import lanes_from_worktrees
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import install_real_home

pytestmark = pytest.mark.usefixtures("cli_path")

SAID = {
    "vibe": (
        "vibeanswerplum",
        "> [4] assistant: The folder holds README.md and notes.txt, vibeanswerplum.",
        "walrus",
        "user: continue please, walrus",
        "vibeanswerquince",
        ("vibehiddenthought", "vibehiddensecond"),
    ),
    "qwen": (
        "qwenanswerfig",
        "assistant: The folder holds README.md and notes.txt, qwenanswerfig.",
        "osprey",
        "user: continue please, osprey",
        "qwenanswerlime",
        ("qwenhiddenthought", "qwenhiddensecond"),
    ),
}
"""Per agent: a word of the project's answer and the line showing it, a word of the resumed
turn and its line, a word of the second lane's answer, the reasoning's words."""


@pytest.mark.parametrize("name", sorted(SAID))
def test_real_sessions_are_found_in_their_lanes_and_opened(
    name: str,
    demo_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer, shown, resumed, resumed_line, lane_word, hidden = SAID[name]
    lanes = lanes_from_worktrees(worktrees(demo_copy), WarningTally())
    second = next(lane for lane in lanes if lane.id != "primary")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    variable = entry(name).variable
    assert variable is not None
    home = install_real_home(name, tmp_path / f"{name}-home", demo_copy, second.path)
    monkeypatch.setenv(variable, str(home))
    items = found_and_opened(capsys, demo_copy, name, [answer], shown)
    assert items[0]["laneId"] == "primary"
    found_and_opened(capsys, demo_copy, name, [resumed], resumed_line)
    run = run_main(capsys, search_argv(demo_copy, f"tool:{name}", lane_word, "--json"))
    assert run.code == 0, run.err
    assert [item["laneId"] for item in json.loads(run.out)["items"]] == [second.id]
    never_found(capsys, demo_copy, *hidden)
