"""What a daemon's search answer may hold, checked before any of it is printed or used.

Every ``search.query`` answer a front end takes from the daemon (``engine.rpc.client``) passes
here first: the wire contract of ``engine.types`` (``SearchQueryResult``, ``SearchResultItem``,
``MatchRange``) spelled as plain field lists, plus what the types cannot say: match ranges
inside their snippet, and deep links of the hit's own kind that no ``..`` or ``%2F`` steers out
of the project (``ade://file/../../../etc/shadow``). A test keeps the lists equal to the types.

A daemon of the user's own (the socket and peer checks of ``engine.rpc.paths`` hold) that answers
anything else is broken or not ours to believe: ``MalformedReply``, and the search runs in
process.
"""

from __future__ import annotations

import re

from engine.kinds import ALL_KINDS
from engine.rpc.connection import MalformedReply

TYPE_CHECKING = False  # no `typing` on a daemon-answered search (the start-up budget)
if TYPE_CHECKING:
    from typing import Any

RESULT_FIELDS: dict[str, bool] = {
    "items": True,
    "nextCursor": True,
    "total": True,
    "resultsTruncated": False,
    "warnings": False,
    "relaxed": False,
}
"""``SearchQueryResult`` on the wire: field → required."""

ITEM_FIELDS: dict[str, bool] = {
    "docId": True,
    "kind": True,
    "title": True,
    "snippet": True,
    "matchRanges": True,
    "tier": True,
    "updatedAt": True,
    "deepLink": True,
    "sessionId": False,
    "laneId": False,
    "laneName": False,
    "anchor": False,
    "projectId": False,
    "projectName": False,
    "projectRoot": False,
    "tool": False,
    "messageCount": False,
    "matchCount": False,
}
"""``SearchResultItem`` on the wire: field → required. Optional fields are text or null, but
``COUNT_FIELDS``, which are counts or null."""

COUNT_FIELDS = frozenset({"messageCount", "matchCount"})
"""A ``sessions`` row's counts (``engine.service.session_rows``)."""

RELAX_STEPS = (None, "spelling", "inflection", "most_words", "any_word")
"""``engine.query.relax.STEPS``, or null for a strict answer."""

RANGE_FIELDS = ("start", "end")
"""``MatchRange`` on the wire."""

TIERS = ("exact_title", "title_prefix", "title_substring", "body")
"""``engine.types.Tier``."""

_TEXT_FIELDS = ("docId", "title", "snippet", "deepLink")

_LINK = re.compile(
    r"ade://([a-z]+)/([A-Za-z0-9\-._~!$&'()*+,;=:@/%]+)(\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?"
)
"""``engine.links.deeplink``'s raw characters; anything else must be percent-encoded."""

_PERCENT = re.compile(rb"%([0-9A-Fa-f]{2})")

MAX_LINK_CHARS = 16_384
"""``engine.links.deeplink.MAX_LINK_CHARS``."""


def check_search_result(result: Any) -> None:
    """Refuse a ``search.query`` answer the wire contract does not allow.

    Raises:
        MalformedReply: one line naming the first thing wrong.
    """
    _check_object(result, RESULT_FIELDS, "the answer")
    items, total = result["items"], result["total"]
    if not isinstance(items, list):
        raise MalformedReply("the answer's items are not a list")
    if not _is_int(total) or total < 0:
        raise MalformedReply("the answer's total is not a count")
    cursor = result["nextCursor"]
    if cursor is not None and not isinstance(cursor, str):
        raise MalformedReply("the answer's nextCursor is not text")
    if not isinstance(result.get("resultsTruncated", False), bool):
        raise MalformedReply("the answer's resultsTruncated is not true or false")
    warnings = result.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise MalformedReply("the answer's warnings are not a list of text")
    if result.get("relaxed") not in RELAX_STEPS:
        raise MalformedReply("the answer's relaxed is not a relaxation step")
    for number, item in enumerate(items, 1):
        _check_item(item, f"hit {number}")


def _check_item(item: Any, where: str) -> None:
    _check_object(item, ITEM_FIELDS, where)
    for name in _TEXT_FIELDS:
        if not isinstance(item[name], str):
            raise MalformedReply(f"{where}: {name} is not text")
    for name, required in ITEM_FIELDS.items():
        value = item.get(name)
        if required or value is None:
            continue
        if name in COUNT_FIELDS:
            if not _is_int(value) or value < 0:
                raise MalformedReply(f"{where}: {name} is not a count")
        elif not isinstance(value, str):
            raise MalformedReply(f"{where}: {name} is not text")
    kind = item["kind"]
    if kind not in ALL_KINDS:
        raise MalformedReply(f"{where}: unknown kind {str(kind)[:40]!r}")
    if item["tier"] not in TIERS:
        raise MalformedReply(f"{where}: unknown tier")
    if not _is_int(item["updatedAt"]):
        raise MalformedReply(f"{where}: updatedAt is not a time")
    _check_ranges(item["matchRanges"], len(item["snippet"]), where)
    _check_link(item["deepLink"], kind, where)


def _check_object(value: Any, fields: dict[str, bool], where: str) -> None:
    if not isinstance(value, dict):
        raise MalformedReply(f"{where} is not an object")
    unknown = [key for key in value if key not in fields]
    if unknown:
        raise MalformedReply(f"{where} has a field the wire contract does not: {unknown[0][:40]!r}")
    missing = [name for name, required in fields.items() if required and name not in value]
    if missing:
        raise MalformedReply(f"{where} lacks {missing[0]}")


def _check_ranges(ranges: Any, length: int, where: str) -> None:
    if not isinstance(ranges, list):
        raise MalformedReply(f"{where}: matchRanges is not a list")
    for span in ranges:
        if not isinstance(span, dict) or set(span) != set(RANGE_FIELDS):
            raise MalformedReply(f"{where}: a match range is not {{start, end}}")
        start, end = span["start"], span["end"]
        if not (_is_int(start) and _is_int(end) and 0 <= start <= end <= length):
            raise MalformedReply(f"{where}: a match range lies outside its snippet")


def _check_link(link: str, kind: str, where: str) -> None:
    """A deep link of the hit's kind whose target, decoded once, has no ``.``/``..``/empty step,
    backslash or control character (``engine.links.deeplink`` refuses the same and more when a
    link is opened)."""
    shape = _LINK.fullmatch(link) if len(link) <= MAX_LINK_CHARS else None
    if shape is None or shape[1] != kind:
        raise MalformedReply(f"{where}: {link[:80]!r} is no deep link of a {kind} hit")
    target = _PERCENT.sub(lambda m: bytes.fromhex(m[1].decode()), shape[2].encode())
    if kind in ("file", "branch"):  # these keep their '/' separators
        steps = target.split(b"/")
        if any(step in (b"", b".", b"..") for step in steps):
            raise MalformedReply(f"{where}: {link[:80]!r} steps out of its place")
    elif b"/" in target or target in (b".", b".."):
        raise MalformedReply(f"{where}: {link[:80]!r} steps out of its place")
    if b"\\" in target or any(byte < 0x20 or byte == 0x7F for byte in target):
        raise MalformedReply(f"{where}: {link[:80]!r} holds a control character")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
