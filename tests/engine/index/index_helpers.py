"""Helpers for the index and query tests: a real index file in ``tmp_path``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

import apsw
import pytest

from engine.index.db import IndexDoc, immediate, upsert_docs
from engine.index.writer import IndexWriter

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)


def doc(
    doc_id: str,
    body: str = "",
    *,
    kind: str | None = None,
    title: str = "",
    rank_title: str | None = None,
    updated_at: int = NOW_MS,
    session_id: str | None = None,
    lane_id: str | None = None,
    anchor: str | None = None,
    source_key: str | None = None,
) -> IndexDoc:
    """A document with sensible defaults (kind from the id prefix, rank_title = title)."""
    return IndexDoc(
        doc_id=doc_id,
        kind=kind or doc_id.split(":")[0],
        title=title,
        rank_title=title if rank_title is None else rank_title,
        body=body,
        updated_at=updated_at,
        session_id=session_id,
        lane_id=lane_id,
        anchor=anchor,
        source_key=source_key,
    )


def insert(conn: apsw.Connection, docs: Iterable[IndexDoc]) -> None:
    with immediate(conn):
        upsert_docs(conn, docs)


def write(writer: IndexWriter, docs: Iterable[IndexDoc]) -> None:
    """``docs`` in one transaction of the writer, as a drain's pass writes them."""
    with writer.transaction():
        writer.upsert_docs(docs)


def identifier_parts_twins() -> list[object]:
    """``identifier_parts``' Python twin and, when it was built, its compiled one, as pytest
    params: the identifier tests run on both (the product calls the compiled one)."""
    from engine.index.identifiers import compiled_identifier_parts, python_identifier_parts

    twins: list[object] = [pytest.param(python_identifier_parts, id="python")]
    if compiled_identifier_parts is not None:
        twins.append(pytest.param(compiled_identifier_parts, id="compiled"))
    return twins
