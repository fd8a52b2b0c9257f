"""The SQLite errors the index tells apart: a lock held elsewhere, a damaged file, a disk
fault (re-exported by ``engine.index.schema``, where most modules take them from)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import apsw

TRANSIENT_ERRORS = (apsw.BusyError, apsw.LockedError)
"""Another process holds a lock: says nothing about the file. Treating it as damage would delete
an index that a second writer is creating or using (seen as "no such table" in the other one)."""


DAMAGE_ERRORS = (apsw.CorruptError, apsw.NotADBError)
"""SQLite read the file and found it inconsistent: the only errors that justify deleting it."""

WRITE_FAULT_ERRORS = (apsw.FullError, apsw.IOError, apsw.ReadOnlyError, apsw.CantOpenError)
"""The disk, not the file: full, an I/O error, a read-only ``-shm`` or folder. Deleting the index
for these lost everything it held (a full disk then rebuilt it smaller); the caller
rolls back, keeps answering from what is there and retries."""
