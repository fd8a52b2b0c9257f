"""Only a project is served — a folder with ``.ade/``, a git work tree, or a root
registered with ``ade projects add``. Any other folder (``/``, ``/etc``) is refused with a
JSON-RPC error by the daemon and exit 2 by ``ade search``, and gets no ``.ade/cache``."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.external.discover import claude_slug
from engine.rpc.project_marker import is_project
from engine.rpc.registry import RegisteredProject, save_registry
from engine.rpc.validation import INVALID_PARAMS
from tui.cli import main as ade_main


@pytest.fixture(autouse=True)
def agent_homes(short_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Claude Code and Codex folders of our own (never this machine's; the daemons inherit)."""
    claude = short_dir / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(short_dir / "codex"))
    return claude


@pytest.fixture
def plain(short_dir: Path) -> Path:
    folder = short_dir / "plain"
    folder.mkdir()
    (folder / "notes.txt").write_text("zebra zebra\n")
    return folder.resolve()


def _query(conn: Any, root: Path | str) -> dict[str, Any]:
    return conn.call("search.query", {"projectRoot": str(root), "query": "zebra"})  # type: ignore[no-any-return]


def test_daemon_refuses_a_folder_that_is_not_a_project(daemon: Any, plain: Path) -> None:
    conn = daemon.connect()
    for method in ("search.query", "search.indexStatus"):
        answer = conn.call(method, {"projectRoot": str(plain)})
        assert answer["error"]["code"] == INVALID_PARAMS
        assert "is not a project" in answer["error"]["message"]
    assert not (plain / ".ade").exists()
    assert str(plain) not in conn.call("rpc.status")["result"]["projects"]


@pytest.mark.parametrize("root", ["/", "/etc"])
def test_daemon_refuses_system_folders(daemon: Any, root: str) -> None:
    had_ade = (Path(root) / ".ade").exists()
    answer = _query(daemon.connect(), root)
    assert answer["error"]["code"] == INVALID_PARAMS
    assert (Path(root) / ".ade").exists() == had_ade


def test_daemon_serves_an_ade_folder_a_git_work_tree_and_a_registered_root(
    daemon: Any, plain: Path, short_dir: Path, chat_project: Any
) -> None:
    conn = daemon.connect()
    with_ade = chat_project(short_dir / "alpha", "alpha", "Alpha", 2).resolve()
    assert "result" in _query(conn, with_ade)

    repo = short_dir / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=30)
    assert "result" in _query(conn, repo.resolve())

    save_registry(daemon.config / "projects.json",
                  [RegisteredProject(id="plain", name="Plain", root=plain)])  # fmt: skip
    assert "result" in _query(conn, plain)


def test_is_project_is_the_marker_check(plain: Path, agent_homes: Path) -> None:
    assert not is_project(plain)
    (agent_homes / "projects" / claude_slug(plain)).mkdir(parents=True)
    assert is_project(plain)  # Claude Code keeps sessions for it: its chats are searchable
    other = plain.parent / "other"
    other.mkdir()
    (other / ".ade").mkdir()
    assert is_project(other)


def test_cli_search_in_a_plain_folder_searches_every_known_project(
    plain: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(plain)
    # No project here and none known: nothing found, one line saying how to add one.
    assert ade_main(["search", "--no-daemon", "zebra"]) == 1
    err = capsys.readouterr().err
    assert "ade knows no project on this machine yet" in err
    assert len(err.strip().splitlines()) == 1
    assert ade_main(["search", "--no-daemon", "--status"]) == 2
    assert "is not a project" in capsys.readouterr().err
    assert ade_main(["search", "--no-daemon", "--project", str(plain), "--status"]) == 2
    assert not (plain / ".ade").exists()
