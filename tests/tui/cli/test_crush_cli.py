"""A Crush session in the project's ``.crush/crush.db`` is searched, opened at its message and
listed by ``--status``, on both paths; its reasoning and compaction summary are never found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, status_line

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_crush_session_is_found_opened_and_counted(
    demo_copy: Path, agent_home: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    agent_home("crush")  # the second lane's database lies in a folder of no project
    said = "user: why does the capybara lexer choke on tabs"
    found_and_opened(capsys, demo_copy, "crush", ["capybara", "lexer"], said)
    never_found(capsys, demo_copy, "crushsecretthought", "summarizedcapybara", "taskprompt")
    line = status_line(capsys, demo_copy, "crush")
    assert str(demo_copy / ".crush" / "crush.db") in line
    assert "session(s) found, 1 of this project; skipped: bad json 1, unknown type 1" in line
