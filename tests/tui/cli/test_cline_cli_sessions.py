"""A Cline CLI session of the project (``$CLINE_DIR/data/sessions/<id>/``, written by Cline CLI
3.0.65 itself) is searched, opened at its message, resumed and listed by ``--status`` on both
paths; its thinking, its system prompt and the runtime's wrappers are never found; the session
rewritten by the next turn answers the next search at once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import found_and_opened, never_found, run_main, search_argv, status_line

from tests.engine.external.agent_homes import FIXTURES, put_in

pytestmark = pytest.mark.usefixtures("cli_path")

PROJECT_SESSION = Path("data/sessions/1796621737244_153fm/1796621737244_153fm.messages.json")


def test_a_cline_cli_session_is_found_opened_resumed_and_counted(
    demo_copy: Path, agent_home: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    agent_home("cline-cli")
    said = "user: what does the heron file say?"
    hits = found_and_opened(capsys, demo_copy, "cline-cli", ["heron", "say"], said)
    resume = run_main(capsys, ["resume", "--print", "--project", str(demo_copy),
                               hits[0]["deepLink"]])  # fmt: skip
    assert resume.code == 0, resume.err
    assert resume.out.strip() == f"cd {demo_copy} && cline --id 1796621737244_153fm"
    found_and_opened(capsys, demo_copy, "cline-cli", ["heronoutput"], "heronoutput-ok")
    run = run_main(capsys, search_argv(demo_copy, "ocelotsummary", "--json"))
    assert (run.code, json.loads(run.out)["items"]) == (1, [])  # a notice: not the user's words
    never_found(capsys, demo_copy, "heronsecretthought", "clisecretthought", "clifilesecret",
                "clisystemsecret", "marmot", "nocwdwords", "otherprojectwords")  # fmt: skip
    assert status_line(capsys, demo_copy, "cline-cli").endswith(
        "5 session(s) found, 2 of this project; skipped: bad json 1, unknown type 1, no cwd 1"
    )


def test_the_next_turn_of_a_cline_cli_session_is_found_at_once(
    demo_copy: Path,
    agent_home: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = agent_home("cline-cli")
    assert not _answered(capsys, demo_copy)
    rewritten = (FIXTURES / "cline-cli" / "append.json").read_text()
    (home / PROJECT_SESSION).write_text(put_in("cline-cli", rewritten, demo_copy, tmp_path))
    assert _answered(capsys, demo_copy)


def _answered(capsys: pytest.CaptureFixture[str], root: Path) -> bool:
    """Whether the session's last answer is found."""
    run = run_main(capsys, search_argv(root, "tool:cline-cli", "heron", "answer", "--json"))
    assert run.code in (0, 1), run.err
    return any("heron answer is done" in json.dumps(i) for i in json.loads(run.out)["items"])
