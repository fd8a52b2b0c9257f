"""Reading an agent's SQLite store (OpenCode, Goose, Crush, the Cursor editor): one way for all.

The database is another program's, written while we read: it is opened read-only (``mode=ro``;
never ``immutable``, the agent writes it through its WAL), only once it is safe to open
(``check_database``: a regular file whose side files are regular files or absent), waits out a
writer's lock for ``BUSY_TIMEOUT_MS``, and is closed after each read. A store that cannot be read
now — missing, locked past the timeout, damaged, not a database, unsafe — answers None: the
caller counts it once (``unreadable``) and the rest of the project is read as usual.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

import apsw

from engine.project.safe_io import Bounds, UnsafeFile, file_type_name, is_inside, real

T = TypeVar("T")

BUSY_TIMEOUT_MS = 2000
"""How long a read waits for a writer's lock before the store counts as unreadable this time."""

UNREADABLE: Final = "unreadable"
"""The signature of a session whose store cannot be read now (and the reason it is counted)."""

SIDE_FILES = ("-wal", "-shm", "-journal")
"""What SQLite opens beside a database: a FIFO there blocks it (``-journal``) or gives wrong
answers (``-wal``), so each must be a regular file or absent."""

Row = tuple[Any, ...]


def database_write(path: Path, db_name: str) -> bool:
    """Whether a change to ``path`` may be a write to the database named ``db_name`` beside it:
    the file itself, its ``-wal`` (where a WAL writer's rows land first) or its ``-journal``.
    Never its ``-shm``: that wal-index is rebuilt by the first reader to open the database —
    our own reads too —, so following it would read the store again after every read."""
    return path.name in (db_name, f"{db_name}-wal", f"{db_name}-journal")


def check_database(db: Path, bounds: Bounds | None = None) -> None:
    """Raise ``UnsafeFile`` unless ``db`` is a regular file (inside ``bounds``) whose SQLite
    side files are regular files or absent: SQLite opens them blocking, so a FIFO would hang it.

    Raises:
        UnsafeFile: not a regular file, a link out of ``bounds``, or a special side file.
        OSError: ``db`` is missing or cannot be stat'ed.
    """
    target = real(db)
    if bounds is not None and not bounds.contains(target):
        raise UnsafeFile(f"{db.name}: links outside {bounds.describe()}")
    mode = os.stat(target).st_mode
    if not stat.S_ISREG(mode):
        raise UnsafeFile(f"{db.name}: is {file_type_name(mode)}")
    for suffix in SIDE_FILES:
        # SQLite names the side files after the database's real path.
        side = target.with_name(target.name + suffix)
        try:
            side_mode = os.stat(side).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(side_mode):
            raise UnsafeFile(f"{db.name}: its {side.name} is {file_type_name(side_mode)}")
        if not is_inside(real(side), target.parent):
            raise UnsafeFile(f"{db.name}: its {side.name} links out of its folder")


def read_only(db: Path) -> apsw.Connection:
    """A read-only connection (raises apsw.Error when the file is not a readable database, or
    not one safe to open: ``check_database``)."""
    try:
        check_database(db)
    except OSError as err:
        raise apsw.CantOpenError(str(err)) from None
    flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    conn = apsw.Connection(f"{db.absolute().as_uri()}?mode=ro", flags=flags)
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return conn


def read_store(db: Path, read: Callable[[apsw.Connection], T]) -> T | None:
    """What ``read`` returns over ``db`` opened read-only (closed after), or None when the store
    cannot be read now."""
    try:
        conn = read_only(db)
        try:
            return read(conn)
        finally:
            conn.close()
    except apsw.Error:
        return None


def store_rows(db: Path, sql: str, params: Sequence[Any] = ()) -> list[Row] | None:
    """Every row ``sql`` selects from ``db``, or None when the store cannot be read now."""
    return read_store(db, lambda conn: [tuple(r) for r in conn.execute(sql, params).fetchall()])


def store_count(db: Path, sql: str, params: Sequence[Any] = ()) -> int:
    """The number ``sql`` (a ``count(*)``) selects from ``db``; 0 when it cannot be read now."""
    rows = store_rows(db, sql, params)
    value = rows[0][0] if rows else None
    return value if isinstance(value, int) else 0


def store_signature(db: Path, sql: str, params: Sequence[Any] = ()) -> str:
    """The first row ``sql`` selects, as a signature (each value as text); ``UNREADABLE`` when
    the store cannot be read now."""
    rows = store_rows(db, sql, params)
    if rows is None:
        return UNREADABLE
    return json.dumps([str(v) for v in rows[0]] if rows else [])
