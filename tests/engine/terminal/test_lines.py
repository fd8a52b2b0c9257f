"""The matching line of a terminal chunk: sanitizing a block's first lines before the rest
finds exactly the line sanitizing the whole block finds."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.terminal.lines import first_matching_line
from engine.terminal.sanitize import sanitize_lines

FRAGMENTS = [
    b"hello ", b"word", b"W\xc3\xb6rd", b"\xc3\xa9t\xc3\xa9 ", b"\n", b"\r\n", b"\r", b"\t",
    b"\x1b[31m", b"\x1b[0m", b"\x1b[2K", b"\x1b[?1049h", b"\x1b[?1049l", b"\x1b[?47h",
    b"\x1b[?47l", b"\x1b]0;word title\x07", b"\x1b]133;A\x1b\\", b"\x08", b"\xff\xfe", b"x" * 300,
    b"prompt$ ", b"\x1b[?25l", b"\xe2\x94\x80" * 20,
]  # fmt: skip

WORDS = ["word", "wörd", "été", "title", "prompt$", "zzz"]


def _whole_block(raw: bytes, base_offset: int, words: Iterable[str]) -> int | None:
    """The definition before the pieces: the whole block sanitized at once."""
    wanted = [w.casefold() for w in words if w.strip()]
    end = raw.rfind(b"\n") + 1
    if not wanted or end == 0:
        return None
    texts, _ = sanitize_lines(raw[:end], alt_screen=False)
    start = 0
    for text in texts[:-1]:
        if text is not None:
            folded = text.casefold()
            if any(word in folded for word in wanted):
                return base_offset + start
        start = raw.index(b"\n", start) + 1
    return None


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(st.sampled_from(FRAGMENTS), max_size=60),
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2),
    first_piece=st.integers(min_value=1, max_value=400),
)
def test_the_first_piece_then_the_rest_finds_the_whole_blocks_line(
    parts: list[bytes], words: list[str], first_piece: int
) -> None:
    raw = b"".join(parts)
    assert first_matching_line(raw, 1000, words, first_piece) == _whole_block(raw, 1000, words)


def test_a_match_past_the_first_piece_is_found_in_the_rest() -> None:
    raw = b"\x1b[?1049h" + b"hidden word\n" * 50 + b"\x1b[?1049l\nplain\nthe word\n"
    expected = raw.index(b"the word")
    assert first_matching_line(raw, 0, ["word"], first_piece=64) == expected
    assert _whole_block(raw, 0, ["word"]) == expected
