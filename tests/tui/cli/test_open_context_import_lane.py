"""`ade open --context N` on a long chat message shows N of its lines and says what it left out;
`ade import --lane` takes every name `lane:` takes (``main``, the folder, the branch, any case)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from engine.project.locate import open_project
from engine.project.sessions import read_session

pytestmark = pytest.mark.usefixtures("cli_path")

LONG = 2_603
"""Lines of the tool result (the size the issue saw printed whole)."""


def write_chat(root: Path, sid: str) -> None:
    ade = root / ".ade"
    (ade / "sessions").mkdir(parents=True, exist_ok=True)
    (ade / "chats").mkdir(parents=True, exist_ok=True)
    meta = {"id": sid, "kind": "chat", "title": "long output", "laneId": "primary",
            "createdAt": "2026-06-01T10:00:00+00:00", "updatedAt": "2026-06-01T10:05:00+00:00",
            "endedAt": None, "archived": False, "tool": "claude", "command": "claude"}  # fmt: skip
    (ade / "sessions" / f"{sid}.json").write_text(json.dumps(meta))
    output = "\n".join(f"row {n} of the listing" for n in range(1, LONG + 1))
    events = [
        {"seq": 1, "ts": "2026-06-01T10:00:00+00:00", "type": "user_message", "id": "u1",
         "text": "list everything", "status": "accepted"},
        {"seq": 2, "ts": "2026-06-01T10:01:00+00:00", "type": "tool_call", "id": "t1",
         "name": "Bash", "input": {"command": "ls -R"}},
        {"seq": 3, "ts": "2026-06-01T10:02:00+00:00", "type": "tool_result", "id": "t1",
         "output": output},
        {"seq": 4, "ts": "2026-06-01T10:03:00+00:00", "type": "assistant_message", "id": "a1",
         "text": "That is the listing."},
    ]  # fmt: skip
    lines = "".join(json.dumps(e) + "\n" for e in events)
    (ade / "chats" / f"{sid}.jsonl").write_text(lines)


@pytest.mark.parametrize("context", [0, 10, 40])
def test_open_shows_n_lines_of_a_long_message_and_says_what_it_left_out(
    repo: Path, capsys: pytest.CaptureFixture[str], context: int
) -> None:
    write_chat(repo, "chat-long")
    link = "ade://chat/chat-long?event=3"
    run = run_main(capsys, ["open", link, "--project", str(repo), "--context", str(context)])
    assert run.code == 0, run.err
    rows = [line for line in run.out.splitlines() if "of the listing" in line]
    shown = max(context, 1)  # the line the link lands on, at least
    assert len(rows) == shown
    assert rows[0].startswith("> [3] tool result: row 1 of the listing")
    left = LONG - shown
    assert f"… {left:,} more lines of this message (--context {LONG} shows them)" in run.out
    assert len(run.out.splitlines()) < shown + 10  # the neighbours are short


def test_open_without_context_cuts_a_long_message_too(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_chat(repo, "chat-long")
    run = run_main(capsys, ["open", "ade://chat/chat-long?event=4", "--project", str(repo)])
    assert run.code == 0, run.err
    assert len(run.out.splitlines()) < 40
    assert "That is the listing." in run.out
    assert f"… {LONG - 20:,} more lines of this message" in run.out


@pytest.mark.parametrize(
    ("name", "lane"),
    [("main", "primary"), ("MAIN", "primary"), ("proj", "primary"), ("feature-x", "feature-x")],
)  # fmt: skip
def test_import_lane_takes_every_name_lane_filter_takes(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, lane: str
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(b"$ make quasarbuild\r\nquasarbuild ok\r\n")
    run = run_main(capsys, ["import", str(log), "--project", str(repo), "--lane", name])
    assert run.code == 0, run.err
    sid = run.out.split("\t")[0]
    meta = read_session(open_project(repo), sid)
    assert meta is not None
    assert meta.lane_id == lane
    found = run_main(capsys, search_argv(repo, "--json", f"quasarbuild lane:{name}"))
    assert found.code == 0, found.err
    assert {i["sessionId"] for i in json.loads(found.out)["items"]} == {sid}


def test_import_lane_that_names_nothing_lists_the_names(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "pane.log"
    log.write_bytes(b"$ true\r\n")
    run = run_main(capsys, ["import", str(log), "--project", str(repo), "--lane", "nope"])
    assert run.code == 2
    assert "unknown lane 'nope'; lanes: primary, feature-x" in run.err
    assert "main" in run.err  # the other names it would take
