"""Text that cannot be encoded — lone surrogates in JSON over the daemon's socket,
bytes that are not UTF-8 in argv — is text (U+FFFD), never -32603, a dropped connection or a
traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import no_daemon_flag
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.basics.text import REPLACEMENT, replace_surrogates
from engine.embedded import EmbeddedClient
from engine.rpc.validation import INVALID_PARAMS, decode_frame
from engine.types import SearchQueryArgs
from tui.cli import main as ade_main


@pytest.fixture
def project(short_dir: Path, chat_project: Any) -> Path:
    return chat_project(short_dir / "alpha", "alpha", "Alpha", 3).resolve()


def _frame(request_id: str, method: str, params: str) -> bytes:
    # Written by hand: json.dumps would never produce a lone surrogate escape for us.
    return f'{{"jsonrpc":"2.0","id":{request_id},"method":"{method}","params":{params}}}'.encode()


def test_lone_surrogate_in_a_query_is_text(daemon: Any, project: Path) -> None:
    conn = daemon.connect()
    root = json.dumps(str(project))
    answer = conn.raw(_frame("1", "search.query", f'{{"projectRoot":{root},"query":"\\ud800"}}'))
    assert "error" not in answer, answer
    assert answer["result"]["items"] == []
    mixed = conn.raw(
        _frame("2", "search.query", f'{{"projectRoot":{root},"query":"zeb\\udfffra"}}')
    )
    assert "error" not in mixed, mixed
    assert conn.call("rpc.status")["result"]["pid"] == daemon.proc.pid  # the connection lives


@pytest.mark.parametrize(
    "root", ['"\\ud800"', '"/tmp/\\ud800x"', '"/tmp/\\udcff"'], ids=["bare", "absolute", "escape"]
)
def test_lone_surrogate_in_project_root_is_a_params_error(daemon: Any, root: str) -> None:
    conn = daemon.connect()
    answer = conn.raw(_frame("7", "search.query", f'{{"projectRoot":{root},"query":"x"}}'))
    assert answer["id"] == 7
    assert answer["error"]["code"] == INVALID_PARAMS
    assert REPLACEMENT in answer["error"]["message"]
    assert conn.call("rpc.status")["result"]["pid"] == daemon.proc.pid


def test_lone_surrogate_as_request_id_still_gets_an_answer(daemon: Any) -> None:
    conn = daemon.connect()
    answer = conn.raw(b'{"jsonrpc":"2.0","id":"\\udc80","method":"rpc.status"}')
    assert answer["id"] == REPLACEMENT
    assert answer["result"]["pid"] == daemon.proc.pid


def test_decode_frame_replaces_lone_surrogates_and_keeps_pairs() -> None:
    value = decode_frame(b'{"a\\udc00":["\\ud800", "\\ud83d\\ude00", "plain"]}')
    assert value == {f"a{REPLACEMENT}": [REPLACEMENT, "\U0001f600", "plain"]}


def test_replace_surrogates_leaves_good_text_alone() -> None:
    text = "naïve café 😀"
    assert replace_surrogates(text) is text
    assert replace_surrogates("\udcff-x") == f"{REPLACEMENT}-x"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " ", "é", "\u202e", "\U0001f600", "\ud800", "\udcff", "\udfff"]))
)
def test_replace_surrogates_replaces_every_lone_surrogate_and_nothing_else(
    parts: list[str],
) -> None:
    """Without a regex unless one is there (the start-up budget): the same text as replacing
    every code point of U+D800-U+DFFF, and the same object when there is none."""
    text = "".join(parts)
    expected = "".join(REPLACEMENT if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)
    assert replace_surrogates(text) == expected
    if expected == text:
        assert replace_surrogates(text) is text


@pytest.mark.usefixtures("cli_path")
@pytest.mark.parametrize(
    "term",
    [chr(0xDCFF), f"zeb{chr(0xDCFF)}ra", chr(0xD800)],
    ids=["argv-byte", "inside-a-word", "lone"],
)
def test_cli_query_with_undecodable_argv_is_text(
    project: Path, term: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ade search $'\\xff'``: Python hands argv's bytes over surrogate-escaped."""
    code = ade_main(["search", *no_daemon_flag(), "--project", str(project), term])
    captured = capsys.readouterr()
    assert code in (0, 1)
    assert "Traceback" not in captured.err
    assert "UnicodeEncodeError" not in captured.err


def test_embedded_query_with_lone_surrogates(project: Path) -> None:
    with EmbeddedClient.open(project, start_worker=False) as client:
        client.service.catch_up()
        result = client.query(SearchQueryArgs(query="zebra \ud800", lane_id="\udcff"))
        assert isinstance(result.items, tuple)
