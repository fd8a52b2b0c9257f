"""Terminal chunking and sanitizing: escape families, rewrites, alternate screen, slicing."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.terminal.chunking import (
    DEFAULT_TARGET_CHARS,
    LINE_CAP_FACTOR,
    ChunkerState,
    ChunkResult,
    TerminalChunk,
    chunk_terminal_bytes,
)
from engine.terminal.sanitize import sanitize_indexed_text, sanitize_lines

ESC = b"\x1b"


def sanitize_terminal_text(
    raw: bytes, state: ChunkerState | None = None
) -> tuple[str, ChunkerState]:
    """The one-shot reading of ``raw`` (alternate-screen lines left out): the oracle that
    chunked slices must agree with."""
    lines, alt_screen = sanitize_lines(raw, state is not None and state.alt_screen)
    body = "".join(line + "\n" for line in lines[:-1] if line is not None)
    return body + (lines[-1] or ""), ChunkerState(alt_screen)


def clean(raw: bytes, alt: bool = False) -> str:
    return sanitize_terminal_text(raw, ChunkerState(alt))[0]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # CSI: colours, cursor hide/show, parameters with intermediates, a missing final byte.
        (ESC + b"[31merror" + ESC + b"[0m", "error"),
        (ESC + b"[1;38;5;208mwarn" + ESC + b"[m", "warn"),
        (ESC + b"[?25lspin" + ESC + b"[?25h", "spin"),
        (ESC + b"[2 qcursor", "cursor"),
        (ESC + b"[38:2:1:2:3mrgb", "rgb"),
        # OSC: title with BEL and with ST; OSC 8 keeps the link text and drops the URI.
        (ESC + b"]0;my title\x07prompt", "prompt"),
        (ESC + b"]2;title" + ESC + b"\\prompt", "prompt"),
        (
            ESC + b"]8;id=1;https://example.com/secret\x07click here" + ESC + b"]8;;\x07!",
            "click here!",
        ),
        (ESC + b"]8;;file:///tmp/x" + ESC + b"\\file" + ESC + b"]8;;" + ESC + b"\\", "file"),
        # DCS, APC, PM, SOS strings.
        (ESC + b"P1$r0m" + ESC + b"\\after", "after"),
        (ESC + b"_Gf=100;AAAA" + ESC + b"\\img", "img"),
        (ESC + b"^private" + ESC + b"\\pm", "pm"),
        (ESC + b"Xsos string" + ESC + b"\\sos", "sos"),
        # Two-byte escapes and charset selects.
        (ESC + b"7saved" + ESC + b"8", "saved"),
        (ESC + b"=keypad" + ESC + b">", "keypad"),
        (ESC + b"(0lqk" + ESC + b"(B", "lqk"),
        (ESC + b")B" + ESC + b"#8" + ESC + b"%Gtext", "text"),
        # A lone ESC, ESC ESC, and an unterminated OSC that ends at the newline.
        (b"a" + ESC, "a"),
        (ESC + ESC + b"[1mb", "b"),
        (ESC + b"]0;never terminated\nnext", "\nnext"),
        # Controls: NUL, BEL, snippet markers, C1 as code points, DEL; tab and newline kept.
        (b"a\x00b\x07c\x01d\x02e", "abcde"),
        ("x\u0085y\u009bz\x7f".encode(), "xyz"),
        (b"col1\tcol2\n", "col1\tcol2\n"),
        # Invalid UTF-8 decodes with replacement; valid multi-byte text survives.
        (b"bad \xff\xfe end", "bad \ufffd\ufffd end"),
        ("naïve café ✓".encode(), "naïve café ✓"),
        (b"\xe2\x82 x", "\ufffd x"),
    ],
)
def test_escape_families_and_controls(raw: bytes, expected: str) -> None:
    assert clean(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"10%\r20%\r100%\n", "100%\n"),
        (b"line\r\n", "line\n"),
        (b"line\r\r\n", "line\n"),
        (b"hello world\rHELLO\n", "HELLO world\n"),  # shorter rewrite leaves the tail
        (b"downloading 99%\r" + ESC + b"[Kdone\n", "done\n"),  # erase to end of line
        (b"abc\r" + ESC + b"[2Kxy\n", "xy\n"),
        (b"abcdef" + ESC + b"[3D" + ESC + b"[1K!\n", "   !ef\n"),  # erase to cursor
        (b"spin |" + ESC + b"[1Gspin /" + ESC + b"[1Gspin -\n", "spin -\n"),
        (b"a" + ESC + b"[3Cb\n", "a   b\n"),
        (b"ab\bc\n", "ac\n"),
        (b"_\bu_\bn\n", "un\n"),  # man-page underline
        (b"B\bBold\n", "Bold\n"),
        (b"\b\b\bx\n", "x\n"),  # backspace at column 0 stays there
        (b"typo\b \b\b \bo\n", "tyo \n"),
        (b"abc\r", "abc"),
        (ESC + b"[31m10%\r" + ESC + b"[32m20%" + ESC + b"[0m\n", "20%\n"),
        (b"x" + ESC + b"[99999999Gy\n", "x" + " " * 998 + "y\n"),  # column clamped
    ],
)
def test_carriage_return_and_backspace_resolve_to_visible_state(raw: bytes, expected: str) -> None:
    assert clean(raw) == expected


@pytest.mark.parametrize("mode", [b"1049", b"1047", b"47"])
def test_alternate_screen_text_left_out(mode: bytes) -> None:
    raw = b"$ vim x\n" + ESC + b"[?" + mode + b"h~\n~ vimjunk\r\n" + ESC + b"[?" + mode + b"l$ ls\n"
    text, state = sanitize_terminal_text(raw)
    assert text == "$ vim x\n$ ls\n"
    assert state == ChunkerState(False)


def test_alternate_screen_mid_line_and_combined_modes() -> None:
    raw = b"$ less f" + ESC + b"[?1049;1hpage one\npage two" + ESC + b"[?1049l\n$ next\n"
    assert clean(raw) == "$ less f\n\n$ next\n"
    assert clean(ESC + b"[?25lhidden cursor only\n") == "hidden cursor only\n"


def test_alternate_screen_state_carried_across_slices() -> None:
    first = b"$ htop\n" + ESC + b"[?1049h" + b"CPU 99%\n" * 3
    second = b"MEM 50%\n" + ESC + b"[?1049l" + b"$ exit\n"
    one = chunk_terminal_bytes(first, 0)
    assert one.state == ChunkerState(alt_screen=True)
    assert [c.text for c in one.chunks] == ["$ htop\n"]
    restored = ChunkerState.from_json(one.state.to_json())
    two = chunk_terminal_bytes(second, one.consumed, state=restored)
    assert [c.text for c in two.chunks] == ["$ exit\n"]
    assert two.chunks[0].offset == len(first) + len(b"MEM 50%\n")
    assert two.state == ChunkerState(alt_screen=False)
    # Without the carried state the hidden text would leak into the index.
    leaked = chunk_terminal_bytes(second, one.consumed)
    assert "MEM" in leaked.chunks[0].text


def test_chunker_state_json_round_trip_and_garbage() -> None:
    assert ChunkerState.from_json(ChunkerState(True).to_json()) == ChunkerState(True)
    assert ChunkerState().to_json() == '{"altScreen":false}'
    for bad in ["", "{", "[]", '{"altScreen": 1}', b"\xff"]:
        with pytest.raises(ValueError, match="invalid chunker state"):
            ChunkerState.from_json(bad)


def test_torn_tail_not_consumed_until_forced() -> None:
    data = b"first line\nsecond li"
    result = chunk_terminal_bytes(data, 1000)
    assert result.consumed == len(b"first line\n")
    assert result.chunks == [TerminalChunk(1000, "first line\n")]
    forced = chunk_terminal_bytes(data[result.consumed :], 1000 + result.consumed, force=True)
    assert forced.chunks == [TerminalChunk(1011, "second li")]
    assert forced.consumed == len(b"second li")


@pytest.mark.parametrize(
    ("sequence", "split", "shown"),
    [
        ("é".encode(), 1, "é"),
        ("✓".encode(), 2, "✓"),
        ("😀".encode(), 1, "😀"),
        (ESC + b"[31m", 1, ""),
        (ESC + b"[31m", 3, ""),
        (ESC + b"]8;;http://x\x07", 9, ""),
        (ESC + b"P1$r" + ESC + b"\\", 3, ""),
        (ESC + b"[?1049h", 4, None),
    ],
)
def test_split_multibyte_or_escape_left_for_next_slice(
    sequence: bytes, split: int, shown: str | None
) -> None:
    whole = b"ok\nred " + sequence + b"x\n"
    cut = len(b"ok\nred ") + split
    first = chunk_terminal_bytes(whole[:cut], 0)
    assert first.consumed == 3
    second = chunk_terminal_bytes(whole[first.consumed :], first.consumed, state=first.state)
    texts = [c.text for c in first.chunks + second.chunks]
    assert texts == ["ok\n", f"red {shown}x\n" if shown is not None else "red \n"]
    one_shot = chunk_terminal_bytes(whole, 0).chunks
    assert "".join(texts) == "".join(c.text for c in one_shot)


def test_offsets_point_at_raw_bytes_and_blank_lines_never_start_a_chunk() -> None:
    line = ESC + b"[32mok" + ESC + b"[0m line\n"
    data = b"\n\n" + line * 10 + b"  \n" + ESC + b"[?1049hhidden\n" + ESC + b"[?1049lvisible\n"
    result = chunk_terminal_bytes(data, 500, target_chars=32)
    four = "ok line\n" * 4
    assert result.chunks == [
        TerminalChunk(500 + 2, four),  # the two blank lines before are skipped
        TerminalChunk(500 + 2 + 4 * len(line), four),
        TerminalChunk(500 + 2 + 8 * len(line), "ok line\nok line\n  \nvisible\n"),
    ]
    assert data[result.chunks[1].offset - 500 :].startswith(line)


def test_target_chars_groups_whole_lines() -> None:
    data = b"".join(b"line %03d\n" % n for n in range(100))
    result = chunk_terminal_bytes(data, 0, target_chars=100)
    assert all(len(c.text) <= 100 and c.text.endswith("\n") for c in result.chunks)
    assert "".join(c.text for c in result.chunks) == data.decode()
    assert len(result.chunks) == 10
    with pytest.raises(ValueError, match="positive"):
        chunk_terminal_bytes(data, 0, target_chars=0)


def test_two_megabyte_single_line_without_newline() -> None:
    word = "wörd✓ ".encode() + ESC + b"[1mbold" + ESC + b"[0m "
    data = (word * (2_000_000 // len(word) + 1))[:2_000_000]
    unforced = chunk_terminal_bytes(data, 0)
    assert unforced == ChunkResult([], 0, ChunkerState())
    result = chunk_terminal_bytes(data, 0, force=True)
    assert result.consumed == len(data)
    cap = DEFAULT_TARGET_CHARS * LINE_CAP_FACTOR
    offsets = [c.offset for c in result.chunks]
    assert offsets == sorted(set(offsets))
    text = "".join(c.text for c in result.chunks)
    assert "\ufffd" not in text[:-2]  # only the cut at the very end of the data may split
    assert "[1m" not in text
    assert text.count("bold") >= len(result.chunks)
    for offset, following in zip(offsets, [*offsets[1:], len(data)], strict=True):
        assert following - offset <= cap + len(word)
        assert not 0x80 <= data[offset] < 0xC0  # never inside a UTF-8 sequence


def test_long_line_cut_never_inside_escape_sequence() -> None:
    osc = ESC + b"]52;c;" + b"QUJD" * 200 + b"\x07"
    data = b"x" * 50 + osc + b"y" * 50 + b"\n"
    result = chunk_terminal_bytes(data, 0, target_chars=16)
    assert "".join(c.text for c in result.chunks) == "x" * 50 + "y" * 50 + "\n"
    assert all(not c.text.startswith(("Q", "]")) for c in result.chunks)


def test_sanitize_indexed_text_strips_markers_and_controls() -> None:
    assert sanitize_indexed_text("a\x01b\x02c\x00d\x7f\te\nf") == "abcd\te\nf"
    assert sanitize_indexed_text("one\r\ntwo\rthree") == "one\ntwo\nthree"
    assert sanitize_indexed_text("pasted \x1b[31merror\x1b[0m") == "pasted error"


def _text_but_blanks(chunks: list[TerminalChunk]) -> str:
    """The chunks' text, in order, without its whitespace. Where a chunk begins depends on the
    slicing, and a chunk neither starts nor (cut at its size) ends with whitespace: the newline
    at a boundary may belong to neither chunk (``aa\na`` then ``a`` one-shot, ``aa\n`` then
    ``a\na`` sliced after the first line), an indent at a boundary goes the same way
    (``a\n\t\x1b[31ma`` cut after the newline), and a chunk cut at its size may end inside a word
    one slicing keeps whole (``aaa`` then ``✓`` against ``aaa✓``). What is never lost or
    reordered is the text between."""
    return "".join("".join(chunk.text for chunk in chunks).split())


ALPHABET = [
    b"a",
    b"word ",
    b"\n",
    b"\r",
    b"\r\n",
    b"\b",
    b"\t",
    b"\x00",
    b"\x01",
    b"\x02",
    b"\xff",
    "é".encode(),
    "✓".encode(),
    "😀".encode(),
    ESC,
    ESC + b"[",
    ESC + b"[31m",
    ESC + b"[K",
    ESC + b"[2D",
    ESC + b"]8;;http://u\x07",
    ESC + b"\\",
    ESC + b"P",
    ESC + b"[?1049h",
    ESC + b"[?1049l",
    ESC + b"(B",
]

transcripts = st.lists(st.sampled_from(ALPHABET) | st.binary(max_size=4), max_size=60).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(data=transcripts, cuts=st.lists(st.integers(0, 300), max_size=6), target=st.integers(1, 24))
@example(data=b"aa\na\x1b]8;;http://u\x07\na", cuts=[3], target=4)  # a boundary's newline
@example(data=b"!\n\x00aaa\raaa\xe2\x9c\x93", cuts=[2], target=5)  # a word cut at the size
def test_any_slicing_gives_the_one_shot_text(data: bytes, cuts: list[int], target: int) -> None:
    base = 7
    whole = chunk_terminal_bytes(data, base, force=True, target_chars=target)
    points = sorted({min(c, len(data)) for c in cuts} | {len(data)})
    chunks: list[TerminalChunk] = []
    state = ChunkerState()
    cursor = 0
    for index, point in enumerate(points):
        last = index == len(points) - 1
        piece = data[cursor:point]
        result = chunk_terminal_bytes(
            piece, base + cursor, force=last, state=state, target_chars=target
        )
        assert 0 <= result.consumed <= len(piece)
        if not last:
            assert result.consumed == piece.rfind(b"\n") + 1  # whole lines only
        end = cursor + result.consumed
        for chunk in result.chunks:
            assert base + cursor <= chunk.offset < base + end
            assert not {"\x01", "\x02", "\x1b"} & set(chunk.text)
        chunks.extend(result.chunks)
        cursor, state = end, result.state
    assert cursor == len(data)
    assert state == whole.state
    offsets = [c.offset for c in chunks]
    assert offsets == sorted(set(offsets))
    assert _text_but_blanks(chunks) == _text_but_blanks(whole.chunks)


@settings(max_examples=200, deadline=None)
@given(data=transcripts, target=st.integers(64, 200))
def test_each_chunk_comes_from_the_raw_bytes_at_its_offset(data: bytes, target: int) -> None:
    result = chunk_terminal_bytes(data, 0, force=True, target_chars=target)
    assert result.consumed == len(data)
    one_shot, _ = sanitize_terminal_text(data)
    assert "".join(c.text for c in result.chunks).split() == one_shot.split()
    ends = [c.offset for c in result.chunks[1:]] + [result.consumed] * bool(result.chunks)
    for chunk, end in zip(result.chunks, ends, strict=True):
        _, state = sanitize_terminal_text(data[: chunk.offset])
        text, _ = sanitize_terminal_text(data[chunk.offset : end], state)
        # The raw bytes from this offset to the next produce exactly this chunk's text, plus
        # only the blank or hidden lines that the next chunk skipped.
        assert text.startswith(chunk.text)
        assert not text[len(chunk.text) :].strip()
