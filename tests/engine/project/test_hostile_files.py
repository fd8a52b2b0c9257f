"""Hostile files where project records are expected (docs/reliability.md): JSON nested 100,000 deep,
real FIFOs, sockets, directories and device nodes, real symlinks out of the project.

Each bad file is one counted warning and the other records are still read. Every read that
would hang on a FIFO runs in a thread with a join timeout, so a regression fails instead of
hanging the suite.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from engine.external.discover import claude_slug, external_sessions
from engine.external.lines import json_lines
from engine.project.artifacts import list_artifacts
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.model import Project
from engine.project.prs import list_prs
from engine.project.safe_io import (
    NESTED_TOO_DEEP,
    JsonRejected,
    UnsafeFile,
    dumps_json,
    loads_json,
    open_regular,
)
from engine.project.sessions import list_sessions, read_session
from engine.project.tally import WarningTally
from engine.project.transcripts import (
    TranscriptUnreadable,
    parse_chat_lines,
    read_transcript,
    refused_transcript,
    transcript_file,
)

T = TypeVar("T")

DEEP_ARRAY = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000
JUST_TOO_DEEP = "[" * 1_000 + "]" * 1_000
"""Both json and msgspec raise RecursionError already at ~1,000 levels."""

GUARD_S = 20.0


def guarded(call: Callable[[], T]) -> T:
    """``call()`` in a daemon thread; fail (never hang) when it does not return in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as err:  # re-raised on the test's thread
            box["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GUARD_S)
    if thread.is_alive():
        pytest.fail(f"{call} blocked for {GUARD_S}s (a FIFO opened for reading?)")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


def _session(sid: str, kind: str = "chat", **extra: Any) -> dict[str, Any]:
    return {"id": sid, "kind": kind, "title": f"title {sid}", "createdAt": "2026-05-01T10:00:00Z",
            **extra}  # fmt: skip


def _pr(number: int) -> dict[str, Any]:
    return {"number": number, "title": f"PR {number}", "updatedAt": "2026-05-01T10:00:00Z"}


@pytest.fixture
def ade(project: Project, write_json: Any) -> Path:
    """A project with one good session, PR and artifact, so each test sees the rest survive."""
    write_json(project.ade_dir / "sessions" / "good.json", _session("good"))
    write_json(project.ade_dir / "prs" / "1.json", _pr(1))
    (project.ade_dir / "artifacts").mkdir(parents=True)
    (project.ade_dir / "artifacts" / "a.txt").write_text("x")
    write_json(project.ade_dir / "artifacts" / "good.json",
               {"id": "good", "path": "a.txt", "createdAt": "2026-05-01T10:00:00Z"})  # fmt: skip
    return project.ade_dir


# -- 4. nesting too deep -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", [DEEP_ARRAY, DEEP_OBJECT, JUST_TOO_DEEP], ids=["array", "object", "1000-deep"]
)
def test_loads_json_rejects_deep_nesting_as_bad_json(text: str) -> None:
    with pytest.raises(JsonRejected, match="nested too deep"):
        loads_json(text.encode())


