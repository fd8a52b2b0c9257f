"""Issue 29.9, the command line's smaller ones: ``ade import`` of a ``script`` whose command has
quotes in it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
