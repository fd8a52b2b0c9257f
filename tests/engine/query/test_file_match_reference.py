"""The file search equals one readable definition (one matcher), over generated text, paths and
queries in several scripts.

The definition (``engine.query.file_match.line_hit``): a line is a hit when it holds every word
of the query and its path holds every path word (``builtin/``), no excluded word in the line and
no excluded path word in the path — each "holds" being what a real FTS5 ``MATCH`` on that one
text says. Checked at three levels: the
node test against SQLite itself, the compiled ``LineMatcher`` against ``line_hit``, and the
whole ``git grep`` search of a real repository against ``line_hit`` applied to every line of
every file. On main a word in a path made every line of its file holding the others a hit, and
``git grep`` was asked for the path word, so lines of ``builtin/`` holding ``strbuf_addf`` but
not ``builtin`` were lost.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.delegates.file_passes import FileQuery, search_lane
from engine.errors import UsageError
from engine.index.identifiers import identifier_parts
from engine.index.schema import SCHEMA_SQL
from engine.query.file_match import FileTerms, LineMatcher, line_hit, node_in
from engine.query.match import Haystack
from engine.query.parser import build_match
from engine.query.plan import QueryPlan, build_plan
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import NOW

_PIECES = st.sampled_from([
    "alpha", "Alpha", "alphabet", "beta", "BETA", "getAlphaBeta", "alpha_beta", "x", "café",
    "cafe", "naïve", "репозиторий", "репозитории", "ΚΑΛΗΜΈΡΑ", "καλημερα", "日本語", "й",
    "src/", "lib/", ".c", "-", " ", " ", "  ", "(", ")", "*", ":", "e\u0301",
])  # fmt: skip
_TEXT = st.lists(_PIECES, max_size=12).map("".join)
_WORD = st.sampled_from([
    "alpha", "alph", "beta", "alpha_beta", "getAlpha", "cafe", "naive", "репозиторий",
    "καλημέρα", "καλημερα", "日本語", "x", "src/", "lib", '"alpha beta"', "c",
])  # fmt: skip
_QUERY = st.tuples(
    st.lists(_WORD, min_size=1, max_size=3),
    st.lists(_WORD, max_size=1),
    st.booleans(),
).map(lambda t: " ".join([*t[0], *(f"-{w}" for w in t[1]), *(["alpha|beta"] if t[2] else [])]))


def _plan(query: str) -> QueryPlan | None:
    try:
        plan = build_plan(SearchQueryArgs(query=query), now=NOW, lanes=())
    except UsageError:
        return None
    return plan if plan.nodes else None


_FTS = apsw.Connection(":memory:")
_FTS.execute(SCHEMA_SQL)


def _fts_holds(query: str, text: str) -> bool:
    _FTS.execute("DELETE FROM docs_fts")
    _FTS.execute("INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (1, '', ?, ?)",
                 (text, identifier_parts(text)))  # fmt: skip
    plan = build_plan(SearchQueryArgs(query=query), now=NOW, lanes=())
    match = build_match(plan.parsed)
    return match is not None and any(_FTS.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ?",
                                                  (match,)))  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(_WORD, _TEXT)
def test_a_node_is_in_a_text_when_sqlite_says_so(word: str, text: str) -> None:
    plan = _plan(word)
    if plan is None:
        return
    (node,) = plan.nodes
    assert node_in(node, Haystack.of(text)) == _fts_holds(word, text)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(_QUERY, _TEXT, _TEXT)
def test_the_compiled_matcher_is_the_definition(query: str, path: str, line: str) -> None:
    plan = _plan(query)
    if plan is None:
        return
    terms = FileTerms.of(plan.nodes, plan.excluded)
    assert LineMatcher(terms)(path, line) == line_hit(terms, path, line)


def test_a_path_word_narrows_and_never_makes_a_line() -> None:
    plan = _plan("strbuf_addf builtin/")
    assert plan is not None
    hit = LineMatcher(FileTerms.of(plan.nodes, plan.excluded))
    assert hit("builtin/add.c", '\tstrbuf_addf(&sb, "%s", x);')  # the path narrows
    assert not hit("builtin/add.c", '#include "builtin.h"')  # the line lacks strbuf_addf
    assert not hit("strbuf.c", "strbuf_addf(&sb)")  # not under builtin/
    assert not hit("Documentation/x.txt", "strbuf_addf in builtin/add.c")  # path words: paths
    plan = _plan("foo commit-graph")
    assert plan is not None
    hit = LineMatcher(FileTerms.of(plan.nodes, plan.excluded))
    assert not hit("commit-graph.c", "foo = bar;")  # a plain word must be in the line
    assert hit("x.c", "foo(commit_graph);")
    assert not hit("x.c", "tofoo(commit_graph)")  # a substring is not a token prefix
    assert hit("x.c", "food(commit_graph)")  # a bare word is a prefix, as in the index
    plan = _plan("foo -t/")
    assert plan is not None
    hit = LineMatcher(FileTerms.of(plan.nodes, plan.excluded))
    assert not hit("t/helper/x.c", "foo")  # an excluded path word leaves the folder out
    assert hit("src/tools.c", "foo t/")  # one character: the exact token, as in the index


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reference") / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    return root


def _write(root: Path, files: dict[str, list[str]], tracked: bool) -> None:
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    for name, lines in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("".join(f"{line}\n" for line in lines), "utf-8")
    subprocess.run(["git", "-C", str(root), "add", "-A"] if tracked else
                   ["git", "-C", str(root), "read-tree", "--empty"],
                   check=True, capture_output=True)  # fmt: skip


_NAMES = st.sampled_from(["alpha.c", "src/beta.py", "lib/cafe.md", "日本語/x.txt", "naïve.txt",
                          "репозиторий.md", "getAlpha.js", "src/lib/alpha_beta.h"])  # fmt: skip


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    _QUERY,
    st.dictionaries(_NAMES, st.lists(_TEXT, min_size=1, max_size=6), min_size=1, max_size=4),
    st.booleans(),
)
def test_the_git_grep_search_finds_exactly_the_definition_s_lines(
    repo: Path, query: str, files: dict[str, list[str]], tracked: bool
) -> None:
    plan = _plan(query)
    if plan is None:
        return
    _write(repo, files, tracked)
    expected = sorted(
        (name, number)
        for name, lines in files.items()
        for number, line in enumerate(lines, 1)
        if line_hit(FileTerms.of(plan.nodes, plan.excluded), name, line)
    )
    found = search_lane(repo, FileQuery(plan.nodes, plan.excluded)).lines
    assert sorted((h.path, h.line) for h in found) == expected


_ONE_WORD = st.sampled_from(["alpha", "alph", "x", "c", "getAlpha", "beta", "cafe", "a1", "9"])
_ASCII_TEXT = st.lists(
    st.sampled_from(["alpha", "Alpha", "ALPHA", "getAlphaBeta", "alpha_beta", "x", "X1", "a1",
                     "9", "cafe", "café", " ", "_", "(", "-", "/", "xalpha", "c"]),
    max_size=10,
).map("".join)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ONE_WORD, _ASCII_TEXT)
def test_the_compiled_matcher_of_one_word_is_the_definition(word: str, line: str) -> None:
    """One word (most file searches): the matcher's path without its general loops says what
    ``line_hit`` says, on ASCII lines of every case, identifier forms and digits."""
    plan = _plan(word)
    assert plan is not None
    terms = FileTerms.of(plan.nodes, plan.excluded)
    assert LineMatcher(terms)("src/a.c", line) == line_hit(terms, "src/a.c", line)
