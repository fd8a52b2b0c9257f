"""Folders that cannot be created or written are the user's input: one line, exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag, run_main

from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs

pytestmark = pytest.mark.usefixtures("cli_path")


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["demo", "/proc/nope/demo"], {}),
        (["projects", "add", "{tmp}"], {"ADE_CONFIG_DIR": "/proc/nope"}),
        (["import", "{tmp}/rec.log", "--project", "/proc/self"], {}),
    ],
    ids=["demo-into-proc", "registry-in-proc", "import-into-proc"],
)
def test_unwritable_targets_are_one_line_exit_2(
    argv: list[str],
    env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "rec.log").write_bytes(b"hello from a recording\n")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    run = run_main(capsys, [a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert run.code == 2
    assert "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert run.out == ""


def test_a_plain_folder_works_with_one_clear_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = tmp_path / ".ade" / "sessions"
    sessions.mkdir(parents=True)
    run = run_main(capsys, ["search", *no_daemon_flag(), "--project", str(tmp_path), "--json", "x"])
    assert run.code == 1
    warnings = json.loads(run.out)["warnings"]
    assert warnings == ["not a git repository: commits, branches, lanes and files are not searched"]


def test_a_vanished_pr_is_swept_from_the_index(demo_copy: Path) -> None:
    prs = sorted((demo_copy / ".ade" / "prs").glob("*.json"))
    gone = prs[-1]
    args = SearchQueryArgs(query="kind:pr", limit=50)
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
        before = {item.doc_id for item in client.query(args).items}
        gone.unlink()
        client.service.catch_up()
        after = {item.doc_id for item in client.query(args).items}
    assert f"pr:{gone.stem}" in before
    assert after == before - {f"pr:{gone.stem}"}
