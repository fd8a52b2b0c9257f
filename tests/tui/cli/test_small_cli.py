"""The command line's smaller fixes: ``ade import`` of a ``script`` whose command has
quotes in it; the lane a branch row names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from tui.cli import main


def test_import_keeps_a_script_command_with_inner_quotes_whole(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """util-linux ``script`` writes the command unescaped; the title was cut at ``echo ``."""
    ts = tmp_path / "typescript"
    ts.write_bytes(
        b'Script started on 2026-05-28 10:00:00+00:00 [COMMAND="git commit -m "fix the "retry" loop"'
        b' && make" TERM="xterm" TTY="/dev/pts/3" COLUMNS="80" LINES="24"]\n'
        b"[main 1a2b3c4] fix\r\n"
        b'\nScript done on 2026-05-28 10:00:05+00:00 [COMMAND_EXIT_CODE="0"]\n'
    )
    assert main(["import", str(ts), "--project", str(repo)]) == 0
    sid = capsys.readouterr().out.split("\t")[0]
    record = json.loads((repo / ".ade" / "sessions" / f"{sid}.json").read_bytes())
    assert record["title"] == 'git commit -m "fix the "retry" loop" && make'
    assert record["exitCode"] == 0


@pytest.mark.usefixtures("cli_path")
def test_a_branch_row_names_the_lane_it_is_checked_out_in(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every branch row named the primary lane; a branch is on the lane that has it checked
    out, and on none when no lane has."""
    run = run_main(capsys, search_argv(indexed_demo, "kind:branch", "--json", "--limit", "20"))
    assert run.code == 0, run.err
    lanes = {i["title"]: i["laneName"] for i in json.loads(run.out)["items"]}
    assert lanes["feature/ABC-123-retry-backoff"] == "abc-123-retry"
    assert lanes["feature/webhook-signatures"] == "webhooks"
    assert lanes["main"] == indexed_demo.name
    assert lanes["fix/ABC-131-idempotency-keys"] is None
