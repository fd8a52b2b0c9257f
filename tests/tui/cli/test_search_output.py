"""`ade search` output: golden text/JSON/explain on the demo, colour rules, stdout vs stderr.

Goldens live in ``golden/``; the project folder (a tmp path) is written as ``<project>``. To
accept a deliberate change: ``ADE_UPDATE_GOLDEN=1 pytest tests/tui/cli/test_search_output.py``,
then review the diff like code. Queries are limited to indexed kinds so that file and lane
mtimes (the time the demo was built, not ``ADE_NOW``) cannot make the goldens drift.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from cli_helpers import ADE_ENTRY, DEMO_NOW, GOLDEN, on_a_terminal, run_ade, run_main, search_argv

from engine.types import SearchQueryResult, from_json

pytestmark = pytest.mark.usefixtures("cli_path")

INDEXED = "chat,terminal,pr,commit,branch"

CASES: dict[str, list[str]] = {
    "timeout.txt": ["timeout", "--kinds", INDEXED, "--limit", "6"],
    "timeout.json": ["timeout", "--kinds", INDEXED, "--limit", "6", "--json"],
    "explain.txt": ["retry", "backoff", "--kinds", INDEXED, "--limit", "4", "--explain"],
    "explain.json": ["webhook|idempotency", "--kinds", "pr,commit", "--limit", "3", "--explain",
                     "--json"],
    "filters.txt": ["kind:terminal", "since:3d", "--limit", "3"],
    "phrase.txt": ['"exponential backoff"', "--kinds", INDEXED, "--limit", "3"],
}  # fmt: skip
"""Golden file → arguments: text and JSON, the explain form, filter-only and phrase queries."""


def _normalized(text: str, root: Path) -> str:
    return text.replace(str(root), "<project>")


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(indexed_demo: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    run = run_main(capsys, search_argv(indexed_demo, *CASES[name]))
    assert run.code == 0, run.err
    assert run.err == ""
    got = _normalized(run.out, indexed_demo)
    if name.endswith(".json"):
        got = json.dumps(json.loads(got), indent=2, ensure_ascii=False) + "\n"
    path = GOLDEN / name
    if os.environ.get("ADE_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")


def test_json_is_one_document_in_the_wire_form(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "timeout", "--json", "--limit", "3"))
    assert run.out.count("\n") == 1  # one compact document, one line: easy for jq and pipes
    data = json.loads(run.out)
    assert list(data) == ["items", "nextCursor", "total", "resultsTruncated", "warnings", "relaxed"]
    item = data["items"][0]
    assert list(item) == [
        "docId", "kind", "title", "snippet", "matchRanges", "tier", "updatedAt", "deepLink",
        "sessionId", "laneId", "laneName", "anchor", "projectId", "projectName", "projectRoot",
        "tool",  # the agent of a chat hit
        "messageCount", "matchCount",  # a --sessions row's counts
    ]  # fmt: skip
    assert from_json(run.out, SearchQueryResult).items[0].doc_id == item["docId"]
    again = run_main(capsys, search_argv(indexed_demo, "timeout", "--json", "--limit", "3"))
    assert again.out == run.out  # stable: same index, same clock, same bytes


def test_explain_json_is_parallel_to_items(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "timeout", "--explain", "--json"))
    data = json.loads(run.out)
    assert [e["docId"] for e in data["explain"]] == [i["docId"] for i in data["items"]]
    for why, item in zip(data["explain"], data["items"], strict=True):
        assert why["tier"] == item["tier"]
        assert why["sortKey"][3] == -item["updatedAt"]
        assert why["sortKey"][4] == item["docId"]
        assert why["terms"][0]["term"] == "timeout"
        if item["tier"] == "body":
            assert why["bm25"] is not None
            assert why["terms"][0]["where"], "a body hit matched the term somewhere"
    # The sort keys are the ranking's own: they must come out in order.
    keys = [tuple(e["sortKey"]) for e in data["explain"]]
    assert keys == sorted(keys)


def test_explain_matches_the_cursor_sort_key(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The BM25 shown is the score the query path ranked with, bit for bit."""
    import base64

    run = run_main(capsys, search_argv(indexed_demo, "timeout", "--limit", "5", "--explain",
                                       "--json"))  # fmt: skip
    data = json.loads(run.out)
    raw = data["nextCursor"] + "=" * (-len(data["nextCursor"]) % 4)
    payload = json.loads(base64.urlsafe_b64decode(raw)[:-8])
    assert payload["k"] == data["explain"][-1]["sortKey"]


