"""The demo project has the shape docs/projects.md describes, is byte-for-byte deterministic, and refuses
to overwrite a folder without ``--force``. Read through the real project readers and real git."""

from __future__ import annotations

import gzip
import re
import shutil
import struct
import subprocess
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.demo import DEMO_NOW, build_demo
from engine.errors import UsageError
from engine.project.artifacts import list_artifacts
from engine.project.git import list_branches, origin_slug
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.model import Project, SessionMeta
from engine.project.prs import list_prs
from engine.project.sessions import list_sessions
from engine.project.tally import WarningTally
from engine.project.transcripts import parse_chat_lines, read_transcript, transcript_file
from tui import cli


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def _ade_files(root: Path) -> dict[str, bytes]:
    ade = root / ".ade"
    # .ade/cache is the search index's, not the demo's: a test that searched the demo has one.
    return {
        str(p.relative_to(ade)): p.read_bytes()
        for p in sorted(ade.rglob("*"))
        if p.is_file() and p.relative_to(ade).parts[0] != "cache"
    }


def _work_trees(root: Path) -> list[Path]:
    return [root, *sorted((root / ".worktrees").iterdir())]


def _tracked(tree: Path) -> list[str]:
    return [path for path in _git(tree, "ls-files", "-z").split("\0") if path]


def _work_tree_mtimes(root: Path) -> dict[str, int]:
    """Each tracked file's mtime (ns), in the main work tree and the linked ones."""
    return {
        f"{tree.relative_to(root)}/{path}": (tree / path).stat().st_mtime_ns
        for tree in _work_trees(root)
        for path in _tracked(tree)
    }


@pytest.fixture(scope="module")
def project(demo_project: Path) -> Project:
    return open_project(demo_project)


@pytest.fixture(scope="module")
def sessions(project: Project) -> dict[str, SessionMeta]:
    tally = WarningTally()
    found = {s.id: s for s in list_sessions(project, tally)}
    assert tally.total() == 0
    return found


def _bytes(project: Project, meta: SessionMeta) -> bytes:
    path = transcript_file(project, meta.kind, meta.id)
    assert path is not None, meta.id
    return read_transcript(path, 0, 1 << 30).data


def test_git_history_branches_worktrees_and_remote(project: Project) -> None:
    root = project.root
    assert int(_git(root, "rev-list", "--all", "--count")) >= 40
    branches = {b.name for b in list_branches(root)}
    assert len(branches) >= 4
    assert "feature/ABC-123-retry-backoff" in branches
    lanes = list_lanes(project, WarningTally())
    assert [lane.id for lane in lanes if lane.primary] == ["primary"]
    linked = [lane for lane in lanes if not lane.primary]
    assert len(linked) >= 2
    assert all(lane.path.is_dir() and lane.branch in branches for lane in linked)
    assert origin_slug(root) == "acme/payments-api"
    tracked = _git(root, "ls-files").split()
    assert len([p for p in tracked if p.endswith((".py", ".md"))]) >= 12
    assert _git(root, "status", "--porcelain") == ""
    newest = int(_git(root, "log", "--all", "-1", "--format=%ct", "--date-order"))
    assert newest < DEMO_NOW.timestamp()


def test_project_identity(project: Project) -> None:
    assert (project.id, project.name) == ("acme-payments-demo", "payments-api")


def test_chat_sessions_cover_every_event_type_and_lifecycle(
    project: Project, sessions: dict[str, SessionMeta]
) -> None:
    chats = [s for s in sessions.values() if s.kind == "chat"]
    assert len(chats) >= 8
    assert len({s.lane_id for s in chats}) >= 3
    assert sum(s.archived for s in chats) == 1
    assert sum(s.ended_at is None for s in chats) == 1
    tally, events = WarningTally(), []
    statuses: dict[tuple[str, str], list[str]] = {}
    for meta in chats:
        data = _bytes(project, meta)
        assert data.endswith(b"\n")
        parsed, consumed = parse_chat_lines(data, 0, f"chat:{meta.id}", tally)
        assert consumed == len(data)
        events.extend(parsed)
        for event in parsed:
            if event.type == "user_message":
                key = (meta.id, event.data["id"])
                statuses.setdefault(key, []).append(event.data["status"])
    assert {e.type for e in events} == {
        "user_message",
        "assistant_message",
        "tool_call",
        "tool_result",
        "session_title",
    }
    reasons = {k: v for key in tally.snapshot() for k, v in tally.reasons(key).items()}
    assert reasons == {"malformed json line": 1, "unknown event type": 1}
    assert ["accepted", "processed"] in statuses.values()
    assert ["accepted", "unprocessed"] in statuses.values()
    assert ["accepted"] in statuses.values()  # the running session's pending message
    assert any("```python" in e.data.get("text", "") for e in events)
    calls = [e for e in events if e.type == "tool_call"]
    assert all(isinstance(e.data["name"], str) and isinstance(e.data["input"], dict) for e in calls)
    text = "\n".join(str(e.data) for e in events)
    for needle in (
        "ReadTimeoutError",
        "we agreed to use exponential backoff",
        "connect_timeout",
        "ABC-123",
    ):
        assert needle in text


