"""Read your writes (docs/freshness.md): a search answers every write to
the project's sources that completed before it started — on both paths, the daemon's included.

Each test searches once first (through the daemon that opens the project and watches it), writes,
and searches at once: no wait, no poll. Through the daemon on main these answered the index as
the watcher's debounce had left it (0 hits), an empty index after ``rm -rf .ade/cache``, and
nothing but a warning after a damaged index was recreated.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import CliPath, run_ade, run_main, search_argv, zero_docs_pages

from engine.types import SearchQueryResult, from_json

pytestmark = pytest.mark.usefixtures("cli_path")

CHAT = Path(".ade/chats/chat-release-notes.jsonl")
"""A plain (not gzipped) demo transcript whose last line ends with a newline."""


def _search(capsys: pytest.CaptureFixture[str], root: Path, *query: str) -> SearchQueryResult:
    run = run_main(capsys, search_argv(root, *query, "--json"))
    assert run.code in (0, 1), run.err
    return from_json(run.out, SearchQueryResult)


def _warm(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    """The project is open (in the daemon: its watcher on) and indexed before the write."""
    assert _search(capsys, root, "runbook").items


def _chat_line(seq: int, message_id: str, text: str) -> str:
    event = {"seq": seq, "ts": "2026-06-09T18:20:00.000Z", "type": "assistant_message",
             "id": message_id, "text": text}  # fmt: skip
    return json.dumps(event) + "\n"


def _doc_ids(result: SearchQueryResult) -> list[str]:
    return [item.doc_id for item in result.items]


def test_a_line_appended_to_a_transcript_is_found_at_once(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _warm(capsys, demo_copy)
    with (demo_copy / CHAT).open("a") as f:
        f.write(_chat_line(90, "msg_fresh", "quokkafreshword appended just now"))
    found = _search(capsys, demo_copy, "quokkafreshword")
    assert _doc_ids(found) == ["chat:chat-release-notes:msg_fresh"]


def test_a_shrunk_transcript_no_longer_answers_its_old_text(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = demo_copy / CHAT
    with path.open("a") as f:
        f.write(_chat_line(90, "msg_gone", "ocelotshrinkword soon rewritten away"))
    assert _search(capsys, demo_copy, "ocelotshrinkword").items
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))  # rewritten shorter: the line is gone
    assert _search(capsys, demo_copy, "ocelotshrinkword").items == ()


@pytest.mark.parametrize("name", ["nightly.log", "nightly.log.gz"])
def test_an_imported_recording_is_found_at_once(
    demo_copy: Path, tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _warm(capsys, demo_copy)
    text = b"build started\nnarwhalimportword in the nightly build\n"
    recording = tmp_path / name
    recording.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    imported = run_ade(["import", "--project", str(demo_copy), str(recording)])
    assert imported.code == 0, imported.err
    found = _search(capsys, demo_copy, "narwhalimportword")
    assert [item.kind for item in found.items] == ["terminal"]
    assert found.items[0].title == "nightly.log"


def test_a_terminal_recording_is_found_at_once(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _warm(capsys, demo_copy)
    recorded = run_ade(["term", "--project", str(demo_copy), "--", "echo", "wombattermword"])
    assert recorded.code == 0, recorded.err
    found = _search(capsys, demo_copy, "wombattermword", "kind:terminal")
    assert [item.title for item in found.items][:1] == ["echo wombattermword"]


def test_a_new_commit_is_found_at_once(demo_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _warm(capsys, demo_copy)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.com",
               GIT_COMMITTER_NAME="Ada", GIT_COMMITTER_EMAIL="ada@example.com")  # fmt: skip
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "axolotlcommitword fix"],
                   cwd=demo_copy, env=env, check=True)  # fmt: skip
    found = _search(capsys, demo_copy, "axolotlcommitword")
    assert "commit" in [item.kind for item in found.items]


def test_a_deleted_cache_is_reindexed_and_said(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _warm(capsys, demo_copy)
    before = _search(capsys, demo_copy, "kind:pr")
    shutil.rmtree(demo_copy / ".ade" / "cache")
    after = _search(capsys, demo_copy, "kind:pr")
    assert _doc_ids(after) == _doc_ids(before)  # the index again, not live sources only
    if CliPath.daemon:  # the in-process path simply creates and fills a new index
        assert any("index file was deleted" in w for w in after.warnings), after.warnings
    status = run_main(capsys, search_argv(demo_copy, "--status", "--json"))
    shown = json.loads(status.out)
    assert shown["docCount"] > 0
    if CliPath.daemon:
        assert shown["recreatedReason"] == "index file was deleted"
        assert shown["state"] != "ready"


def test_a_damaged_index_heals_and_the_search_answers(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _warm(capsys, demo_copy)
    prs = _doc_ids(_search(capsys, demo_copy, "kind:pr"))
    assert len(prs) == 5
    zero_docs_pages(demo_copy / ".ade" / "cache" / "search-index.db")
    healed = _search(capsys, demo_copy, "kind:pr")
    assert _doc_ids(healed) == prs
    assert any("damaged" in w for w in healed.warnings), healed.warnings
    assert not any("background" in w for w in healed.warnings), healed.warnings
