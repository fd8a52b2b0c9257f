"""``engine.rpc.reply_check`` spells the wire types as plain lists (the daemon-answered search
imports no msgspec): they must stay the fields ``engine.types`` puts on the wire."""

from __future__ import annotations

from typing import get_args

import msgspec

from engine.kinds import ALL_KINDS
from engine.rpc import reply_check
from engine.types import DocKind, MatchRange, SearchQueryResult, SearchResultItem, Tier


def _wire(struct: type[msgspec.Struct]) -> dict[str, bool]:
    return {f.encode_name: f.required for f in msgspec.structs.fields(struct)}


def test_the_checked_fields_are_the_wire_fields() -> None:
    assert _wire(SearchQueryResult) == reply_check.RESULT_FIELDS
    assert _wire(SearchResultItem) == reply_check.ITEM_FIELDS
    assert dict.fromkeys(reply_check.RANGE_FIELDS, True) == _wire(MatchRange)


def test_the_checked_tiers_and_kinds_are_the_wire_ones() -> None:
    assert set(reply_check.TIERS) == set(get_args(Tier))
    assert set(ALL_KINDS) == set(get_args(DocKind))


def test_the_link_limit_is_the_deep_link_one() -> None:
    from engine.links.deeplink import MAX_LINK_CHARS

    assert reply_check.MAX_LINK_CHARS == MAX_LINK_CHARS
