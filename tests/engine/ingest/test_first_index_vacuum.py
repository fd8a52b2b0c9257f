"""A first index through the real ingester ends with no free page in the file and the same
answers as the file that kept them (``engine.index.vacuum``, the index-size budget)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

import engine.index.vacuum as vacuum
from benchmarks.bench_index import query_classes
from benchmarks.bench_size import make_project
from benchmarks.corpus import generate
from engine.index.checks import health_check
from engine.index.db import PAGE_SIZE
from engine.index.tuning import WriteTuning
from engine.project.locate import open_project
from engine.query.run import run_query
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _first_index(
    root: Path, vocab: list[str], tuning: WriteTuning
) -> tuple[dict[str, int], dict[str, Any]]:
    """Index the project from nothing; the file's pragmas, its size once its last connection
    closed (the checkpoint a CLI's first index ends with), and every query class's answers."""
    shutil.rmtree(root / ".ade" / "cache", ignore_errors=True)
    service = create_project_service(open_project(root), start_worker=False, tuning=tuning)
    try:
        service.catch_up()
    finally:
        service.dispose()
    service = create_project_service(open_project(root), start_worker=False, tuning=tuning)
    try:
        conn = service.readers.reader()
        found = {name: int(conn.pragma(name)) for name in
                 ("auto_vacuum", "freelist_count", "page_count")}  # fmt: skip
        assert health_check(conn) == []
        out = {}
        for name, queries in query_classes(conn, vocab).items():
            for q in queries:
                result = run_query(conn, SearchQueryArgs(query=q, limit=50),
                                   project=service.project, now=NOW)  # fmt: skip
                out[f"{name}: {q}"] = result
    finally:
        service.dispose()
    found["file_bytes"] = (root / ".ade" / "cache" / "search-index.db").stat().st_size
    return found, out


def test_a_first_index_gives_its_free_pages_back_with_the_same_answers(
    tmp_path: Path,
) -> None:
    # One pass a transaction, small slices: enough segments for the end merge to free pages.
    tuning = WriteTuning(group_passes=1, group_passes_alone=1, slice_bytes=64 * 1024)
    corpus = generate(3, tmp_path / "corpus")
    vocab = json.loads((corpus / "vocabulary.json").read_text())
    root = make_project(corpus, tmp_path / "project")
    old, old_answers = _first_index(root, vocab, msgspec.structs.replace(tuning, vacuum=False))
    new, new_answers = _first_index(root, vocab, tuning)
    assert old["auto_vacuum"] == 0
    assert old["freelist_count"] > 0
    assert new["auto_vacuum"] == vacuum.AUTO_VACUUM_INCREMENTAL
    assert new["freelist_count"] == 0
    assert new["page_count"] < old["page_count"]
    assert new["file_bytes"] == new["page_count"] * PAGE_SIZE  # the file itself shrank
    assert new_answers == old_answers
    assert any(answer.items for answer in new_answers.values())
