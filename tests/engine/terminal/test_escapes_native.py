"""The escape stripper's compiled twin (``engine/terminal/native/escapes.c``) removes exactly
what ``OTHER_ESC_PATTERN``'s ``re.sub`` removes, from any bytes, and is built wherever a C
compiler is."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.terminal import block, sanitize
from engine.terminal.block import compiled_strip_other_escapes, python_strip_other_escapes


def test_compiled_twin_is_built_where_gcc_is() -> None:
    if shutil.which("gcc") is None:
        pytest.skip("no gcc: the install runs the Python twin")
    assert compiled_strip_other_escapes is not None, (
        "engine.terminal._escapes_c did not build: `pip install -e .` again and read its output"
    )
    assert block.strip_other_escapes is compiled_strip_other_escapes


# Escape starts, parameters (both CSI ranges' edges), intermediates, finals (the cursor CSIs'
# K G C D `, SGR's m, the ranges' edges), string openers and terminators, the bytes a string
# stops before, and bytes outside ASCII or UTF-8.
PIECES = [b"\x1b", b"\x1b[", b"\x1b]", b"\x1bP", b"\x1bX", b"\x1b^", b"\x1b_", b"\x1b(",
          b"\x1b\\", b"[", b"]", b"0", b"9", b";", b":", b"?", b"/", b" ", b"!", b"@", b"~",
          b"\x7f", b"m", b"K", b"G", b"C", b"D", b"`", b"h", b"l", b"\x07", b"\n", b"\x18",
          b"\x1a", b"\\", b"a", b"\x00", b"\x80", b"\xff", "é".encode()]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map(b"".join) | st.binary(max_size=60))
@example(b"\x1b[1;31mred\x1b[m \x1b[2K\x1b[10G\x1b[;m\x1b[0;K\x1b[38:5:1m")
@example(b"\x1b]8;;http://u\x07x\x1b]0;t\x1b\\y\x1bPq\x1b\x1b[12\x1b[m\x1b")
@example(b"")
@example(b"no escape at all")
def test_compiled_twin_strips_what_the_pattern_strips(raw: bytes) -> None:
    if compiled_strip_other_escapes is None:
        pytest.skip("not built (test_compiled_twin_is_built_where_gcc_is says why)")
    assert compiled_strip_other_escapes(raw) == python_strip_other_escapes(raw)


def test_compiled_twin_refuses_what_is_not_bytes() -> None:
    if compiled_strip_other_escapes is None:
        pytest.skip("not built")
    with pytest.raises(TypeError):
        compiled_strip_other_escapes("\x1b[m")  # type: ignore[arg-type]


# Every edge of the ranges the answer turns on (C0 but \t and \n, DEL, U+0080-U+00BF whose UTF-8
# leads with 0xC2), the code points just outside them, wider characters and a lone surrogate.
_CONTROL_EDGES = ["\x00", "\x08", "\t", "\n", "\x0b", "\x1f", " ", "~", "\x7f", "\x80", "\x9f",
                  "\xa0", "\xbf", "\xc0", "\xc2", "é", "\u0100", "\u2028", "\ud800", "\udfff",
                  "\U0001f600", "a"]  # fmt: skip


# Past the compiled loop's 256-character blocks, in each of str's widths (1, 2 and 4 bytes).
_long = st.tuples(
    st.sampled_from(["", "\u0100", "\U0001f600"]),
    st.integers(min_value=0, max_value=700),
    st.sampled_from(_CONTROL_EDGES),
).map(lambda t: t[0] + "a" * t[1] + t[2])


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from(_CONTROL_EDGES), max_size=12).map("".join)
    | st.text(max_size=40)
    | _long
)
@example("")
@example("a" * 256 + "\x85")
@example("plain words\n\tand a tab")
def test_compiled_control_check_answers_as_the_python_twin(text: str) -> None:
    compiled = sanitize.compiled_may_hold_controls()
    if compiled is None:
        pytest.skip("not built (test_compiled_twin_is_built_where_gcc_is says why)")
    assert compiled(text) == sanitize.python_may_hold_controls(text)


def test_the_sanitizer_checks_controls_with_the_compiled_twin() -> None:
    compiled = sanitize.compiled_may_hold_controls()
    if compiled is None:
        pytest.skip("not built")
    assert sanitize.clean_text("a\x01b\u0085c") == "abc"  # binds the check at its first call
    assert sanitize._may_hold_controls is compiled