@pytest.mark.parametrize("text", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_deep_records_are_skipped_and_counted_once_each(
    project: Project, ade: Path, tally: WarningTally, text: str
) -> None:
    (ade / "sessions" / "deep.json").write_text(text)
    (ade / "prs" / "2.json").write_text(text)
    (ade / "artifacts" / "deep.json").write_text(text)
    assert [s.id for s in list_sessions(project, tally)] == ["good"]
    assert [p.number for p in list_prs(project, tally)] == [1]
    assert [a.id for a in list_artifacts(project, tally)] == ["good"]
    assert tally.snapshot() == {"sessions": 1, "prs": 1, "artifacts": 1}
    assert tally.reasons("prs") == {"json nested too deep 2.json": 1}


def test_deep_lanes_json_falls_back_and_deep_project_json_keeps_the_default_identity(
    repo: Any, tally: WarningTally
) -> None:
    repo.commit("base")
    (repo.root / ".ade").mkdir()
    (repo.root / ".ade" / "lanes.json").write_text(DEEP_OBJECT)
    (repo.root / ".ade" / "project.json").write_text(DEEP_ARRAY)
    project = open_project(repo.root, tally)
    assert project.name == repo.root.name  # the default identity
    assert [lane.id for lane in list_lanes(project, tally)] == ["primary"]  # git's worktrees
    assert tally.snapshot() == {"project": 1, "lanes": 1}


def test_a_value_that_parsed_is_rendered_even_from_a_deeper_stack() -> None:
    value = loads_json("[" * 900 + "]" * 900)

    def from_depth(n: int) -> str:
        return dumps_json(value) if n == 0 else from_depth(n - 1)

    # json.dumps alone raises RecursionError here (Python 3.11 counts its C recursion against
    # the limit); a newer interpreter may render it whole. Never an exception either way.
    assert from_depth(200) in (NESTED_TOO_DEEP, "[" * 900 + "]" * 900)
    assert dumps_json({"a": [1]}) == '{"a": [1]}'


def test_deep_chat_line_is_one_counted_line_between_good_ones(tally: WarningTally) -> None:
    good = b'{"seq": 1, "type": "assistant_message", "id": "m1", "text": "hi"}\n'
    data = good + DEEP_ARRAY.encode() + b"\n" + good.replace(b"1", b"2")
    events, consumed = parse_chat_lines(data, 0, "chat:s", tally)
    assert [e.seq for e in events] == [1, 2]
    assert consumed == len(data)
    assert tally.reasons("chat:s") == {"json nested too deep": 1}


def test_deep_external_line_is_one_counted_line(tally: WarningTally) -> None:
    data = b'{"type": "user"}\n' + DEEP_OBJECT.encode() + b'\n{"type": "assistant"}\n'
    lines, consumed = json_lines(data, 0, "chat:claude-x", tally)
    assert [obj["type"] for _, obj in lines] == ["user", "assistant"]
    assert tally.snapshot() == {"chat:claude-x": 1}
    assert consumed == len(data)


# -- 5. FIFOs, sockets, directories, devices -----------------------------------------------------


@pytest.fixture
def bound_socket() -> Iterator[Callable[[Path], None]]:
    socks: list[socket.socket] = []

    def bind(path: Path) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        socks.append(sock)
        # Bound by a relative name from its folder: a deep tmp path can pass the 107-byte
        # AF_UNIX limit.
        here = os.getcwd()
        os.chdir(path.parent)
        try:
            sock.bind(path.name)
        finally:
            os.chdir(here)

    yield bind
    for sock in socks:
        sock.close()


def test_open_regular_refuses_each_kind_of_special_file_without_blocking(
    tmp_path: Path, bound_socket: Callable[[Path], None]
) -> None:
    os.mkfifo(tmp_path / "fifo")
    bound_socket(tmp_path / "sock")
    (tmp_path / "dir").mkdir()
    for name, what in [("fifo", "a FIFO"), ("sock", "a socket"), ("dir", "a directory")]:
        with pytest.raises(UnsafeFile, match=what):
            guarded(lambda name=name: open_regular(tmp_path / name))
    with pytest.raises(UnsafeFile, match="character device"):
        open_regular("/dev/null")
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "missing")


def test_fifos_and_sockets_as_records_are_counted_and_the_rest_is_read(
    project: Project, ade: Path, tally: WarningTally, bound_socket: Callable[[Path], None]
) -> None:
    os.mkfifo(ade / "sessions" / "fifo.json")
    bound_socket(ade / "prs" / "2.json")
    os.mkfifo(ade / "prs" / "3.json")
    os.mkfifo(ade / "artifacts" / "fifo.json")
    (ade / "sessions" / "dir.json").mkdir()
    assert [s.id for s in guarded(lambda: list_sessions(project, tally))] == ["good"]
    assert [p.number for p in guarded(lambda: list_prs(project, tally))] == [1]
    assert [a.id for a in guarded(lambda: list_artifacts(project, tally))] == ["good"]
    assert guarded(lambda: read_session(project, "fifo", tally)) is None
    assert tally.snapshot() == {"sessions": 2, "prs": 2}  # artifacts skip non-files quietly
    assert tally.reasons("prs") == {"refused 2.json is a socket": 1, "refused 3.json is a FIFO": 1}


