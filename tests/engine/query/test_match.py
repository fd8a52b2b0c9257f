"""The one in-memory matcher and the file delegate's accent-aware ``git grep``.

The matcher's table is checked against the index itself: each row is also a real FTS5 query on
a real ``docs_fts`` table with the same text, so "what MATCH means" is measured, not assumed.
"""

from __future__ import annotations

import subprocess
import unicodedata
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.delegates.file_passes import search_lane_files
from engine.delegates.files import grep_lane_lines
from engine.delegates.untracked import grep_untracked
from engine.errors import UsageError
from engine.index.identifiers import identifier_parts
from engine.index.schema import SCHEMA_SQL
from engine.query.parser import build_match
from engine.query.plan import build_plan
from engine.query.snippets import make_snippet
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import NOW

ROWS = [
    # (query, text, matches)
    ("index*", "the indexer ran", True),
    ("index", "reindex everything", False),
    ("^flamingo", "a Flamingo!", True),
    ("(flamingo)", "flamingos", True),
    ("naive cafe", "Naïve CAFÉ", True),
    ("naïve", "naive", True),
    ('"cafe naive"', "naïve café", False),
    ('"naive cafe"', "a naive, café", True),
    ("timeout", "connectTimeout = 3", True),
    ("time", "ReadTimeoutError", True),
    ("error", "TypeError", True),
    ("type_error", "TypeError", True),  # the phrase "type error" in the identifier parts
    ("connect_timeout", "connect-timeout", True),
    ("f", "fix", False),  # one character: the exact token, never a prefix
    ("f", "f(x)", True),
    ("a|zz b", "zz and b", True),
    ("a|zz b", "zz only", False),
    ("retry -wip", "retry wip", False),
    ("retry -wip", "retry wiped", False),  # an exclusion is a prefix too, as in the index
    ('retry -"wip it"', "retry wiped it", True),
    ("straße", "STRASSE", False),  # one character to one: ß is not ss
    ("ＦＩＸ", "fix", False),  # no compatibility folding in the index either
    ("istanbul", "İstanbul", True),
    ("naive", unicodedata.normalize("NFD", "naïve"), True),
]


def _fts_matches(query: str, text: str) -> bool:
    db = apsw.Connection(":memory:")
    db.execute(SCHEMA_SQL)
    db.execute(
        "INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (1, '', ?, ?)",
        (text, identifier_parts(text)),
    )
    match = build_match(build_plan(SearchQueryArgs(query=query), now=NOW, lanes=()).parsed)
    return any(db.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ?", (match,)))


@pytest.mark.parametrize(("query", "text", "expected"), ROWS)
def test_the_matcher_means_what_the_index_means(query: str, text: str, expected: bool) -> None:
    plan = build_plan(SearchQueryArgs(query=query), now=NOW, lanes=())
    assert (plan.matches(text), _fts_matches(query, text)) == (expected, expected)


_CHARS = st.sampled_from(
    [*"abcABC1_-. *^()|", '"', "é", "É", "e\u0301", "ß", "ǅ", "ﬁ", "İ", "\u00a0", "Ω", "ω"]
)
_WORDS = st.lists(_CHARS, min_size=1, max_size=10).map("".join)
_FTS = apsw.Connection(":memory:")
_FTS.execute(SCHEMA_SQL)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(_WORDS, st.lists(_WORDS, min_size=1, max_size=4))
def test_any_query_on_any_text_reads_as_the_index_reads_it(query: str, words: list[str]) -> None:
    """Measured, not assumed: the matcher and a real FTS5 MATCH agree on generated text
    (case, precomposed and decomposed accents, ß, ligatures, identifiers, operator characters)."""
    text = " ".join(words)
    try:
        plan = build_plan(SearchQueryArgs(query=query), now=NOW, lanes=())
    except UsageError:
        return
    match = build_match(plan.parsed)
    if match is None:
        return
    _FTS.execute("DELETE FROM docs_fts")
    _FTS.execute(
        "INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (1, '', ?, ?)",
        (text, identifier_parts(text)),
    )
    indexed = any(_FTS.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ?", (match,)))
    assert plan.matches(text) == indexed


def test_a_phrase_never_spans_two_columns() -> None:
    plan = build_plan(SearchQueryArgs(query='"alpha beta"'), now=NOW, lanes=())
    assert plan.matches("x alpha beta")
    assert not plan.matches("x alpha", "beta y")


# --- git grep ---------------------------------------------------------------------------------


@pytest.fixture
def accents(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    decomposed = unicodedata.normalize("NFD", "naïve café")
    (root / "a.txt").write_text(
        f"the naïve café\nNAÏVE CAFÉ\n{decomposed}\nnaive cafe\nnothing\nna ive\n", "utf-8"
    )
    (root / "b.txt").write_text("Ñandú y pingüino\nnandu\nΚΑΛΗΜΈΡΑ ПРИВЕТ\nκαλημέρα\n", "utf-8")
    subprocess.run(["git", "add", "a.txt", "b.txt"], cwd=root, check=True)
    (root / "new.txt").write_text("Café NAÏF\n", "utf-8")  # untracked
    return root


def _lines(root: Path, query: str) -> set[tuple[str, int]]:
    plan = build_plan(SearchQueryArgs(query=query), now=NOW, lanes=())
    return {(h.path, h.line) for h in grep_lane_lines(root, plan.line_filter())}


def test_git_grep_finds_every_accent_and_case_of_a_word(accents: Path) -> None:
    expected = {("a.txt", n) for n in (1, 2, 3, 4)}
    assert _lines(accents, "naive cafe") == expected
    assert _lines(accents, "NAÏVE") == expected
    assert _lines(accents, "nandu") == {("b.txt", 1), ("b.txt", 2)}
    assert _lines(accents, "pinguino") == {("b.txt", 1)}
    assert _lines(accents, "naif") == {("new.txt", 1)}  # untracked files alike
    assert _lines(accents, "καλημέρα привет") == {("b.txt", 3)}  # not only Latin letters
    assert _lines(accents, "Καλημέρα") == {("b.txt", 3), ("b.txt", 4)}
    # SQLite keeps Greek and Cyrillic accents (docs/search.md): so does every source
    assert _lines(accents, "καλημερα") == set()


def test_untracked_files_are_read_with_the_same_filter(accents: Path) -> None:
    plan = build_plan(SearchQueryArgs(query="cafe"), now=NOW, lanes=())
    hits = grep_untracked(accents, ["new.txt"], plan.line_filter())
    assert [(h.path, h.line) for h in hits] == [("new.txt", 1)]


def test_alternatives_need_one_of_them_not_all(accents: Path) -> None:
    assert _lines(accents, "pingüino|nothing") == {("a.txt", 5), ("b.txt", 1)}


def test_paths_are_prefiltered_by_folded_needles(accents: Path) -> None:
    (accents / "Café.md").write_text("x\n", "utf-8")
    paths = search_lane_files(accents, ["cafe"]).paths
    assert "Café.md" in paths


def test_a_snippet_is_centred_on_an_accented_match() -> None:
    plan = build_plan(SearchQueryArgs(query="naive cafe"), now=NOW, lanes=())
    snippet = make_snippet("filler " * 60 + "the naïve café is here", plan.parsed)
    assert snippet.endswith("the \x01naïve\x02 \x01café\x02 is here")
    assert snippet.startswith("…")
