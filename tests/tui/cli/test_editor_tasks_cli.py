"""A Cline task of the project, in VS Code's global storage under ``$VSCODE_APPDATA``, is
searched, opened at its message and listed by ``--status`` on both paths; its reasoning and the
text Cline injects into the model's turns are never found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from tests.engine.external.agent_homes import install_home

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_cline_task_is_found_opened_and_counted(
    demo_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    appdata = install_home("cline", tmp_path / "appdata", demo_copy, tmp_path / "elsewhere")
    monkeypatch.setenv("VSCODE_APPDATA", str(appdata))
    run = run_main(capsys, search_argv(demo_copy, "tool:cline", "ocelot", "build", "--json"))
    assert run.code == 0, run.err
    items = json.loads(run.out)["items"]
    assert items
    assert {item["tool"] for item in items} == {"cline"}
    opened = run_main(capsys, ["open", "--project", str(demo_copy), items[0]["deepLink"]])
    assert opened.code == 0, opened.err
    assert "user: why is the ocelot build slow" in opened.out
    for hidden in ("clinesecretthought", "envsecretdetails", "marten"):
        run = run_main(capsys, search_argv(demo_copy, hidden, "--json"))
        assert (run.code, json.loads(run.out)["items"]) == (1, []), hidden  # 1: no hits
    run = run_main(capsys, search_argv(demo_copy, "--status"))
    assert run.code == 0, run.err
    line = next(ln for ln in run.out.splitlines() if ln.startswith("cline"))
    assert line.endswith(
        "6 session(s) found, 2 of this project; skipped: bad json 1, unknown type 1, no cwd 1"
    )
