"""`ade search` through ``tui.cli.main(argv)``: flags, exit codes, usage errors, paging, status.

Every usage error must exit 2 with one line on stderr and nothing on stdout (scripts read stdout).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from engine.types import IndexStatus, RebuildResult, SearchQueryResult, from_json

pytestmark = pytest.mark.usefixtures("cli_path")

FTS5_OPERATORS = 'AND OR NOT NEAR( ) * ^ - : " + { }'
"""Every character and keyword with a meaning in FTS5 query syntax (RELIABILITY 15)."""


def _json(out: str) -> SearchQueryResult:
    return from_json(out, SearchQueryResult)


def test_results_exit_0_with_text_on_stdout_only(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "ReadTimeoutError"))
    assert run.code == 0
    assert "ade://" in run.out
    assert run.err == ""  # no progress, no diagnostics: stderr is not a TTY here


def test_no_results_exit_1(indexed_demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "zzqqxxnothing", "--json"))
    assert run.code == 1
    assert _json(run.out).items == ()
    assert run.err == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--kind", "nope", "x"], "unknown kind 'nope'"),
        (["--kinds", "pr,nope", "x"], "unknown kind 'nope'"),
        (["kind:nope", "x"], "unknown kind:'nope'"),
        (["--cursor", "garbage!!", "x"], "invalid cursor"),
        (["since:7x", "x"], "invalid since:'7x'"),
        (["since:2026-13-40", "x"], "invalid since:"),
        (["--lane", "nope", "x"], "unknown lane 'nope'"),
        (["lane:nope", "x"], "unknown lane 'nope'"),
        (["lane:nope", "x"], "; or by name, folder or branch: "),
        (["until:soon", "x"], "invalid until:'soon'"),
        (["since:2026-06-10", "until:2026-06-01", "x"], "until: is not after since:"),
        (["lane:", "x"], "lane: needs a lane id"),
        (["--lane", " ", "x"], "--lane needs a lane id"),
        (["--limit", "0", "x"], "--limit must be between 1 and 500"),
        (["--limit", "-3", "x"], "--limit must be between 1 and 500"),
        (["--limit", "501", "x"], "--limit must be between 1 and 500"),
        (["session:../etc", "x"], "invalid session:"),
        (["-x"], "-term only excludes"),
        (["x" * 1001], "the limit is 1000"),
    ],
)
def test_usage_errors_exit_2_one_line_on_stderr(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    # `-x` as a query needs `--` so argparse does not read it as an option.
    rest = ["--", *argv] if argv[0].startswith("-x") else argv
    run = run_main(capsys, search_argv(indexed_demo, *rest))
    assert run.code == 2, run
    assert run.out == ""
    assert message in run.err
    assert run.err.startswith("ade search: ")
    assert run.err.count("\n") == 1  # one line, never a traceback


def test_missing_project_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(tmp_path / "nowhere", "x"))
    assert run.code == 2
    assert run.out == ""
    assert "nowhere" in run.err


def test_bad_ade_now_is_a_usage_error(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADE_NOW", "yesterday")
    run = run_main(capsys, search_argv(indexed_demo, "x"))
    assert (run.code, run.out) == (2, "")
    assert "ADE_NOW" in run.err


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "--text", "x"],  # mutually exclusive formats
        ["--status", "--rebuild"],  # mutually exclusive actions
        ["--limit", "ten", "x"],  # not an int
        ["--no-such-flag", "x"],
    ],
)
def test_argparse_errors_exit_2(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, *argv))
    assert run.code == 2
    assert run.out == ""
    assert run.err.startswith("ade search: ")
    assert run.err.count("\n") == 1
    assert run.err.rstrip().endswith("(try `ade search --help`)")


def test_a_foreign_cursor_is_refused(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _json(
        run_main(capsys, search_argv(indexed_demo, "timeout", "--limit", "2", "--json")).out
    )
    assert first.next_cursor
    run = run_main(capsys, search_argv(indexed_demo, "backoff", "--cursor", first.next_cursor))
    assert run.code == 2
    assert "different query" in run.err
    tampered = first.next_cursor[:-3] + ("AAA" if not first.next_cursor.endswith("AAA") else "BBB")
    run = run_main(capsys, search_argv(indexed_demo, "timeout", "--cursor", tampered))
    assert run.code == 2


@pytest.mark.parametrize(
    "query",
    [
        ["timeout"],  # full text (BM25 body tier and title tiers)
        ["kind:commit"],  # filter-only: keyset over updated_at, never FTS
        ["the", "--kinds", "chat,terminal"],
    ],
)
def test_paging_with_cursor_to_the_end_has_no_gap_and_no_duplicate(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], query: list[str]
) -> None:
    whole = _json(
        run_main(capsys, search_argv(indexed_demo, *query, "--limit", "500", "--json")).out
    )
    assert whole.next_cursor is None
    assert len(whole.items) > 7, "the query must span several pages of 3"
    seen: list[str] = []
    cursor: list[str] = []
    pages = 0
    while True:
        run = run_main(capsys, search_argv(indexed_demo, *query, "--limit", "3", "--json", *cursor))
        assert run.code == 0
        page = _json(run.out)
        assert page.total == whole.total
        seen.extend(item.doc_id for item in page.items)
        pages += 1
        if page.next_cursor is None:
            break
        cursor = ["--cursor", page.next_cursor]
    assert seen == [item.doc_id for item in whole.items]
    assert pages == -(-len(seen) // 3)


def test_inline_kind_narrows_the_kind_flags(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def kinds(*argv: str) -> set[str]:
        run = run_main(capsys, search_argv(indexed_demo, *argv, "--limit", "500", "--json"))
        return {item.kind for item in _json(run.out).items} if run.code == 0 else set()

    assert kinds("timeout", "--kind", "pr", "--kind", "commit") == {"pr", "commit"}
    assert kinds("timeout", "--kinds", "pr,commit") == {"pr", "commit"}
    # kind: typed in the query intersects the flags: chat ∩ {chat, pr} = chat …
    assert kinds("kind:chat", "timeout", "--kind", "chat", "--kind", "pr") == {"chat"}
    # … and chat ∩ {pr} is empty: nothing matches (exit 1), it is not an error.
    run = run_main(capsys, search_argv(indexed_demo, "kind:chat", "timeout", "--kind", "pr"))
    assert (run.code, run.err) == (1, "")
    # kind:issue is kind:linear; with no API key the answer is empty plus a warning, not a failure.
    assert kinds("kind:commit,pr", "timeout") == {"pr", "commit"}


def test_lane_flag_and_inline_lane_by_id_or_name(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def lanes(*argv: str) -> set[str | None]:
        run = run_main(capsys, search_argv(indexed_demo, *argv, "--limit", "500", "--json"))
        assert run.code == 0, run.err
        # A commit the lane shares with the primary lane is the lane's too, shown as the primary's.
        return {item.lane_id for item in _json(run.out).items if item.kind != "commit"}

    assert lanes("timeout", "--lane", "abc-123-retry") == {"abc-123-retry"}
    assert lanes("timeout", "lane:abc-123-retry") == {"abc-123-retry"}
    assert lanes("kind:chat", "--lane", "webhooks") == {"webhooks"}


def test_double_dash_lets_a_query_start_with_a_dash(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "--json", "--", "timeout", "-backoff"))
    assert run.code == 0
    docs = _json(run.out).items
    assert docs
    assert all("backoff" not in (item.snippet + item.title).lower() for item in docs)


def test_fts5_operator_characters_never_raise(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "--json", "--", FTS5_OPERATORS))
    assert run.code in (0, 1), run.err
    _json(run.out)  # a well-formed answer
    for piece in FTS5_OPERATORS.split():
        run = run_main(capsys, search_argv(indexed_demo, "--json", "--", piece))
        assert run.code in (0, 1), (piece, run.err)
        assert "Traceback" not in run.err
        for glued in (f"timeout{piece}", f"{piece}timeout"):
            run = run_main(capsys, search_argv(indexed_demo, "--json", "--", glued))
            if glued == "-timeout":  # only an exclusion: refused with a clear message
                assert (run.code, run.err.count("\n")) == (2, 1), run.err
                continue
            assert run.code in (0, 1), (glued, run.err)


def test_punctuation_only_query_warns_on_stderr_and_finds_nothing(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "--", "*"))
    assert run.code == 1
    assert "warning: ignored '*'" in run.err
    assert "warning" not in run.out


def test_status_text_and_json(indexed_demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = run_main(capsys, search_argv(indexed_demo, "--status"))
    assert text.code == 0
    assert "state:        ready" in text.out
    assert str(indexed_demo / ".ade" / "cache" / "search-index.db") in text.out
    data = run_main(capsys, search_argv(indexed_demo, "--status", "--json"))
    status = from_json(data.out, IndexStatus)
    assert status.state == "ready"
    assert status.doc_count > 50
    assert set(status.docs_by_kind) >= {"chat", "terminal", "pr", "commit", "branch"}
    assert json.loads(data.out)["schemaVersion"] == status.schema_version  # camelCase on the wire


def test_rebuild_is_refused_in_an_agent_shell_without_the_cto_role(
    demo_copy: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADE_SESSION_ID", "chat-connect-timeout")
    run = run_main(capsys, search_argv(demo_copy, "--rebuild"))
    assert (run.code, run.out) == (2, "")
    assert "--rebuild is CTO-only" in run.err
    assert "chat-connect-timeout" in run.err
    assert not (demo_copy / ".ade" / "cache" / "search-index.db").exists()  # nothing was touched
    monkeypatch.setenv("ADE_ROLE", "worker")
    assert run_main(capsys, search_argv(demo_copy, "--rebuild")).code == 2


@pytest.mark.parametrize("role", [None, "cto", "CTO"])
def test_rebuild_is_allowed_for_a_person_or_the_cto(
    demo_copy: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    role: str | None,
) -> None:
    if role is not None:
        monkeypatch.setenv("ADE_SESSION_ID", "chat-cto")
        monkeypatch.setenv("ADE_ROLE", role)
    run = run_main(capsys, search_argv(demo_copy, "--rebuild", "--json"))
    assert run.code == 0, run.err
    outcome = from_json(run.out, RebuildResult)
    assert outcome.ok
    assert outcome.doc_count > 50
    text = run_main(capsys, search_argv(demo_copy, "--rebuild"))
    assert text.out.startswith(f"rebuilt: {outcome.doc_count:,} documents in ")
    after = run_main(capsys, search_argv(demo_copy, "ReadTimeoutError"))
    assert after.code == 0


def test_help_shows_an_example_of_every_filter(capsys: pytest.CaptureFixture[str]) -> None:
    run = run_main(capsys, ["search", "--help"])
    assert run.code == 0
    for needle in (
        "kind:", "lane:", "session:", "since:", '"', "-flaky", "|", "--kind", "--kinds",
        "--lane", "--limit", "--cursor", "--status", "--rebuild", "--json", "--text",
        "--explain", "--project", "--",
    ):  # fmt: skip
        assert needle in run.out, needle
