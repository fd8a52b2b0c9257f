"""The reviews of a PR snapshot: ``reviews`` and ``reviewComments`` (DESIGN §2, docs/search.md).

``reviews`` is what ``gh pr view --json reviews`` prints (``id`` a node id such as
``PRR_kwDOA…``, ``author`` as ``{login}``, ``state`` ``APPROVED``/``CHANGES_REQUESTED``/
``COMMENTED``/``DISMISSED``, ``submittedAt``); ``reviewComments`` are the comments on diff lines
(GitHub's ``pulls/comments``, ``id`` a number, ``reviewId`` the review they belong to). Either
may be absent: snapshots written before reviews were kept have neither. A bad entry is counted
and dropped; the rest of the PR still loads.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from engine.project.fields import FieldError, opt_int, opt_str, opt_time
from engine.project.model import PrReview, PrReviewComment
from engine.project.tally import WarningTally


@functools.cache
def review_item_id_re() -> re.Pattern[str]:
    """A review's node id or a comment's number: it becomes part of a doc id and an ``ade://``
    link. Compiled on first use: a warm search reads no review."""
    return re.compile(r"[A-Za-z0-9_=-]{1,128}")


PRS_SOURCE = "prs"
"""Tally key, the same as the PR reader's."""


def item_id(value: object, what: str) -> str:
    """A review or comment id as text: gh's node ids are strings, REST ids are numbers.

    Raises:
        FieldError: missing, or not an id we can put in a link.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        value = str(value)
    if not isinstance(value, str) or review_item_id_re().fullmatch(value) is None:
        raise FieldError(f"{what}: expected an id of [A-Za-z0-9_=-]")
    return value


Author = Callable[[object], str]
"""The PR reader's one rule for an author (``"login"`` or ``{login}``), handed in."""


def parse_reviews(
    record: dict[str, Any], number: int, tally: WarningTally, author_login: Author
) -> tuple[tuple[PrReview, ...], tuple[PrReviewComment, ...]]:
    """The valid reviews and review comments of one snapshot; bad entries are counted.

    Raises:
        FieldError: ``reviews`` or ``reviewComments`` is present but not a list.
    """
    reviews: list[PrReview] = []
    for raw in _list(record, "reviews"):
        try:
            reviews.append(_review(raw, author_login))
        except FieldError as err:
            tally.add(PRS_SOURCE, f"{number}.json review: {err}")
    comments: list[PrReviewComment] = []
    for raw in _list(record, "reviewComments"):
        try:
            comments.append(_review_comment(raw, author_login))
        except FieldError as err:
            tally.add(PRS_SOURCE, f"{number}.json review comment: {err}")
    return tuple(reviews), tuple(comments)


def _list(record: dict[str, Any], key: str) -> list[Any]:
    value = record.get(key) or []
    if not isinstance(value, list):
        raise FieldError(f"{key}: expected list")
    return value


def _review(raw: object, author_login: Author) -> PrReview:
    if not isinstance(raw, dict):
        raise FieldError("expected object")
    return PrReview(
        id=item_id(raw.get("id"), "id"),
        author=author_login(raw.get("author")),
        body=opt_str(raw, "body", "") or "",
        state=opt_str(raw, "state", "") or "",
        submitted_at=opt_time(raw, "submittedAt"),
    )


def _review_comment(raw: object, author_login: Author) -> PrReviewComment:
    if not isinstance(raw, dict):
        raise FieldError("expected object")
    review = raw.get("reviewId")
    line = opt_int(raw, "line")
    return PrReviewComment(
        id=item_id(raw.get("id"), "id"),
        review_id=None if review is None else item_id(review, "reviewId"),
        author=author_login(raw.get("author")),
        body=opt_str(raw, "body", "") or "",
        path=opt_str(raw, "path", "") or "",
        line=line if line is not None and line > 0 else None,
        created_at=opt_time(raw, "createdAt"),
    )


REVIEW_ITEM_KINDS: tuple[str, ...] = ("review", "comment")
"""The two review documents of a PR: a review's summary and a comment on a diff line."""


def review_doc_id(number: int, item: str, ident: str) -> str:
    """``pr:<n>:review:<id>`` or ``pr:<n>:comment:<id>`` — beside the PR's own ``pr:<n>``."""
    return f"pr:{number}:{item}:{ident}"


def review_item_of(doc_id: str) -> tuple[str, str] | None:
    """``("review", id)`` / ``("comment", id)`` of a review document's id; ``None`` otherwise."""
    parts = doc_id.split(":")
    if len(parts) != 4 or parts[0] != "pr" or parts[2] not in REVIEW_ITEM_KINDS:
        return None
    if review_item_id_re().fullmatch(parts[3]) is None:
        return None
    return parts[2], parts[3]
