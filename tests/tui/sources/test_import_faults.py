"""`ade import` of damaged gzip files and of recordings that grew (docs/reliability-faults.md), through the
real CLI entry, the real index, on both search paths.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from cli_helpers import CliPath, run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

PANE = b"$ make\r\nerror: zorblax undefined\r\n"
GROWN = b"$ make again\r\nerror: quuxwidget undefined\r\n"


def _import(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, str, str]:
    run = run_main(capsys, ["import", *args, "--project", str(repo)])
    return run.code, run.out, run.err


def _found(capsys: pytest.CaptureFixture[str], repo: Path, word: str) -> list[str]:
    run = run_main(capsys, search_argv(repo, "--json", "--limit", "50", "kind:terminal", word))
    assert run.code in (0, 1), run.err
    return [str(item["docId"]) for item in json.loads(run.out)["items"]]


def _sessions(repo: Path) -> list[str]:
    return sorted(p.stem for p in (repo / ".ade" / "sessions").glob("*.json"))


def test_a_recording_imported_twice_adds_nothing_and_a_grown_one_appends_its_tail(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(PANE)
    code, out, _ = _import(capsys, repo, str(log))
    assert code == 0
    sid = out.split("\t")[0]
    assert _found(capsys, repo, "zorblax") == [f"terminal:{sid}@0"]
    stored = repo / ".ade" / "terminals" / f"{sid}.log"
    inode = stored.stat().st_ino

    code, out, _ = _import(capsys, repo, str(log))
    assert (code, out.split("\t")[:3]) == (0, [sid, "tmux", "already imported"])

    with log.open("ab") as handle:  # the pane kept logging after the first import
        handle.write(GROWN)
    code, out, _ = _import(capsys, repo, str(log))
    assert (code, out.split("\t")[0]) == (0, sid)  # the same session, not a second copy
    assert _sessions(repo) == [sid]
    assert stored.read_bytes() == PANE + GROWN
    assert stored.stat().st_ino == inode  # appended in place: the ingester reads the tail only
    assert len(_found(capsys, repo, "zorblax")) == 1  # no second copy of the first lines
    if not CliPath.daemon:  # in process a search catches up first; a daemon's watcher is later
        assert len(_found(capsys, repo, "quuxwidget")) == 1


def test_another_file_with_the_same_start_is_another_recording(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_bytes(PANE)
    second.write_bytes(PANE + GROWN)
    assert _import(capsys, repo, str(first))[0] == 0
    assert _import(capsys, repo, str(second))[0] == 0
    assert len(_sessions(repo)) == 2  # identified by its path too, not by its bytes alone


@pytest.mark.parametrize(
    ("name", "damage", "warning"),
    [
        ("cut.log.gz", "cut", "cut short (truncated gzip data); imported what precedes it"),
        ("junk.log.gz", "junk", "trailing bytes that are not gzip; imported what precedes it"),
    ],
)
def test_a_damaged_gzip_imports_what_can_be_read_with_one_warning(
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    damage: str,
    warning: str,
) -> None:
    whole = gzip.compress(PANE + b"".join(b"line %d of the build\r\n" % i for i in range(4000)))
    data = whole[: len(whole) // 2] if damage == "cut" else whole + b"NOT GZIP AT ALL"
    (tmp_path / name).write_bytes(data)
    code, out, err = _import(capsys, repo, str(tmp_path / name))
    assert code == 0, err
    assert f"ade import: {name}: {warning}" in err.splitlines()
    assert "Traceback" not in err
    sid = out.split("\t")[0]
    assert _found(capsys, repo, "zorblax") == [f"terminal:{sid}@0"]
    status = run_main(capsys, search_argv(repo, "--status", "--json"))
    assert json.loads(status.out)["state"] == "ready"  # nothing stays `indexing`


def test_a_gzip_with_nothing_readable_is_one_line_and_exit_2(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "stub.log.gz").write_bytes(gzip.compress(PANE * 50)[:8])
    code, out, err = _import(capsys, repo, str(tmp_path / "stub.log.gz"))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert "nothing in it could be read" in err
