"""A full disk, a write lock held by another process, a read-only
``-shm`` — the index is never deleted, answers come from what it holds, the status says why.

Real faults where the machine allows them: a small tmpfs mounted over ``.ade/cache`` (needs
root or CAP_SYS_ADMIN; skipped with the reason otherwise) and a read-only bind mount over a
``-shm`` left behind by a killed process (root ignores file modes, so ``chmod`` would not do).
Everywhere: a full disk injected at the VFS layer (an ``apsw.VFS`` shim whose ``xWrite`` raises
``SQLITE_FULL``), and a real second connection holding ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

import engine.index.db as index_db
from engine.embedded import EmbeddedClient
from engine.index.db import connect
from engine.types import SearchQueryArgs

SESSION = "chat-abc123-backoff"
NEW_WORD = "zebracorn"


def _index(root: Path) -> Path:
    return root / ".ade" / "cache" / "search-index.db"


def _append_messages(root: Path, count: int, filler_words: int = 20) -> None:
    """Append ``count`` accepted user messages holding ``NEW_WORD`` to a demo chat."""
    path = root / ".ade" / "chats" / f"{SESSION}.jsonl"
    with path.open("a", encoding="utf-8") as out:
        for i in range(count):
            text = f"{NEW_WORD} message {i} " + "lorem ipsum dolor sit amet " * filler_words
            event = {"seq": 1000 + i, "ts": "2026-06-08T17:40:00.000Z", "type": "user_message",
                     "id": f"fault-{i}", "text": text}  # fmt: skip
            out.write(json.dumps(event) + "\n")


def _hits(client: EmbeddedClient, query: str) -> tuple[set[str], tuple[str, ...]]:
    result = client.query(SearchQueryArgs(query=query, limit=200))
    return {item.doc_id for item in result.items}, result.warnings


def _build(root: Path) -> tuple[set[str], int]:
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        return _hits(client, "retry")[0], client.index_status().doc_count


# -- a full disk: a real small tmpfs -----------------------------------------------------------


def _mount(*args: str) -> str | None:
    """Run ``mount``; None on success, else why it failed (for the skip reason)."""
    try:
        done = subprocess.run(["mount", *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    return None if done.returncode == 0 else done.stderr.strip() or f"exit {done.returncode}"


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=20, check=False)


@pytest.fixture
def small_cache(demo_copy: Path) -> Iterator[Path]:
    """The demo with ``.ade/cache`` on its own 32 MiB tmpfs (room to build the index, filled up later)."""
    cache = demo_copy / ".ade" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    why = _mount("-t", "tmpfs", "-o", "size=32m,mode=0755", "tmpfs", str(cache))
    if why is not None:
        pytest.skip(f"cannot mount a small tmpfs here ({why}); the VFS test covers a full disk")
    try:
        yield demo_copy
    finally:
        _umount(cache)


def _fill(folder: Path) -> Path:
    """Write a file until the filesystem refuses: the disk is now full."""
    filler = folder / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_full_disk_never_deletes_the_index(small_cache: Path) -> None:
    root = small_cache
    before, docs = _build(root)
    inode = _index(root).stat().st_ino
    _append_messages(root, 3000)  # more than the disk has room for
    filler = _fill(_index(root).parent)

    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        hits, warnings = _hits(client, "retry")
        assert hits == before  # answered from what is there: nothing lost (was 55 -> 41)
        assert any("disk full" in w for w in warnings)
        status = client.index_status()
        assert status.state == "degraded"
        assert any("disk full" in w for w in status.warnings)
        assert status.doc_count == docs
    assert _index(root).stat().st_ino == inode  # never deleted and recreated

    filler.unlink()  # space returns: the next run resumes where the cursor stayed
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        hits, warnings = _hits(client, NEW_WORD)
        assert any(h.startswith(f"chat:{SESSION}:fault-") for h in hits)
        assert not any("disk full" in w for w in warnings)
        assert client.index_status().state == "ready"


# -- a full disk injected at the VFS layer (runs everywhere) -----------------------------------


class _FaultyFile(apsw.VFSFile):
    def __init__(
        self, vfs: _FaultyVFS, base: str, name: str | apsw.URIFilename | None, flags: list[int]
    ) -> None:
        self._vfs = vfs
        super().__init__(base, name, flags)  # type: ignore[arg-type]

    def xWrite(self, data: bytes, offset: int) -> None:
        if self._vfs.failing is not None:
            raise self._vfs.failing("injected write failure")
        super().xWrite(data, offset)


class _FaultyVFS(apsw.VFS):
    """The default VFS for this process while installed; writes fail while ``failing`` is set."""

    def __init__(self) -> None:
        self.failing: type[apsw.Error] | None = None
        self._base = apsw.vfs_names()[0]
        super().__init__("ade-faulty", self._base, makedefault=True)

    def xOpen(self, name: str | apsw.URIFilename | None, flags: list[int]) -> _FaultyFile:
        return _FaultyFile(self, self._base, name, flags)


@pytest.fixture
def faulty_vfs() -> Iterator[_FaultyVFS]:
    vfs = _FaultyVFS()
    try:
        yield vfs
    finally:
        vfs.unregister()


@pytest.mark.parametrize("error", [apsw.FullError, apsw.IOError], ids=["full", "ioerr"])
def test_injected_write_failure_rolls_back_and_degrades(
    demo_copy: Path, faulty_vfs: _FaultyVFS, error: type[apsw.Error]
) -> None:
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
        before, _ = _hits(client, "retry")
        docs = client.index_status().doc_count
        inode = _index(demo_copy).stat().st_ino
        _append_messages(demo_copy, 50)
        faulty_vfs.failing = error
        client.service.catch_up()
        hits, warnings = _hits(client, "retry")
        assert hits == before
        assert any(w.startswith("search index degraded") for w in warnings)
        status = client.index_status()
        assert status.state == "degraded"
        assert status.doc_count == docs
        if error is apsw.FullError:
            assert any("disk full" in w for w in status.warnings)
        assert _index(demo_copy).stat().st_ino == inode
        assert not _hits(client, NEW_WORD)[0] & {f"chat:{SESSION}:fault-0"}

        faulty_vfs.failing = None
        client.service.catch_up()
        hits, warnings = _hits(client, NEW_WORD)
        assert f"chat:{SESSION}:fault-0" in hits
        assert not any(w.startswith("search index degraded") for w in warnings)
        assert client.index_status().state == "ready"


def test_rebuild_on_a_full_disk_keeps_the_index(demo_copy: Path, faulty_vfs: _FaultyVFS) -> None:
    from engine.errors import AdeError

    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
        docs = client.index_status().doc_count
        faulty_vfs.failing = apsw.FullError
        with pytest.raises(AdeError, match="disk full; the index was left as it was"):
            client.rebuild_index()
        faulty_vfs.failing = None
        assert client.index_status().doc_count == docs


# -- the write lock held by another process ----------------------------------------------------


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """50 ms instead of 5 s, so a test that waits for the lock fails fast without the fix."""
    monkeypatch.setattr(index_db, "BUSY_TIMEOUT_MS", 50)


@pytest.fixture
def lock_holder(demo_copy: Path) -> Iterator[apsw.Connection]:
    """Another connection holding the write lock (``BEGIN IMMEDIATE``) on a built index."""
    _build(demo_copy)
    holder = connect(_index(demo_copy))
    holder.execute("BEGIN IMMEDIATE")
    yield holder
    if holder.in_transaction:
        holder.execute("ROLLBACK")
    holder.close()


def test_warm_search_takes_no_write_lock(
    demo_copy: Path, lock_holder: apsw.Connection, short_busy_timeout: None
) -> None:
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()  # nothing changed: stats only, no BEGIN IMMEDIATE
        hits, warnings = _hits(client, "retry")
        assert hits
        assert not any("busy" in w for w in warnings)


def test_held_write_lock_answers_from_the_index_with_a_warning(
    demo_copy: Path, lock_holder: apsw.Connection, short_busy_timeout: None
) -> None:
    _append_messages(demo_copy, 5)
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
        hits, warnings = _hits(client, "retry")
        assert hits
        assert any(w.startswith("search index busy") for w in warnings)
        lock_holder.execute("ROLLBACK")  # the other process is done
        client.service.catch_up()
        hits, warnings = _hits(client, NEW_WORD)
        assert f"chat:{SESSION}:fault-0" in hits
        assert not any(w.startswith("search index busy") for w in warnings)


def test_held_write_lock_makes_rebuild_a_one_line_error(
    demo_copy: Path, lock_holder: apsw.Connection, short_busy_timeout: None
) -> None:
    from engine.errors import AdeError

    with (
        EmbeddedClient.open(demo_copy, start_worker=False) as client,
        pytest.raises(AdeError, match="write lock"),
    ):
        client.rebuild_index()


# -- a read-only -shm left behind ---------------------------------------------------------------


def _leave_wal_behind(index: Path) -> None:
    """A process that wrote and died without closing: its ``-wal`` and ``-shm`` stay."""
    code = (
        "import apsw, os, sys\n"
        "c = apsw.Connection(sys.argv[1]); c.pragma('journal_mode', 'wal')\n"
        "c.execute(\"INSERT OR REPLACE INTO meta VALUES ('left', 'behind')\")\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(index)], check=True, timeout=60)


@pytest.fixture
def readonly_shm(demo_copy: Path) -> Iterator[Path]:
    _build(demo_copy)
    index = _index(demo_copy)
    _leave_wal_behind(index)
    shm = Path(f"{index}-shm")
    assert shm.exists()
    if os.geteuid() != 0:
        shm.chmod(0o444)
        yield demo_copy
        shm.chmod(0o644)
        return
    why = _mount("--bind", str(shm), str(shm)) or _mount("-o", "remount,ro,bind", str(shm))
    if why is not None:
        _umount(shm)
        pytest.skip(f"root ignores file modes and a read-only bind mount failed ({why})")
    try:
        yield demo_copy
    finally:
        _umount(shm)


def test_readonly_shm_warm_search_just_answers(readonly_shm: Path) -> None:
    """Nothing to ingest: SQLite reads through a read-only ``-shm``; no write is attempted."""
    with EmbeddedClient.open(readonly_shm, start_worker=False) as client:
        client.service.catch_up()
        hits, warnings = _hits(client, "retry")
        assert hits
        assert not any(w.startswith("search index") for w in warnings)


def test_readonly_shm_answers_from_the_index_with_a_warning(readonly_shm: Path) -> None:
    root = readonly_shm
    _append_messages(root, 5)  # something to ingest: the write is refused
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        hits, warnings = _hits(client, "retry")
        assert hits
        assert any(w.startswith("search index degraded") for w in warnings)
        status = client.index_status()
        assert status.state == "degraded"
        assert status.doc_count > 0
