"""The review documents of a PR (docs/search.md, "PR reviews"): one for each review that says
something and one for each comment on a diff line, beside the PR's own ``pr:<n>`` document.

They are ``pr`` documents (``kind:pr`` finds them) with an empty ``rank_title``, like chat
messages: they rank on what the reviewer wrote, so a title match still puts the PR itself first.
Their ids (``pr:<n>:review:<id>``, ``pr:<n>:comment:<id>``) carry what the ``ade://`` link needs
to land on them. Pure: records in, documents out.
"""

from __future__ import annotations

from engine.index.db import IndexDoc
from engine.ingest.docs import clean_text, ms
from engine.project.model import PrSnapshot
from engine.project.pr_reviews import review_doc_id
from engine.redaction import redact_title


def pr_review_docs(pr: PrSnapshot, lane_id: str | None) -> list[IndexDoc]:
    """Every review with a body and every review comment of ``pr`` as documents."""
    title = redact_title(pr.title)
    fallback = ms(pr.updated_at)
    docs: list[IndexDoc] = []
    for review in pr.reviews:
        if not review.body.strip():
            continue  # a bare approval says nothing to search for
        verdict = review.state.replace("_", " ").lower() or "review"
        docs.append(
            _doc(
                pr,
                lane_id,
                review_doc_id(pr.number, "review", review.id),
                f"#{pr.number} {title} · review by {review.author} ({verdict})",
                review.body,
                ms(review.submitted_at) or fallback,
            )
        )
    for comment in pr.review_comments:
        if not comment.body.strip():
            continue
        where = comment.path + (f":{comment.line}" if comment.line else "")
        docs.append(
            _doc(
                pr,
                lane_id,
                review_doc_id(pr.number, "comment", comment.id),
                f"#{pr.number} {title} · {comment.author} on {redact_title(where)}",
                f"{comment.body}\n{comment.path}",
                ms(comment.created_at) or fallback,
            )
        )
    return docs


def _doc(
    pr: PrSnapshot, lane_id: str | None, doc_id: str, title: str, body: str, updated_at: int
) -> IndexDoc:
    return IndexDoc(
        doc_id=doc_id,
        kind="pr",
        title=title,
        rank_title="",
        body=clean_text(body),
        updated_at=updated_at,
        session_id=None,
        lane_id=lane_id,
        anchor=str(pr.number),
        source_key=f"pr:{pr.number}",
    )
