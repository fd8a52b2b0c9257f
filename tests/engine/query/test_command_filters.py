"""``exit:``, ``cwd:`` and ``took:`` as the parser reads them (docs/terminal.md); the SQL they narrow
is exercised end to end in tests/tui/sources/test_term_shell_marks.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.basics.caller_env import current_environ
from engine.errors import UsageError
from engine.index.command_sql import CommandFilter
from engine.query.parser import parse_query
from engine.terminal.osc133 import Osc133Tracker

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def commands(text: str) -> CommandFilter | None:
    return parse_query(text, now=NOW).commands


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("exit:2", CommandFilter(exit_codes=(2,))),
        ("exit:1,2 exit:ok", CommandFilter(exit_codes=(0, 1, 2))),
        ("exit:fail", CommandFilter(exit_nonzero=True)),
        ("took:5s", CommandFilter(took_min_ms=5000)),
        ("took:>1.5m", CommandFilter(took_min_ms=90_000)),
        ("took:<500ms", CommandFilter(took_max_ms=500)),
        ("took:1s..1h", CommandFilter(took_min_ms=1000, took_max_ms=3_600_000)),
        ("took:2 took:<1m", CommandFilter(took_min_ms=2000, took_max_ms=60_000)),
        ("cwd:/src/app/", CommandFilter(folders=("/src/app",))),
        ("cwd:app/src", CommandFilter(folder_names=("app/src",))),
        ("retry", None),
    ],
)
def test_command_filters_parse(text: str, expected: CommandFilter | None) -> None:
    assert commands(text) == expected


def test_cwd_home_is_the_callers() -> None:
    home = current_environ()["HOME"].rstrip("/")
    assert commands("cwd:~/src") == CommandFilter(folders=(f"{home}/src",))


def test_the_filters_leave_the_words_alone() -> None:
    parsed = parse_query("exit:fail pytest", now=NOW)
    assert [t.text for t in parsed.terms] == ["pytest"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "exit:maybe",
        "exit:",
        "took:soon",
        "took:",
        "took:5s..1s",
        "took:<1s took:2s",
        "cwd:",
        "cwd:.",
        "cwd:../x",
    ],
)
def test_a_bad_command_filter_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError):
        parse_query(text, now=NOW)


@pytest.mark.parametrize("cut", range(1, 40, 3))
def test_the_folder_and_start_time_survive_any_read_boundary(cut: int) -> None:
    """OSC 7 says the folder (percent-encoded); the command keeps the one before its start."""
    stream = (b"\x1b]7;file://host/src/my%20app\x07\x1b]133;A\x07$ \x1b]133;B\x07cd ..\r\n"
              b"\x1b]133;C\x07\x1b]133;D;0\x07\x1b]7;file://host/src\x07")  # fmt: skip
    first, second = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    tracker = Osc133Tracker()
    marks = tracker.feed(stream[:cut], 0, first) + tracker.feed(stream[cut:], cut, second)
    assert len(marks) == 1
    assert marks[0].cwd == "/src/my app"
    start = stream.index(b"\x1b]133;C")
    assert marks[0].started_at == (first if start + len(b"\x1b]133;C\x07") <= cut else second)
