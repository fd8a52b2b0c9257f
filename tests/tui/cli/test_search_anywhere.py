"""Search from anywhere: outside a project `ade search` asks every project ade knows.

Known: the demo (registered with `ade projects add`), a repository a Claude Code session was
started in (indexed once), and one a Codex session names that was never indexed (skipped, said
in one warning). Inside a project nothing changes; `--all` asks for everything. Hits carry their
project and open there; a project whose index cannot be read costs one warning.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import no_daemon_flag, run_main

from engine.external.roots import claude_slug
from tests.conftest import git
from tui.cli import main

pytestmark = pytest.mark.usefixtures("cli_path")

WORD = "zanzibarish"
"""In the Claude session of the second project only."""


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _claude(home: Path, cwd: Path, text: str) -> None:
    folder = home / ".claude" / "projects" / claude_slug(cwd)
    folder.mkdir(parents=True)
    (folder / "5b7c9e2a-0000-4000-8000-000000000001.jsonl").write_bytes(_line({
        "parentUuid": None, "isSidechain": False, "cwd": str(cwd), "sessionId": "s1",
        "type": "user", "message": {"role": "user", "content": text}, "uuid": "u1",
        "timestamp": "2026-06-10T10:00:00.000Z",
    }))  # fmt: skip


def _codex(home: Path, cwd: Path) -> None:
    folder = home / ".codex" / "sessions" / "2026" / "06" / "10"
    folder.mkdir(parents=True)
    meta = {"id": "0199-abc", "timestamp": "2026-06-10T11:00:00Z", "cwd": str(cwd)}
    (folder / "rollout-2026-06-10T11-00-00-0199-abc.jsonl").write_bytes(_line(
        {"timestamp": "2026-06-10T11:00:00.000Z", "type": "session_meta", "payload": meta}
    ))  # fmt: skip


def _repo(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("hello\n")
    git(root, "add", "README")
    git(root, "commit", "-q", "-m", "first")
    return root


class Machine:
    """The folders of this module's machine."""

    def __init__(self, base: Path, demo: Path) -> None:
        self.home = base / "home"
        self.outside = base / "elsewhere"
        self.demo = demo
        self.agent_repo = _repo(base / "agent-repo")
        self.unindexed = _repo(base / "never-indexed")
        self.broken = _repo(base / "broken")


@pytest.fixture(scope="module")
def machine(indexed_demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Machine:
    m = Machine(tmp_path_factory.mktemp("anywhere"), indexed_demo)
    m.home.mkdir()
    m.outside.mkdir()
    _claude(m.home, m.agent_repo, f"why does the {WORD} retry loop spin? add backoff")
    _claude(m.home, m.broken, "the broken one")
    _codex(m.home, m.unindexed)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(m.home))
        for root in (m.agent_repo, m.broken):
            assert main(["search", "--project", str(root), "--no-daemon", "--status"]) == 0
    # An index that cannot be opened (a folder in its place): that project answers nothing.
    index = m.broken / ".ade" / "cache" / "search-index.db"
    for path in index.parent.glob("search-index.db*"):
        path.unlink()
    index.mkdir()
    return m


@pytest.fixture
def at(
    machine: Machine, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Machine:
    """The test runs with the module's HOME, the demo registered, from outside any project."""
    monkeypatch.setenv("HOME", str(machine.home))
    monkeypatch.chdir(machine.outside)
    assert run_main(capsys, ["projects", "add", str(machine.demo)]).code == 0
    return machine


def _search(capsys: pytest.CaptureFixture[str], *rest: str) -> tuple[int, dict[str, Any], str]:
    run = run_main(capsys, ["search", *no_daemon_flag(), *rest, "--json"])
    return run.code, json.loads(run.out) if run.out else {}, run.err


def test_outside_a_project_every_known_project_is_searched(
    at: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    code, answer, err = _search(capsys, "backoff", "--limit", "50")
    assert code == 0, err
    roots = {i["projectRoot"] for i in answer["items"]}
    assert roots == {str(at.demo), str(at.agent_repo)}  # registered, and named by Claude Code
    assert all(i["projectName"] and i["projectId"] for i in answer["items"])
    warnings = answer["warnings"]
    skipped = [w for w in warnings if "not indexed yet" in w]
    assert skipped == [
        f"1 known project not indexed yet, not searched ({at.unindexed});"
        " `ade search --project DIR` indexes one"
    ]
    broken = [w for w in warnings if "broken" in w]
    assert len(broken) == 1  # one bad project, one warning
    assert "search index unavailable" in broken[0]


def test_text_rows_name_their_project_and_sessions_work_from_anywhere(
    at: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, ["search", *no_daemon_flag(), WORD])
    assert run.code == 0, run.err
    assert f"· {at.agent_repo.name}\n" in run.out
    code, answer, _ = _search(capsys, "backoff", "--sessions", "--limit", "50")
    assert code == 0
    by_project = {i["projectRoot"] for i in answer["items"]}
    assert by_project == {str(at.demo), str(at.agent_repo)}
    assert all(i["messageCount"] for i in answer["items"])


def test_a_hit_found_from_anywhere_opens_in_its_project(
    at: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    _, answer, _ = _search(capsys, WORD)
    hit = answer["items"][0]  # the README's recipe: `ade open` of .items[0]
    run = run_main(capsys, ["open", hit["deepLink"]])  # no --project: the link's own project
    assert run.code == 0, run.err
    assert WORD in run.out
    resume = run_main(capsys, ["resume", "--print", hit["deepLink"]])
    assert resume.code == 0, resume.err
    assert resume.out.startswith(f"cd {at.agent_repo} && claude --resume")


def test_inside_a_project_nothing_changes_and_all_asks_for_everything(
    at: Machine, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(at.demo)
    code, answer, _ = _search(capsys, WORD)
    assert (code, answer["items"]) == (1, [])
    code, answer, err = _search(capsys, WORD, "--all")
    assert code == 0, err
    assert {i["projectRoot"] for i in answer["items"]} == {str(at.agent_repo)}


def test_pages_of_every_project_follow_their_cursor(
    at: Machine, capsys: pytest.CaptureFixture[str]
) -> None:
    _, whole, _ = _search(capsys, "backoff", "--limit", "50")
    _, first, _ = _search(capsys, "backoff", "--limit", "3")
    _, second, _ = _search(capsys, "backoff", "--limit", "3", "--cursor", first["nextCursor"])
    ids = [(i["projectId"], i["docId"]) for i in (*first["items"], *second["items"])]
    assert ids == [(i["projectId"], i["docId"]) for i in whole["items"][:6]]
