"""A hit of a newer agent's session opens and resumes from outside the project folder, without
``--project``, as a Claude Code or Codex hit does: the project is known from the folder the
agent's own store names (``engine.machine.known``), on both paths."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from tests.engine.external.fixture_reads import expect

pytestmark = pytest.mark.usefixtures("cli_path")

FIRST_WORDS = {
    "qwen": "quokka", "pi": "narwhal", "cline": "ocelot", "cline-cli": "heron",
    "goose": "jerboa", "crush": "capybara", "opencode": "ibis", "cursor-ide": "llama",
}  # fmt: skip
"""A word of each agent's first session (its ``expect.json``), found in the project."""


@pytest.mark.parametrize("name", sorted(FIRST_WORDS))
def test_a_newer_agents_link_opens_and_resumes_from_anywhere(
    name: str,
    demo_copy: Path,
    agent_home: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent_home(name)
    run = run_main(capsys, search_argv(demo_copy, f"tool:{name}", FIRST_WORDS[name], "--json"))
    assert run.code == 0, run.err
    link = json.loads(run.out)["items"][0]["deepLink"]
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)  # a folder of no project, no --project
    opened = run_main(capsys, ["open", link])
    assert opened.code == 0, opened.err
    assert FIRST_WORDS[name] in opened.out
    resume = run_main(capsys, ["resume", "--print", link])
    session = expect(name)["sessions"][0]
    if session["resume"] is None:  # the agent resumes from its own history only
        assert resume.code != 0
        return
    assert resume.code == 0, resume.err
    assert resume.out.startswith(f"cd {demo_copy} && {session['resume'][0]} ")
