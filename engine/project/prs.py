"""PR snapshots: ``.ade/prs/<number>.json`` in the shape of ``gh pr view --json`` (DESIGN §2)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.project.bounds import project_bounds
from engine.project.fields import FieldError, opt_str, opt_time, read_json_object, req_str, req_time
from engine.project.model import PrComment, Project, PrSnapshot
from engine.project.pr_reviews import parse_reviews
from engine.project.tally import WarningTally

PRS_SOURCE = "prs"
"""Tally key for PR snapshot problems."""

MAX_PR_NUMBER = 10**9
"""PR numbers are positive and far below this; bigger is garbage (and keeps links bounded)."""

_NUMBER_RE = re.compile(r"[1-9][0-9]{0,9}")


def list_prs(project: Project, tally: WarningTally) -> list[PrSnapshot]:
    """Every valid PR snapshot, sorted by number; bad names, JSON and fields are counted."""
    folder = project.ade_dir / "prs"
    try:
        entries = list(folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as err:
        tally.add(PRS_SOURCE, f"unreadable prs folder: {err.strerror or err}")
        return []
    prs: list[PrSnapshot] = []
    for entry in entries:
        if entry.suffix != ".json":
            continue
        if not _NUMBER_RE.fullmatch(entry.stem) or int(entry.stem) > MAX_PR_NUMBER:
            tally.add(PRS_SOURCE, "file name is not a PR number")
            continue
        pr = _read(project, entry, int(entry.stem), tally)
        if pr is not None:
            prs.append(pr)
    return sorted(prs, key=lambda pr: pr.number)


def read_pr(project: Project, number: int, tally: WarningTally | None = None) -> PrSnapshot | None:
    """One PR snapshot, or ``None`` when ``number`` is out of range, missing or malformed."""
    if isinstance(number, bool) or not isinstance(number, int):
        return None
    if not 0 < number <= MAX_PR_NUMBER:
        return None
    path = project.ade_dir / "prs" / f"{number}.json"
    return _read(project, path, number, tally if tally is not None else WarningTally())


def _read(project: Project, path: Path, number: int, tally: WarningTally) -> PrSnapshot | None:
    record = read_json_object(path, tally, PRS_SOURCE, project_bounds(project.root))
    if record is None:
        return None
    try:
        return pr_from_record(record, number, tally)
    except FieldError as err:
        tally.add(PRS_SOURCE, f"{path.name}: {err}")
        return None


def pr_from_record(record: dict[str, Any], number: int, tally: WarningTally) -> PrSnapshot:
    """Validate one snapshot whose file name gave ``number``; bad comments are counted and dropped.

    ``gh``'s own names ``headRefName``/``baseRefName`` are accepted for the branches.

    Raises:
        FieldError: a required field is missing or mistyped, or ``number`` disagrees.
    """
    raw_number = record.get("number", number)
    if isinstance(raw_number, bool) or raw_number != number:
        raise FieldError("number: does not match the file name")
    comments: list[PrComment] = []
    raw_comments = record.get("comments") or []
    if not isinstance(raw_comments, list):
        raise FieldError("comments: expected list")
    for raw in raw_comments:
        try:
            comments.append(_comment(raw))
        except FieldError as err:
            tally.add(PRS_SOURCE, f"{number}.json comment: {err}")
    reviews, review_comments = parse_reviews(record, number, tally, author_login)
    return PrSnapshot(
        number=number,
        title=req_str(record, "title"),
        body=opt_str(record, "body", "") or "",
        state=opt_str(record, "state", "") or "",
        author=author_login(record.get("author")),
        head_branch=_branch(record, "headBranch", "headRefName"),
        base_branch=_branch(record, "baseBranch", "baseRefName"),
        url=opt_str(record, "url", "") or "",
        updated_at=req_time(record, "updatedAt"),
        comments=tuple(comments),
        reviews=reviews,
        review_comments=review_comments,
    )


def _branch(record: dict[str, Any], ours: str, gh: str) -> str:
    return opt_str(record, ours) or opt_str(record, gh) or ""


def author_login(value: object) -> str:
    """``"octocat"`` or ``{"login": "octocat"}`` → ``"octocat"``; ``null`` (deleted user) → ``""``.

    Raises:
        FieldError: any other shape.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        login = value.get("login")
        if login is None or isinstance(login, str):
            return login or ""
    raise FieldError("author: expected string or {login}")


def _comment(raw: object) -> PrComment:
    if not isinstance(raw, dict):
        raise FieldError("expected object")
    return PrComment(
        author=author_login(raw.get("author")),
        body=opt_str(raw, "body", "") or "",
        created_at=opt_time(raw, "createdAt"),
    )
