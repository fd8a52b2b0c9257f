"""Deterministic writers for the demo's ``.ade/`` files.

Every file is written from bytes we computed (fixed key order, fixed separators, ``\\n`` line
ends), so two builds produce identical bytes.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from engine.basics.pretty_json import json_bytes


def jsonl_line(value: Any) -> bytes:
    """One compact JSON object and its ``\\n``: the shape of an append-only transcript line."""
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def gzip_exact(data: bytes) -> bytes:
    """Gzip ``data`` with a zeroed header time and no file name, so the output is reproducible."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as pretty JSON (``engine.basics.pretty_json.json_bytes``)."""
    write(path, json_bytes(value))
