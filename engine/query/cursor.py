"""The opaque pagination cursor: a keyset position bound to the query that produced it.

A cursor is url-safe base64 of ``{"v", "f", "k"}`` plus a checksum: ``f`` fingerprints the query
(text with its filters, kinds, lanes, sessions), ``k`` is the sort key of the last item shown. A cursor from another query, a
tampered one or garbage raises ``CursorError`` (a usage error), never a silent jump to page one
(RELIABILITY 19). The checksum is keyed with a constant, not a secret: a cursor positions a page,
it grants nothing, and it must stay valid across processes (CLI, daemon).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import binascii
import json
from collections.abc import Sequence

from engine.basics.b64 import urlsafe_b64decode, urlsafe_b64encode
from engine.basics.digests import blake2b
from engine.errors import CursorError
from engine.query.ranking import SortKey

CURSOR_VERSION = 3
"""Bumped when the sort key changes shape or meaning (2: the phrase boost, docs/search.md; 3: a
one-word or one-prefix query's BM25 without its IDF factor, ``candidates.scores_without_idf``);
older cursors are then refused clearly, not resumed at a position on another scale."""

_KEY = b"ade-search-cursor"


def query_fingerprint(
    query: str, kinds: Sequence[str], lane_ids: Sequence[str], *, sessions: Sequence[str] = ()
) -> str:
    """A short hash of what defines a result list (not the page size).

    The text carries every typed filter (``session:``, ``since:``, ``until:``, ``lane:``,
    ``kind:``); the resolved kinds, lane ids and sessions are added so ``--kind``/``--lane`` and
    two spellings of one lane are told apart too.
    """
    fields: list[object] = [query, sorted(kinds), sorted(lane_ids)]
    if sessions:
        fields.append(sorted(sessions))
    raw = json.dumps(fields, ensure_ascii=False)
    return blake2b(raw.encode("utf-8"), digest_size=8).hexdigest()


def _mac(payload: bytes) -> bytes:
    return blake2b(payload, key=_KEY, digest_size=8).digest()


def encode_cursor(fingerprint: str, key: SortKey, *, seen: int = 0) -> str:
    """The cursor that resumes after the item whose sort key is ``key``; ``seen`` counts the
    hits shown before it, so the next page can say where it starts (``3–4 of 4``)."""
    data: dict[str, object] = {"v": CURSOR_VERSION, "f": fingerprint, "k": list(key)}
    if seen:
        data["n"] = seen
    payload = json.dumps(data).encode()
    return urlsafe_b64encode(payload + _mac(payload)).decode("ascii").rstrip("=")


def decode_cursor(cursor: str, fingerprint: str) -> SortKey:
    """The sort key a cursor resumes after.

    Raises:
        CursorError: garbage, tampered with, an old version, or made for another query.
    """
    try:
        raw = urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise CursorError("invalid cursor: not a cursor from ade search") from None
    payload, mac = raw[:-8], raw[-8:]
    if len(raw) <= 8 or _mac(payload) != mac:
        raise CursorError("invalid cursor: damaged or not from ade search")
    data = json.loads(payload)
    if data.get("v") != CURSOR_VERSION:
        raise CursorError("invalid cursor: from another version of ade; search again")
    if data.get("f") != fingerprint:
        raise CursorError("invalid cursor: it belongs to a different query; search again")
    k = data["k"]
    return (int(k[0]), float(k[1]), float(k[2]), int(k[3]), str(k[4]))


def cursor_seen(cursor: str | None) -> int:
    """How many hits came before the page a cursor opens (0 when unknown: an older cursor, a
    daemon's multi-project cursor). Read for display only; ``decode_cursor`` validates."""
    if not cursor:
        return 0
    if cursor[:3] in ("s1:", "a1:", "r1:"):  # sessions, every project, relaxed: its offset
        try:
            seen = json.loads(urlsafe_b64decode(cursor[3:])).get("o", 0)
        except (binascii.Error, ValueError, AttributeError):
            return 0
        return seen if isinstance(seen, int) and not isinstance(seen, bool) and seen > 0 else 0
    try:
        raw = urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        seen = json.loads(raw[:-8]).get("n", 0)
    except (binascii.Error, ValueError, AttributeError):
        return 0
    return seen if isinstance(seen, int) and not isinstance(seen, bool) and seen > 0 else 0
