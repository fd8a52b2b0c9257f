"""`ade open` of every kind prints the planted text without its controls (RELIABILITY 26).

`ade open` resolves a link in this process whatever runs (it never asks a daemon), so it has
one path. Links come from the search's JSON, as a script would take them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import run_main
from hostile_project import UNSAFE, Hostile

UNSAFE_RE = re.compile(UNSAFE)

SGR_RE = re.compile(r"\x1b\[[0-9;:]*m")

TARGETS: list[tuple[str, str, str, str]] = [
    ("chat message", "zapmessage", "chat", "zapmessage"),
    ("chat title", "zaptitle", "chat", "zaptitle"),
    ("session_title event", "zapevent", "chat", "zapevent"),
    ("Claude summary", "zapsummary", "chat", "zapsummary"),
    ("scrollback", "zapscroll", "terminal", "zapscroll"),
    ("terminal session title", "zapsession", "terminal", "zapsession"),
    ("import", "zapimported", "terminal", "zapimport"),
    ("PR title, body and comments", "zappr", "pr", "zapcomment"),
    ("commit subject", "zapcommit", "commit", "zapcommit"),
    ("artifact title and text", "zapartifact", "artifact", "zapartbody"),
    ("Linear issue", "kind:linear zaplinear", "linear", "ZAP-1"),
    ("file line", "zapfile", "file", "zapfile"),
]
"""(field, query, the kind of hit opened, a word the opened text must show)."""


def _link(hostile: Hostile, capsys: pytest.CaptureFixture[str], query: str, kind: str) -> str:
    found = run_main(capsys, ["search", "--project", str(hostile.root), "--no-daemon",
                              *query.split(), "--json"])  # fmt: skip
    items = json.loads(found.out)["items"]
    links = [i["deepLink"] for i in items if i["kind"] == kind and i["deepLink"]]
    assert any(links), f"no {kind} hit with a link for {query!r}"
    return str(links[-1])  # the most specific one (an event, an offset, a line)


@pytest.mark.parametrize(
    ("field", "query", "kind", "visible"), TARGETS, ids=[t[0] for t in TARGETS]
)
def test_open_prints_the_target_without_controls(
    hostile_project: Hostile,
    capsys: pytest.CaptureFixture[str],
    field: str,
    query: str,
    kind: str,
    visible: str,
) -> None:
    link = _link(hostile_project, capsys, query, kind)
    opened = run_main(capsys, ["open", link, "--project", str(hostile_project.root)])
    assert opened.code == 0, opened.err
    for stream in (opened.out, opened.err):
        found = UNSAFE_RE.search(stream)
        assert found is None, f"{field}: {found.group()!r} in {stream!r}"
    assert visible in opened.out


def test_open_raw_keeps_colours_and_nothing_else(
    hostile_project: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    link = _link(hostile_project, capsys, "zapscroll", "terminal")
    opened = run_main(capsys, ["open", link, "--raw", "--project", str(hostile_project.root)])
    assert opened.code == 0, opened.err
    assert "\x1b[31m" in opened.out  # the recorded colour stays
    without_colours = SGR_RE.sub("", opened.out)
    found = UNSAFE_RE.search(without_colours)
    assert found is None, f"{found.group()!r} in {opened.out!r}"


def test_an_error_quoting_a_hostile_link_is_one_printable_line(
    hostile_project: Hostile, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = "ade://nope/\x1b]52;c;cHduZWQ=\x07\x9b2J"
    opened = run_main(capsys, ["open", bad, "--project", str(hostile_project.root)])
    assert opened.code == 2
    assert opened.out == ""
    assert len(opened.err.splitlines()) == 1
    assert UNSAFE_RE.search(opened.err) is None, opened.err


def test_projects_add_and_list_print_a_hostile_folder_without_controls(
    hostile_project: Hostile,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("ADE_CONFIG_DIR", str(tmp_path / "config"))
    added = run_main(capsys, ["projects", "add", str(hostile_project.root)])
    listed = run_main(capsys, ["projects", "list"])
    for run in (added, listed):
        assert run.code == 0, run.err
        assert "zap" in run.out
        found = UNSAFE_RE.search(run.out + run.err)
        assert found is None, f"{found.group()!r} in {run.out!r}"
