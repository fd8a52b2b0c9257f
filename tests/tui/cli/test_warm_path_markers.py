"""The warm path written in the code: every module a warm `ade search` imports carries the
warm-path marker near its top, and no other module does (ARCHITECTURE.md, The warm path).

A reader editing a marked module sees that it is paid on every warm search before adding an
import; the marker cannot rot, because a module that joins or leaves the warm path without its
marker following fails here. The warm path is what ``test_startup_imports`` measures: the
modules an in-process warm search leaves loaded (a fresh interpreter on a warm copy of the demo)
and the ones a daemon-answered search may import (``DAEMON_ANSWER_MAY_IMPORT``, checked exactly
there against a real daemon).
"""

from __future__ import annotations

from pathlib import Path

from cli_helpers import ROOT, search_argv
from test_startup_imports import DAEMON_ANSWER_MAY_IMPORT, _modules
from warm_path import MARKER, marked_modules

MARK_PENDING: dict[str, str] = {}
"""Warm-path modules whose marker is owed, each with why (an entry that is marked, or that left
the warm path, fails: the list only shrinks)."""


def _ours(modules: set[str]) -> set[str]:
    """The ``engine``/``tui`` modules of ``modules`` that are files of this tree (a namespace
    package has no file to mark)."""
    found = set()
    for name in modules:
        if name.split(".")[0] not in ("engine", "tui"):
            continue
        base = ROOT.joinpath(*name.split("."))
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            found.add(name)
    return found


def test_every_module_of_a_warm_search_is_marked_and_no_other(warm_demo: Path) -> None:
    warm = _ours(_modules(search_argv(warm_demo, "timeout", "--json"))) | DAEMON_ANSWER_MAY_IMPORT
    marked = marked_modules()
    assert sorted(warm - marked - MARK_PENDING.keys()) == [], "on the warm path: add the marker"
    assert sorted(marked - warm) == [], "off the warm path now: remove the marker line"
    assert sorted(MARK_PENDING.keys() - (warm - marked)) == [], "marked now: drop its entry"


def test_the_marker_is_read_as_a_line_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "engine" / "query").mkdir(parents=True)
    (tmp_path / "tui").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text(f'"""Doc."""\n\n{MARKER}\n')
    (tmp_path / "engine" / "query" / "plan.py").write_text(f"{MARKER}\nimport re\n")
    (tmp_path / "tui" / "app.py").write_text(f"x = 1  {MARKER}\n")  # not a line of its own
    assert marked_modules(tmp_path) == {"engine", "engine.query.plan"}
