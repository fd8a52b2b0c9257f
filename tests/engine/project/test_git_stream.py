"""``CommitStream``: a whole history read a slice at a time, resumable, never an option."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.project.git import GitError, recent_commits, stderr_file
from engine.project.git_stream import CommitStream, count_commits, existing_commits


def test_slices_add_up_to_the_one_shot_log_and_skip_resumes(repo: Any) -> None:
    for i in range(25):
        repo.commit(f"c{i}", f"body {i}\n\nwith\nlines" if i % 3 else "")
    head = repo.git("rev-parse", "HEAD").strip()
    whole = recent_commits(repo.root, limit=1000)
    with CommitStream(repo.root, [head], []) as stream:
        sliced = [c for _ in range(4) for c in stream.take(7)]
        assert stream.finished
    assert sliced == whole
    with CommitStream(repo.root, [head], [], skip=10) as resumed:
        assert resumed.take(100) == whole[10:]
    base = whole[5].sha
    with CommitStream(repo.root, [head], [base]) as newer:
        assert [c.sha for c in newer.take(100)] == [c.sha for c in whole[:5]]
    assert count_commits(repo.root, [head], [base]) == 5


def test_only_full_object_names_reach_git(repo: Any, tmp_path: Path) -> None:
    repo.commit("one")
    target = tmp_path / "written"
    for bad in (f"--output={target}", "HEAD", "--all", "^HEAD"):
        with pytest.raises(GitError, match="not an object name"):
            CommitStream(repo.root, [bad], [])
    assert not target.exists()


def test_a_missing_object_is_filtered_before_the_walk(repo: Any) -> None:
    head = repo.commit("one")
    ghost = "0" * 40
    assert existing_commits(repo.root, [head, ghost]) == {head}
    with pytest.raises(GitError), CommitStream(repo.root, [head], [ghost]) as stream:
        stream.take(10)  # git refuses a missing object: why the plan filters old tips first


def test_a_chatty_child_never_blocks_on_its_stderr_file() -> None:
    """A child writing far more than a pipe holds to stderr while its stdout is read to the end
    does not stall, and the file gives back its first line (what ``error()`` reports)."""
    chatty = "import sys; sys.stderr.write('first line\\n' + 'x' * 1_000_000); print('done')"
    with stderr_file() as err:
        done = subprocess.run([sys.executable, "-c", chatty], stdout=subprocess.PIPE,
                              stderr=err, timeout=60, check=True)  # fmt: skip
        err.seek(0)
        assert err.read(4096).splitlines()[0] == b"first line"
    assert done.stdout == b"done\n"
