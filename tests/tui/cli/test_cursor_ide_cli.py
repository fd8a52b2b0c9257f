"""A chat of the Cursor editor about the project, in its live databases under
``$VSCODE_APPDATA/Cursor``, is searched, opened at its message and listed by ``--status`` on
both paths; its thinking and attached code are never found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, status_line

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_cursor_editor_chat_is_found_opened_and_counted(
    demo_copy: Path, agent_home: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    agent_home("cursor-ide")
    said = "user: why is the llama loader slow"
    found_and_opened(capsys, demo_copy, "cursor-ide", ["llama", "loader"], said)
    never_found(capsys, demo_copy, "cursoridesecret", "llamaattached", "yak")
    assert status_line(capsys, demo_copy, "cursor-ide").endswith(
        "4 session(s) found, 1 of this project; skipped: bad json 1, unknown type 1,"
        " no cwd 1, no message 1"
    )