def _run_on_pty(argv: list[str], env: dict[str, str]) -> str:
    """Run ``ade`` with stdout on a real pseudo-terminal; returns what it wrote there."""
    full = {**os.environ, "ADE_NOW": DEMO_NOW, **env}
    full.pop("ADE_SESSION_ID", None)
    _, out, err = on_a_terminal([sys.executable, "-c", ADE_ENTRY, *argv], full)
    assert err == b""
    return out.decode()


def test_colour_only_on_a_tty_and_never_with_no_color(indexed_demo: Path) -> None:
    argv = search_argv(indexed_demo, "timeout", "--limit", "2")
    on_tty = _run_on_pty(argv, {})
    assert "\x1b[1;33m" in on_tty  # highlighted match
    assert "\x1b[" not in _run_on_pty(argv, {"NO_COLOR": "1"})
    assert "\x1b[" not in _run_on_pty(argv, {"NO_COLOR": ""})  # set at all means no colour
    piped = run_ade(argv)
    assert piped.code == 0
    assert "\x1b[" not in piped.out
    assert "[timeout]" in piped.out.lower()  # without colour, matches are bracketed


def test_status_and_json_formats_through_a_real_process(indexed_demo: Path) -> None:
    status = run_ade(search_argv(indexed_demo, "--status", "--json"))
    assert status.code == 0
    assert json.loads(status.out)["state"] == "ready"
    assert status.err == ""
    found = run_ade(search_argv(indexed_demo, "kind:pr", "--json"))
    assert found.code == 0
    assert {i["kind"] for i in json.loads(found.out)["items"]} == {"pr"}
    none = run_ade(search_argv(indexed_demo, "zzqqxxnothing"))
    assert (none.code, none.err) == (1, "")
    assert none.out == "0 of 0 results\n"
    bad = run_ade(search_argv(indexed_demo, "--kind", "nope", "x"))
    assert (bad.code, bad.out) == (2, "")
    assert bad.err.startswith("ade search: unknown kind 'nope'")
    ops = run_ade(search_argv(indexed_demo, "--", 'AND OR NOT NEAR( ) * ^ - : " + { }'))
    assert ops.code in (0, 1)
    assert "Traceback" not in ops.err


def test_progress_never_reaches_stdout(demo_copy: Path) -> None:
    """A cold run (whole demo indexed) prints results only; stderr has no bar when not a TTY."""
    cold = run_ade(search_argv(demo_copy, "ReadTimeoutError", "--json"))
    assert cold.code == 0
    json.loads(cold.out)  # stdout is exactly one JSON document
    assert cold.err == ""


def test_every_flag_through_a_real_process(demo_copy: Path) -> None:
    """The console entry point parses and honours each flag the same way `main` does."""
    first = run_ade(search_argv(demo_copy, "timeout", "--kinds", "pr,commit", "--lane",
                                "abc-123-retry", "--limit", "1", "--json"))  # fmt: skip
    assert first.code == 0, first.err
    page = json.loads(first.out)
    assert [i["kind"] in ("pr", "commit") for i in page["items"]] == [True]
    assert page["items"][0]["laneId"] == "abc-123-retry"
    rest = run_ade(search_argv(demo_copy, "timeout", "--kinds", "pr,commit", "--lane",
                               "abc-123-retry", "--limit", "1", "--text", "--explain",
                               "--cursor", page["nextCursor"]))  # fmt: skip
    assert rest.code == 0
    assert "why: tier " in rest.out
    assert page["items"][0]["deepLink"] not in rest.out
    refused = run_ade(search_argv(demo_copy, "--rebuild"), env={"ADE_SESSION_ID": "chat-x"})
    assert (refused.code, refused.out) == (2, "")
    assert "CTO-only" in refused.err
    rebuilt = run_ade(search_argv(demo_copy, "--rebuild"), env={"ADE_SESSION_ID": "chat-x",
                                                               "ADE_ROLE": "cto"})  # fmt: skip
    assert rebuilt.code == 0
    assert rebuilt.out.startswith("rebuilt: ")
    dashed = run_ade([*search_argv(demo_copy, "--json"), "--", "-v"])
    assert dashed.code == 2  # only an exclusion: a clear usage error, not an option
    assert "-term only excludes" in dashed.err


def test_explain_says_when_a_window_bounded_the_answer() -> None:
    from datetime import UTC, datetime

    from engine.query.candidates import BUDGET_NOTE
    from tui.search_format import format_results_text

    bounded = BUDGET_NOTE.format(budget=25_000)
    result = SearchQueryResult(items=(), next_cursor=None, total=25_001, results_truncated=True,
                               warnings=(bounded,))  # fmt: skip
    now = datetime(2026, 6, 1, tzinfo=UTC)
    text = format_results_text(result, now, color=False, explain=[])
    assert "window: only the best-scored matches are ranked" in text
    assert f"window: {bounded}" in text
    assert "window:" not in format_results_text(result, now, color=False)
