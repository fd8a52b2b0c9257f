"""Every source reads text as the index's tokenizer does: ``engine.query.fold`` is
compared with SQLite's own ``unicode61 remove_diacritics 2``, code point by code point and on
generated text in many scripts. On main files folded with NFD (``й`` → ``и``, Greek accents
dropped) while the index keeps them."""

from __future__ import annotations

import apsw
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.gen_fold_table import tokenizer_table
from engine.query import fold_table
from engine.query.fold import fold, is_token_char, token_re, tokens
from engine.query.plan import build_plan
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import NOW

_CONN = apsw.Connection(":memory:")
_TOKENIZE = _CONN.fts5_tokenizer("unicode61", ["remove_diacritics", "2"])


def sqlite_tokens(text: str) -> list[str]:
    return list(_TOKENIZE(text.encode(), apsw.FTS5_TOKENIZE_DOCUMENT, None,
                          include_offsets=False, include_colocated=False))  # fmt: skip


def test_every_code_point_folds_and_separates_as_sqlite_says() -> None:
    """The Basic and Supplementary Multilingual Planes (every script in use), exhaustively."""
    end = 0x20000
    folded, separators = tokenizer_table(end)
    shipped = [cp for a, b in fold_table.SEPARATOR_RANGES for cp in range(a, b + 1) if cp < end]
    assert shipped == separators
    wrong = [cp for cp, to in folded.items() if fold(chr(cp)) != to]
    assert wrong == []
    kept = [cp for cp in range(1, end) if not 0xD800 <= cp <= 0xDFFF and is_token_char(chr(cp))]
    assert kept == sorted(set(range(1, end)) - set(separators) - set(range(0xD800, 0xE000)))


def test_ascii_text_is_read_as_the_tokenizer_reads_it() -> None:
    """ASCII text is scanned with ``[0-9A-Za-z]+`` (the class over every separator is compiled
    only for other text): each ASCII character between words tokenizes as SQLite says."""
    for cp in range(1, 128):
        text = f"ab{chr(cp)}Cd 9{chr(cp)}x{chr(cp)}"
        assert token_re(text).pattern == "[0-9A-Za-z]+"
        assert tokens(text) == sqlite_tokens(text), cp
        assert is_token_char(chr(cp)) == bool(sqlite_tokens(chr(cp))), cp


def test_cyrillic_and_greek_keep_what_the_index_keeps() -> None:
    assert tokens("репозиторий Йод ΚΑΛΗΜΈΡΑ café") == ["репозиторий", "йод", "καλημέρα", "cafe"]
    plan = build_plan(SearchQueryArgs(query="репозитории"), now=NOW, lanes=())
    assert not plan.matches("репозиторий")  # и is not й, in the index or anywhere else


_SCRIPTS = st.sampled_from([
    *"abzAZ09_-./: \t", "é", "e\u0301", "ß", "İ", "ǅ", "ﬁ", "й", "Й", "и", "ά", "Ά", "ΐ", "ς",
    "Σ", "ж", "語", "日本", "한", "ا", "ב", "\u0305", "\u200d", "१", "٣", "𝒜", "😀", "ǆ", "Ω",
])  # fmt: skip


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_SCRIPTS, max_size=30).map("".join))
def test_any_text_tokenizes_as_sqlite_tokenizes_it(text: str) -> None:
    assert tokens(text) == sqlite_tokens(text)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=40))
def test_any_unicode_text_tokenizes_as_sqlite_tokenizes_it(text: str) -> None:
    text = text.replace("\x00", "")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return
    assert tokens(text) == sqlite_tokens(text)
