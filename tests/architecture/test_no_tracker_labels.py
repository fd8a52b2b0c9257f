"""No label that points into the project's tracker: a reader of the tree does not have it.

A comment, docstring or test that cites an issue number with its point, or a helper's branch
name, says nothing to someone who reads only the code. Name the behaviour instead, or the
docs/ page or benchmarks/journal/ section that holds the measurement. Checked in every Python
file under engine/, tui/, tests/ and benchmarks/, and in docs/*.md and ARCHITECTURE.md
(README.md, benchmarks/RESULTS.md and benchmarks/journal/ are history and are left alone).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON_ROOTS = ("engine", "tui", "tests", "benchmarks")

# Built from parts so that this file does not match its own pattern.
_ISSUE = "iss" + "ue"
_HELPER = "h" + "-"
LABEL = re.compile(
    rf"\b{_ISSUE}s?[ _-]?[0-9]+"  # an issue number, with or without its point
    rf"|\b{_HELPER}[0-9a-z]+\b",  # a helper's branch name
    re.IGNORECASE,
)


def _checked_files() -> list[Path]:
    files = [path for top in PYTHON_ROOTS for path in sorted((ROOT / top).rglob("*.py"))]
    files += sorted((ROOT / "docs").glob("*.md"))
    files.append(ROOT / "ARCHITECTURE.md")
    return files


def labels_in(text: str) -> list[tuple[int, str]]:
    """Each line of ``text`` that holds a tracker label, numbered from 1."""
    return [
        (number, line.strip())
        for number, line in enumerate(text.splitlines(), start=1)
        if LABEL.search(line)
    ]


def test_the_pattern_finds_both_kinds_of_label() -> None:
    issue_label = f"see {_ISSUE.capitalize()} 14.2 for the budget"
    helper_label = f"measured by {_HELPER}plan"
    assert labels_in(f"ok\n{issue_label}\n{helper_label}\n") == [
        (2, issue_label),
        (3, helper_label),
    ]
    assert labels_in("tissues 2 and high-5 ship-ready, PR #41, ABC-123") == []


def test_no_tracker_labels_in_code_tests_benchmarks_or_docs() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for path in _checked_files()
        if path.exists()
        for number, line in labels_in(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found, (
        "name the behaviour or the docs/ (or benchmarks/journal/) section instead of a tracker "
        "label:\n" + "\n".join(found)
    )
