"""Honest file search (docs/search.md, "Files") on real git repositories: every matching line reachable
by paging or the cap said out loud, definitions and files named like the term first, line
numbers in numeric order, ``.ade/`` and ignored files never hits, snippets redacted."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.delegates import file_hits, files
from engine.delegates.definitions import definition_re, definition_source, is_definition
from engine.delegates.file_passes import search_lane_files
from engine.delegates.files import grep_definitions
from engine.embedded import EmbeddedClient
from engine.query.ranking import natural_key
from engine.types import SearchQueryArgs, SearchResultItem
from tests.engine.test_redaction import GHP


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com",
                    *args], check=True, capture_output=True)  # fmt: skip


def _repo(root: Path, tree: dict[str, str]) -> Path:
    for name, text in tree.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "tree")
    return root


def _every_page(
    root: Path, query: str, limit: int = 7
) -> tuple[list[SearchResultItem], bool, list[str]]:
    """Every item of ``kind:file <query>`` page by page, whether any page said truncated, and
    the warnings."""
    items: list[SearchResultItem] = []
    truncated, warnings, cursor = False, [], None
    with EmbeddedClient.open(root, start_worker=False) as client:
        while True:
            result = client.query(SearchQueryArgs(query=query, kinds=("file",), limit=limit,
                                                  cursor=cursor))  # fmt: skip
            items += result.items
            truncated = truncated or result.results_truncated
            warnings += [w for w in result.warnings if w not in warnings]
            cursor = result.next_cursor
            if cursor is None:
                return items, truncated, warnings


def _lines(items: list[SearchResultItem]) -> list[tuple[str, int]]:
    out = []
    for item in items:
        path, _, line = (item.anchor or "").rpartition(":")
        if line.isdigit():
            out.append((path, int(line)))
    return out


MENTION = '\tstrbuf_addf(&sb, "%s", name);\n'


@pytest.fixture
def c_repo(tmp_path: Path) -> Path:
    """Files that mention ``strbuf_addf`` sort before the one that defines it (as in git.git,
    where ``strbuf.c`` came after the first 200 hits), and one file has hits at lines 9, 10,
    235 and 1310."""
    long = ["int x;\n"] * 1310
    for number in (9, 10, 235, 1310):
        long[number - 1] = MENTION
    tree = {f"builtin/a{i:02}.c": '#include "strbuf.h"\n' + MENTION * 3 for i in range(12)}
    tree |= {
        "apply.c": "".join(long),
        "strbuf.h": "struct strbuf;\nvoid strbuf_addf(struct strbuf *sb, const char *fmt, ...);\n",
        "strbuf.c": (
            '#include "strbuf.h"\n\nstatic int helper(void)\n{\n\treturn 0;\n}\n\n'
            "void strbuf_addf(struct strbuf *sb, const char *fmt, ...)\n{\n"
            "\tstrbuf_vaddf(sb, fmt, ap);\n}\n\nvoid other(void)\n{\n" + MENTION + "}\n"
        ),
    }
    return _repo(tmp_path / "c", tree)


def test_every_line_is_reachable_definitions_first_numbers_in_order(c_repo: Path) -> None:
    items, truncated, warnings = _every_page(c_repo, "strbuf_addf")
    expected = subprocess.run(["git", "-C", str(c_repo), "grep", "-n", "strbuf_addf"],
                              capture_output=True, text=True, check=True).stdout  # fmt: skip
    lines = _lines(items)
    assert len(lines) == len(set(lines)) == len(expected.splitlines()) == 12 * 3 + 4 + 3
    assert not truncated
    assert not any(w.startswith("files:") for w in warnings)
    assert lines[0] == ("strbuf.c", 8)  # the definition, then the declaration
    assert lines[1] == ("strbuf.h", 2)
    assert {path for path, _ in lines[2:3]} == {"strbuf.c"}  # the named file's mention next
    apply = [line for path, line in lines if path == "apply.c"]
    assert apply == [9, 10, 235, 1310]  # numeric, not ":1310" before ":235"


def test_past_the_cap_the_answer_says_so_and_the_definition_survives(
    c_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_LINE_HITS", 10)
    monkeypatch.setattr(file_hits, "MAX_LINE_HITS", 10)
    items, truncated, warnings = _every_page(c_repo, "strbuf_addf")
    lines = _lines(items)
    assert truncated
    (said,) = [w for w in warnings if w.startswith("files:")]
    assert "more than 10 lines match" in said
    assert "path word (dir/)" in said  # how to narrow
    assert lines[:2] == [("strbuf.c", 8), ("strbuf.h", 2)]  # found by the definitions pass
    assert len(lines) == 12  # the 10 kept and the two definitions beyond them
    narrowed, truncated, _ = _every_page(c_repo, "strbuf_addf void")
    assert not truncated  # the narrowing the warning suggests (another word of the line) works
    assert {path for path, _ in _lines(narrowed)} == {"strbuf.c", "strbuf.h"}


def test_path_hits_past_their_cap_keep_the_best_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = {f"docs/gateway-{i:02}.md": "x\n" for i in range(8)} | {"zz/gateway": "x\n"}
    root = _repo(tmp_path / "paths", tree)
    monkeypatch.setattr(file_hits, "MAX_PATH_HITS", 3)
    items, truncated, warnings = _every_page(root, "gateway")
    assert next(item.doc_id for item in items) == "file:zz/gateway"  # exact name, sorted last
    assert len(items) == 3
    assert truncated
    assert any("9 paths match" in w for w in warnings)


@pytest.fixture
def unignored_ade(tmp_path: Path) -> Iterator[Path]:
    """A repository that does not ignore ``.ade/``, with a recorded terminal in it, one file
    under ``.ade/`` even tracked, a file git ignores and a tracked file holding a token."""
    root = _repo(tmp_path / "open", {
        ".gitignore": "build/\n",
        "deploy.sh": f"export GITHUB_TOKEN={GHP}\necho zanzibar deploy\n",
        ".ade/prs/1.json": '{"title": "zanzibar pr"}\n',
    })  # fmt: skip
    (root / ".ade" / "terminals").mkdir(parents=True)
    (root / ".ade" / "terminals" / "t1.log").write_text("\x1b[31mzanzibar\x1b[0m GITHUB_TOKEN\n")
    (root / ".ade" / "sessions").mkdir()
    (root / ".ade" / "sessions" / "t1.json").write_text('{"title": "zanzibar"}\n')
    (root / "sub" / ".ade").mkdir(parents=True)
    (root / "sub" / ".ade" / "x.log").write_text("zanzibar nested\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("zanzibar ignored\n")
    (root / "notes.txt").write_text("zanzibar untracked note\n")
    return root


def test_ade_state_and_ignored_files_are_never_file_hits(unignored_ade: Path) -> None:
    items, _, _ = _every_page(unignored_ade, "zanzibar")
    paths = {item.anchor.rpartition(":")[0] or item.anchor for item in items if item.anchor}
    assert paths == {"deploy.sh", "notes.txt"}
    found = search_lane_files(unignored_ade, [".ade"])
    assert found.paths == []
    assert found.lines == []


def test_file_snippets_are_redacted_and_a_token_is_not_found(unignored_ade: Path) -> None:
    items, _, _ = _every_page(unignored_ade, "GITHUB_TOKEN")
    (hit,) = [item for item in items if item.anchor == "deploy.sh:1"]
    assert hit.snippet == "export GITHUB_TOKEN=[REDACTED:token]"
    assert GHP not in hit.snippet
    assert _every_page(unignored_ade, GHP)[0] == []
    assert _every_page(unignored_ade, GHP[4:20])[0] == []


@pytest.mark.parametrize(
    ("line", "word", "defines"),
    [
        ("def connect_timeout(self):", "connect_timeout", True),
        ("    async def connect_timeout():", "connect_timeout", True),
        ("class Gateway(Base):", "gateway", True),
        ("pub fn parse_query(text: &str) -> Query {", "parse_query", True),
        ("func (s *Server) ServeHTTP(w http.ResponseWriter) {", "ServeHTTP", True),
        ("export function renderRow(row) {", "renderRow", True),
        ("#define MAX_LINE 400", "MAX_LINE", True),
        ("MAX_LINE_HITS = 2000", "MAX_LINE_HITS", True),
        ("    timeout: float = 5.0", "timeout", True),
        ("void strbuf_addf(struct strbuf *sb, const char *fmt, ...)", "strbuf_addf", True),
        ("static const char *git_path(void)", "git_path", True),
        ('\tstrbuf_addf(&sb, "%s", name);', "strbuf_addf", False),
        ("    return connect_timeout()", "connect_timeout", False),
        ("if MAX_LINE_HITS == 3:", "MAX_LINE_HITS", False),
        ("# see def connect_timeoutx", "connect_timeout", False),
        ("x = connect_timeout(5)", "connect_timeout", False),
    ],
)
def test_definition_lines(line: str, word: str, defines: bool, tmp_path: Path) -> None:
    assert is_definition(line, [word]) is defines
    root = _repo(tmp_path / "defs", {"code.txt": f"{line}\n"})
    assert bool(grep_definitions(root, [word])) is defines  # git -P agrees
    posix = subprocess.run(["git", "-C", str(root), "grep", "-i", "-E", "-e",
                            definition_source([word], ere=True)],
                           capture_output=True, check=False)  # fmt: skip
    assert posix.returncode == (0 if defines else 1)  # and so does the POSIX twin


@pytest.mark.parametrize(
    ("word", "named"),
    [("strbuf_addf", True), ("parseQuery", True), ("MAX_LINE", True), ("sha256", True),
     ("and", False), ("retry", False), ("Gateway", False), ("foo-bar", False), ("x_y", False)],
)  # fmt: skip
def test_only_identifiers_get_a_definitions_pass(word: str, named: bool) -> None:
    assert files.looks_like_identifier(word) is named


def test_natural_key_orders_numbers_as_numbers() -> None:
    ids = ["file:a.c:1310", "file:a.c:235", "file:a.c:9", "file:a.c:10", "terminal:s@12288",
           "terminal:s@4096", "file:a1.c:1", "file:a.c"]  # fmt: skip
    assert sorted(ids, key=natural_key) == [
        "file:a.c", "file:a.c:9", "file:a.c:10", "file:a.c:235", "file:a.c:1310", "file:a1.c:1",
        "terminal:s@4096", "terminal:s@12288",
    ]  # fmt: skip


_PIECES = st.sampled_from(["def", "DEF", "Pub", "fn", "#", "define", "Timeout", "timeout", "tIMEOUT",
                           "x", "K", "s", " ", "\t", "*", "(", ")", ":", "=", "==", "_", "9", "-"])  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PIECES, max_size=12).map("".join), st.sampled_from(["timeout", "TimeOut", "x"]))
def test_ascii_definitions_are_read_as_the_case_blind_pattern_reads_them(
    line: str, word: str
) -> None:
    """ASCII lines are matched lowered, without ``re.IGNORECASE`` (a third of its compile)."""
    expected = definition_re((word,)).search(line) is not None
    assert is_definition(line, [word]) is expected


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled-scorer", "python-twin"])
def test_file_lines_follow_the_indexed_documents_of_a_word_most_documents_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    """A word in more than half the indexed documents: FTS5's ``bm25()`` clamps its IDF to
    1e-6, which pulled those documents' scores down among the file lines' tiny constants (a
    definition line ranked between commits). Scored without the IDF, on every install, they
    rank before the file lines, as ``file_hits.LINE_SCORES`` says."""
    from engine.index import fts_rank
    from tests.engine.ingest.test_history import open_service

    monkeypatch.setattr(fts_rank, "use_compiled", compiled)
    root = _repo(tmp_path / "repo", {"tools/setup.py": "gizmo = 1\n", "notes.txt": "a gizmo\n"})
    for number in range(6):
        (root / "log.txt").write_text(f"{number}\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", f"change {number}\n\nthe gizmo moved {'far ' * number}")
    service = open_service(root)
    try:
        service.catch_up()  # the history's commits into the index
        items = service.query(SearchQueryArgs(query="gizmo", limit=50)).items
    finally:
        service.dispose()
    kinds = [(item.kind, item.anchor) for item in items]
    commits = [at for at, (kind, _) in enumerate(kinds) if kind == "commit"]
    definition = kinds.index(("file", "tools/setup.py:1"))
    assert len(commits) == 6, kinds
    assert max(commits) < definition, kinds  # on main 475a924: the definition line among them
