"""A warm `ade search` compiles only the regexes it uses (journal: "Regexes compiled lazily").

Compiling a pattern costs 0.05-1 ms of start-up on every run, so the patterns a warm search's
page rarely needs are compiled on first use, behind a ``functools.cache``'d getter: the check
runs a fresh interpreter on a copy of the demo whose index is built and reads each getter's
cache. The positive controls show each getter is what the code uses when its text comes along.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW, search_argv

ROOT = Path(__file__).resolve().parents[3]

LAZY = {
    "engine.redaction": (
        "_assignment_re",
        "_credential_re",
        "_pem_tail_re",
        "_not_hex_re",
        "_dotted_name_re",
        "_aws_secret_key_re",
        "_code_after_value_re",
    ),
    "engine.redaction.ids": ("_hashed_re",),
    "engine.links.targets": ("_team_key_re", "_scp_remote_re"),
    "engine.links.deeplink": ("_escape_re", "_bad_percent_re"),
    "engine.semantic.hybrid": ("_mode_re",),
    "engine.external.vscode_settings": ("_noise_re",),
    "engine.project.pr_reviews": ("review_item_id_re",),
    "engine.query.command_filters": ("_duration_re",),
    "engine.terminal.sanitize": (
        "esc_bytes_re",
        "_alt_re",
        "_line_token_re",
        "_cursor_csi_re",
    ),
    "engine.terminal.block": ("_ignored_control_bytes_re", "_crlf_bytes_re", "_alt_bytes_re"),
    "engine.query.parser": ("_duration_re",),
    "engine.project.git": ("_remote_res",),
    "engine.query.fold": ("separators_class", "_token_re", "_separator_re", "_fold_map"),
}
"""Module → the getters a warm search of the demo does not call."""

PROBE = """
import json, sys
from tui.cli import main
code = main(sys.argv[2:])
lazy = json.loads(sys.argv[1])
called = sorted(
    f"{module}.{name}"
    for module, names in lazy.items()
    if module in sys.modules
    for name in names
    if getattr(sys.modules[module], name).cache_info().currsize
)
print(json.dumps({"code": code, "called": called}))
"""


TERMINAL_PAGE = {"engine.terminal.sanitize": ("_other_esc_re", "_other_control_re")}
"""What only a page with a terminal snippet needs (its line is replayed on the cell model)."""


def _called(argv: list[str], lazy: dict[str, tuple[str, ...]] = LAZY) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["ADE_NOW"] = DEMO_NOW
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(lazy), *argv], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] in (0, 1), done.stderr
    called: list[str] = report["called"]
    return called


@pytest.fixture
def warm_demo(warm_demo: Path) -> Path:
    # The first search process stores the origin it read (a remote parsed once per checkout).
    _called(search_argv(warm_demo, "retry", "--json"))
    return warm_demo


def test_a_warm_search_compiles_none_of_the_lazy_patterns(warm_demo: Path) -> None:
    for term in ("retry", "timeout"):
        assert _called(search_argv(warm_demo, term, "--json")) == [], term


def test_a_time_filter_compiles_the_duration_pattern(warm_demo: Path) -> None:
    called = _called(search_argv(warm_demo, "since:30d", "retry", "--json"))
    # ... and the semantic switch's, which any query holding a ``:`` may hold
    assert called == ["engine.query.parser._duration_re", "engine.semantic.hybrid._mode_re"]


def test_only_a_terminal_snippet_compiles_the_cell_model_patterns(warm_demo: Path) -> None:
    assert _called(search_argv(warm_demo, "payments", "--json"), TERMINAL_PAGE) == []
    called = _called(search_argv(warm_demo, "retry", "--json"), TERMINAL_PAGE)  # a pytest run
    assert called == [
        f"engine.terminal.sanitize.{name}" for name in sorted(*TERMINAL_PAGE.values())
    ]


def _compiles(getter: Any, use: Callable[[], object]) -> bool:
    getter.cache_clear()
    use()
    return bool(getter.cache_info().currsize)


def test_each_redaction_pattern_is_compiled_where_its_text_comes_along() -> None:
    from engine import redaction as r

    assert _compiles(r._assignment_re, lambda: r.redact_secrets("DB_PASSWORD=hunter2hunter2"))
    assert _compiles(r._dotted_name_re, lambda: r.redact_secrets("password = self.value"))
    assert _compiles(r._credential_re, lambda: r.redact_secrets("Authorization: Bearer abc123XYZ"))
    pem_body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAAAA\n"
    assert _compiles(r._pem_tail_re, lambda: r.redact_secrets(pem_body))
    assert _compiles(r._not_hex_re, lambda: r.redact_secrets(pem_body))
    aws = "AKIAIOSFODNN7EXAMPLE,wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert _compiles(r._aws_secret_key_re, lambda: r.redact_secrets(aws))
    assert not _compiles(r._pem_tail_re, lambda: r.redact_secrets("an ordinary line\n" * 3))


def test_pem_precheck_decides_as_the_pattern() -> None:
    """The base64 test before ``_pem_tail_re`` only skips text the pattern cannot match."""
    from engine import redaction as r

    pattern = r._pem_tail_re()
    texts = [
        "",
        "A" * 15 + "\n",
        "A" * 16 + "\n",
        "A" * 16,
        "A" * 15 + "-\nB\n",
        "ab+/=" * 4 + "\r\n",
    ]
    texts += [
        "x" * 40 + "\n-----END RSA PRIVATE KEY-----",
        "0123456789abcdef0123\n" * 3,
        " " + "A" * 20,
    ]
    for text in texts:
        expected = pattern.match(text)
        found = r._pem_tail(text)
        assert (found and found.group()) == (expected and expected.group()), text


def test_each_terminal_pattern_is_compiled_where_its_text_comes_along() -> None:
    from engine.terminal import block, sanitize
    from engine.terminal.chunking import chunk_terminal_bytes

    alt_screen = b"a\x1b[?1049hb\r\n\x1b[?1049lc"
    assert _compiles(sanitize._alt_re, lambda: sanitize.sanitize_lines(alt_screen, False))
    assert _compiles(sanitize._line_token_re, lambda: sanitize.resolve_line("abc\bd"))
    assert _compiles(sanitize._other_esc_re, lambda: sanitize.resolve_line("a\x1b[31mb"))
    assert _compiles(sanitize._other_control_re, lambda: sanitize.resolve_line("a\x07b"))
    assert _compiles(sanitize._cursor_csi_re, lambda: sanitize.resolve_line("abc\x1b[2Gx"))
    assert not _compiles(sanitize.control_re, lambda: sanitize.clean_text("plain\ttext\n"))
    assert _compiles(sanitize.control_re, lambda: sanitize.clean_text("a\x07b"))
    assert sanitize.resolve_line("abc\x1b[2Gx") == "axc"
    assert _compiles(block._crlf_bytes_re, lambda: block.sanitize_block(b"a\r\r\nb", False))
    assert _compiles(block._alt_bytes_re, lambda: block.sanitize_block(b"a\x1b[?1049hb", False))
    assert _compiles(block._ignored_control_bytes_re, lambda: block.clean_bytes(b"a\x07b"))
    long_line = b"\x1b[31m" + b"x" * 100_000 + b"\x1b[0m\n"
    assert _compiles(sanitize.esc_bytes_re, lambda: chunk_terminal_bytes(long_line, 0, force=True))


def test_a_file_hit_id_is_keyed_with_the_digits_pattern() -> None:
    from engine.query import ranking

    assert _compiles(ranking._digits_re, lambda: ranking.natural_key("file:a.c:235"))
    assert ranking.natural_key("file:a.c:235") == "file:a.c:03235"


def test_a_remote_is_parsed_with_the_remote_patterns() -> None:
    from engine.project import git

    assert _compiles(git._remote_res, lambda: git.parse_remote_slug("git@github.com:o/n.git"))
    assert git.parse_remote_slug("https://gitlab.com/group/sub/name.git") == "sub/name"


def test_non_ascii_text_is_read_with_the_separator_classes() -> None:
    from engine.query import fold
    from engine.query.file_match import FileTerms, LineMatcher
    from engine.query.plan import build_plan
    from engine.types import SearchQueryArgs

    assert not _compiles(fold._token_re, lambda: fold.tokens("a retry_loop: ok"))
    assert not _compiles(fold._token_re, lambda: fold.tokens("café au lait"))  # folds to ASCII
    assert _compiles(fold._token_re, lambda: fold.tokens("йод—au lait"))
    assert fold.tokens("Café—au lait") == ["cafe", "au", "lait"]
    assert _compiles(fold._separator_re, lambda: fold.is_token_char("—"))
    assert _compiles(fold._fold_map, lambda: fold.fold("É"))
    one, two = (build_plan(SearchQueryArgs(query=q), now=0, lanes=()) for q in ("retry", "a.b"))
    one_word = FileTerms.of(one.nodes, one.excluded)
    assert not _compiles(fold.separators_class, lambda: LineMatcher(one_word)("x.py", "retry"))
    two_tokens = FileTerms.of(two.nodes, two.excluded)  # a term of two tokens: a regex
    assert _compiles(fold.separators_class, lambda: LineMatcher(two_tokens)("x.py", "a.b"))


def test_the_semantic_switch_and_a_settings_file_compile_their_patterns() -> None:
    from engine.external import vscode_settings
    from engine.semantic import hybrid
    from engine.types import SearchQueryArgs

    asked = SearchQueryArgs(query='retry "mode:semantic" MODE:Semantic')
    assert _compiles(hybrid._mode_re, lambda: hybrid.take_mode(asked))
    assert hybrid.take_mode(asked)[0].query == 'retry "mode:semantic"'
    plain = SearchQueryArgs(query="retry timeout")
    assert not _compiles(hybrid._mode_re, lambda: hybrid.take_mode(plain))
    assert hybrid.take_mode(plain) == (plain, False)
    jsonc = '{"a": 1, // comment\n "b": [2,],}'
    assert _compiles(vscode_settings._noise_re, lambda: vscode_settings.loads_jsonc(jsonc))
    assert vscode_settings.loads_jsonc(jsonc) == {"a": 1, "b": [2]}
