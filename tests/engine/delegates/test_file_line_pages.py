"""A common word's file lines (docs/search.md, "Files"): a page makes candidates of the lines it
can show only (``file_hits._best_lines``), and paging by cursor or offset still reaches every
line once, in the one order (definitions, then files named like the word, then mentions: newer
files first, then path, then line number), with the same total on every page — on both paths."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from engine.delegates.gather import delegated_for_args
from engine.demo import DEMO_NOW
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs

FILES = 6
LINES = 25
"""Mention lines per plain file: 150 in all, many more than a page."""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com",
                    *args], check=True, capture_output=True)  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Plain files whose mtimes run against their names, a file named like the word, and a
    definition in the oldest file."""
    root = tmp_path / "lines"
    root.mkdir()
    for i in range(FILES):
        (root / f"f{i}.txt").write_text("".join(f"the needle {n}\n" for n in range(1, LINES + 1)))
    (root / "needles.txt").write_text("one needle\ntwo needle\n")
    (root / "z.py").write_text("x = 1\ndef needle():\n    return needle\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "tree")
    for i in range(FILES):  # f0 newest: mtime order is not name order
        stamp = 1_700_000_000 - i * 1000
        os.utime(root / f"f{i}.txt", (stamp, stamp))
    for name in ("needles.txt", "z.py"):
        os.utime(root / name, (1_600_000_000, 1_600_000_000))
    return root


def _expected() -> list[str]:
    """The definition, the file named like the word, then the mentions: newest file first."""
    mentions = [f"f{i}.txt:{n}" for i in range(FILES) for n in range(1, LINES + 1)]
    return ["z.py:2", "needles.txt:1", "needles.txt:2", *mentions, "z.py:3"]


def _page(capsys: pytest.CaptureFixture[str], root: Path, *rest: str) -> dict[str, object]:
    run = run_main(capsys, search_argv(root, "needle", "--kind", "file", "--json", *rest))
    assert run.code == 0, run.err
    answer: dict[str, object] = json.loads(run.out)
    return answer


def _lines(answer: dict[str, object]) -> list[str]:
    items = answer["items"]
    assert isinstance(items, list)
    return [item["title"] for item in items if str(item["title"]).count(":") == 1]


@pytest.mark.usefixtures("cli_path")
def test_every_line_is_reached_once_in_order_by_cursor_and_by_offset(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _expected()
    path_hits = 1  # needles.txt, by its name (a title tier: before every line)
    by_cursor: list[str] = []
    totals = set()
    cursor: list[str] = []
    while True:
        answer = _page(capsys, repo, "--limit", "9", *cursor)
        by_cursor += _lines(answer)
        totals.add(answer["total"])
        if not answer.get("nextCursor"):
            break
        cursor = ["--cursor", str(answer["nextCursor"])]
    assert by_cursor == expected
    assert totals == {len(expected) + path_hits}
    for offset in (0, 40, len(expected) - 5):
        answer = _page(capsys, repo, "--limit", "11", "--offset", str(offset))
        shown = expected[max(0, offset - path_hits) : offset - path_hits + 11]
        assert _lines(answer) == shown
        assert answer["total"] == len(expected) + path_hits


def test_a_page_makes_candidates_of_the_lines_it_can_show_only(repo: Path) -> None:
    project = open_project(repo)
    lanes = list_lanes(project, WarningTally())
    for limit, offset in ((5, 0), (5, 30)):
        args = SearchQueryArgs(query="needle", kinds=("file",), limit=limit, offset=offset)
        found, _ = delegated_for_args(project, args, DEMO_NOW, lanes)
        lines = [c for c in found if c.title.count(":") == 1]
        assert len(lines) == offset + limit + 1
        assert len(lines) + sum(c.extra.unlisted for c in found) == len(_expected())