def test_one_transcript_is_compacted_only_and_the_malformed_line_is_not_last(
    demo_project: Path,
) -> None:
    chats = demo_project / ".ade" / "chats"
    gz = list(chats.glob("*.jsonl.gz"))
    assert len(gz) == 1
    assert not gz[0].with_suffix("").exists()
    assert gzip.decompress(gz[0].read_bytes()).endswith(b"\n")
    broken = [
        (path.name, n, len(lines))
        for path in chats.glob("*.jsonl")
        for lines in [path.read_bytes().splitlines()]
        for n, line in enumerate(lines)
        if not line.endswith(b"}")
    ]
    assert len(broken) == 1
    _, index, count = broken[0]
    assert 0 < index < count - 1


def test_terminal_sessions_are_real_pty_output(
    project: Project, sessions: dict[str, SessionMeta]
) -> None:
    terms = {s.id: s for s in sessions.values() if s.kind == "terminal"}
    assert len(terms) >= 6
    assert all(s.tool == "shell" and s.command for s in terms.values())
    raw = {sid: _bytes(project, meta) for sid, meta in terms.items()}
    everything = b"".join(raw.values())
    assert b"\r\n" in everything  # the tty line discipline, not a Python print
    pytest_log = raw["term-pytest-retry"]
    assert b"\x1b[31m" in pytest_log
    assert b"FAILED" in pytest_log
    main_tip = _git(project.root, "rev-parse", "--short=7", "main").strip().encode()
    assert main_tip in raw["term-git-graph"]
    assert b"\x1b[" in raw["term-git-graph"]
    assert b"Traceback (most recent call last)" in raw["term-settle-traceback"]
    assert re.search(rb"\r[^\n]+\r", raw["term-ledger-backfill"])
    build = raw["term-wheel-build"]
    assert len(build) >= 2_000_000
    assert 0.25 < build.index(b"error: ") / len(build) < 0.75
    running = [s for s in terms.values() if s.ended_at is None]
    assert len(running) == 1
    assert not raw[running[0].id].endswith(b"\n")
    odd = raw["term-pr41-shell"]
    with pytest.raises(UnicodeDecodeError):
        odd.decode("utf-8")
    assert b"\x1b]8;;https://" in odd
    assert odd.index(b"\x1b[?1049h") < odd.index(b"\x1b[?1049l")
    assert str(project.root).encode() not in everything


def test_shas_quoted_in_chats_exist_in_the_repo(demo_project: Path) -> None:
    text = b"".join(p.read_bytes() for p in (demo_project / ".ade" / "chats").glob("*.jsonl"))
    quoted = set(re.findall(rb"(?:\\n|\[[^\]]+ |\")([0-9a-f]{7}) ", text))
    assert len(quoted) >= 5
    for sha in quoted:
        _git(demo_project, "cat-file", "-e", f"{sha.decode()}^{{commit}}")


