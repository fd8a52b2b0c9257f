"""engine.links.details: the context behind a link, headless (real files, real git)."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest

from engine.errors import DeepLinkError
from engine.links.details import (
    DetailError,
    chat_context,
    commit_detail,
    file_detail,
    final_frame,
    scrollback_context,
    strip_ansi,
)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"plain", b"plain"),
        (b"10%\r50%\r100%", b"100%"),
        (b"downloading....\rok", b"okwnloading...."),  # never erased: the tail stays visible
        (b"line\r", b"line"),
    ],
)
def test_final_frame(raw: bytes, shown: bytes) -> None:
    assert final_frame(raw) == shown


def test_strip_ansi() -> None:
    assert strip_ansi(b"\x1b[31merror\x1b[0m \x1b]0;title\x07done") == b"error done"


def transcript(tmp_path: Path, lines: list[str], *, gz: bool = False) -> Path:
    data = "".join(line + "\n" for line in lines).encode()
    path = tmp_path / "t.log"
    if gz:
        path = tmp_path / "t.log.gz"
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_scrollback_context_focuses_the_line_of_the_offset(tmp_path: Path, gz: bool) -> None:
    lines = [f"line {i}" for i in range(100)]
    path = transcript(tmp_path, lines, gz=gz)
    offset = sum(len(line) + 1 for line in lines[:40]) + 2  # inside line 40
    context = scrollback_context(path, offset, before=2, after=2)
    assert [line.text for line in context.lines] == [f"line {i}" for i in range(38, 43)]
    assert context.focus == 2
    assert context.note is None


def test_scrollback_context_past_the_end_lands_on_the_end(tmp_path: Path) -> None:
    path = transcript(tmp_path, ["first", "last"])
    context = scrollback_context(path, 10**9)
    assert context.note is not None
    assert "past the end" in context.note
    assert context.focus is not None
    assert context.lines[context.focus].text == "last"


def test_scrollback_context_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DetailError):
        scrollback_context(tmp_path / "gone.log", 0)


def chat(tmp_path: Path) -> Path:
    events = [
        {"seq": 1, "type": "user_message", "id": "u1", "text": "hello", "status": "accepted"},
        {"seq": 2, "type": "user_message", "id": "u1", "text": "hello", "status": "processed"},
        {"seq": 3, "type": "assistant_message", "id": "a1", "text": "hi there"},
        {"seq": 5, "type": "tool_call", "id": "t1", "name": "shell", "input": {"cmd": "ls"}},
        "not json",
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events))
    return path


def test_chat_context_folds_delivery_snapshots_and_marks_the_event(tmp_path: Path) -> None:
    context = chat_context(chat(tmp_path), 3, radius=1)
    assert [line.text for line in context.lines] == [
        "user: hello",
        "assistant: hi there",
        'tool call: shell({"cmd": "ls"})',
    ]
    assert context.focus == 1


def test_chat_context_missing_event_lands_on_the_nearest(tmp_path: Path) -> None:
    context = chat_context(chat(tmp_path), 4, radius=0)
    assert context.note is not None
    assert [line.number for line in context.lines] == [3]


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def test_commit_detail_and_file_detail(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("".join(f"x{i} = {i}\n" for i in range(1, 51)))
    git(repo, "add", "a.py")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-qm", "Add a\n\nBody text")
    sha = git(repo, "rev-parse", "HEAD").strip()
    detail = commit_detail(repo, sha)
    assert detail.title == "Add a"
    assert "Body text" in detail.body
    assert "a.py" in detail.body
    with pytest.raises(DeepLinkError):
        commit_detail(repo, "--output=/tmp/x")
    with pytest.raises(DetailError):
        commit_detail(repo, "deadbeef")
    lines = file_detail(repo, "a.py", 25, radius=2)
    assert lines.body.splitlines() == ["x23 = 23", "x24 = 24", "x25 = 25", "x26 = 26", "x27 = 27"]
    assert (lines.first_line, lines.focus_line, lines.language) == (23, 25, "python")
    end = file_detail(repo, "a.py", 999, radius=1)
    assert end.focus_line == 50
    assert end.note is not None
    with pytest.raises(DeepLinkError):
        file_detail(repo, "../outside.py", 1)
