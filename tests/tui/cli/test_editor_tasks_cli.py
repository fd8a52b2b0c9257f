"""A Cline or Roo Code task of the project, in VS Code's global storage under
``$VSCODE_APPDATA``, is searched, opened at its message and listed by ``--status`` on both paths;
its reasoning and the text the extension injects into the model's turns are never found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, status_line

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_cline_task_is_found_opened_and_counted(
    demo_copy: Path, agent_home: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    agent_home("cline")
    said = "user: why is the ocelot build slow"
    found_and_opened(capsys, demo_copy, "cline", ["ocelot", "build"], said)
    # A task Cline really wrote: its first shown text is the user's.
    said = "user: look at this project and tell me what is it about"
    found_and_opened(capsys, demo_copy, "cline", ["FinEye", "Flutter"], said)
    never_found(capsys, demo_copy, "clinesecretthought", "envsecretdetails", "marten", "Haram")
    assert status_line(capsys, demo_copy, "cline").endswith(
        "6 session(s) found, 2 of this project; skipped: bad json 1, unknown type 1, no cwd 1"
    )


def test_a_roo_task_is_found_opened_and_counted(
    demo_copy: Path, agent_home: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    agent_home("roo")
    said = "user: add a retry to the quokka client"
    found_and_opened(capsys, demo_copy, "roo", ["quokka", "retry"], said)
    never_found(capsys, demo_copy, "roosecretthought", "rooenvdetails", "roosummary", "wombat")
    assert "session(s) found, 1 of this project" in status_line(capsys, demo_copy, "roo")
