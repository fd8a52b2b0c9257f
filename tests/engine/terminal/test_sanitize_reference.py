"""``clean_text`` strips exactly what it stripped before its control pre-check (journal: "Planning CPU").

``reference_clean_text`` is the function as it stood: escape sequences out, then every C0/C1
control but ``\\n`` and ``\\t`` through ``control_re``, always. The pre-check now skips the
regex on text that holds none; the result must not move by one character.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.terminal.sanitize import ESC_RE, clean_text, control_re, sanitize_indexed_text


def reference_clean_text(text: str) -> str:
    if "\x1b" in text:
        text = ESC_RE.sub("", text)
    return control_re().sub("", text)


# Every control, its neighbours (U+00A0-U+00BF share the \xc2 lead byte with C1), a lone
# surrogate, other scripts and escape sequences.
CHARS = [chr(c) for c in (*range(0x00, 0x21), 0x7E, 0x7F, *range(0x80, 0xC1), 0x100, 0x2028)]
CHARS += ["\ud800", "é", "€", "😀", "\x1b[31m", "\x1b]0;title\x07", "a", "Z", " "]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(CHARS), max_size=40).map("".join))
@example("plain ascii text\twith a tab\n")
@example("\xa9 2026 \xc2 not a control")
@example("x\x85y\x9fz\x80")
def test_clean_text_is_what_it_was(text: str) -> None:
    assert clean_text(text) == reference_clean_text(text)
    assert sanitize_indexed_text(text) == reference_clean_text(
        text.replace("\r\n", "\n").replace("\r", "\n")
    )
