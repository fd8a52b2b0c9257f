"""A PR's reviews in its detail, and the review or comment an ``ade://pr/<n>?review=…`` link
lands on, shown first (docs/search.md, "PR reviews")."""

from __future__ import annotations

from datetime import datetime

from engine.project.model import PrReview, PrReviewComment, PrSnapshot


def _when(moment: datetime | None) -> str:
    return moment.isoformat(timespec="minutes") if moment is not None else ""


def review_text(review: PrReview) -> str:
    """One review as the detail shows it: who, the verdict, when, then what they wrote."""
    verdict = review.state.replace("_", " ").lower() or "review"
    return f"— review by {review.author} ({verdict}, {_when(review.submitted_at)}):\n{review.body}"


def comment_text(comment: PrReviewComment) -> str:
    """One comment on a diff line: who, where in the diff, when, then what they wrote."""
    where = comment.path + (f":{comment.line}" if comment.line else "")
    return f"— {comment.author} on {where} ({_when(comment.created_at)}):\n{comment.body}"


def reviews_body(
    pr: PrSnapshot, review: str | None, comment: str | None
) -> tuple[str | None, str, str | None]:
    """``(landed, rest, note)``: the text of the review or comment the link names (``None``
    when it names none or it is gone), every other review and comment, and a note saying where
    the link landed — a review deleted since it was indexed lands on the PR itself."""
    landed: str | None = None
    parts: list[str] = []
    for item in pr.reviews:
        text = review_text(item)
        if review is not None and item.id == review:
            landed = text
        else:
            parts.append(text)
    for line_comment in pr.review_comments:
        text = comment_text(line_comment)
        if comment is not None and line_comment.id == comment:
            landed = text
        else:
            parts.append(text)
    wanted = "review " + review if review is not None else "comment " + comment if comment else None
    note = None
    if wanted is not None:
        note = f"{wanted} (shown first)" if landed else f"{wanted} is gone; showing the PR"
    return landed, "\n\n".join(parts), note
