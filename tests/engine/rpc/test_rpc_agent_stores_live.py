"""Through the daemon, a write to an agent's store in the project is followed live
(docs/watching.md): Crush's ``.crush/crush.db`` (a row in its ``-wal`` alone, the database held
open) and Aider's history in the project's root reach the index by the daemon's watcher and
writer, with no catch-up asked for: every query after the first is ``fresh: false`` (the palette
while its user types), and the answer comes well inside the 30 s periodic reconcile."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import apsw

from tests.engine.external.agent_homes import install_crush

DEADLINE_S = 20.0
"""Under the daemon's periodic reconcile (30 s while watching): a hit within it is the watcher's."""

POKE_EVERY_S = 2.0
"""A write the watcher missed (it was arming) is followed by another this much later."""

ROW = """INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) VALUES
  ('{ident}', '456f2afe-42ee-48ff-9e4c-1db8a7a868ea', 'user',
   '[{{"type":"text","data":{{"text":"{text}"}}}}]', 1780308010, 1780308010);"""
"""A message of the Crush fixture's project session, as ``append.sql`` adds one."""


def _items(conn: Any, root: Path, query: str, *, fresh: bool) -> list[dict[str, Any]]:
    params = {"projectRoot": str(root), "query": query, "fresh": fresh}
    answer = conn.call("search.query", params)
    assert "result" in answer, answer
    return list(answer["result"]["items"])


def _followed(conn: Any, root: Path, word: str, poke: Any) -> bool:
    """Poke (a write) until the watcher, armed some time after the project opened, sees one;
    True once a ``fresh: false`` query finds ``word``."""
    start = time.monotonic()
    pokes = 0
    while time.monotonic() < start + DEADLINE_S:
        if time.monotonic() >= start + pokes * POKE_EVERY_S:
            poke(pokes)
            pokes += 1
        if _items(conn, root, word, fresh=False):
            return True
        time.sleep(0.05)  # the daemon is another process: nothing in this one to drive
    return False


def test_crush_and_aider_writes_are_followed_by_the_daemon(daemon: Any, demo_copy: Path) -> None:
    db, _ = install_crush(demo_copy, demo_copy.parent / "elsewhere")
    history = demo_copy / ".aider.chat.history.md"
    history.write_bytes(b"# aider chat started at 2026-06-01 10:00:00\n\n#### the numbat build\n\n")
    conn = daemon.connect()
    assert _items(conn, demo_copy, "capybara", fresh=True)  # the daemon opens and watches it
    assert _items(conn, demo_copy, "numbat", fresh=False)
    status = conn.call("search.indexStatus", {"projectRoot": str(demo_copy)})["result"]
    assert status["watcherState"] == "watching", status

    writer = apsw.Connection(str(db))
    writer.execute("PRAGMA wal_autocheckpoint = 0").fetchall()
    before = db.stat().st_mtime_ns
    try:

        def add_row(n: int) -> None:
            writer.execute(ROW.format(ident=f"m-live-{n}", text="the agouti lexer"))

        assert _followed(conn, demo_copy, "agouti", add_row)
        assert db.stat().st_mtime_ns == before  # the rows are in the -wal alone
    finally:
        writer.close()

    def add_line(n: int) -> None:
        with history.open("ab") as handle:
            handle.write(f"#### now the weasel case {n}\n\n".encode())

    assert _followed(conn, demo_copy, "weasel", add_line)
    assert "Traceback" not in daemon.log_text()
