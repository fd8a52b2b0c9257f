"""The escape stripper's compiled twin (``engine/terminal/native/escapes.c``) removes exactly
what ``OTHER_ESC_PATTERN``'s ``re.sub`` removes, from any bytes, and is built wherever a C
compiler is."""

from __future__ import annotations

import shutil

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.terminal import block
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
