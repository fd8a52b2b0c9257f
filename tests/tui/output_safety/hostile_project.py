"""A project whose every field holds terminal control sequences (RELIABILITY 26).

What other people control — PR titles and bodies, commit subjects, branch names, file lines and
file names, chat and session titles, ``session_title`` events, Claude summaries, tool names,
artifact, import and Linear titles, Linear states, scrollback — each carries ``PAYLOAD`` (OSC 52
clipboard write, OSC 0 title, OSC 8 link, CSI 2J, DCS, BEL, C1 CSI/OSC/ST, bidi overrides, DEL)
next to a word of its own (``zap<field>``) a search finds it by. Everything is real: a git
repository, transcripts in ``.ade/``, a Claude Code folder under ``HOME``, a recording imported
with ``ade import``, and Linear answered by a local HTTP server (the one fake the project
allows: the real service is out of reach).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW

from engine.external.discover import claude_slug
from tui.cli import main

PAYLOAD = (
    "\x1b]52;c;cHduZWQ=\x07"  # OSC 52: write the clipboard
    "\x1b]0;pwned\x07"  # OSC 0: the window title
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8: a hidden link
    "\x1b[2J\x1b[31m"  # CSI: clear the screen, red
    "\x1bP1$qm\x1b\\"  # DCS: a status-string request
    "\x07\x08\x0d"  # BEL, BS, a lone CR
    "\x9b2J\x9d0;c1\x9c"  # C1 CSI, OSC and ST (8-bit controls)
    "\u202eevil\u202c\u2066iso\u2069"  # bidi override and isolate
    "\x7f"
    "[link='https://evil.example/']markup[/link][@click=app.quit]q[/]"  # Textual markup
)
"""Every kind of control a terminal acts on, and Textual markup that would make a link."""

REF_PAYLOAD = "\x9b2J\u202eevil\u2066"
"""What a git ref name may hold (git refuses ASCII controls and DEL in ref names)."""

NAME_PAYLOAD = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x07\x9b2J\u202eevil\x7f"
"""What a file name may hold (no ``/``)."""

UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
"""What must never reach a terminal: C0 but tab and newline, DEL, C1, bidi controls."""


def hostile(word: str) -> str:
    return f"{word} {PAYLOAD} after{word}"


@dataclass(frozen=True)
class Hostile:
    """The planted project: its root, the caller's HOME, and the caller's environment."""

    root: Path
    home: Path
    env: dict[str, str]


LINEAR_ISSUES = {
    "data": {
        "searchIssues": {
            "nodes": [
                {
                    "identifier": "ZAP-1",
                    "title": hostile("zaplinear"),
                    "description": hostile("zaplineardesc"),
                    "url": "https://linear.app/acme/issue/ZAP-1",
                    "updatedAt": "2026-06-14T09:00:00.000Z",
                    "state": {"name": hostile("zapstate")},
                }
            ]
        }
    }
}


class LinearLike(BaseHTTPRequestHandler):
    """Answers every search as Linear's GraphQL API would, with the hostile issue."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        data = json.dumps(LINEAR_ISSUES).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def linear_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), LinearLike)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/graphql"
    finally:
        server.shutdown()
        server.server_close()


def _git(cwd: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="Mallory", GIT_COMMITTER_NAME="Mallory",
               GIT_AUTHOR_EMAIL="m@example.com", GIT_COMMITTER_EMAIL="m@example.com",
               GIT_AUTHOR_DATE="2026-06-14T10:00:00Z", GIT_COMMITTER_DATE="2026-06-14T10:00:00Z")  # fmt: skip
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def _session(sid: str, kind: str, title: str, tool: str, updated: str) -> dict[str, object]:
    return {"id": sid, "kind": kind, "title": title, "laneId": "primary",
            "createdAt": "2026-06-14T10:00:00.000Z", "updatedAt": updated,
            "archived": False, "tool": tool, "command": tool}  # fmt: skip


def _chat_line(seq: int, kind: str, **fields: object) -> str:
    return json.dumps({"seq": seq, "ts": f"2026-06-14T10:00:0{seq}Z", "type": kind, **fields})