def test_prs_and_artifacts(project: Project) -> None:
    prs = list_prs(project, WarningTally())
    assert len(prs) >= 5
    branches = {b.name for b in list_branches(project.root)}
    assert all(pr.head_branch in branches and pr.comments for pr in prs)
    assert all(c.author and c.body and c.created_at for pr in prs for c in pr.comments)
    artifacts = list_artifacts(project, WarningTally())
    assert len(artifacts) >= 3
    assert {"screenshot", "log", "report"} <= {a.kind for a in artifacts}
    folder = project.ade_dir / "artifacts"
    assert all((folder / a.path).is_file() for a in artifacts)
    png = (folder / "checkout-page.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    idat = png[png.index(b"IDAT") + 4 : png.index(b"IEND") - 8]
    assert len(zlib.decompress(idat)) == height * (1 + 3 * width)


def test_cli_builds_an_identical_demo(
    demo_project: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADE_NOW", DEMO_NOW.isoformat())  # pinned: the tests' demo, byte for byte
    again = tmp_path / "again"
    assert cli.main(["demo", str(again)]) == 0
    out = capsys.readouterr().out
    assert "43 commits" in out
    assert f"ade search --project {again} timeout" in out
    assert _ade_files(again) == _ade_files(demo_project)
    refs = "for-each-ref", "--format=%(refname) %(objectname)"
    assert _git(again, *refs) == _git(demo_project, *refs)
    # A file line hit's recency is its file's mtime: the same on every build, or the ranking is not.
    assert _work_tree_mtimes(again) == _work_tree_mtimes(demo_project)


def test_work_tree_files_are_dated_by_their_history(demo_project: Path) -> None:
    """Every tracked file is dated (mtime) at the last commit of its branch that changed it, not
    at the instant the build wrote it: recency breaks ranking ties, and checkout instants a
    millisecond apart made two builds rank one query differently
    (benchmarks/journal/2026-12-07-determinism.md). git sees no change."""
    for tree in _work_trees(demo_project):
        for path in _tracked(tree):
            last = int(_git(tree, "log", "-1", "--format=%ct", "--", path))
            assert (tree / path).stat().st_mtime_ns == last * 1_000_000_000, (tree, path)
        assert _git(tree, "status", "--porcelain") == ""


def test_refuses_a_non_empty_folder_without_force(tmp_path: Path, capsys) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="--force"):
        build_demo(tmp_path)
    assert cli.main(["demo", str(tmp_path)]) == 2
    assert "--force" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_force_never_replaces_a_foreign_repository(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    with pytest.raises(UsageError, match="not an ade demo"):
        build_demo(tmp_path, force=True)
    assert not (tmp_path / ".ade").exists()


def test_force_replaces_a_previous_demo(demo_project: Path, tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(demo_project, old, symlinks=True)
    (old / ".ade" / "chats" / "stale.jsonl").write_text("{}\n")
    (old / "notes.txt").write_text("kept")
    build_demo(old, force=True)
    assert _ade_files(old) == _ade_files(demo_project)
    assert (old / "notes.txt").read_text() == "kept"
    assert len(list_lanes(open_project(old), WarningTally())) == 3


def test_missing_git_is_one_clear_error(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert cli.main(["demo", str(tmp_path / "demo")]) == 2
    assert capsys.readouterr().err.strip() == (
        "ade demo: the demo needs git on PATH to build its repository"
    )


def test_release_notes_chat_quotes_the_real_first_parent_log(demo_project: Path) -> None:
    from engine.demo.chat_scripts import RELEASE_040_SUBJECTS

    log = _git(demo_project, "log", "--format=%s", "--first-parent", "v0.3.0..v0.4.0")
    assert tuple(log.splitlines()) == RELEASE_040_SUBJECTS


def test_every_timestamp_is_at_or_before_demo_now(
    demo_project: Path, sessions: dict[str, SessionMeta]
) -> None:
    assert all(s.created_at <= s.updated_at <= DEMO_NOW for s in sessions.values())
    newest = int(_git(demo_project, "log", "--all", "-1", "--format=%ct", "--date-order"))
    assert newest < DEMO_NOW.timestamp()


def test_ade_demo_is_dated_relative_to_the_day_it_is_built(
    demo_project: Path, sessions: dict[str, SessionMeta], tmp_path: Path
) -> None:
    """A demo built today reads "2h", "3d" today, not "24w"; on one day, one demo."""
    from engine.demo import build_day
    from tui.commands.demo import demo_now

    today = datetime(2026, 12, 1, 10, 31, 7, tzinfo=UTC)
    assert build_day(today) == datetime(2026, 12, 1, tzinfo=UTC)
    assert build_day(today.replace(hour=23)) == build_day(today)  # deterministic all day
    assert demo_now({"ADE_NOW": "2026-06-15T12:00:00+00:00"}) == DEMO_NOW  # pinned wins
    assert demo_now({}) <= datetime.now(UTC)  # never in the user's future
    shift = build_day(today) - DEMO_NOW
    later = build_demo(tmp_path / "later", now=build_day(today)).root
    moved = {s.id: s for s in list_sessions(open_project(later), WarningTally())}
    assert moved.keys() == sessions.keys()
    for sid, meta in sessions.items():
        assert moved[sid].updated_at - meta.updated_at == shift
        assert moved[sid].created_at - meta.created_at == shift
    newest = int(_git(later, "log", "--all", "-1", "--format=%ct", "--date-order"))
    original = int(_git(demo_project, "log", "--all", "-1", "--format=%ct", "--date-order"))
    assert newest - original == shift.total_seconds()