def test_fifo_lanes_json_and_project_json(repo: Any, tally: WarningTally) -> None:
    repo.commit("base")
    (repo.root / ".ade").mkdir()
    os.mkfifo(repo.root / ".ade" / "lanes.json")
    os.mkfifo(repo.root / ".ade" / "project.json")
    project = guarded(lambda: open_project(repo.root, tally))
    assert [lane.id for lane in guarded(lambda: list_lanes(project, tally))] == ["primary"]
    assert tally.snapshot() == {"project": 1, "lanes": 1}


@pytest.mark.parametrize("where", ["plain", "gz"])
def test_fifo_transcript_is_no_transcript(project: Project, ade: Path, where: str) -> None:
    chats = ade / "chats"
    chats.mkdir()
    fifo = chats / ("good.jsonl" if where == "plain" else "good.jsonl.gz")
    os.mkfifo(fifo)
    assert guarded(lambda: transcript_file(project, "chat", "good")) is None
    assert refused_transcript(project, "chat", "good") == f"refused {fifo.name}: is a FIFO"
    with pytest.raises(TranscriptUnreadable, match="FIFO"):
        guarded(lambda: read_transcript(chats / "good.jsonl", 0, 100))


def test_fifo_external_transcript_is_refused(
    project: Project, tmp_path: Path, tally: WarningTally
) -> None:
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / claude_slug(project.root)
    folder.mkdir(parents=True)
    os.mkfifo(folder / "abc.jsonl")
    env = {"HOME": str(home)}
    assert guarded(lambda: external_sessions(project, [], tally, env)) == []
    assert tally.reasons("claude") == {"refused": 1}  # a FIFO, not a regular file


# -- 6. symlinks: inside is followed, outside is refused ------------------------------------------


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_bytes(b'{"seq": 1, "type": "user_message", "id": "k", "text": "PRIVATE KEY"}\n')
    return path


def test_transcript_linked_out_of_the_project_is_refused(
    project: Project, ade: Path, secret: Path
) -> None:
    (ade / "chats").mkdir()
    (ade / "chats" / "good.jsonl").symlink_to(secret)
    assert transcript_file(project, "chat", "good") is None
    assert refused_transcript(project, "chat", "good") == (
        "refused good.jsonl: links outside the project"
    )


def test_transcript_linked_inside_the_project_is_followed(project: Project, ade: Path) -> None:
    (ade / "chats").mkdir()
    (project.root / "kept.jsonl").write_bytes(b"{}\n")
    (ade / "chats" / "good.jsonl").symlink_to(project.root / "kept.jsonl")
    assert transcript_file(project, "chat", "good") == ade / "chats" / "good.jsonl"


def test_transcript_linked_into_a_git_worktree_outside_the_project_is_followed(
    repo: Any, tmp_path: Path
) -> None:
    repo.commit("base")
    lane = tmp_path / "lanes" / "feature"
    repo.git("worktree", "add", "-q", "-b", "feature", str(lane))
    (lane / "t.jsonl").write_bytes(b"{}\n")
    (tmp_path / "stray").mkdir()
    (tmp_path / "stray" / "t.jsonl").write_bytes(b"{}\n")
    chats = repo.root / ".ade" / "chats"
    chats.mkdir(parents=True)
    (chats / "in-lane.jsonl").symlink_to(lane / "t.jsonl")
    (chats / "stray.jsonl").symlink_to(tmp_path / "stray" / "t.jsonl")
    project = open_project(repo.root)
    assert transcript_file(project, "chat", "in-lane") == chats / "in-lane.jsonl"
    assert transcript_file(project, "chat", "stray") is None


def test_session_naming_a_transcript_outside_is_refused(
    project: Project, ade: Path, secret: Path, tally: WarningTally, write_json: Any
) -> None:
    write_json(ade / "sessions" / "evil.json", _session("evil", transcriptPath=str(secret)))
    assert [s.id for s in list_sessions(project, tally)] == ["good"]
    assert tally.reasons("sessions") == {"evil.json: transcriptPath: outside the project": 1}


