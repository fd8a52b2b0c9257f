"""The ``-wal`` file does not keep a burst's size on disk (docs/index-size.md): the idle
checkpoint truncates it, and a checkpoint that could not (a reader on an older snapshot) leaves it
to be cut back to ``WAL_SIZE_LIMIT`` by the next write."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import apsw

from engine.index.db import WAL_SIZE_LIMIT, IndexDoc, connect, immediate, upsert_docs
from engine.ingest.drain import Drainer
from engine.ingest.queue import IngestQueue
from engine.ingest.timers import ManualTimerFactory
from engine.project.model import Project
from engine.project.tally import WarningTally

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _docs(tag: str, count: int) -> list[IndexDoc]:
    # Distinct words: ~8 MiB of pages to write, far past the limit.
    return [IndexDoc(doc_id=f"chat:{tag}:{i}", kind="chat", title=f"{tag} {i}", rank_title="",
                     body=" ".join(f"{tag}{i}w{k}" for k in range(4000)),
                     updated_at=int(NOW.timestamp() * 1000) + i * 1000, session_id=tag)
            for i in range(60)]  # fmt: skip


def _wal(project: Project) -> int:
    wal = Path(f"{project.index_path}-wal")
    return wal.stat().st_size if wal.exists() else 0


def _drainer(tmp_path: Path) -> Drainer:
    project = Project(root=tmp_path, id="proj1", name="proj", is_git=False)
    queue = IngestQueue(ManualTimerFactory(), lambda: None)
    return Drainer(project, queue, WarningTally(), lambda: NOW)


def test_the_idle_checkpoint_truncates_the_wal_after_a_burst(tmp_path: Path) -> None:
    drainer = _drainer(tmp_path)
    conn = drainer.connection()
    reader = connect(drainer.project.index_path)  # keeps the file open: no delete at close
    with immediate(conn):
        upsert_docs(conn, _docs("burst", 60))
    assert _wal(drainer.project) > 4 * WAL_SIZE_LIMIT
    drainer.checkpoint()
    assert _wal(drainer.project) == 0
    assert reader.execute("SELECT count(*) FROM docs").fetchone() == (60,)
    reader.close()
    drainer.close()


def test_a_checkpoint_a_reader_held_back_is_cut_to_the_limit_by_the_next_write(
    tmp_path: Path,
) -> None:
    drainer = _drainer(tmp_path)
    conn = drainer.connection()
    reader = connect(drainer.project.index_path)
    with immediate(conn):
        upsert_docs(conn, _docs("first", 60))
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM docs").fetchone() == (60,)
    with immediate(conn):
        upsert_docs(conn, _docs("second", 60))
    drainer.checkpoint()  # the reader's snapshot holds the WAL: it cannot be truncated
    assert _wal(drainer.project) > 4 * WAL_SIZE_LIMIT
    reader.execute("COMMIT")
    conn.wal_checkpoint(mode=apsw.SQLITE_CHECKPOINT_PASSIVE)  # every frame back in the file
    with immediate(conn):
        upsert_docs(conn, [IndexDoc(doc_id="chat:x:1", kind="chat", title="x", rank_title="", body="small",
                                    updated_at=int(NOW.timestamp() * 1000), session_id="x")])  # fmt: skip
    assert 0 < _wal(drainer.project) <= WAL_SIZE_LIMIT
    reader.close()
    drainer.close()
