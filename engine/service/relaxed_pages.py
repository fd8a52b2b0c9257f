"""Later pages of a relaxed or fused answer (docs/search.md, "When nothing matches exactly").

A relaxed answer (the strict hits, then each relaxed step's in its own order) and an answer fused
with the semantic ranking (docs/semantic.md) have no one sort key, so the index's keyset cursor
cannot continue them. They page by a cursor of their own (``r1:``): how many hits were shown, and
a short hash of each one's doc id. The next page runs the same steps again, filled one page
deeper (the steps are still chosen by the page size, so the same steps answer), and shows the
hits no earlier page showed, in that order.

Every hit is shown once however the pages are walked: a deeper fill keeps what a shallower one
held (each step's window only grows), so a hit an earlier page ranked after its last row comes on
a later page, never lost and never twice, up to ``MAX_DEPTH`` hits in all. Each answer is filled
one hit past its page, so a cursor is given only when another page holds something.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import binascii
import json

import msgspec

from engine.basics.b64 import urlsafe_b64decode, urlsafe_b64encode
from engine.basics.digests import blake2b
from engine.errors import CursorError
from engine.types import SearchQueryArgs, SearchQueryResult

CURSOR_PREFIX = "r1:"
"""Marks a relaxed answer's cursor (the index's cursors are base64 and never hold a colon)."""

MAX_DEPTH = 1000
"""A relaxed answer pages through at most this many hits (the cursor holds 4 bytes a hit shown):
past it the query is too vague to walk, and narrowing it is the answer."""

_HASH_BYTES = 4


class RelaxedPage(msgspec.Struct, frozen=True):
    """Where a relaxed answer's cursor resumes: the hits shown so far (their doc ids hashed)."""

    fingerprint: str
    shown: int
    seen: frozenset[bytes]


def _hash(doc_id: str) -> bytes:
    return bytes(blake2b(doc_id.encode("utf-8"), digest_size=_HASH_BYTES).digest())


def take_cursor(args: SearchQueryArgs) -> tuple[SearchQueryArgs, RelaxedPage | None]:
    """``args`` without a relaxed answer's cursor, and where that cursor resumes (None: ``args``
    has no such cursor, and are returned as they are).

    Raises:
        CursorError: a damaged ``r1:`` cursor.
    """
    cursor = args.cursor
    if cursor is None or not cursor.startswith(CURSOR_PREFIX):
        return args, None
    try:
        body = json.loads(urlsafe_b64decode(cursor[len(CURSOR_PREFIX) :]))
        seen_raw = urlsafe_b64decode(str(body["s"]))
        fingerprint, shown = str(body["f"]), body["o"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise CursorError("invalid cursor: not a cursor from ade search") from None
    if not isinstance(shown, int) or isinstance(shown, bool) or shown < 0:
        raise CursorError("invalid cursor: not a cursor from ade search")
    seen = frozenset(seen_raw[i : i + _HASH_BYTES] for i in range(0, len(seen_raw), _HASH_BYTES))
    page = RelaxedPage(fingerprint=fingerprint, shown=shown, seen=seen)
    return msgspec.structs.replace(args, cursor=None), page


def check(page: RelaxedPage | None, fingerprint: str) -> None:
    """Refuse a relaxed cursor made for another query.

    Raises:
        CursorError: ``page`` belongs to a query whose fingerprint is not ``fingerprint``.
    """
    if page is not None and page.fingerprint != fingerprint:
        raise CursorError("invalid cursor: it belongs to a different query; search again")


def depth(limit: int, page: RelaxedPage | None) -> int:
    """How many hits a relaxed or fused answer is filled to: the hits already shown, this page,
    and one more (whether another page holds something)."""
    return min((page.shown if page else 0) + limit + 1, MAX_DEPTH + 1)


def paged(
    result: SearchQueryResult, limit: int, fingerprint: str, page: RelaxedPage | None
) -> SearchQueryResult:
    """One page of ``result`` (filled to ``depth``): the hits no earlier page showed, at most
    ``limit``, with an ``r1:`` cursor when more follow. A first page that needs no cursor (a
    strict answer, or all of a relaxed one) is ``result`` itself."""
    items = result.items
    if page is not None:
        items = tuple(i for i in items if _hash(i.doc_id) not in page.seen)
    elif len(items) <= limit:
        return result
    shown = page.shown if page is not None else 0
    out = items[:limit]
    more = len(items) > limit and shown + len(out) < MAX_DEPTH
    cursor = None
    if more:
        seen = (page.seen if page is not None else frozenset()) | {_hash(i.doc_id) for i in out}
        body = {
            "f": fingerprint,
            "o": shown + len(out),
            "s": urlsafe_b64encode(b"".join(sorted(seen))).decode("ascii"),
        }
        cursor = CURSOR_PREFIX + urlsafe_b64encode(json.dumps(body).encode()).decode()
    return msgspec.structs.replace(result, items=out, next_cursor=cursor, total=shown + len(items))
