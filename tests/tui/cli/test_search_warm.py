"""The embedded default's catch-up, and delegate failures, seen from `ade search`.

Warm runs are stat-only by design (DESIGN §4, docs/search.md): a transcript whose ``(mtime_ns, size,
inode)`` did not change is not opened. The price is that an in-place rewrite that keeps all three
goes unseen until the file's stat changes; any writer that appends (or an editor that saves)
changes the mtime, so in practice nothing is missed. The test pins both halves of that contract.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

CHAT = Path(".ade") / "chats" / "chat-readtimeout-triage.jsonl"
"""The first line of this chat says "bursts of 502s": the rewrite lands inside the hashed head."""


def _found(capsys: pytest.CaptureFixture[str], root: Path, *query: str) -> bool:
    run = run_main(capsys, search_argv(root, *query, "--json"))
    assert run.code in (0, 1), run.err
    return bool(json.loads(run.out)["items"])


def test_a_warm_run_is_stat_only_then_a_new_mtime_is_picked_up(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _found(capsys, demo_copy, "kind:chat", "bursts")  # cold: indexes everything
    path = demo_copy / CHAT
    before = os.stat(path)
    data = path.read_bytes()
    assert b"bursts" in data
    assert b"zqxwvy" not in data
    path.write_bytes(data.replace(b"bursts", b"zqxwvy"))  # same size, same inode, new bytes
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_ino, after.st_mtime_ns) == (
        before.st_size, before.st_ino, before.st_mtime_ns,
    )  # fmt: skip

    # Warm: the stat signature is unchanged, so the transcript is not read again.
    assert not _found(capsys, demo_copy, "kind:chat", "zqxwvy")
    assert _found(capsys, demo_copy, "kind:chat", "bursts")

    # A new mtime: the head fingerprint no longer matches, the session is reindexed from zero.
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert _found(capsys, demo_copy, "kind:chat", "zqxwvy")
    assert not _found(capsys, demo_copy, "kind:chat", "session:chat-readtimeout-triage", "bursts")


def test_an_appended_message_is_found_on_the_next_run(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert not _found(capsys, demo_copy, "flibbertigibbet")
    event = {"seq": 99, "ts": "2026-06-15T11:59:00.000Z", "type": "assistant_message",
             "id": "msg_x", "text": "flibbertigibbet appended later"}  # fmt: skip
    with (demo_copy / CHAT).open("a", encoding="utf-8") as out:
        out.write(json.dumps(event) + "\n")
    assert _found(capsys, demo_copy, "flibbertigibbet")


def test_a_deleted_lane_folder_leaves_the_answer_intact_with_a_warning(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    def indexed_hits(items: list[dict[str, str]]) -> set[str]:
        # Sessions and PRs; commits follow the lanes' git state, which this test changes.
        return {i["docId"] for i in items if i["kind"] in ("chat", "terminal", "pr")}

    argv = search_argv(demo_copy, "webhook", "--json", "--limit", "200")
    before = json.loads(run_main(capsys, argv).out)["items"]
    shutil.rmtree(demo_copy / ".worktrees" / "webhooks")
    run = run_main(capsys, argv)
    assert run.code == 0
    after = json.loads(run.out)["items"]
    assert indexed_hits(after) == indexed_hits(before)
    assert indexed_hits(after)
    # git reports the worktree as prunable: the lane is gone (counted in the status), not broken.
    assert "Traceback" not in run.err
    assert "webhooks" not in {i["laneId"] for i in after if i["kind"] == "lane"}


def test_a_listed_lane_whose_folder_is_missing_warns_on_stderr(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lanes = [
        {"id": "primary", "name": "main", "path": str(demo_copy), "branch": "main",
         "primary": True},
        {"id": "webhooks", "name": "webhooks", "path": str(demo_copy / ".worktrees" / "webhooks"),
         "branch": "feature/webhook-signatures", "primary": False},
    ]  # fmt: skip
    (demo_copy / ".ade" / "lanes.json").write_text(json.dumps(lanes))
    shutil.rmtree(demo_copy / ".worktrees" / "webhooks")
    run = run_main(capsys, search_argv(demo_copy, "webhook", "--json", "--limit", "200"))
    assert run.code == 0
    kinds = {item["kind"] for item in json.loads(run.out)["items"]}
    assert {"chat", "pr"} <= kinds
    assert "warning: lane webhooks: its folder" in run.err
    assert "warning" not in run.out.replace('"warnings"', "")


def test_an_unreadable_file_in_the_primary_lane_leaves_the_answer_intact(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = demo_copy / "payments_api" / "config.py"
    if os.geteuid() == 0:
        # root reads mode-000 files: make the tracked path unreadable by replacing it with a
        # dangling symlink, and add one more that points nowhere.
        target.unlink()
        target.symlink_to(demo_copy / "no-such-file")
    else:
        target.chmod(0)
    (demo_copy / "docs" / "timeout-notes.md").symlink_to("/nonexistent/timeout")
    run = run_main(capsys, search_argv(demo_copy, "timeout", "--json", "--limit", "200"))
    if not target.is_symlink():
        target.chmod(0o644)
    assert run.code == 0, run.err
    items = json.loads(run.out)["items"]
    kinds = {item["kind"] for item in items}
    assert {"chat", "terminal", "commit"} <= kinds
    assert "file" in kinds  # the other files still answer
    assert "Traceback" not in run.err
