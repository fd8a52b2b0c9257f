"""`ade mcp --config AGENT` prints what each agent's own documentation says its MCP set-up takes,
and `ade skill` tells an agent the server exists."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from cli_helpers import run_main


def _snippet(text: str) -> str:
    """The part of the output after its last ``# or …`` / ``# add …`` comment line."""
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("#")) + 1
    return "\n".join(lines[start:])


def test_claude_gets_its_mcp_add_command_and_a_project_mcp_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = run_main(capsys, ["mcp", "--config", "claude", "--project", str(tmp_path)])
    assert run.code == 0
    assert f"claude mcp add ade -- ade mcp --project {tmp_path}\n" in run.out
    assert json.loads(_snippet(run.out)) == {
        "mcpServers": {"ade": {"command": "ade", "args": ["mcp", "--project", str(tmp_path)]}}
    }


def test_codex_gets_its_mcp_add_command_and_a_config_toml_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_main(capsys, ["mcp", "--config", "codex"])
    assert "codex mcp add ade -- ade mcp\n" in run.out
    table = tomllib.loads(_snippet(run.out))
    assert table == {"mcp_servers": {"ade": {"command": "ade", "args": ["mcp"]}}}


@pytest.mark.parametrize("agent", ["gemini", "cursor"])
def test_gemini_and_cursor_get_an_mcp_servers_object(
    capsys: pytest.CaptureFixture[str], agent: str
) -> None:
    run = run_main(capsys, ["mcp", "--config", agent])
    assert json.loads(_snippet(run.out)) == {
        "mcpServers": {"ade": {"command": "ade", "args": ["mcp"]}}
    }
    assert (".gemini/settings.json" if agent == "gemini" else ".cursor/mcp.json") in run.out


def test_opencode_gets_a_local_server_with_the_command_as_one_array(
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = run_main(capsys, ["mcp", "--config", "opencode"])
    document = json.loads(_snippet(run.out))
    assert document["mcp"] == {"ade": {"type": "local", "command": ["ade", "mcp"], "enabled": True}}
    assert "opencode.json" in run.out


def test_an_unknown_agent_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, ["mcp", "--config", "vim"])
    assert run.code == 2
    assert "vim" in run.err
    assert "Traceback" not in run.err


def test_ade_skill_names_the_server_and_its_set_up(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, ["skill"])
    assert "`ade mcp`" in run.out
    assert "claude mcp add ade -- ade mcp" in run.out
    assert "codex mcp add ade -- ade mcp" in run.out
