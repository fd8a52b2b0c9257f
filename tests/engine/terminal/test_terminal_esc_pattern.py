"""``OTHER_ESC_PATTERN`` strips exactly what it stripped before its colour branch
(benchmarks/journal/2026-12-07-first-index-3.md).

``REFERENCE`` is the pattern as it stood: the look-ahead that keeps the cursor CSIs, then the
whole escape grammar. The colour branch (``ESC[…m``) now comes first; every text must lose the
same spans, over decoded text and raw bytes alike.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.terminal.sanitize import ESC_SEQ_PATTERN, OTHER_ESC_PATTERN

REFERENCE = r"\x1b(?!\[[0-9;]*[KGCD`])" + ESC_SEQ_PATTERN.removeprefix(r"\x1b")

# Escape starts, parameters, intermediates and final bytes of every family, the cursor CSIs'
# finals (K G C D `), SGR's m, string terminators and plain text around them.
PIECES = ["\x1b", "\x1b[", "\x1b]", "\x1bP", "\x1b(", "[", "]", "0", "1", "9", ";", ":", "?",
          " ", "/", "m", "K", "G", "C", "D", "`", "@", "~", "h", "l", "\x07", "\x1b\\", "\n",
          "\x18", "a", "é"]  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
@example("\x1b[1;31mred\x1b[m \x1b[2K\x1b[10G\x1b[;m\x1b[0;K\x1b[38:5:1m")
@example("\x1b[12\x1b[m\x1b[m")
def test_the_colour_branch_strips_what_the_pattern_stripped(text: str) -> None:
    new, old = re.compile(OTHER_ESC_PATTERN), re.compile(REFERENCE)
    assert new.sub("", text) == old.sub("", text)
    raw = text.encode("utf-8")
    assert re.compile(OTHER_ESC_PATTERN.encode()).sub(b"", raw) == re.compile(
        REFERENCE.encode()
    ).sub(b"", raw)
