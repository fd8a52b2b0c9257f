"""The daemon-answered search's wire without the ``json`` package, held equal to it.

``framing.decode_json_line`` runs json's own C scanner (the start-up budget: ``re`` and ``json``
cost ~6 ms of a ~10 ms interpreter), compared with what it stands in for: ``json.loads``.
"""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rpc.framing import decode_json_line

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)

SPACE = st.text(alphabet=" \t\n\r", max_size=3)


def _same(left: object, right: object) -> bool:
    """Equal, a NaN equal to a NaN (``json.loads`` reads ``NaN`` as one)."""
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


def _outcome(decode: object, line: bytes) -> tuple[str, object]:
    try:
        return "value", decode(line)  # type: ignore[operator]
    except (ValueError, RecursionError) as err:
        return "error", type(err).__name__ if isinstance(err, RecursionError) else "ValueError"


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.text(), JSON_VALUES, max_size=5),
    st.booleans(),
    SPACE,
    SPACE,
)
def test_an_encoded_object_decodes_as_json_loads_decodes_it(
    value: dict[str, object], ascii_only: bool, before: str, after: str
) -> None:
    line = (before + json.dumps(value, ensure_ascii=ascii_only) + after).encode(
        "utf-8", "surrogatepass"
    )
    ours, theirs = _outcome(decode_json_line, line), _outcome(json.loads, line)
    assert ours[0] == theirs[0]
    assert _same(ours[1], theirs[1])


@settings(max_examples=600, deadline=None)
@given(st.binary(max_size=40).map(lambda tail: b"{" + tail) | st.binary(max_size=40))
def test_any_bytes_decode_or_fail_as_json_loads_does(line: bytes) -> None:
    ours, theirs = _outcome(decode_json_line, line), _outcome(json.loads, line)
    assert ours[0] == theirs[0], (line, ours, theirs)
    assert _same(ours[1], theirs[1])


def test_the_shapes_json_loads_is_picky_about() -> None:
    for line in (
        b'{"a":1}',
        b'{"a":1} ',
        b' {"a":1}',
        b'{"a":1}x',
        b'{"a":1} {}',
        b'{"a":NaN,"b":-Infinity}',
        b'{"a":"\xed\xa0\x80"}',  # an encoded lone surrogate: json reads it (surrogatepass)
        b'{"a":"\xff"}',
        b'{"a":1',
        b"{",
        b"",
        b"\xef\xbb\xbf{}",  # a BOM
        '{"a":1}'.encode("utf-16-le"),
        b"{" * 100_000,
    ):
        ours, theirs = _outcome(decode_json_line, line), _outcome(json.loads, line)
        assert ours[0] == theirs[0], line[:20]
        assert _same(ours[1], theirs[1])