def test_relative_transcript_path_is_relative_to_the_project(
    project: Project, ade: Path, write_json: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write_json(ade / "sessions" / "rel.json", _session("rel", transcriptPath="logs/rel.jsonl"))
    monkeypatch.chdir(tmp_path)  # never resolved against the working folder
    meta = read_session(project, "rel")
    assert meta is not None
    assert meta.transcript_path == project.root / "logs" / "rel.jsonl"


def test_record_linked_out_of_the_project_is_refused(
    project: Project, ade: Path, tmp_path: Path, tally: WarningTally
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(_session("linked")))
    (ade / "sessions" / "linked.json").symlink_to(outside)
    assert [s.id for s in list_sessions(project, tally)] == ["good"]
    assert tally.reasons("sessions") == {"refused linked.json links outside the project": 1}


def test_lanes_json_lane_outside_the_project_is_refused_unless_git_lists_it(
    repo: Any, tmp_path: Path, tally: WarningTally, write_json: Any
) -> None:
    repo.commit("base")
    worktree = tmp_path / "wt" / "feature"
    repo.git("worktree", "add", "-q", "-b", "feature", str(worktree))
    (tmp_path / "etc").mkdir()
    write_json(repo.root / ".ade" / "lanes.json", [
        {"id": "main", "path": ".", "primary": True},
        {"id": "inside", "path": "sub/dir"},
        {"id": "feature", "path": str(worktree)},
        {"id": "evil", "path": str(tmp_path / "etc")},
        {"id": "sneaky", "path": "../etc"},
        {"id": "sibling", "path": str(repo.root) + "-evil"},
    ])  # fmt: skip
    lanes = list_lanes(open_project(repo.root), tally)
    assert [lane.id for lane in lanes] == ["main", "inside", "feature"]
    assert tally.snapshot() == {"lanes": 3}


def test_external_transcript_linked_out_of_its_folder_is_refused(
    repo: Any, tmp_path: Path, tally: WarningTally
) -> None:
    repo.commit("base")
    project = open_project(repo.root)
    home = tmp_path / "home2"
    folder = home / ".claude" / "projects" / claude_slug(project.root)
    folder.mkdir(parents=True)
    cwd = json.dumps(str(project.root))
    line = f'{{"type": "user", "cwd": {cwd}, "sessionId": "s", "uuid": "u"}}\n'
    (folder / "kept.jsonl").write_text(line)
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(line)
    (folder / "linked.jsonl").symlink_to(outside)
    env = {"HOME": str(home)}
    found = external_sessions(project, list_lanes(project, tally), tally, env)
    assert [m.id for m in found] == ["claude-kept"]
    assert tally.reasons("claude") == {"refused": 1}  # linked out of the projects folder


def test_fifos_as_the_git_memos_are_refused_and_git_answers(repo: Any) -> None:
    # .ade/cache is inside the project: a FIFO committed there must not hang a command (the memos
    # read through open_regular); the answer is git's own, as with no memo at all.
    from engine.project.git import origin_slug, worktrees
    from engine.project.origin_memo import CACHE_NAME as ORIGIN_MEMO
    from engine.project.origin_memo import remembered_origin
    from engine.project.worktree_memo import CACHE_NAME as WORKTREE_MEMO
    from engine.project.worktree_memo import remembered_worktrees

    repo.commit("base")
    repo.git("remote", "add", "origin", "https://github.com/acme/widgets.git")
    cache = repo.root / ".ade" / "cache"
    cache.mkdir(parents=True)
    os.mkfifo(cache / ORIGIN_MEMO)
    os.mkfifo(cache / WORKTREE_MEMO)
    project = Project(root=repo.root, id="p", name="repo", is_git=True)
    assert guarded(lambda: remembered_origin(project)) == origin_slug(repo.root) == "acme/widgets"
    assert [t.path for t in guarded(lambda: remembered_worktrees(project))] == [
        t.path for t in worktrees(repo.root)
    ]
