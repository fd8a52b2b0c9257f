"""``ade search`` file hits as git grep finds them (docs/search.md, "Files"), on both CLI paths.

One real repository per module: ``strbuf_addf`` lines under ``builtin/`` that do not say
``builtin`` (the README's narrowing example returned only the lines that did), a line whose match
sits 5,000 characters in (main matched the first 400 characters), and 2,100 lines of one word
(main kept 2,000, so paging could not reach the rest).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

MANY = 2100


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("files") / "repo"
    (root / "builtin").mkdir(parents=True)
    (root / "builtin" / "add.c").write_text(
        '#include "builtin.h"\n\tstrbuf_addf(&sb, "%s", a);\nint x;\n\tstrbuf_addf(&sb, "b");\n'
    )
    (root / "builtin" / "commit.c").write_text('static void f(void) { strbuf_addf(&sb, "c"); }\n')
    (root / "strbuf.c").write_text("void strbuf_addf(struct strbuf *sb, ...)\n")
    (root / "minified.js").write_text("var a=1;" * 625 + "needle_far();\n")
    (root / "many.txt").write_text("".join(f"pagingword {n}\n" for n in range(MANY)))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "i"]):  # fmt: skip
        subprocess.run(["git", "-C", str(root), *args], check=True)
    return root


def _search(capsys: pytest.CaptureFixture[str], root: Path, *rest: str) -> dict[str, Any]:
    run = run_main(capsys, search_argv(root, "--json", "--kind", "file", *rest))
    assert run.code in (0, 1), run.err
    result: dict[str, Any] = json.loads(run.out)
    return result


def test_a_path_word_narrows_to_every_line_under_the_folder(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = _search(capsys, repo, "--limit", "50", "--", "strbuf_addf", "builtin/")
    lines = {i["title"] for i in result["items"] if ":" in i["title"]}
    assert lines == {"builtin/add.c:2", "builtin/add.c:4", "builtin/commit.c:1"}


def test_a_match_deep_in_a_long_line_is_found_and_shown_and_linked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (item,) = _search(capsys, repo, "needle_far")["items"]
    assert item["title"] == "minified.js:1"
    assert "needle_far" in item["snippet"]
    assert len(item["snippet"]) <= 402
    (span,) = item["matchRanges"]
    assert item["snippet"][span["start"] : span["end"]].startswith("needle")
    assert "line=1&col=5001&" in item["deepLink"]


def test_paging_reaches_every_matching_line_and_total_is_exact(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []
    cursor: list[str] = []
    while True:
        page = _search(capsys, repo, "--limit", "500", *cursor, "pagingword")
        assert page["total"] == MANY
        assert not page["resultsTruncated"]
        seen += [i["title"] for i in page["items"]]
        if not page["nextCursor"]:
            break
        cursor = ["--cursor", page["nextCursor"]]
    assert len(seen) == len(set(seen)) == MANY
