"""Snippet markers to plain text and match ranges: the piece-wise walk gives exactly what the
character-by-character definition gives (a rare term's cost is per-hit work)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.query.ranking import MARK_END, MARK_START, extract_snippet_ranges
from engine.types import MatchRange


def by_character(marked: str) -> tuple[str, tuple[MatchRange, ...]]:
    """The definition: an unclosed start runs to the end, a stray end is dropped, no empty span."""
    out, ranges, start = [], [], None
    for ch in marked:
        if ch == MARK_START:
            start = len(out) if start is None else start
        elif ch == MARK_END:
            if start is not None and len(out) > start:
                ranges.append(MatchRange(start=start, end=len(out)))
            start = None
        else:
            out.append(ch)
    if start is not None and len(out) > start:
        ranges.append(MatchRange(start=start, end=len(out)))
    return "".join(out), tuple(ranges)


@given(st.text(alphabet=st.sampled_from(["a", "é", "😀", " ", "\n", MARK_START, MARK_END])))
def test_pieces_match_the_character_definition(marked: str) -> None:
    assert extract_snippet_ranges(marked) == by_character(marked)


def test_the_edge_cases_by_name() -> None:
    s, e = MARK_START, MARK_END
    assert extract_snippet_ranges(f"a {s}timeout{e} b") == ("a timeout b", (MatchRange(2, 9),))
    assert extract_snippet_ranges(f"{s}{s}ab{e}{e}c") == ("abc", (MatchRange(0, 2),))
    assert extract_snippet_ranges(f"x{s}{e}y") == ("xy", ())  # empty span omitted
    assert extract_snippet_ranges(f"ab{s}cd") == ("abcd", (MatchRange(2, 4),))  # runs to the end
    assert extract_snippet_ranges(f"{e}😀{s}é{e}") == ("😀é", (MatchRange(1, 2),))  # code points
    assert extract_snippet_ranges("") == ("", ())
