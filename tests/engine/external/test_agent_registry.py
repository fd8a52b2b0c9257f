"""The one agent table is the one list: every reader of agents agrees with it."""

from __future__ import annotations

from pathlib import Path

from engine.agent_table import AGENT_NAMES, AGENT_VARIABLES, AGENTS
from engine.basics.caller_env import AGENT_FOLDERS
from engine.external.agent_format import AgentFormat
from engine.external.registry import agent_format, all_formats
from engine.project.tally import WarningTally
from engine.types import AGENT_TOOLS
from tui.logic.kinds import KIND_MODES


def test_every_table_line_names_a_format_of_its_own_name() -> None:
    formats = all_formats()
    assert [f.name for f in formats] == list(AGENT_NAMES)
    assert all(isinstance(f, AgentFormat) and f.hidden for f in formats)
    assert len(set(AGENT_NAMES)) == len(AGENTS)


def test_the_daemon_matches_every_variable_that_moves_an_agent() -> None:
    # caller_env spells them out (a daemon-answered search imports nothing more): kept equal here
    assert set(AGENT_FOLDERS) == {"HOME", *AGENT_VARIABLES}


def test_the_tool_filter_and_the_palette_stops_list_the_table() -> None:
    assert AGENT_TOOLS == AGENT_NAMES
    stops = [m.label for m in KIND_MODES if m.label.startswith("chat: ")]
    assert stops == [f"chat: {name}" for name in AGENT_NAMES]


def test_an_agent_home_moves_with_its_variable(tmp_path: Path) -> None:
    for line in AGENTS:
        fmt = agent_format(line.name)
        env = {"HOME": str(tmp_path / "home")}
        default = fmt.session_folders(env)
        # An agent without a variable has its home fixed under HOME (Cursor, Droid, iFlow)
        # or none at all (Aider keeps its history beside the repository).
        assert all(tmp_path / "home" in p.parents for p in default)
        if line.variable is None:
            assert bool(default) == bool(line.folders)
            continue
        env[line.variable] = str(tmp_path / "moved")
        moved = fmt.session_folders(env)
        assert moved
        assert all(tmp_path / "moved" in p.parents for p in moved)


def test_a_tool_call_without_arguments_is_its_name_alone() -> None:
    line = (
        b'{"type":"assistant","uuid":"u1","message":{"content":'
        b'[{"type":"tool_use","id":"t1","name":"list_tabs"}]}}\n'
    )
    events, _, _ = agent_format("claude").parse(line, 0, "chat:claude-x", WarningTally(), {})
    assert [(e.type, e.data["name"], e.data["input"]) for e in events] == [
        ("tool_call", "list_tabs", "")
    ]
