"""A Crush session in the project's ``.crush/crush.db`` is searched, opened at its message and
listed by ``--status``, on both paths; its reasoning and compaction summary are never found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from tests.engine.external.agent_homes import install_crush

pytestmark = pytest.mark.usefixtures("cli_path")


def test_a_crush_session_is_found_opened_and_counted(
    demo_copy: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    install_crush(demo_copy, tmp_path / "elsewhere")  # the second database: no lane's
    run = run_main(capsys, search_argv(demo_copy, "tool:crush", "capybara", "lexer", "--json"))
    assert run.code == 0, run.err
    items = json.loads(run.out)["items"]
    assert items
    assert {item["tool"] for item in items} == {"crush"}
    opened = run_main(capsys, ["open", "--project", str(demo_copy), items[0]["deepLink"]])
    assert opened.code == 0, opened.err
    assert "user: why does the capybara lexer choke on tabs" in opened.out
    assert "crushsecretthought" not in opened.out
    for hidden in ("crushsecretthought", "summarizedcapybara", "taskprompt"):
        run = run_main(capsys, search_argv(demo_copy, hidden, "--json"))
        assert (run.code, json.loads(run.out)["items"]) == (1, []), hidden  # 1: no hits
    run = run_main(capsys, search_argv(demo_copy, "--status"))
    assert run.code == 0, run.err
    line = next(ln for ln in run.out.splitlines() if ln.startswith("crush"))
    assert str(demo_copy / ".crush" / "crush.db") in line
    assert "1 session(s) found, 1 of this project; skipped: bad json 1, unknown type 1" in line
