"""The session dedupe of a page (docs/search.md): a chat session row (a title match) carries its best
message's snippet and link, so that message's own row, later on the same page, is folded into it
and not shown a second time (``engine.service.chat_anchor``). The CLI folds by this rule and
``--explain`` says which row was folded into which."""

from __future__ import annotations

TYPE_CHECKING = False  # the wire types only for the checker: folding reads plain attributes
if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.types import SearchResultItem


def session_folds(items: Sequence[SearchResultItem]) -> dict[int, int]:
    """Position of each folded message row → position of the session row that carries it."""
    carriers: dict[tuple[str | None, str], int] = {}
    folded: dict[int, int] = {}
    for number, item in enumerate(items):
        if item.kind != "chat" or not item.session_id:
            continue
        key = (item.project_id, item.deep_link)
        if item.doc_id == f"chat:{item.session_id}":
            carriers.setdefault(key, number)
        elif key in carriers:
            folded[number] = carriers[key]
    return folded
