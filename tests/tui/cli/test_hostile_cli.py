"""`ade search` / `ade open` over a demo full of hostile files (docs/reliability.md), as a child process
with a timeout: a FIFO that blocked the old code fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import run_ade, search_argv

from engine.links.deeplink import build_link

pytestmark = pytest.mark.usefixtures("cli_path")

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


@pytest.fixture
def bound_socket() -> Iterator[list[socket.socket]]:
    socks: list[socket.socket] = []
    yield socks
    for sock in socks:
        sock.close()


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err
    assert "RecursionError" not in err


def test_search_and_status_survive_fifos_sockets_and_deep_json_everywhere(
    demo_copy: Path, bound_socket: list[socket.socket], tmp_path: Path
) -> None:
    ade = demo_copy / ".ade"
    os.mkfifo(ade / "sessions" / "fifo.json")
    (ade / "sessions" / "deep.json").write_text(DEEP_OBJECT)
    os.mkfifo(ade / "prs" / "90.json")
    (ade / "prs" / "91.json").write_text(DEEP)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound_socket.append(sock)
    here = os.getcwd()
    os.chdir(ade / "prs")  # a relative name: a deep tmp path can pass the AF_UNIX limit
    try:
        sock.bind("92.json")
    finally:
        os.chdir(here)
    (ade / "project.json").unlink()
    os.mkfifo(ade / "project.json")
    (ade / "lanes.json").write_text(DEEP_OBJECT)
    chat = ade / "chats" / "chat-connect-timeout.jsonl"
    chat.unlink()
    os.mkfifo(chat)
    with (ade / "chats" / "chat-abc123-backoff.jsonl").open("a") as handle:
        handle.write(DEEP + "\n")
    home = {"HOME": str(tmp_path)}
    found = run_ade(search_argv(demo_copy, "exponential", "backoff", "--json"), env=home)
    _no_traceback(found.err)
    assert found.code == 0
    assert json.loads(found.out)["total"] > 0
    status = run_ade(search_argv(demo_copy, "--status", "--json"), env=home)
    _no_traceback(status.err)
    assert status.code == 0
    warnings = json.loads(status.out)["warnings"]
    assert warnings["chat:chat-connect-timeout"] == 1  # the FIFO transcript
    assert warnings["chat:chat-abc123-backoff"] >= 1  # the deep line: counted in a later run
    assert warnings["project"] == 1
    assert warnings["lanes"] == 1
    assert warnings["prs"] == 3
    assert warnings["sessions"] == 2


def test_open_never_prints_a_transcript_linked_out_of_the_project(
    demo_copy: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN KEY----- TOPSECRET\n")
    log = demo_copy / ".ade" / "terminals" / "term-git-graph.log"
    log.unlink()
    log.symlink_to(secret)
    home = {"HOME": str(tmp_path)}
    found = run_ade(search_argv(demo_copy, "TOPSECRET"), env=home)
    assert (found.code, "TOPSECRET" in found.out) == (1, False)
    opened = run_ade(
        ["open", "--project", str(demo_copy), build_link("terminal", "term-git-graph", offset=0)],
        env=home,
    )
    assert opened.code != 0
    assert "TOPSECRET" not in opened.out + opened.err
    assert opened.err.count("\n") == 1


def test_open_never_lists_files_of_a_lane_outside_the_project(
    demo_copy: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "etc"
    outside.mkdir()
    (outside / "notes.md").write_text("PRIVATE notes\n")
    lanes = [{"id": "primary", "path": ".", "primary": True}, {"id": "evil", "path": str(outside)}]
    (demo_copy / ".ade" / "lanes.json").write_text(json.dumps(lanes))
    home = {"HOME": str(tmp_path)}
    opened = run_ade(
        ["open", "--project", str(demo_copy), build_link("file", "notes.md", lane="evil")],
        env=home,
    )
    assert opened.code != 0
    assert "PRIVATE" not in opened.out + opened.err
    listed = run_ade(["open", "--project", str(demo_copy), build_link("lane", "evil")], env=home)
    assert listed.code != 0
    assert "notes.md" not in listed.out
