"""`ade search --offset N` and `--cursor` walk every matching commit past the 1,000-hit ranked
window, on both paths, graded against ``git log --grep``; bad offsets are usage errors."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

COMMITS = 1_100


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=str(root))
    done = subprocess.run(["git", *args], cwd=root, env=env, input=stdin, check=True,
                          capture_output=True)  # fmt: skip
    return done.stdout.decode()


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,100 commits (one ``git fast-import``): all but every 20th mention ``sprocket``."""
    root = tmp_path_factory.mktemp("offset") / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    stream = []
    for i in range(COMMITS):
        text = f"chore {i}" if i % 20 == 0 else f"step {i}\n\nturn the sprocket {i}"
        data = text.encode()
        stream.append(f"commit refs/heads/main\ncommitter A <a@example.com> {1_700_000_000 + i} +0000\n"
                      f"data {len(data)}\n".encode() + data + b"\n\n")  # fmt: skip
    git(root, "fast-import", "--quiet", "--date-format=raw", stdin=b"".join(stream))
    git(root, "checkout", "-q", "main")
    return root


def grep(root: Path, word: str) -> set[str]:
    return set(git(root, "log", "--format=%H", "-i", "-F", f"--grep={word}").split())


def page(capsys: pytest.CaptureFixture[str], root: Path, *flags: str) -> dict[str, object]:
    run = run_main(capsys, search_argv(root, "--json", "--kind", "commit", "--limit", "500",
                                       *flags, "--", "sprocket"))  # fmt: skip
    assert run.code in (0, 1), run.err
    answer: dict[str, object] = json.loads(run.out)
    return answer


def test_offset_and_cursor_reach_every_matching_commit(
    history: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    want = grep(history, "sprocket")
    assert len(want) > 1_000  # past the ranked window
    by_offset: list[str] = []
    by_cursor: list[str] = []
    cursor: object = None
    while True:
        answer = page(capsys, history, "--offset", str(len(by_offset)))
        by_offset += [item["anchor"] for item in answer["items"]]  # type: ignore[attr-defined]
        assert answer["total"] == len(want)
        assert answer["resultsTruncated"] is False
        if answer["nextCursor"] is None:
            break
    while True:
        answer = page(capsys, history, *(["--cursor", str(cursor)] if cursor else []))
        by_cursor += [item["anchor"] for item in answer["items"]]  # type: ignore[attr-defined]
        cursor = answer["nextCursor"]
        if cursor is None:
            break
    assert by_offset == by_cursor
    assert len(by_offset) == len(set(by_offset))
    assert set(by_offset) == want


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--offset", "-1"], "--offset must be 0 or more"),
        (["--offset", "5", "--cursor", "abc"], "--offset and --cursor do not go together"),
        (["--offset", "x"], "invalid int value"),
    ],
)
def test_a_bad_offset_is_one_line_and_exit_2(
    history: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    run = run_main(capsys, search_argv(history, *flags, "sprocket"))
    assert run.code == 2
    assert message in run.err
    assert run.err.count("\n") == 1
