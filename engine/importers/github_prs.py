"""``ade prs sync``: ``gh pr list --json …`` → ``.ade/prs/<number>.json`` (DESIGN §2 shape).

``gh`` is run as a subprocess in the project folder, so it picks the repository and the
account the user already configured. Every record is validated before any file is written; a
file whose bytes would not change is left alone, and PRs missing from the listing (past
``--limit``) keep their old snapshot.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.basics.pretty_json import json_bytes
from engine.errors import AdeError
from engine.importers.github_reviews import fetch_review_comments, review_from_gh
from engine.importers.store import write_atomic
from engine.project.fields import parse_aware_time
from engine.project.model import Project
from engine.project.prs import MAX_PR_NUMBER, author_login
from engine.project.safe_io import JsonRejected, loads_json, read_regular

GH_FIELDS = "number,title,body,state,author,headRefName,baseRefName,url,updatedAt,comments,reviews"
"""What ``gh pr list --json`` is asked for: everything a snapshot holds, comments and reviews
included (comments on diff lines come from ``engine.importers.github_reviews``)."""

GH_TIMEOUT_S = 120.0
"""A listing of hundreds of PRs with comments takes seconds; minutes means gh is stuck."""

GH_AUTH_EXIT = 4
"""``gh`` exits 4 when authentication is required."""


class GhUnavailable(AdeError):
    """``gh`` is missing, not authenticated, or failed; ``str()`` is the one-line reason."""


@dataclass(frozen=True, slots=True)
class SyncResult:
    """How many snapshots were written and how many were already up to date."""

    written: int
    unchanged: int
    note: str | None = None
    """Why the comments on diff lines are missing from this sync (one line), if they are."""


def fetch_prs(cwd: Path, limit: int, env: Mapping[str, str] | None = None) -> list[Any]:
    """Run ``gh pr list --state all`` in ``cwd`` and return its decoded JSON list.

    Raises:
        GhUnavailable: gh missing, unauthenticated, failing, or printing something else.
    """
    path = None if env is None else env.get("PATH")
    exe = shutil.which("gh", path=path)
    if exe is None:
        raise GhUnavailable("the GitHub CLI `gh` is not installed (https://cli.github.com)")
    argv = [exe, "pr", "list", "--state", "all", "--limit", str(limit), "--json", GH_FIELDS]
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=None if env is None else dict(env), capture_output=True,
            timeout=GH_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as err:
        raise GhUnavailable(f"gh failed to run: {err}") from None
    if done.returncode != 0:
        raise GhUnavailable(_failure(done.returncode, done.stderr))
    try:
        items = loads_json(done.stdout)
    except JsonRejected:
        raise GhUnavailable("gh printed something that is not JSON") from None
    if not isinstance(items, list):
        raise GhUnavailable("gh printed JSON that is not a list of PRs")
    return items


def _failure(code: int, stderr: bytes) -> str:
    text = stderr.decode("utf-8", errors="replace")
    if code == GH_AUTH_EXIT or "gh auth login" in text or "not logged" in text:
        return "gh is not authenticated; run `gh auth login`"
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return f"gh pr list failed (exit {code}){': ' + first[:200] if first else ''}"


def snapshot_from_gh(item: Any) -> dict[str, Any]:
    """One ``gh`` PR object → the snapshot object of DESIGN §2.

    Raises:
        GhUnavailable: a field is missing or mistyped (gh's output is not what we asked for).
    """
    if not isinstance(item, dict):
        raise GhUnavailable("gh listed a PR that is not an object")
    number = item.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or not 0 < number <= MAX_PR_NUMBER:
        raise GhUnavailable("gh listed a PR without a valid number")
    if not isinstance(item.get("title"), str) or parse_aware_time(item.get("updatedAt")) is None:
        raise GhUnavailable(f"gh listed PR #{number} without a title or updatedAt")
    try:
        return {
            "number": number,
            "title": item["title"],
            "body": _text(item.get("body")),
            "state": _text(item.get("state")),
            "author": author_login(item.get("author")),
            "headBranch": _text(item.get("headRefName")),
            "baseBranch": _text(item.get("baseRefName")),
            "url": _text(item.get("url")),
            "updatedAt": item["updatedAt"],
            "comments": [_comment(c) for c in item.get("comments") or [] if isinstance(c, dict)],
            "reviews": [r for r in map(review_from_gh, item.get("reviews") or []) if r],
        }
    except ValueError as err:
        raise GhUnavailable(f"gh listed PR #{number} with {err}") from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _comment(raw: dict[str, Any]) -> dict[str, Any]:
    return {
        "author": author_login(raw.get("author")),
        "body": _text(raw.get("body")),
        "createdAt": raw.get("createdAt") if isinstance(raw.get("createdAt"), str) else None,
    }


def write_snapshots(project: Project, snapshots: list[dict[str, Any]]) -> SyncResult:
    """Write each snapshot to ``.ade/prs/<number>.json`` atomically, skipping unchanged ones."""
    written = unchanged = 0
    for snapshot in snapshots:
        path = project.ade_dir / "prs" / f"{snapshot['number']}.json"
        data = json_bytes(snapshot)
        try:
            same = read_regular(path, len(data) + 1) == data  # a FIFO there: differs
        except OSError:
            same = False
        if same:
            unchanged += 1
            continue
        write_atomic(path, data)
        written += 1
    return SyncResult(written, unchanged)


def sync_prs(project: Project, limit: int, env: Mapping[str, str] | None = None) -> SyncResult:
    """Fetch, validate all, then write.

    Raises:
        GhUnavailable: nothing was written.
    """
    snapshots = [snapshot_from_gh(item) for item in fetch_prs(project.root, limit, env)]
    exe = shutil.which("gh", path=None if env is None else env.get("PATH"))
    note = None
    if exe is not None:
        by_pr, note = fetch_review_comments(exe, project.root, env, GH_TIMEOUT_S)
        for snapshot in snapshots:
            snapshot["reviewComments"] = by_pr.get(snapshot["number"], [])
    written = write_snapshots(project, snapshots)
    return SyncResult(written.written, written.unchanged, note)