def _plant_ade(root: Path) -> None:
    ade = root / ".ade"
    _write_json(ade / "project.json", {"id": "zap-project", "name": "zap"})
    _write_json(ade / "sessions" / "chat-zap.json",
                _session("chat-zap", "chat", hostile("zaptitle"), "claude", "2026-06-14T10:00:05Z"))  # fmt: skip
    _write_json(ade / "sessions" / "chat-zaptool.json",
                _session("chat-zaptool", "chat", "zaptoolchat", hostile("zaptool"),
                         "2026-06-14T10:00:05Z"))  # fmt: skip
    _write_json(ade / "sessions" / "chat-zapevent.json",
                _session("chat-zapevent", "chat", "plain", "codex", "2026-06-14T10:00:05Z"))  # fmt: skip
    chats = ade / "chats"
    chats.mkdir()
    (chats / "chat-zap.jsonl").write_text("\n".join([
        _chat_line(1, "user_message", id="m1", text=hostile("zapmessage"), status="accepted"),
        _chat_line(2, "assistant_message", id="m2", text=hostile("zapreply")),
    ]) + "\n")  # fmt: skip
    (chats / "chat-zaptool.jsonl").write_text(
        _chat_line(1, "user_message", id="m1", text="zaptoolchat hello", status="accepted") + "\n"
    )
    (chats / "chat-zapevent.jsonl").write_text("\n".join([
        _chat_line(1, "user_message", id="m1", text="an ordinary start", status="accepted"),
        _chat_line(2, "session_title", title=hostile("zapevent")),
    ]) + "\n")  # fmt: skip
    _write_json(ade / "sessions" / "term-zap.json",
                {**_session("term-zap", "terminal", hostile("zapsession"), "shell",
                            "2026-06-14T10:00:05Z"), "exitCode": 0})  # fmt: skip
    terminals = ade / "terminals"
    terminals.mkdir()
    # No lone CR here: it would rewrite the line (as on a terminal) and hide the word searched.
    scroll = hostile("zapscroll").replace("\r", "").encode()
    (terminals / "term-zap.log").write_bytes(b"$ make\r\n" + scroll + b"\r\nbuild done\r\n")
    _write_json(ade / "prs" / "7.json", {
        "number": 7, "title": hostile("zappr"), "body": hostile("zapprbody"), "state": "OPEN",
        "author": "mallory", "headBranch": "zap-branch", "baseBranch": "main",
        "url": "https://github.com/acme/zap/pull/7", "updatedAt": "2026-06-14T10:00:00.000Z",
        "comments": [{"author": "mallory", "body": hostile("zapcomment"),
                      "createdAt": "2026-06-14T10:00:00.000Z"}],
    })  # fmt: skip
    _write_json(ade / "artifacts" / "art-zap.json", {
        "id": "art-zap", "title": hostile("zapartifact"), "kind": "report", "path": "zap.md",
        "laneId": "primary", "createdAt": "2026-06-14T10:00:00.000Z",
    })  # fmt: skip
    (ade / "artifacts" / "zap.md").write_text(f"# report\n\n{hostile('zapartbody')}\n")


def _plant_claude(home: Path, root: Path) -> None:
    folder = home / ".claude" / "projects" / claude_slug(root)
    folder.mkdir(parents=True)
    message = {"parentUuid": None, "isSidechain": False, "cwd": str(root), "sessionId": "s1",
               "type": "user", "message": {"role": "user", "content": "zapclaude please"},
               "uuid": "u1", "timestamp": "2026-06-14T10:00:00.000Z"}  # fmt: skip
    lines = [{"type": "summary", "summary": hostile("zapsummary"), "leafUuid": "u1"}, message]
    (folder / "5f0c2d1e-aaaa-4bbb-8ccc-00000000000a.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )


def _import_recording(root: Path, tmp: Path) -> None:
    cast = tmp / "zap.cast"
    header = {"version": 2, "width": 80, "height": 24, "timestamp": 1781431200,
              "title": hostile("zapimport")}  # fmt: skip
    events = [[0.1, "o", "$ deploy\r\n"], [0.2, "o", "zapimported done\r\n"]]
    cast.write_text("\n".join(json.dumps(x) for x in [header, *events]) + "\n")
    assert main(["import", str(cast), "--project", str(root), "--lane", "primary"]) == 0


@pytest.fixture(scope="module")
def hostile_project(tmp_path_factory: pytest.TempPathFactory, linear_url: str) -> Hostile:
    """The planted project, indexed once in process (the daemon path catches up itself)."""
    base = tmp_path_factory.mktemp("hostile")
    # The folder's own name is hostile too: the status, notes and errors print the path.
    root, home = base / f"zap{NAME_PAYLOAD}", base / "home"
    root.mkdir()
    home.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "src").mkdir()
    (root / "src" / "zapfile.txt").write_text(f"first line\n{hostile('zapfile')}\nlast line\n")
    (root / "src" / f"zapname{NAME_PAYLOAD}.txt").write_text("zapnamed content\n")
    # A link may hold a bidi override (it is no control to a URL): `--print` prints the path.
    (root / "src" / "zapbidi\u202etxt.exe").write_text("zapbidi content\n")
    (root / "README.md").write_text("zap project\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "--cleanup=verbatim", "-m", f"{hostile('zapcommit')}\n\nbody")
    _git(root, "branch", f"zapbranch-{REF_PAYLOAD}")
    _plant_ade(root)
    _plant_claude(home, root)
    env = {"HOME": str(home), "ADE_NOW": DEMO_NOW, "LINEAR_API_KEY": "lin_api_test",
           "ADE_LINEAR_API_URL": linear_url}  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        for name in CLEAN_ENV:
            patch.delenv(name, raising=False)
        for name, value in env.items():
            patch.setenv(name, value)
        _import_recording(root, base)
        assert main(["search", "--project", str(root), "--no-daemon", "--status"]) == 0
    return Hostile(root, home, env)


@pytest.fixture(autouse=True)
def _caller_env(hostile_project: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs as the planted project's user: its HOME, clock and Linear settings."""
    for name in CLEAN_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in hostile_project.env.items():
        monkeypatch.setenv(name, value)
