"""File identity for change detection: shared by the ingester's sources and the external catalog.

It sits in the project reader, below both ``engine.ingest`` and ``engine.external``, so neither
has to import the other for it.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import json
import os
from collections.abc import Sequence


def stat_signature(paths: Sequence[str | os.PathLike[str]]) -> str:
    """``(mtime_ns, size, inode)`` of each path as JSON (missing paths included as null)."""
    parts: list[list[int] | None] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            parts.append(None)
            continue
        parts.append([st.st_mtime_ns, st.st_size, st.st_ino])
    return json.dumps(parts, separators=(",", ":"))
