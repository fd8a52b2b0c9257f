"""`ade open <ade://link>` for every link kind, and its exit codes (0 shown, 1 gone, 2 bad link)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import run_ade, run_main, search_argv

from engine.links.deeplink import build_link

pytestmark = pytest.mark.usefixtures("cli_path")

PROJECT = "acme-payments-demo"


def _open(
    capsys: pytest.CaptureFixture[str], root: Path, link: str, *flags: str
) -> tuple[int, str, str]:
    run = run_main(capsys, ["open", "--project", str(root), *flags, link])
    return run.code, run.out, run.err


def _first_link(capsys: pytest.CaptureFixture[str], root: Path, *query: str) -> str:
    run = run_main(capsys, search_argv(root, *query, "--json", "--limit", "1"))
    assert run.code == 0, run.err
    link = json.loads(run.out)["items"][0]["deepLink"]
    assert isinstance(link, str)
    return link


def test_terminal_hit_from_search_opens_at_its_offset(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = _first_link(capsys, indexed_demo, "kind:terminal", "ReadTimeoutError", "Traceback")
    code, out, err = _open(capsys, indexed_demo, link)
    assert (code, err) == (0, "")
    assert out.startswith("terminal  ")
    assert "\n> " in out  # the target line is marked
    assert "\x1b" not in out  # ANSI stripped by default


def test_terminal_raw_keeps_escape_sequences(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = indexed_demo / ".ade" / "terminals" / "term-pytest-retry.log"
    assert b"\x1b[" in log.read_bytes()
    link = build_link("terminal", "term-pytest-retry", project_id=PROJECT, offset=0)
    _, plain, _ = _open(capsys, indexed_demo, link, "--context", "400")
    code, raw, _ = _open(capsys, indexed_demo, link, "--raw", "--context", "400")
    assert code == 0
    assert "\x1b[" in raw
    assert "\x1b[" not in plain


def test_offset_past_the_end_lands_on_the_end_with_a_note(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = build_link("terminal", "term-pytest-retry", offset=10**9)
    code, out, err = _open(capsys, indexed_demo, link)
    assert code == 0
    assert "\n> " in out
    assert err.startswith("note: offset 1000000000 is past the end")


def test_chat_message_with_its_neighbours(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = build_link("chat", "chat-readtimeout-triage", project_id=PROJECT, event=8)
    code, out, _ = _open(capsys, indexed_demo, link, "--context", "1")
    assert code == 0
    focus = [line for line in out.splitlines() if line.startswith("> ")]
    assert focus == [focus[0]]
    assert focus[0].startswith("> [8] assistant: The stack trace is a read timeout")
    numbers = [line[3:4] for line in out.splitlines() if line[2:3] == "["]
    assert numbers == ["7", "8", "9"]


def test_compacted_chat_opens_through_gzip(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (indexed_demo / ".ade" / "chats" / "chat-webhook-replay.jsonl.gz").exists()
    code, out, _ = _open(capsys, indexed_demo, build_link("chat", "chat-webhook-replay"))
    assert code == 0
    assert "Replay window" in out


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        (build_link("pr", "41", project_id=PROJECT), "pr  #41 ABC-123: exponential backoff"),
        (build_link("commit", "ef2952ef328cb10b977f48a2621e16d84ad67628"),
         "commit  ABC-123: lower connect_timeout to 2 s"),
        (build_link("branch", "feature/webhook-signatures"),
         "branch  feature/webhook-signatures"),
        (build_link("lane", "webhooks"), "lane  webhooks"),
        (build_link("file", "payments_api/config.py", line=12, lane="primary"),
         "file  payments_api/config.py"),
        (build_link("artifact", "art-retry-report"), "artifact  Retry benchmark report"),
        (build_link("linear", "ABC-123"), "linear  ABC-123"),
    ],
)  # fmt: skip
def test_every_detail_kind(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], link: str, expected: str
) -> None:
    code, out, err = _open(capsys, indexed_demo, link)
    assert (code, err) == (0, "")
    assert out.startswith(expected)


def test_commit_shows_the_diffstat_and_file_marks_the_line(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, commit, _ = _open(capsys, indexed_demo, build_link("commit", "ef2952ef"))
    assert "payments_api/config.py | 4 ++--" in commit
    link = build_link("file", "payments_api/config.py", line=12)
    _, file, _ = _open(capsys, indexed_demo, link, "--context", "1")
    assert file.splitlines()[-3:] == [
        "  11      gateway_url: str",
        "> 12      connect_timeout: float = 3.05",
        "  13      read_timeout: float = 10.0",
    ]


def test_file_in_a_linked_lane_is_read_from_that_lane(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = build_link("file", "payments_api/config.py", line=12, lane="abc-123-retry")
    _, out, _ = _open(capsys, indexed_demo, link, "--context", "0")
    assert out.splitlines()[-1] == "> 12      connect_timeout: float = 2.0"  # the lane's version


def test_the_session_of_a_search_hit_opens(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for kind in ("chat", "pr", "commit", "branch"):
        link = _first_link(capsys, indexed_demo, f"kind:{kind}", "retry")
        code, out, _ = _open(capsys, indexed_demo, link)
        assert code == 0, link
        assert out.startswith(kind)


@pytest.mark.parametrize(
    "link",
    [
        "ade://nope/x",
        "https://example.com",
        "ade://chat/a%2Fb",
        "ade://terminal/t?offset=-1",
        "ade://terminal/t?offset=01",
        "ade://file/../etc/passwd",
        "ade://file/%2e%2e/etc/passwd",
        "ade://file//etc/passwd",
        "ade://pr/41?event=3",
        "ade://pr/41?project=someone-else",
    ],
)
def test_malformed_or_foreign_links_exit_2(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    code, out, err = _open(capsys, indexed_demo, link)
    assert (code, out) == (2, "")
    assert err.startswith("ade open: ")
    assert err.count("\n") == 1


def test_a_file_symlinked_out_of_the_lane_is_refused(
    demo_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show\n")
    os.symlink(secret, demo_copy / "docs" / "escape.md")
    code, out, err = _open(capsys, demo_copy, build_link("file", "docs/escape.md"))
    assert (code, out) == (2, "")
    assert "leaves the lane root" in err


@pytest.mark.parametrize(
    "link",
    [
        build_link("chat", "chat-deleted-meanwhile"),
        build_link("terminal", "term-gone"),
        build_link("pr", "99"),
        build_link("commit", "0123456789abcdef"),
        build_link("branch", "feature/gone"),
        build_link("lane", "gone"),
        build_link("file", "payments_api/gone.py", line=3),
        build_link("file", "payments_api/config.py", lane="gone"),
        build_link("artifact", "art-gone"),
    ],
)
def test_a_target_that_is_gone_exits_1(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    code, out, err = _open(capsys, indexed_demo, link)
    assert (code, out) == (1, "")
    assert err.startswith("ade open: ")


def test_a_session_whose_transcript_was_removed_exits_1(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (demo_copy / ".ade" / "terminals" / "term-pytest-retry.log").unlink()
    code, _, err = _open(capsys, demo_copy, build_link("terminal", "term-pytest-retry"))
    assert code == 1
    assert "no transcript" in err


def test_bad_context_and_missing_project_exit_2(
    indexed_demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = build_link("pr", "41")
    assert _open(capsys, indexed_demo, link, "--context", "-1")[0] == 2
    assert _open(capsys, tmp_path / "nowhere", link)[0] == 2


def test_open_as_a_real_process(indexed_demo: Path) -> None:
    ok = run_ade(["open", "--project", str(indexed_demo), build_link("pr", "41")])
    assert (ok.code, ok.err) == (0, "")
    assert ok.out.startswith("pr  #41")
    gone = run_ade(["open", "--project", str(indexed_demo), build_link("pr", "99")])
    assert (gone.code, gone.out) == (1, "")
    bad = run_ade(["open", "--project", str(indexed_demo), "ade://pr/x"])
    assert (bad.code, bad.out) == (2, "")


def test_the_pytest_readtimeout_hit_opens_on_its_matching_line(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The link's offset is the first matching line inside the ~4 KiB chunk, so the
    marked line is the match (it used to be the chunk's first line, far above it)."""
    run = run_main(capsys, search_argv(indexed_demo, "kind:terminal", "ReadTimeoutError", "--json"))
    assert run.code == 0, run.err
    items = json.loads(run.out)["items"]
    link = next(i["deepLink"] for i in items if i["sessionId"] == "term-pytest-retry")
    code, out, err = _open(capsys, indexed_demo, link)
    assert (code, err) == (0, "")
    marked = [line for line in out.splitlines() if line.startswith("> ")]
    assert len(marked) == 1
    assert "ReadTimeoutError" in marked[0]
