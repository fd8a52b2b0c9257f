"""The output boundary's functions (``tui.printable``): a table of what each control becomes,
and properties over every control, escape and bidi character mixed with text."""

from __future__ import annotations

import json
import re

import msgspec
import pytest
from hostile_project import UNSAFE
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tui.printable import (
    printable,
    printable_colour,
    printable_input,
    printable_json,
    printable_spans,
)

UNSAFE_RE = re.compile(UNSAFE)

TABLE: list[tuple[str, str, str]] = [
    ("plain text", "retry with backoff\tdone\n", "retry with backoff\tdone\n"),
    ("OSC 52 clipboard write", "a\x1b]52;c;cHduZWQ=\x07b", "ab"),
    ("OSC 0 title, ST-terminated", "a\x1b]0;pwned\x1b\\b", "ab"),
    ("OSC 8 link keeps its text", "\x1b]8;;https://evil/\x1b\\click\x1b]8;;\x1b\\", "click"),
    ("CSI clear screen and colour", "\x1b[2J\x1b[31mred\x1b[0m", "red"),
    ("DCS", "a\x1bP1$qm\x1b\\b", "ab"),
    ("unterminated OSC stops at the line's end", "a\x1b]0;title\nnext", "a\nnext"),
    ("lone ESC", "a\x1b", "a"),
    ("BEL", "ding\x07", "ding^G"),
    ("backspace", "ab\x08c", "ab^Hc"),
    ("lone CR", "safe\rEVIL", "safe^MEVIL"),
    ("CRLF is a newline", "one\r\ntwo", "one\ntwo"),
    ("NUL and DEL", "a\x00b\x7f", "a^@b^?"),
    ("C1 CSI, OSC, ST", "\x9b2J\x9d0;t\x9c", "^[[2J^[]0;t^[\\"),
    ("bidi override", "abc\u202edcba\u202c", "abcdcba"),
    ("bidi isolates", "\u2066x\u2069\u2067y\u2069\u2068z\u2069", "xyz"),
    ("Latin-1 and marks stay", "\xa0\xa9 café 日本 \u200f", "\xa0\xa9 café 日本 \u200f"),
]
"""(what, input, what is printed)."""


@pytest.mark.parametrize(("what", "raw", "shown"), TABLE, ids=[t[0] for t in TABLE])
def test_printable_table(what: str, raw: str, shown: str) -> None:
    assert printable(raw) == shown


def test_safe_text_is_returned_as_is() -> None:
    text = "nothing to do here " * 100
    assert printable(text) is text


CHARS = [chr(c) for c in (*range(0x00, 0x21), 0x7F, *range(0x80, 0xA1))]
CHARS += [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
CHARS += ["\x1b[31m", "\x1b]52;c;eA==\x07", "\x1b]8;;u\x1b\\", "\x1b[", "\x1bP", "a", "é", "😀"]
TEXTS = st.lists(st.sampled_from(CHARS), max_size=40).map("".join)
STRING_OPENERS = (
    "\x1bP",
    "\x1b]",
    "\x1bX",
    "\x1b^",
    "\x1b_",
    "\x90",
    "\x9d",
    "\x98",
    "\x9e",
    "\x9f",
)
"""Escape strings that run to their terminator: without one, the rest of the text is inside."""


@settings(max_examples=500, deadline=None)
@given(TEXTS)
@example("\x1b\x1b[[\x9b\x9b")
def test_no_control_survives_and_text_is_kept(text: str) -> None:
    shown = printable(text)
    assert UNSAFE_RE.search(shown) is None
    assert printable(shown) == shown  # idempotent: a second pass changes nothing
    if any(opener in text for opener in STRING_OPENERS):
        return  # an unterminated DCS/OSC/SOS/PM/APC string swallows what follows, as terminals do
    for word in ("a", "é", "😀"):
        assert shown.count(word) >= sum(1 for ch in text if ch == word) - text.count("\x1b")


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.lists(st.tuples(st.integers(0, 45), st.integers(0, 45)), max_size=4))
def test_spans_cover_what_they_covered(text: str, raw_spans: list[tuple[int, int]]) -> None:
    spans = [(min(a, b), max(a, b)) for a, b in raw_spans]
    shown, moved = printable_spans(text, spans)
    assert UNSAFE_RE.search(shown) is None
    kept = []
    done = 0
    for start, end in sorted(spans):
        start, end = max(start, done), min(end, len(text))
        if start < end:
            kept.append(printable(text[start:end]))
            done = end
    assert [shown[s:e] for s, e in moved] == [k for k in kept if k]
    assert all(0 <= s < e <= len(shown) for s, e in moved)


def test_spans_of_safe_text_are_clamped_and_ordered() -> None:
    assert printable_spans("abcdef", [(4, 9), (0, 2), (1, 3)]) == (
        "abcdef",
        [(0, 2), (2, 3), (4, 6)],
    )


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_json_keeps_the_value_and_carries_no_raw_control(text: str) -> None:
    for encoded in (
        msgspec.json.encode({"t": text}).decode(),
        json.dumps({"t": text}, ensure_ascii=False),
    ):
        safe = printable_json(encoded)
        assert UNSAFE_RE.search(safe) is None
        assert json.loads(safe) == {"t": text}


def test_colour_keeps_sgr_only() -> None:
    raw = "\x1b[1;31mred\x1b[0m\x1b]52;c;eA==\x07\x1b[2J\x07"
    assert printable_colour(raw) == "\x1b[1;31mred\x1b[0m^G"


def test_a_pasted_query_is_one_clean_line() -> None:
    assert printable_input("zap\x1b[2J\tpr\nnext\u202e\x9b") == "zap pr next "


PRINTABLE_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
"""Every character any of the functions changes (``printable``'s and ``printable_json``'s sets)."""


@settings(max_examples=2000, deadline=None)
@given(st.text(max_size=40))
@example("\u2028")
@example("\u202e")
@example("\x85")
def test_what_str_isprintable_passes_holds_nothing_the_boundary_changes(text: str) -> None:
    """The fast paths return text ``str.isprintable`` accepts as it is, without ``re`` (a
    daemon-answered search's start-up budget): sound only while every character the boundary
    changes is one ``isprintable`` refuses (categories Cc, Cf, Zl, Zp)."""
    if text.isprintable():
        assert PRINTABLE_UNSAFE.search(text) is None
        assert printable(text) is text
        assert printable_json(text) is text
