"""`ade import`: files written atomically and idempotently, lanes, and bad input → exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import no_daemon_flag

from engine.project.locate import open_project
from engine.project.sessions import read_session
from engine.project.transcripts import read_transcript
from tui.cli import main

pytestmark = pytest.mark.usefixtures("cli_path")

CAST = (
    b'{"version": 2, "width": 80, "height": 24, "timestamp": 1780000000, "command": "make"}\n'
    b'[0.1, "o", "gcc -c frobnicate.c\\r\\n"]\n[0.2, "o", "error: zorblax undefined\\r\\n"]\n'
)


def ade_files(root: Path) -> dict[str, bytes]:
    ade = root / ".ade"
    return {str(p.relative_to(ade)): p.read_bytes() for p in sorted(ade.rglob("*")) if p.is_file()}


def test_import_writes_log_and_session_then_reimport_changes_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "build.cast"
    rec.write_bytes(CAST)
    monkeypatch.chdir(repo)
    assert main(["import", str(rec)]) == 0
    out = capsys.readouterr().out
    sid = out.split("\t")[0]
    assert sid.startswith("import-")
    assert "\timported\t" in out
    assert f"ade://terminal/{sid}?offset=0" in out
    project = open_project(repo)
    meta = read_session(project, sid)
    assert meta is not None
    assert (meta.kind, meta.source, meta.tool, meta.title) == ("terminal", "import", "make", "make")
    assert meta.lane_id == "primary"
    assert meta.ended_at is not None
    assert meta.ended_at > meta.created_at
    log = read_transcript(project.ade_dir / "terminals" / f"{sid}.log", 0, 1 << 20).data
    assert log == b"gcc -c frobnicate.c\r\nerror: zorblax undefined\r\n"
    before = {p: p.stat().st_mtime_ns for p in (repo / ".ade").rglob("*") if p.is_file()}
    assert main(["import", str(rec)]) == 0
    assert "already imported" in capsys.readouterr().out
    after = {p: p.stat().st_mtime_ns for p in (repo / ".ade").rglob("*") if p.is_file()}
    assert before == after
    leftovers = list((repo / ".ade").rglob("*.tmp"))
    assert leftovers == []


def test_lane_from_the_cwd_in_a_linked_worktree_and_from_flag(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(b"$ cargo build\r\n")
    monkeypatch.chdir(tmp_path / "proj-wt" / "feature-x")
    assert main(["import", str(log), "--project", str(repo)]) == 0
    sid = capsys.readouterr().out.split("\t")[0]
    meta = read_session(open_project(repo), sid)
    assert meta is not None
    assert meta.lane_id == "feature-x"
    assert meta.tool == "tmux"
    assert meta.title == "pane.log"
    assert main(["import", str(log), "--project", str(repo), "--lane", "primary"]) == 0
    meta = read_session(open_project(repo), sid)
    assert meta is not None
    assert meta.lane_id == "primary"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "asciicast"], "not valid JSON"),
        (["--lane", "nope"], "unknown lane"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    good = tmp_path / "good.cast"
    good.write_bytes(CAST)
    bad = tmp_path / "bad.log"
    bad.write_bytes(b"plain text, not a cast\n")
    code = main(["import", str(good), str(bad), "--project", str(repo), *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1
    assert not (repo / ".ade").exists()


def test_missing_file_and_script_without_header(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import", str(tmp_path / "absent.cast"), "--project", str(repo)]) == 2
    plain = tmp_path / "x.txt"
    plain.write_bytes(b"hello\n")
    assert main(["import", str(plain), "--format", "script", "--project", str(repo)]) == 2
    assert not (repo / ".ade").exists()
    assert len(capsys.readouterr().err.strip().splitlines()) == 2


def test_script_with_timing(repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ts = tmp_path / "typescript"
    ts.write_bytes(
        b'Script started on 2026-05-28 10:00:00+00:00 [COMMAND="pytest" TERM="xterm"]\n1 failed\r\n'
    )
    timing = tmp_path / "timing"
    timing.write_bytes(b"0.5 10\n1.5 0\n")
    assert main(["import", str(ts), "--timing", str(timing), "--project", str(repo)]) == 0
    sid = capsys.readouterr().out.split("\t")[0]
    record = json.loads((repo / ".ade" / "sessions" / f"{sid}.json").read_bytes())
    assert record["createdAt"] == "2026-05-28T10:00:00Z"
    assert record["endedAt"] == "2026-05-28T10:00:02Z"
    assert (repo / ".ade" / "terminals" / f"{sid}.log").read_bytes() == b"1 failed\r\n"
    assert os.listdir(repo / ".ade" / "sessions") == [f"{sid}.json"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("build.cast", CAST),
        ("run.log", b"Script started on 2026-06-01 10:00:00+00:00 [COMMAND=\"make\"]\n"
                    b"error: zorblax undefined\r\nScript done on 2026-06-01 10:00:05+00:00\n"),
        ("pane.log", b"\x1b[31merror: zorblax undefined\x1b[0m\r\n"),
    ],
    ids=["asciicast", "script", "tmux"],
)  # fmt: skip
def test_an_imported_recording_is_found_and_its_link_opens_the_line(
    name: str, data: bytes, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / name
    rec.write_bytes(data)
    assert main(["import", str(rec), "--project", str(repo)]) == 0
    capsys.readouterr()
    argv = [
        "search",
        *no_daemon_flag(),
        "--project",
        str(repo),
        "--json",
        "kind:terminal",
        "zorblax",
    ]
    assert main(argv) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    link = next(i["deepLink"] for i in items if i["docId"].startswith("terminal:import-"))
    assert main(["open", link, "--project", str(repo)]) == 0
    assert "error: zorblax undefined" in capsys.readouterr().out


def test_import_into_a_repo_that_does_not_ignore_ade_excludes_it_once(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess

    rec = tmp_path / "build.cast"
    rec.write_bytes(CAST)
    linked = tmp_path / "proj-wt" / "feature-x"
    monkeypatch.chdir(linked)  # from a linked worktree: the common git dir's exclude file
    assert main(["import", "--project", str(repo), str(rec)]) == 0
    exclude = repo / ".git" / "info" / "exclude"
    assert exclude.read_text().splitlines()[-1] == ".ade/"
    err = capsys.readouterr().err
    assert err.count("added .ade/ to") == 1
    assert str(exclude) in err
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked=all"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert ".ade" not in status
    rec.write_bytes(CAST.replace(b"zorblax", b"quuxlet"))
    assert main(["import", "--project", str(repo), str(rec)]) == 0
    assert "added .ade/" not in capsys.readouterr().err  # said once: now git ignores it
    assert exclude.read_text().count(".ade/") == 1


def test_import_leaves_a_repo_that_ignores_or_tracks_ade_alone(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import subprocess

    rec = tmp_path / "build.cast"
    rec.write_bytes(CAST)
    exclude = repo / ".git" / "info" / "exclude"
    before = exclude.read_bytes() if exclude.exists() else None
    (repo / ".ade" / "prs").mkdir(parents=True)
    (repo / ".ade" / "prs" / "1.json").write_text("{}")
    subprocess.run(["git", "-C", str(repo), "add", "-f", ".ade/prs/1.json"], check=True)
    monkeypatch.chdir(repo)
    assert main(["import", str(rec)]) == 0
    assert "added .ade/" not in capsys.readouterr().err  # tracking .ade/ is the repo's choice
    assert (exclude.read_bytes() if exclude.exists() else None) == before
