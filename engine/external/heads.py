"""What the head of each external transcript said (cwd, id, title), remembered across runs.

Discovery must learn the working folder of every Codex rollout on the machine (they all live in
one tree, whatever project they belong to) and of every Claude file in the project's folders.
Reading ``HEAD_BYTES`` of each on every reconcile would make a warm ``ade search`` read hundreds
of megabytes for a heavy Codex user, so what a head said is kept in
``.ade/cache/external-heads.json`` and reused while the file is the same one: same inode, and
either the same size or a head that was already complete (transcripts are append-only, so once
``HEAD_BYTES`` were read, later growth cannot change them).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine.project.safe_io import loads_json, read_regular

HEADS_FILE = "external-heads.json"
"""File name of the cache under ``.ade/cache/`` (the watcher ignores that folder)."""

MAX_CACHE_BYTES = 64 << 20
"""A bigger cache file is not ours (it holds a few hundred bytes per transcript)."""

CACHE_VERSION = 1
"""Bumped when ``Head`` changes shape: an older cache is then ignored, not misread."""


@dataclass(frozen=True)
class Head:
    """What the first ``HEAD_BYTES`` of one transcript said, and the file it was read from."""

    ino: int
    size: int
    complete: bool
    """True when the head was cut at ``HEAD_BYTES``: later growth cannot change it."""
    cwd: str | None
    ident: str | None
    title: str | None
    first_ts: str | None


class HeadCache:
    """Heads by file path, loaded lazily from ``path`` (None: memory only) and saved on demand."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._heads: dict[str, Head] | None = None
        self._seen: set[str] = set()
        self._dirty = False

    def _loaded(self) -> dict[str, Head]:
        if self._heads is None:
            self._heads = _load(self.path)
        return self._heads

    def get(self, file: Path, st: os.stat_result) -> Head | None:
        """The cached head of ``file`` when it is still valid for ``st``, else None."""
        with self._lock:
            key = str(file)
            self._seen.add(key)
            head = self._loaded().get(key)
        if head is None or head.ino != st.st_ino:
            return None
        if head.size == st.st_size or (head.complete and st.st_size >= head.size):
            return head
        return None

    def peek(self, file: Path) -> Head | None:
        """The cached head of ``file`` whether or not the file changed since."""
        with self._lock:
            return self._loaded().get(str(file))

    def put(self, file: Path, head: Head) -> None:
        """Remember ``head`` for ``file``."""
        with self._lock:
            self._loaded()[str(file)] = head
            self._seen.add(str(file))
            self._dirty = True

    def save(self) -> None:
        """Write the heads seen since the last save (others are dropped) when anything changed."""
        with self._lock:
            heads = self._loaded()
            gone = set(heads) - self._seen
            for key in gone:
                del heads[key]
            dirty, self._dirty = self._dirty or bool(gone), False
            self._seen = set()
            if not dirty or self.path is None:
                return
            payload = {"version": CACHE_VERSION, "heads": {k: asdict(v) for k, v in heads.items()}}
        _write(self.path, payload)


def _load(path: Path | None) -> dict[str, Head]:
    if path is None:
        return {}
    try:
        raw = loads_json(read_regular(path, MAX_CACHE_BYTES))
        if raw.get("version") != CACHE_VERSION:
            return {}
        return {str(k): Head(**v) for k, v in raw["heads"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # missing or damaged: every head is read again once


def _write(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(payload, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old or the new cache
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
