"""A chat of the Cursor editor about the project, in its live databases under
``$VSCODE_APPDATA/Cursor``, is searched, opened at its message and listed by ``--status`` on
both paths; its thinking and attached code are never found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from tests.engine.external.agent_homes import install_home

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_cursor_editor_chat_is_found_opened_and_counted(
    demo_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    appdata = install_home("cursor-ide", tmp_path / "appdata", demo_copy, tmp_path / "elsewhere")
    monkeypatch.setenv("VSCODE_APPDATA", str(appdata))
    run = run_main(capsys, search_argv(demo_copy, "tool:cursor-ide", "llama", "loader", "--json"))
    assert run.code == 0, run.err
    items = json.loads(run.out)["items"]
    assert items
    assert {item["tool"] for item in items} == {"cursor-ide"}
    opened = run_main(capsys, ["open", "--project", str(demo_copy), items[0]["deepLink"]])
    assert opened.code == 0, opened.err
    assert "user: why is the llama loader slow" in opened.out
    for hidden in ("cursoridesecret", "llamaattached", "yak"):
        run = run_main(capsys, search_argv(demo_copy, hidden, "--json"))
        assert (run.code, json.loads(run.out)["items"]) == (1, []), hidden  # 1: no hits
    run = run_main(capsys, search_argv(demo_copy, "--status"))
    assert run.code == 0, run.err
    line = next(ln for ln in run.out.splitlines() if ln.startswith("cursor-ide"))
    assert line.endswith(
        "4 session(s) found, 1 of this project; skipped: bad json 1, unknown type 1,"
        " no cwd 1, no message 1"
    )
