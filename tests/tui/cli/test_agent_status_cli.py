"""``ade search --status`` names every registered agent — where it was searched, the sessions
found there and those of this project — and what each agent's readers skipped, per reason, in
the text and the JSON, on both paths, in a later run too (the counts stored with the cursors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_main, search_argv

from engine.agent_table import AGENTS
from engine.external.roots import claude_slug

pytestmark = pytest.mark.usefixtures("cli_path")


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj) + "\n"


def _homes(home: Path, project: Path) -> None:
    """A Claude Code session of the project with a corrupt line and a line without its
    message, a Claude file naming no folder, and a Codex session of another project."""
    claude = home / ".claude" / "projects" / claude_slug(project)
    claude.mkdir(parents=True)
    base = {"cwd": str(project), "sessionId": "s1", "timestamp": "2026-06-01T10:00:00Z"}
    (claude / "s1.jsonl").write_text(
        _line({**base, "type": "user", "uuid": "u1",
               "message": {"role": "user", "content": "where is the quokka config"}})
        + "{not json\n"
        + _line({**base, "type": "assistant", "uuid": "u2"})
    )  # fmt: skip
    (claude / "nocwd.jsonl").write_text(_line({"type": "summary", "summary": "no folder"}))
    codex = home / ".codex" / "sessions" / "2026" / "06" / "01"
    codex.mkdir(parents=True)
    (codex / "rollout-2026-06-01T10-00-00-0197aaaa-0000-7000-8000-000000000001.jsonl").write_text(
        _line({"timestamp": "2026-06-01T10:00:00Z", "type": "session_meta",
               "payload": {"id": "0197aaaa-0000-7000-8000-000000000001", "cwd": "/somewhere/else",
                           "timestamp": "2026-06-01T10:00:00Z"}})
    )  # fmt: skip


def _status(root: Path, capsys: pytest.CaptureFixture[str], *rest: str) -> str:
    run = run_main(capsys, search_argv(root, "--status", *rest))
    assert run.code == 0, run.err
    return run.out


def test_every_agent_is_listed_with_its_folders_sessions_and_skips(
    demo_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for entry in AGENTS:  # every agent's home under this HOME
        if entry.variable is not None:
            monkeypatch.delenv(entry.variable, raising=False)
    _homes(home, demo_copy)
    _status(demo_copy, capsys)  # indexes the Claude session (its pass counts its lines)
    for _ in range(2):  # the second: a later run, whose counts come from the index
        agents = {a["name"]: a for a in json.loads(_status(demo_copy, capsys, "--json"))["agents"]}
        assert list(agents) == [entry.name for entry in AGENTS]  # all, those with none too
        claude = agents["claude"]
        assert claude["folders"] == [str(home / ".claude" / "projects")]
        assert (claude["found"], claude["tied"]) == (2, 1)
        assert claude["skipped"] == {"bad json": 1, "no cwd": 1, "no message": 1}
        codex = agents["codex"]
        assert str(home / ".codex" / "sessions") in codex["folders"]
        assert (codex["found"], codex["tied"], codex["skipped"]) == (1, 0, {})
        assert (agents["qwen"]["found"], agents["qwen"]["tied"]) == (0, 0)
        assert agents["qwen"]["folders"] == [str(home / ".qwen" / "projects")]
        assert agents["aider"]["folders"][0] == str(demo_copy / ".aider.chat.history.md")
    text = _status(demo_copy, capsys)
    lines = {line.split(":", 1)[0]: line for line in text.splitlines()}
    assert lines["claude"].endswith(
        "2 session(s) found, 1 of this project; skipped: bad json 1, no cwd 1, no message 1"
    )
    assert lines["kiro"].endswith(f"{home / '.kiro' / 'sessions' / 'cli'}; 0 session(s) found,"
                                  " 0 of this project")  # fmt: skip
    assert "claude" not in lines.get("skipped", "")  # said with its reasons, on its own line
