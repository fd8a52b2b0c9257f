"""A discovery warning lasts as long as its cause (docs/reliability-faults.md).

A daemon keeps one service a project for hours: a Claude Code transcript that had no ``cwd`` yet
(the tool wrote its summary line first) or a Codex rollout refused as a FIFO was counted in the
service's tally at the listing that saw it and stayed in ``--status`` forever after the file
became valid — and a ``no cwd`` file was counted again at every re-listing. Each full reconcile
now replaces the previous listing's warnings with its own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.external.discover import claude_slug
from engine.service import SearchService


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def _claude(uuid: str, text: str, cwd: str) -> bytes:
    return _line({"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": "s1",
                  "type": "user", "message": {"role": "user", "content": text}, "uuid": uuid,
                  "timestamp": "2026-05-28T10:00:00.000Z"})  # fmt: skip


@pytest.fixture
def claude_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, service: SearchService) -> Path:
    """This project's Claude Code folder under a temporary home (never this machine's)."""
    home = tmp_path / "home"
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    folder = home / ".claude" / "projects" / claude_slug(service.project.root)
    folder.mkdir(parents=True)
    return folder


def _discovery_warnings(service: SearchService) -> dict[str, int]:
    warnings = service.index_status().warnings
    return {key: n for key, n in warnings.items() if key in ("claude", "codex")}


def test_a_claude_file_that_gains_its_cwd_drops_its_warning(
    service: SearchService, claude_folder: Path
) -> None:
    transcript = claude_folder / "aa-1.jsonl"
    transcript.write_bytes(_line({"type": "summary", "summary": "no cwd yet", "leafUuid": "u9"}))
    service.catch_up()
    assert _discovery_warnings(service) == {"claude": 1}
    service.catch_up()  # listed again, still without a cwd: still one file, one warning
    assert _discovery_warnings(service) == {"claude": 1}
    with transcript.open("ab") as handle:
        handle.write(_claude("u1", "now it has one", str(service.project.root)))
    service.catch_up()
    assert _discovery_warnings(service) == {}
    assert "claude" not in service.tally.snapshot()  # forgotten, not hidden by the status


def test_a_refused_file_made_regular_drops_its_warning(
    service: SearchService, claude_folder: Path
) -> None:
    fifo = claude_folder / "bb-2.jsonl"
    os.mkfifo(fifo)
    service.catch_up()
    assert _discovery_warnings(service) == {"claude": 1}
    fifo.unlink()
    fifo.write_bytes(_claude("u1", "a plain file now", str(service.project.root)))
    service.catch_up()
    assert _discovery_warnings(service) == {}
