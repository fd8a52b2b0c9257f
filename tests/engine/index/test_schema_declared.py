"""The open check reads the expected schema from ``SCHEMA_SQL``'s text (start-up budget): it must be
what SQLite itself stores, and a text that is not leaves the decision to the in-memory probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.index import schema
from engine.index.db import connect, open_index
from engine.index.schema import SCHEMA_SQL, declared_schema, expected_schema


def test_the_declared_schema_is_what_sqlite_stores() -> None:
    declared = declared_schema()
    assert declared == expected_schema()
    assert {name for kind, name, _ in declared if kind == "table"} == schema.EXPECTED_TABLES | {
        "docs_fts",
        "docs_recent",
        "docs_title",
    }


def test_a_file_made_by_the_schema_opens_without_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index.db"
    assert open_index(index).recreated_reason is None  # created
    probed: list[bool] = []
    probe = schema.expected_schema

    def counted() -> frozenset[tuple[str, str, str]]:
        probed.append(True)
        return probe()

    monkeypatch.setattr(schema, "expected_schema", counted)
    assert open_index(index).recreated_reason is None
    assert probed == []


def test_text_sqlite_would_store_otherwise_leaves_the_decision_to_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = tmp_path / "index.db"
    conn = connect(index)
    conn.execute(SCHEMA_SQL)
    conn.execute("INSERT INTO meta(key, value) VALUES ('kept', 'yes')")
    conn.close()
    # As if another SQLite stored the DDL text differently: the file is still the schema.
    monkeypatch.setattr(schema, "declared_schema", frozenset)
    assert open_index(index).recreated_reason is None
    conn = connect(index)
    assert conn.execute("SELECT value FROM meta WHERE key = 'kept'").fetchall() == [("yes",)]
    conn.close()
