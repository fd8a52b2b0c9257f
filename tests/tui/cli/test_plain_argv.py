"""A plain `ade search` argv is parsed without argparse, into the namespace argparse gives it.

``tui.commands.search.parse_plain`` skips argparse (with ``gettext`` and ``locale``, ~13 M
instructions of every search's start-up, both paths) for the shapes a user and a script type;
anything else it hands to argparse, which parses and reports it as before. Each check compares
with the real argparse parser ``configure`` builds.
"""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from cli_helpers import CLEAN_ENV, ROOT, loaded_modules
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.cli_parser import OneLineParser
from tui.commands.search import configure, parse_plain


def _argparse(argv: list[str]) -> dict[str, object] | None:
    """argparse's namespace of ``argv`` as a dict; ``None`` when it refuses it."""
    parser = OneLineParser(prog="ade search")
    configure(parser)
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            return vars(parser.parse_args(argv))
    except SystemExit:
        return None


PLAIN = [
    ["timeout"],
    [],
    ["timeout", "--json"],
    ["--json", "connect", "timeout"],
    ["--project", "/tmp/p", "retry", "backoff", "--json", "--no-daemon"],
    ["--kind", "chat", "webhook", "--json", "--limit", "3"],
    ["kind:terminal", "error"],
    ['"timed out"', "--json"],
    ["retr", "time", "--json", "--limit", "50", "--offset", "20"],
    ["--status"],
    ["--status", "--json", "--project", "p"],
    ["--rebuild", "--no-daemon"],
    ["--kind", "chat", "--kind", "pr", "--kinds", "commit,lane", "x", "--tool", "claude"],
    ["--lane", "primary", "--cursor", "abc", "x", "--explain", "--exact", "--sessions"],
    ["--all", "x", "--text"],
    ["--json", "--json", "x"],
    ["x", "--limit", " 5"],
    ["", "x", "--project", ""],
]
"""Shapes parsed without argparse: each must give argparse's namespace."""

NOT_PLAIN = [
    ["--help"],
    ["-h"],
    ["--", "-flaky", "retry"],
    ["-flaky"],
    ["x", "--json", "y"],  # argparse: unrecognized arguments
    ["--limit=5", "x"],
    ["--lim", "5", "x"],  # an abbreviation argparse accepts
    ["--limit", "five", "x"],
    ["--limit", "-1", "x"],
    ["--project"],
    ["--json", "--text", "x"],
    ["--status", "--rebuild"],
    ["--unknown", "x"],
    ["-", "x"],
]
"""Shapes left to argparse (it accepts some, refuses others, and says so as before)."""


@pytest.mark.parametrize("argv", PLAIN)
def test_a_plain_argv_gives_argparses_namespace_without_it(argv: list[str]) -> None:
    plain = parse_plain(argv)
    assert plain is not None
    assert vars(plain) == _argparse(argv)


@pytest.mark.parametrize("argv", NOT_PLAIN)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert parse_plain(argv) is None


WORDS = ["timeout", "kind:chat", "", "5", " 5", "-x", "-", "--", "a b", "-5", "x=y", "--json"]
OPTIONS = [
    "--json", "--text", "--sessions", "--all", "--explain", "--exact", "--status", "--rebuild",
    "--no-daemon", "--project", "--kinds", "--lane", "--cursor", "--limit", "--offset", "--kind",
    "--tool", "--help", "--lim", "--limit=3", "-h",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS + OPTIONS), max_size=8))
def test_whatever_it_parses_argparse_parses_the_same(argv: list[str]) -> None:
    plain = parse_plain(argv)
    if plain is not None:
        assert vars(plain) == _argparse(argv)


def test_argparse_parses_the_rest_and_reports_as_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The positive control of argparse staying out of a plain search: what only argparse
    parses still imports and runs it (the one-line error, the exit code)."""
    from tui.cli import main

    assert main(["search", "x", "--json", "y"]) == 2
    assert "unrecognized arguments: y" in capsys.readouterr().err
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    code, modules = loaded_modules(["search", "--help"], env, cwd=ROOT)
    assert code == 0
    assert "argparse" in modules
