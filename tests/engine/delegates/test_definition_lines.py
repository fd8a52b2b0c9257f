"""``definition_lines`` (a file's lines tested at once, joined) against ``is_definition`` (one
line at a time): the same lines, whatever the lines hold but a newline."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.delegates.definitions import definition_lines, is_definition

_PIECES = st.sampled_from([
    "def", "DEF", "Pub", "fn", "func", "let", "#", "define", "Timeout", "timeout", "tIMEOUT", "x",
    "X", "café", "CAFÉ", "K", "\u212a", "s", "\u017f", " ", "\t", "\r", "\x0b", "\x0c", "\x1c",
    "\x85", "\xa0", "\u2028", "*", "(", ")", ":", "=", "==", "_", "9", "-", "void ", "int",
])  # fmt: skip
_LINE = st.lists(_PIECES, max_size=10).map("".join)
_WORDS = st.lists(st.sampled_from(["timeout", "TimeOut", "x", "k", "café", "s", "int"]),
                  min_size=1, max_size=2)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_LINE, max_size=8), _WORDS)
def test_a_file_s_lines_at_once_are_the_lines_one_at_a_time(
    lines: list[str], words: list[str]
) -> None:
    expected = [i for i, line in enumerate(lines) if is_definition(line, words)]
    assert definition_lines(words)(lines) == expected


def test_no_words_define_nothing() -> None:
    assert definition_lines([])(["def x", "x = 1"]) == []


def test_a_definition_is_read_in_its_own_line_only() -> None:
    """A class that took the newline would carry a form over to the next line: ``x`` then
    ``= 1`` is no assignment, a ``def`` alone defines nothing on the line after it, nor does a
    type annotation or a receiver's parenthesis left open."""
    find = definition_lines(["x"])
    assert find(["x", "= 1", "def", "x", "x = 1", "  def x(", "y"]) == [4, 5]
    assert find(["x: int", "y = 1", "def (", ") x", "func (r *T)", "x"]) == []


def test_no_pattern_is_compiled_before_a_file_needs_one() -> None:
    # A query whose words no tracked file holds searches no lines: it compiles nothing (a new
    # word's pattern is ~0.4 ms of the daemon's answer, read-your-writes' fresh searches)
    from engine.delegates.definitions import _lines_re

    _lines_re.cache_clear()
    search = definition_lines(["zqnotanywhere"])
    assert _lines_re.cache_info().currsize == 0
    assert search(["def zqnotanywhere():", "y = zqnotanywhere"]) == [0]
    assert _lines_re.cache_info().currsize == 1
