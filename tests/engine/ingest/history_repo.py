"""Long git histories for the history tests, written by ``git fast-import`` (one process for
hundreds of commits instead of one ``git commit`` each)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BASE_EPOCH = 1_380_000_000
"""2013-09-24: commit times count up a minute a commit from here."""


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    """git in ``root`` with a fixed identity and no user or system config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=str(root), GIT_AUTHOR_NAME="Ada",
               GIT_AUTHOR_EMAIL="ada@example.com", GIT_COMMITTER_NAME="Ada",
               GIT_COMMITTER_EMAIL="ada@example.com")  # fmt: skip
    done = subprocess.run(["git", *args], cwd=root, env=env, input=stdin, check=True,
                          capture_output=True)  # fmt: skip
    return done.stdout.decode()


class History:
    """Appends commits to branches of one repository through fast-import."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tick = 0
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q", "-b", "main")

    def commits(self, branch: str, messages: list[str], start: str | None = None) -> None:
        """Commit ``messages`` (oldest first) on ``branch``, from ``start`` (a rev) when given,
        else from the branch's tip (or as a root commit on a new branch)."""
        out: list[bytes] = []
        for i, message in enumerate(messages):
            self.tick += 1
            data = message.encode()
            out.append(f"commit refs/heads/{branch}\n".encode())
            out.append(
                f"committer Ada <ada@example.com> {BASE_EPOCH + 60 * self.tick} +0000\n".encode()
            )
            out.append(f"data {len(data)}\n".encode() + data + b"\n")
            if i == 0 and start is None and self._exists(branch):
                start = branch  # a new fast-import process continues a branch only when told
            if i == 0 and start is not None:
                sha = git(self.root, "rev-parse", start).strip()
                out.append(f"from {sha}\n".encode())
            out.append(b"\n")
        git(self.root, "fast-import", "--quiet", "--date-format=raw", stdin=b"".join(out))

    def _exists(self, branch: str) -> bool:
        refs = git(self.root, "for-each-ref", "--format=%(refname)", f"refs/heads/{branch}")
        return bool(refs.strip())

    def numbered(self, branch: str, prefix: str, count: int, start: str | None = None) -> None:
        """``count`` commits ``<prefix> 0`` … ``<prefix> count-1`` on ``branch``."""
        self.commits(branch, [f"{prefix} {i}\n\nbody of {prefix} {i}" for i in range(count)], start)

    def count(self, *revs: str) -> int:
        return int(git(self.root, "rev-list", "--count", *revs).strip())
