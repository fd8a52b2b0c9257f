"""Hostile files in the Gemini CLI, OpenCode, Copilot CLI and Aider stores (docs/reliability.md, for the
sources of the newer agents), through the real service on a real git repository with a linked worktree.

Each tool gets: a real FIFO where its session file (or database, or a SQLite side file) is
expected, JSON nested 100,000 deep, a symlink out of the tool's own root, a line (or row) of
40 MiB — past the 32 MiB read cap — and a second service on the same index, which is what a
later ``ade search --status`` sees. Aider's history is Markdown, so it has no deep-JSON case.
A call that could block on a FIFO runs in a thread with a join timeout; if it blocks, the FIFOs
are opened for writing so the reader wakes up, and the test fails instead of hanging.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import pytest

from engine.ingest.docs import TRUNCATED_MARK
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

from .agent_fixtures import (
    COPILOT_SID,
    GEMINI_SID,
    OPENCODE_DDL,
    T0,
    copilot_events,
    gemini_jsonl,
    opencode_rows,
    write_aider,
    write_copilot,
    write_gemini,
    write_opencode,
)

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
GUARD_S = 20.0
DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_BYTES = 40 * 1024 * 1024
"""Past the 32 MiB line cap of every reader, so the line is cut, not read whole."""

GEMINI_KEY = f"chat:gemini-{GEMINI_SID}"
COPILOT_KEY = f"chat:copilot-{COPILOT_SID}"
OPENCODE_KEY = "chat:opencode-ses_main"
GEMINI_FILE = "session-2026-06-01T10-00-5f0c2d1e.jsonl"


class Stores:
    """Where the fixture wrote each tool's store (every one moved by its own variable)."""

    def __init__(self, tmp_path: Path, repo: Path) -> None:
        self.repo = repo
        self.worktree = tmp_path / "proj-wt" / "feature-x"
        self.gemini_chats = tmp_path / "gem" / ".gemini" / "tmp" / "proj" / "chats"
        self.opencode_db = tmp_path / "xdg" / "opencode" / "opencode.db"
        self.copilot_state = tmp_path / "copilot" / "session-state"
        self.outside = tmp_path / "outside"
        self.outside.mkdir()

    def copilot_file(self, sid: str = COPILOT_SID) -> Path:
        path = self.copilot_state / sid / "events.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        return path


