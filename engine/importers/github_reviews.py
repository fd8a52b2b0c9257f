"""PR reviews for ``ade prs sync``: review summaries from ``gh pr list --json reviews``, and the
comments on diff lines from one ``gh api`` listing of the repository's pull comments.

``gh pr list`` has no field for comments on diff lines, so they are asked of the REST endpoint
``repos/{owner}/{repo}/pulls/comments`` (every PR's, newest pages included with
``--paginate``), reduced by ``--jq`` to one JSON object a line. That listing is best effort: when
it fails (an old ``gh``, a token without the scope) the snapshots are still written, without
``reviewComments``, and the reason is returned for one warning line.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.project.prs import author_login
from engine.project.safe_io import JsonRejected, loads_json

REVIEW_COMMENTS_JQ = (
    ".[] | {id, reviewId: .pull_request_review_id, author: .user.login, body, path,"
    " line: (.line // .original_line), createdAt: .created_at,"
    ' pr: (.pull_request_url | split("/") | last | tonumber)}'
)
"""One object a line, only the fields a snapshot keeps (the REST objects are kilobytes each)."""


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def review_from_gh(raw: Any) -> dict[str, Any] | None:
    """One ``gh`` review object → the snapshot's ``reviews`` entry (``None``: not an object).

    Raises:
        ValueError: the author has an impossible shape (``FieldError``).
    """
    if not isinstance(raw, dict):
        return None
    return {
        "id": raw.get("id"),
        "author": author_login(raw.get("author")),
        "body": _text(raw.get("body")),
        "state": _text(raw.get("state")),
        "submittedAt": raw.get("submittedAt") if isinstance(raw.get("submittedAt"), str) else None,
    }


def fetch_review_comments(
    exe: str, cwd: Path, env: Mapping[str, str] | None, timeout_s: float
) -> tuple[dict[int, list[dict[str, Any]]], str | None]:
    """Every comment on a diff line, grouped by PR number, and why none could be had."""
    argv = [exe, "api", "--paginate", "repos/{owner}/{repo}/pulls/comments",
            "--jq", REVIEW_COMMENTS_JQ]  # fmt: skip
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=None if env is None else dict(env), capture_output=True,
            timeout=timeout_s, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as err:
        return {}, f"review comments not fetched: {err}"
    if done.returncode != 0:
        return {}, f"review comments not fetched: gh api exited {done.returncode}"
    by_pr: dict[int, list[dict[str, Any]]] = {}
    for line in done.stdout.splitlines():
        try:
            item = loads_json(line)
        except JsonRejected:
            continue
        if not isinstance(item, dict):
            continue
        number = item.pop("pr", None)
        if isinstance(number, int) and not isinstance(number, bool):
            by_pr.setdefault(number, []).append(item)
    return by_pr, None
