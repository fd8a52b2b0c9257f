"""The file delegate's ``git grep`` pattern admits a line only where a term could start (and, for
an exact one, end) as the matcher reads it (``engine.query.match.grep_term_regex``): on generated
lines full of camelCase, acronyms, digits, accents, decomposed letters and punctuation, the lines
the delegate finds (git grep, then the exact matcher) are exactly the lines the matcher's readable
definition (``line_hit``) accepts, query by query."""

from __future__ import annotations

import random
import subprocess
import unicodedata
from pathlib import Path

import pytest

from engine.delegates import files
from engine.delegates.file_passes import FileQuery, search_lane
from engine.query.plan import build_plan
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import NOW

PIECES = [
    "t", "T", "the", "The", "THE", "other", "time", "Time", "getTime", "gettime", "HTTPServer",
    "httpServer", "HTTP2", "http2x", "aB2c", "x2", "2x", "sha1sum", "utf8Decoder", "v2Beta",
    "naïve", "NAÏVE", unicodedata.normalize("NFD", "naïve"), "café", "straße", "İstanbul",
    "étoile", "Ţara", "tés", "f", "f(x)", "connectTimeout", "type_error", "TypeError", "ABCdef",
    "abc", "ab", "é", "12", "2", "se", "Server", "serve", "ERROR", "error2", "e", "Καλημέρα",
    "καληTime", "ΠΡΙΝ",
]  # fmt: skip
JOINS = ["", "", " ", " ", "_", ".", "-", "(", "/", "\u0301", "é", "—", "«", "\u00a0"]

QUERIES = [
    "t", "a", "x", "e", "f", "2", "12", "ti", "tim", "time", "the", "ht", "http", "se", "ser",
    "server", "na", "naive", "error", "type_error", "ab", "abc", "b2", "c", "decoder", "utf",
    "beta", "sum", "istanbul", "tara", "cafe", "strasse", "x2", "sha", "http2", "v", "def",
    "καλη", "π", "πριν",
]  # fmt: skip


@pytest.fixture(scope="module")
def lines_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    rng = random.Random(31)
    lines = []
    for _ in range(3000):
        pieces = [rng.choice(PIECES) for _ in range(rng.randint(1, 5))]
        line = pieces[0]
        for piece in pieces[1:]:
            line += rng.choice(JOINS) + piece
        lines.append(line)
    root = tmp_path_factory.mktemp("boundaries")
    (root / "lines.txt").write_text("\n".join(lines) + "\n", "utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run(["git", "add", "lines.txt"], cwd=root, check=True)
    return root, lines


@pytest.mark.parametrize("perl", [True, False], ids=["grep -P", "grep -E"])
@pytest.mark.parametrize("query", QUERIES)
def test_the_grep_finds_every_line_the_matcher_accepts(
    lines_repo: tuple[Path, list[str]], query: str, perl: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PCRE (where the words start too) and as a git built without it reads the query."""
    monkeypatch.setattr(files, "_without_pcre", not perl)
    root, lines = lines_repo
    plan = build_plan(SearchQueryArgs(query=query), now=NOW, lanes=())
    wanted = FileQuery(plan.nodes, plan.excluded)
    expected = {n for n, line in enumerate(lines, 1) if wanted.hit("lines.txt", line)}
    found = {hit.line for hit in search_lane(root, wanted).lines}
    assert found == expected
    assert expected or query in {"strasse", "b2", "def", "π"}  # the lines hold every other


def test_a_git_that_refuses_grep_p_is_asked_with_grep_e_from_then_on(
    lines_repo: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``-P`` that git refuses (here a pattern PCRE cannot compile, as a git without PCRE
    refuses every one) costs nothing but the retry: the ``-E`` twin answers, and the process
    asks ``-E`` only from then on."""
    from engine.query.match import LineFilter

    root, lines = lines_repo
    monkeypatch.setattr(files, "_without_pcre", False)
    dialects = LineFilter.grep_dialects
    monkeypatch.setattr(
        LineFilter, "grep_dialects", lambda self: [("-P", "(?<"), dialects(self)[-1]]
    )
    plan = build_plan(SearchQueryArgs(query="time"), now=NOW, lanes=())
    wanted = FileQuery(plan.nodes, plan.excluded)
    expected = {n for n, line in enumerate(lines, 1) if wanted.hit("lines.txt", line)}
    assert {hit.line for hit in search_lane(root, wanted).lines} == expected
    assert files._without_pcre
