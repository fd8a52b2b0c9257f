"""`ade search` (text and JSON) and `--status` print no terminal control from any planted field,
on both paths (RELIABILITY 26, docs/output-safety.md).

Each row names a field of the planted project (``conftest.py``), the query that finds it and the
word that must still be visible: the text is shown, only its controls are not.
"""

from __future__ import annotations

import json
import re

import pytest
from cli_helpers import CliPath, Run, run_main, search_argv
from hostile_project import PAYLOAD, UNSAFE, Hostile

pytestmark = pytest.mark.usefixtures("cli_path")

FIELDS: list[tuple[str, str, str]] = [
    ("chat title", "zaptitle", "zaptitle"),
    ("tool name", "zaptoolchat", "zaptool "),
    ("session_title event", "zapevent", "zapevent"),
    ("chat message", "zapmessage", "zapmessage"),
    ("terminal session title", "zapsession", "zapsession"),
    ("scrollback line", "zapscroll", "zapscroll"),
    ("Claude summary", "zapsummary", "zapsummary"),
    ("PR title", "zappr", "zappr"),
    ("commit subject", "zapcommit", "zapcommit"),
    ("branch name", "zapbranch", "zapbranch"),
    ("artifact title", "zapartifact", "zapartifact"),
    ("import title", "zapimport", "zapimport"),
    ("Linear title", "kind:linear zaplinear", "zaplinear"),
    ("Linear state", "kind:linear zaplinear", "zapstate"),
    ("file line", "zapfile", "zapfile"),
    ("file name", "zapnamed", "zapname"),
    ("file name with a bidi override", "zapbidi", "zapbidi"),
]
"""(field, query, a word of the field that must stay visible)."""

UNSAFE_RE = re.compile(UNSAFE)


def _linear_needs_the_callers_key(field: str) -> None:
    if field.startswith("Linear") and CliPath.daemon:
        pytest.skip("the daemon path does not forward LINEAR_API_KEY: it searches no Linear")


def assert_printable(run: Run, where: str) -> None:
    """Neither stream carries a control a terminal would act on."""
    for stream, text in (("stdout", run.out), ("stderr", run.err)):
        found = UNSAFE_RE.search(text)
        assert found is None, f"{where}: {stream} carries {found.group()!r} in {text!r}"


@pytest.mark.parametrize(("field", "query", "visible"), FIELDS, ids=[f[0] for f in FIELDS])
def test_search_text_shows_the_field_without_its_controls(
    hostile_project: Hostile,
    capsys: pytest.CaptureFixture[str],
    field: str,
    query: str,
    visible: str,
) -> None:
    _linear_needs_the_callers_key(field)
    found = run_main(capsys, search_argv(hostile_project.root, *query.split()))
    assert found.code == 0, found.err
    assert_printable(found, field)
    assert visible in found.out
    assert "^G" in found.out or field in {"scrollback line", "chat message", "branch name"}


@pytest.mark.parametrize(("field", "query", "visible"), FIELDS, ids=[f[0] for f in FIELDS])
def test_search_json_keeps_the_field_escaped(
    hostile_project: Hostile,
    capsys: pytest.CaptureFixture[str],
    field: str,
    query: str,
    visible: str,
) -> None:
    _linear_needs_the_callers_key(field)
    found = run_main(capsys, search_argv(hostile_project.root, *query.split(), "--json"))
    assert found.code == 0, found.err
    assert_printable(found, field)
    document = json.loads(found.out)
    shown = json.dumps(document, ensure_ascii=False)
    assert visible in shown


def test_json_keeps_the_very_text(
    hostile_project: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON is for programs: the PR title comes back exactly as written, escapes and all."""
    found = run_main(capsys, search_argv(hostile_project.root, "zappr", "--json"))
    titles = [item["title"] for item in json.loads(found.out)["items"]]
    assert f"#7 zappr {PAYLOAD} afterzappr" in titles
    for escaped in ("\\u001b]52", "\\u009b", "\\u202e"):
        assert escaped in found.out


@pytest.mark.parametrize("fmt", ["--text", "--json"])
def test_status_shows_a_hostile_project_path_without_its_controls(
    hostile_project: Hostile, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    status = run_main(capsys, search_argv(hostile_project.root, "--status", fmt))
    assert status.code == 0, status.err
    assert_printable(status, f"status {fmt}")
    assert "zap" in status.out  # the project folder's name, the index path shown in it