@pytest.fixture
def stores(tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Stores:
    env = {
        "HOME": str(tmp_path / "home"),
        "GEMINI_CLI_HOME": str(tmp_path / "gem"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "COPILOT_HOME": str(tmp_path / "copilot"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
    }
    (tmp_path / "home").mkdir()
    found = Stores(tmp_path, repo)
    write_gemini(tmp_path / "gem", repo, found.worktree)
    write_opencode(tmp_path / "xdg", repo, found.worktree)
    write_copilot(tmp_path / "copilot", found.worktree)
    write_aider(repo, found.worktree)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    return found


def _service(repo: Path) -> SearchService:
    return create_project_service(
        open_project(repo), clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )


@pytest.fixture
def service(stores: Stores) -> Iterator[SearchService]:
    svc = _service(stores.repo)
    yield svc
    svc.dispose()


def guarded(call: Callable[[], Any], fifos: list[Path]) -> Any:
    """``call()`` in a thread; when it blocks (a FIFO opened for reading), wake it by opening
    each FIFO for writing, and fail."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as err:  # re-raised on the test's thread
            box["error"] = err

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GUARD_S)
    if thread.is_alive():
        for _ in range(200):  # it may block on each FIFO in turn, and on each more than once
            for fifo in fifos:
                with contextlib.suppress(OSError):  # no reader waiting on this one
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # the reader sees EOF
            thread.join(0.05)
            if not thread.is_alive():
                break
        pytest.fail(f"blocked for {GUARD_S}s on a FIFO")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _hits(service: SearchService, query: str) -> list[str]:
    return [item.doc_id for item in service.query(SearchQueryArgs(query=query)).items]


def _body(service: SearchService, doc_id: str) -> str:
    row = service.readers.reader().execute("SELECT body FROM docs WHERE doc_id = ?", (doc_id,))
    found = row.fetchone()
    assert found is not None, f"{doc_id} not indexed"
    value = found[0]
    return zlib.decompress(value).decode() if isinstance(value, bytes) else str(value)


def _later_warnings(repo: Path) -> dict[str, int]:
    """What a later run (`ade search --status`: a new service, one catch-up) reports."""
    later = _service(repo)
    try:
        later.catch_up()
        return later.index_status().warnings
    finally:
        later.dispose()


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _huge(head: bytes, tail: bytes) -> Iterator[bytes]:
    """``head``, then filler up to ``HUGE_BYTES``, then ``tail`` (written piece by piece)."""
    yield head
    piece = b"A" * (1 << 20)
    for _ in range(HUGE_BYTES // len(piece)):
        yield piece
    yield tail


def _append(path: Path, pieces: Iterator[bytes] | list[bytes]) -> None:
    with path.open("ab") as handle:
        for piece in pieces:
            handle.write(piece)


# -- 5. FIFOs where a session file or database is expected -----------------------------------


def _fifos(stores: Stores, tool: str) -> list[Path]:
    if tool == "gemini":
        marker = stores.gemini_chats.parent.parent / "fifo-marker"
        (marker / "chats").mkdir(parents=True)
        return [
            stores.gemini_chats / "session-2026-06-02T10-00-f1f0f1f0.jsonl",
            marker / ".project_root",
        ]
    if tool == "opencode":
        return [stores.opencode_db.with_name("opencode-beta.db")]
    if tool == "copilot":
        return [stores.copilot_file("9d1e7a52-0000-4000-8000-00000000f1f0")]
    history = stores.worktree / ".aider.chat.history.md"
    history.unlink()
    return [history]


SURVIVOR = {"gemini": "zizzle", "opencode": "wombatreply", "copilot": "kumquatspy",
            "aider": "marmot_retries"}  # fmt: skip


@pytest.mark.parametrize("tool", ["gemini", "opencode", "copilot", "aider"])
def test_fifo_where_a_session_store_is_expected_is_refused_once_and_never_hangs(
    stores: Stores, service: SearchService, tool: str
) -> None:
    fifos = _fifos(stores, tool)
    for fifo in fifos:
        os.mkfifo(fifo)
    guarded(service.catch_up, fifos)
    assert _hits(service, SURVIVOR[tool]), "the tool's other sessions are still indexed"
    guarded(service.catch_up, fifos)  # listed again: still one warning per file
    assert service.index_status().warnings[tool] == len(fifos)
    assert guarded(lambda: _later_warnings(stores.repo), fifos)[tool] == len(fifos)


def test_fifo_beside_the_opencode_database_never_blocks_sqlite(
    stores: Stores, service: SearchService
) -> None:
    journal = stores.opencode_db.with_name("opencode.db-journal")
    os.mkfifo(journal)  # SQLite opens a journal it finds (blocking): it would wait forever
    guarded(service.catch_up, [journal])
    assert _hits(service, "kumquatspy")  # the other tools go on
    assert _hits(service, "wombatreply") == []  # that database is not opened at all
    assert service.index_status().warnings["opencode"] == 1
    assert service.drainer.tally.reasons("opencode") == {
        "refused": 1  # its opencode.db-journal is a FIFO
    }


def test_a_directory_where_a_history_or_events_file_is_expected_is_refused(
    stores: Stores, service: SearchService
) -> None:
    (stores.repo / ".aider.chat.history.md").unlink()
    (stores.repo / ".aider.chat.history.md").mkdir()
    stores.copilot_file("9d1e7a52-0000-4000-8000-0000000d1d1d").mkdir()
    service.catch_up()
    assert service.index_status().warnings["aider"] == 1
    assert service.index_status().warnings["copilot"] == 1
    assert _hits(service, "ferret_retries")  # the worktree's history is still read


# -- 4. JSON nested too deep ------------------------------------------------------------------


def test_deep_json_lines_documents_and_rows_are_skipped_counted_and_stay_counted(
    stores: Stores, service: SearchService
) -> None:
    root = str(stores.repo / "src")
    (stores.gemini_chats / GEMINI_FILE).write_bytes(gemini_jsonl(root, torn=False) + DEEP + b"\n")
    legacy = next(stores.worktree.parent.parent.glob("gem/.gemini/tmp/*/chats/*.json"))
    legacy.write_bytes(b'{"sessionId": "x", "messages": ' + DEEP + b"}")
    copilot = stores.copilot_file()
    copilot.write_bytes(
        copilot_events(COPILOT_SID, str(stores.worktree), torn=False) + DEEP + b"\n"
    )
    conn = apsw.Connection(str(stores.opencode_db))
    with conn:
        conn.execute(
            "INSERT INTO part VALUES (?,?,?,?,?,?)",
            ("prt_deep", "msg_ses_main_2", "ses_main", T0 + 5, T0 + 5, DEEP.decode()),
        )
        conn.execute("INSERT INTO message VALUES (?,?,?,?,?)",
                     ("msg_ses_main_3", "ses_main", T0 + 6, T0 + 6, DEEP.decode()))  # fmt: skip
    conn.close()
    service.catch_up()
    assert _hits(service, "zizzle")
    assert _hits(service, "wombatreply")
    assert _hits(service, "kumquatspy")
    expected = {
        GEMINI_KEY: 2,  # the fixture's corrupt line and the deep one
        "gemini": 1,  # never listed: its document is too deep
        OPENCODE_KEY: 3,  # the fixture's corrupt row, the deep part and the deep message
        COPILOT_KEY: 2,
    }
    warnings = service.index_status().warnings
    assert {key: warnings.get(key) for key in expected} == expected
    later = _later_warnings(stores.repo)
    assert {key: later.get(key) for key in expected} == expected


# -- 6. symlinks out of each tool's own root --------------------------------------------------


def test_session_stores_linked_out_of_their_tool_roots_are_refused(
    stores: Stores, service: SearchService
) -> None:
    out = stores.outside
    gemini = gemini_jsonl(str(stores.repo / "src"), torn=False).replace(
        b"please build the zizzle target", b"geminiprivatekey material"
    ).replace(GEMINI_SID.encode(), b"linked-gemini")  # fmt: skip
    (out / "gemini.jsonl").write_bytes(gemini)
    (stores.gemini_chats / "session-2026-06-03T10-00-linked.jsonl").symlink_to(out / "gemini.jsonl")
    linked_db = out / "opencode.db"
    conn = apsw.Connection(str(linked_db))
    conn.execute(OPENCODE_DDL)
    with conn:
        for sql, params in opencode_rows(
            "ses_linked", str(stores.repo), "Linked", "opencodeprivate"
        ):
            conn.execute(sql, params)
    conn.close()
    stores.opencode_db.with_name("opencode-linked.db").symlink_to(linked_db)
    sid = "9d1e7a52-0000-4000-8000-0000000111ed"
    events = copilot_events(sid, str(stores.repo), torn=False)
    (out / "events.jsonl").write_bytes(events.replace(b"kumquat parser", b"copilotprivatekey"))
    stores.copilot_file(sid).symlink_to(out / "events.jsonl")
    history = stores.repo / ".aider.chat.history.md"
    (out / "aider.md").write_bytes(history.read_bytes().replace(b"marmot", b"aiderprivatekey"))
    history.unlink()
    history.symlink_to(out / "aider.md")
    service.catch_up()
    for word in ("geminiprivatekey", "opencodeprivateuser", "copilotprivatekey", "aiderprivatekey"):
        assert _hits(service, word) == [], word
    refused = {"gemini": 1, "opencode": 1, "copilot": 1, "aider": 1}
    warnings = service.index_status().warnings
    assert {tool: warnings.get(tool) for tool in refused} == refused
    later = _later_warnings(stores.repo)
    assert {tool: later.get(tool) for tool in refused} == refused


def test_aider_history_linked_into_another_lane_is_followed(
    stores: Stores, service: SearchService
) -> None:
    history = stores.repo / ".aider.chat.history.md"
    (stores.worktree / "kept.md").write_bytes(history.read_bytes().replace(b"marmot", b"otter"))
    history.unlink()
    history.symlink_to(stores.worktree / "kept.md")
    service.catch_up()
    assert _hits(service, "otter_retries")
    assert "aider" not in service.index_status().warnings


# -- 7. a 40 MiB line or row: indexed truncated, marked, counted, and counted later -----------


def _huge_gemini(stores: Stores) -> str:
    path = stores.gemini_chats / GEMINI_FILE
    path.write_bytes(gemini_jsonl(str(stores.repo / "src"), torn=False))
    head = json.dumps({"id": "huge", "timestamp": "2026-06-01T10:00:08Z", "type": "user",
                       "content": [{"text": "needlegemini "}]})[:-4].encode()  # fmt: skip
    _append(path, _huge(head, b'"}]}\n'))
    _append(path, [_line({"id": "m9", "timestamp": "2026-06-01T10:00:09Z", "type": "user",
                          "content": "aftergemini words"})])  # fmt: skip
    return GEMINI_KEY


def _huge_opencode(stores: Stores) -> str:
    text = b"".join(_huge(b'{"type": "text", "text": "needleopencode ', b'"}'))
    conn = apsw.Connection(str(stores.opencode_db))
    with conn:
        conn.execute(
            "INSERT INTO part VALUES (?,?,?,?,?,?)",
            ("prt_huge", "msg_ses_main_2", "ses_main", T0 + 5, T0 + 5, text.decode()),
        )
        conn.execute("INSERT INTO part VALUES (?,?,?,?,?,?)",
                     ("prt_zafter", "msg_ses_main_2", "ses_main", T0 + 6, T0 + 6,
                      json.dumps({"type": "text", "text": "afteropencode words"})))  # fmt: skip
    conn.close()
    return OPENCODE_KEY


def _huge_copilot(stores: Stores) -> str:
    path = stores.copilot_file()
    path.write_bytes(copilot_events(COPILOT_SID, str(stores.worktree), torn=False))
    head = json.dumps({"type": "user.message", "id": "huge", "timestamp": "2026-06-02T10:00:09Z",
                       "data": {"content": "needlecopilot "}})[:-3].encode()  # fmt: skip
    _append(path, _huge(head, b'"}}\n'))
    _append(path, [_line({"type": "assistant.message", "id": "after", "data":
                          {"content": "aftercopilot words"}})])  # fmt: skip
    return COPILOT_KEY


def _huge_aider(stores: Stores) -> str:
    path = stores.repo / ".aider.chat.history.md"
    path.write_bytes(path.read_bytes() + b"\n\n#### a question\n\n")
    _append(path, _huge(b"needleaider ", b"\n\n#### afteraider words\n"))
    return "chat:aider-primary"


HUGE = {"gemini": _huge_gemini, "opencode": _huge_opencode, "copilot": _huge_copilot,
        "aider": _huge_aider}  # fmt: skip
BEFORE = {"gemini": 1, "opencode": 1, "copilot": 1, "aider": 0}
"""Each fixture store's own corrupt line or row (Aider's Markdown has none)."""


@pytest.mark.parametrize("tool", ["gemini", "opencode", "copilot", "aider"])
def test_huge_line_is_indexed_truncated_marked_and_counted_for_later_runs(
    stores: Stores, service: SearchService, tool: str
) -> None:
    key = HUGE[tool](stores)
    service.catch_up()
    (hit,) = _hits(service, f"needle{tool}")
    assert _body(service, hit).endswith(TRUNCATED_MARK)
    assert _hits(service, f"after{tool}"), "what follows the huge line is indexed too"
    assert service.index_status().warnings.get(key) == BEFORE[tool] + 1
    assert _later_warnings(stores.repo).get(key) == BEFORE[tool] + 1


def test_a_session_folder_linked_out_is_refused_like_a_file(
    stores: Stores, service: SearchService
) -> None:
    sid = "9d1e7a52-0000-4000-8000-00000000d1ed"
    (stores.outside / sid).mkdir()
    events = copilot_events(sid, str(stores.repo), torn=False)
    (stores.outside / sid / "events.jsonl").write_bytes(events.replace(b"kumquat", b"dirlinked"))
    (stores.copilot_state / sid).symlink_to(stores.outside / sid)
    service.catch_up()
    assert _hits(service, "dirlinked") == []
    assert service.drainer.tally.reasons("copilot") == {"refused": 1}  # its folder linked out
