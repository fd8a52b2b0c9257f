"""Claude Code's ``system`` lines (its own notices: a compaction boundary, a local command's
output, a hook's or an API error's notice; shapes from the house fixture
``tests/fixtures/agents/claude``, whose README names the sessions they come from) are
``system_message`` events found by ``role:system`` and labelled by their subtype; one without an
id or a text is counted with its reason, never dropped unseen. The CLI test runs on both paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import search_argv

from engine.agent_table import AGENTS
from engine.external.registry import agent_format
from engine.external.roots import claude_slug
from engine.project.tally import WarningTally
from tui.cli import main

WHEN = "2026-06-01T10:00:00.000Z"


def _line(cwd: str, **fields: Any) -> bytes:
    obj = {"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": "s",
           "timestamp": WHEN, **fields}  # fmt: skip
    return json.dumps(obj).encode() + b"\n"


def _system(cwd: str, uuid: str | None, subtype: str | None, content: Any) -> bytes:
    fields: dict[str, Any] = {"type": "system", "content": content, "level": "info"}
    if uuid is not None:
        fields["uuid"] = uuid
    if subtype is not None:
        fields["subtype"] = subtype
    return _line(cwd, **fields)


def _user(cwd: str, uuid: str, text: str) -> bytes:
    return _line(cwd, type="user", uuid=uuid, message={"role": "user", "content": text})


def test_system_lines_are_labelled_notices_and_the_unreadable_ones_are_counted() -> None:
    data = b"".join([
        _user("/w", "u1", "where is the quokka log"),
        _system("/w", "s1", "compact_boundary", "Conversation compacted"),
        _system("/w", "s2", "local_command", "<local-command-stdout>quokka model set</local-command-stdout>"),
        _system("/w", "s3", "stop_hook_summary", "quokka hook ran"),
        _system("/w", "s4", "some_new_kind", "quokka future notice"),
        _system("/w", "s5", None, "quokka plain notice"),
        _system("/w", None, "informational", "quokka without id"),
        _system("/w", "s7", "informational", ""),
        _system("/w", "s8", "api_error", {"status": 529}),
    ])  # fmt: skip
    tally = WarningTally()
    events, used, _ = agent_format("claude").parse(data, 0, "chat:s", tally, {})
    assert used == len(data)
    assert [(e.type, e.data.get("notice"), e.data["text"]) for e in events] == [
        ("user_message", None, "where is the quokka log"),
        ("system_message", "compaction", "Conversation compacted"),
        ("system_message", "command output", "<local-command-stdout>quokka model set</local-command-stdout>"),
        ("system_message", "hook", "quokka hook ran"),
        ("system_message", "some new kind", "quokka future notice"),
        ("system_message", "notice", "quokka plain notice"),
    ]  # fmt: skip
    assert [e.data["id"] for e in events] == ["u1", "s1", "s2", "s3", "s4", "s5"]
    assert tally.reasons("chat:s") == {"no id": 1, "no message": 2}


@pytest.mark.usefixtures("cli_path")
def test_ade_search_finds_a_system_line_only_when_asked_and_open_labels_it(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    for entry in AGENTS:  # every other agent's home under HOME, as its defaults put it
        if entry.variable is not None:
            monkeypatch.delenv(entry.variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    folder = tmp_path / "claude" / "projects" / claude_slug(repo)
    folder.mkdir(parents=True)
    (folder / "c0ffee00-0000-4000-8000-00000000005e.jsonl").write_bytes(
        _user(str(repo), "u1", "where is the wallaby log")
        + _system(str(repo), "s1", "local_command", "wallabyoutput printed by a local command")
    )
    capsys.readouterr()
    assert main(search_argv(repo, "--exact", "--json", "wallabyoutput")) == 1
    assert json.loads(capsys.readouterr().out)["items"] == []
    assert main(search_argv(repo, "--exact", "--json", "role:system wallabyoutput")) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    assert [i["kind"] for i in items] == ["chat"]
    assert main(["open", "--project", str(repo), items[0]["deepLink"]]) == 0
    shown = capsys.readouterr().out
    assert "system (command output): wallabyoutput" in shown
