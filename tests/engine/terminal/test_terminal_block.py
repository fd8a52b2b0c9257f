"""The chunker's whole-slice fast path gives exactly what the line-by-line path gives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.terminal import block
from engine.terminal.block import chunk_block, clean_bytes, may_hold_a_long_line, sanitize_block
from engine.terminal.chunking import ChunkerState, _chunk_by_lines, chunk_terminal_bytes
from engine.terminal.sanitize import _clean_block, resolve_line

ESC = b"\x1b"

FRAGMENTS = [
    b"a",
    b"word ",
    b"  ",
    b"\n",
    b"\n\n",
    b" \n",
    b"\r",
    b"\r\n",
    b"\r\r\n",
    b"\b",
    b"\t",
    b"\x00",
    b"\x07",
    b"\x7f",
    "\x85".encode(),  # C1 NEL
    "\xa0".encode(),  # no-break space: blank for str.isspace
    "\u2028".encode(),
    "é".encode(),
    "✓".encode(),
    "😀".encode(),
    ESC,
    ESC + b"[",
    ESC + b"[31m",
    ESC + b"[K",
    ESC + b"[0K",
    ESC + b"[1K",
    ESC + b"[2K",
    ESC + b"[2D",
    ESC + b"[5G",
    ESC + b"[3C",
    ESC + b"]8;;http://u\x07",
    ESC + b"]0;title",
    ESC + b"\\",
    ESC + b"P",
    ESC + b"[?25l",
    ESC + b"[?1049h",
    ESC + b"[?1049l",
    ESC + b"[?47h",
    ESC + b"[?1;1047l",
    ESC + b"[?147h",
    ESC + b"(B",
]
"""Valid UTF-8 pieces: every escape family, rewrites, blanks, wide and C1 characters."""

utf8_transcripts = st.lists(st.sampled_from(FRAGMENTS), max_size=80).map(b"".join)


_STRIPPERS = [pytest.param(block.python_strip_other_escapes, id="python")]
if block.compiled_strip_other_escapes is not None:
    _STRIPPERS.append(pytest.param(block.compiled_strip_other_escapes, id="compiled"))


@pytest.fixture(scope="module", params=_STRIPPERS)
def escape_stripper(request: pytest.FixtureRequest) -> Iterator[None]:
    """The block sanitizer with each escape stripper: the Python one and its compiled twin
    (module-scoped, so hypothesis runs its examples under one)."""
    kept = block.strip_other_escapes
    block.strip_other_escapes = request.param
    yield
    block.strip_other_escapes = kept


def _as_tuples(result: object) -> tuple[list[tuple[int, str]], int, bool]:
    chunks = [(c.offset, c.text) for c in result.chunks]  # type: ignore[attr-defined]
    return chunks, result.consumed, result.state.alt_screen  # type: ignore[attr-defined]


@pytest.mark.usefixtures("escape_stripper")
@settings(max_examples=400, deadline=None)
@given(
    data=utf8_transcripts,
    target=st.sampled_from([1, 3, 8, 20, 64, 4096]),
    alt=st.booleans(),
    force=st.booleans(),
)
def test_fast_path_equals_the_line_by_line_path(
    data: bytes, target: int, alt: bool, force: bool
) -> None:
    state = ChunkerState(alt)
    fast = chunk_terminal_bytes(data, 11, force=force, state=state, target_chars=target)
    end = len(data) if force else data.rfind(b"\n") + 1
    slow = _chunk_by_lines(data, end, 11, state, target)
    assert _as_tuples(fast) == _as_tuples(slow)


@pytest.mark.usefixtures("escape_stripper")
@settings(max_examples=300, deadline=None)
@given(data=utf8_transcripts)
def test_clean_bytes_equals_the_text_cleaner(data: bytes) -> None:
    folded = data.replace(b"\r\n", b"\n").replace(b"\r\n", b"\n").replace(b"\r\n", b"\n")
    assert clean_bytes(folded) == _clean_block(folded.decode())


def test_fast_path_is_taken_for_utf8_and_left_for_invalid_bytes_and_long_lines() -> None:
    ordinary = b"\x1b[32mok\x1b[0m\r\nline two\n"
    assert chunk_block(ordinary, len(ordinary), 0, False, 4096, 8192) is not None
    assert sanitize_block(b"caf\xe9\n", False) is None  # Latin-1, not UTF-8
    long_line = b"short\n" + b"x" * 100 + b"\n"
    assert chunk_block(long_line, len(long_line), 0, False, 40, 80) is None


def test_alternate_screen_lines_map_back_to_their_raw_offsets() -> None:
    data = b"$ vim\n\x1b[?1049h" + b"~\n" * 5 + b"\x1b[?1049l$ ls\nfile\n"
    chunks, alt = chunk_block(data, len(data), 100, False, 4, 8192) or ([], True)
    assert not alt
    # A line's offset is where its raw line starts: here the escape that leaves the screen.
    assert chunks == [(100, "$ vim\n"), (100 + data.index(b"\x1b[?1049l"), "$ ls\n"),
                      (100 + data.index(b"file"), "file\n")]  # fmt: skip


def test_progress_line_with_trailing_erase_keeps_only_the_last_frame() -> None:
    frames = b"".join(b"\rDownloading %3d%%" % p for p in range(0, 101, 25))
    line = frames + ESC + b"[K"
    assert clean_bytes(line + b"\n") == "Downloading 100%\n"
    assert resolve_line("long frame\rshort\x1b[K") == "short"
    assert resolve_line("long frame\rshort") == "shortframe"


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "bb", "\n", "\n\n", "xyz" * 3]), max_size=40).map("".join),
       st.integers(min_value=0, max_value=12), st.integers(min_value=0, max_value=140))  # fmt: skip
def test_a_long_line_is_never_ruled_out(text: str, cap: int, cut: int) -> None:
    """``may_hold_a_long_line`` says False only when no run of ``cap`` bytes lacks a newline."""
    data = text.encode()
    end = min(cut, len(data))
    longest = max((len(line) for line in data[:end].split(b"\n")), default=0)
    if longest >= cap:
        assert may_hold_a_long_line(data, end, cap)
