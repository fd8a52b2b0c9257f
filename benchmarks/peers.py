"""The indexes ``bench_peers`` puts side by side: raw FTS5, ade's own write path, Tantivy.

Every peer builds an index of the same pre-sanitized documents (``bench_index.load_docs``) and
answers the same query classes, each in its own query language; a class a peer cannot express
is ``None`` (shown as n/a). Tantivy (the ``bench`` extra) is imported only by ``TantivyPeer``, so
the test suite and the FTS5/ade parts run without it.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from benchmarks.bench_index import NOW, NOW_MS, build_ours, build_raw
from benchmarks.timing import timed
from engine.index.db import IndexDoc, connect
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs

LIMIT = 50
DAY_MS = 86_400_000
Query = Callable[[], object]


@dataclass(frozen=True)
class Spec:
    """One query of a class, in words every peer can translate: ``terms`` (each exact or a prefix),
    a ``phrase``, or only filters."""

    text: str
    """What a person types into ade (``run_query``'s query)."""
    terms: tuple[tuple[str, bool], ...] = ()
    """(word, is_prefix) pairs, all required."""
    phrase: tuple[str, ...] = ()
    kind: str | None = None
    lane: str | None = None
    since_days: int | None = None


class Peer(Protocol):
    name: str

    def build(self, folder: Path, docs: Sequence[IndexDoc]) -> float: ...
    def size(self, folder: Path) -> int: ...
    def open(self, folder: Path) -> None: ...
    def query(self, spec: Spec) -> Query | None: ...
    def matches(self, spec: Spec) -> int | None: ...
    def close(self) -> None: ...


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _fresh(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)


def fts5_match(spec: Spec) -> str | None:
    """The FTS5 MATCH of ``spec`` (None for filter-only: raw FTS5 holds no filter columns)."""
    if spec.phrase:
        return '"' + " ".join(spec.phrase) + '"'
    if not spec.terms:
        return None
    return " ".join(f'"{w}"*' if prefix else f'"{w}"' for w, prefix in spec.terms)


class RawFts5:
    """The baseline: ``fts5(body)`` through apsw, top 50 by ``bm25`` with a snippet, and the count."""

    name = "raw FTS5"

    def __init__(self) -> None:
        self.conn: Any = None

    def build(self, folder: Path, docs: Sequence[IndexDoc]) -> float:
        _fresh(folder)
        seconds, _ = timed(lambda: build_raw(folder / "raw.db", list(docs)))
        return seconds

    def size(self, folder: Path) -> int:
        return folder_bytes(folder)

    def open(self, folder: Path) -> None:
        self.conn = connect(folder / "raw.db")

    def df(self, match: str) -> int:
        row = self.conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()
        return int(row[0])

    def query(self, spec: Spec) -> Query | None:
        match = fts5_match(spec)
        if match is None:
            return None
        conn = self.conn

        def run() -> object:
            top = conn.execute(
                "SELECT rowid, snippet(t, 0, '\x02', '\x03', '…', 12) FROM t WHERE t MATCH ?"
                " ORDER BY rank LIMIT ?",
                (match, LIMIT),
            ).fetchall()
            return top, conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()

        return run

    def matches(self, spec: Spec) -> int | None:
        match = fts5_match(spec)
        return None if match is None else self.df(match)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class Ade:
    """ade's index write path (``bench_index.build_ours``) and a whole ``run_query`` (limit 50)."""

    name = "ade"

    def __init__(self) -> None:
        self.conn: Any = None
        self.project: Project | None = None

    @staticmethod
    def index_path(folder: Path) -> Path:
        return folder / ".ade" / "cache" / "search-index.db"

    def build(self, folder: Path, docs: Sequence[IndexDoc]) -> float:
        _fresh(folder)
        seconds, _ = timed(lambda: build_ours(self.index_path(folder), list(docs)))
        return seconds

    def size(self, folder: Path) -> int:
        return folder_bytes(folder / ".ade")

    def open(self, folder: Path) -> None:
        self.conn = connect(self.index_path(folder))
        self.project = Project(root=folder, id="bench", name="bench", is_git=False)

    def query(self, spec: Spec) -> Query | None:
        conn, project, args = self.conn, self.project, SearchQueryArgs(query=spec.text, limit=LIMIT)
        assert project is not None
        return lambda: run_query(conn, args, project=project, now=NOW)

    def matches(self, spec: Spec) -> int | None:
        """``total`` of the answer: exact up to ade's caps (the scoring budget, ``TOTAL_CAP``)."""
        job = self.query(spec)
        assert job is not None
        result: Any = job()
        return int(result.total)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


class TantivyPeer:
    """Tantivy through its official Python bindings (``tantivy`` on PyPI, the ``bench`` extra).

    Schema: ``body`` (default tokenizer, positions; stored or not), ``kind`` and ``lane`` (raw
    tokenizer), ``updated_at`` (u64, indexed and fast, for ``since:`` and newest-first). One
    ``IndexWriter`` with ``threads`` indexing threads and 128 MB of heap per thread, one commit,
    then ``wait_merging_threads`` (inside the timed build). Prefixes are ``RegexQuery`` ``w.*``:
    every term of the prefix, as FTS5's ``w*`` (the query parser's phrase-prefix expands only 50).
    """

    def __init__(self, *, threads: int, stored: bool) -> None:
        import tantivy  # the bench extra; absent in the test suite and CI

        self.tantivy = tantivy
        self.threads, self.stored = threads, stored
        self.name = f"tantivy {threads}t{'' if stored else ' no body'}"
        self.index: Any = None
        self.searcher: Any = None
        self.schema: Any = None

    def _schema(self) -> Any:
        builder = self.tantivy.SchemaBuilder()
        builder.add_text_field("body", stored=self.stored)
        builder.add_text_field("kind", tokenizer_name="raw")
        builder.add_text_field("lane", tokenizer_name="raw")
        builder.add_unsigned_field("updated_at", indexed=True, fast=True)
        return builder.build()

    def build(self, folder: Path, docs: Sequence[IndexDoc]) -> float:
        _fresh(folder)
        tantivy = self.tantivy

        def write() -> None:
            index = tantivy.Index(self._schema(), path=str(folder))
            writer = index.writer(heap_size=128_000_000 * self.threads, num_threads=self.threads)
            for d in docs:
                doc = tantivy.Document()
                doc.add_text("body", d.body)
                doc.add_text("kind", d.kind)
                doc.add_text("lane", d.lane_id or "")
                doc.add_unsigned("updated_at", d.updated_at)
                writer.add_document(doc)
            writer.commit()
            writer.wait_merging_threads()

        seconds, _ = timed(write)
        return seconds

    def size(self, folder: Path) -> int:
        return folder_bytes(folder)

    def open(self, folder: Path) -> None:
        self.index = self.tantivy.Index.open(str(folder))
        self.schema = self.index.schema
        self.searcher = self.index.searcher()

    def _term(self, word: str, prefix: bool) -> Any:
        q = self.tantivy.Query
        if prefix:
            return q.regex_query(self.schema, "body", re.escape(word) + ".*")
        return q.term_query(self.schema, "body", word)

    def _must(self, queries: list[Any]) -> Any:
        if len(queries) == 1:
            return queries[0]
        must = self.tantivy.Occur.Must
        return self.tantivy.Query.boolean_query([(must, q) for q in queries])

    def _query(self, spec: Spec) -> Any:
        q = self.tantivy.Query
        schema = self.schema
        parts = [self._term(w, prefix) for w, prefix in spec.terms]
        if spec.phrase:
            parts.append(q.phrase_query(schema, "body", list(spec.phrase)))
        filters = []
        if spec.kind:
            filters.append(q.term_query(schema, "kind", spec.kind))
        if spec.lane:
            filters.append(q.term_query(schema, "lane", spec.lane))
        if spec.since_days is not None:
            low = NOW_MS - spec.since_days * DAY_MS
            filters.append(
                q.range_query(schema, "updated_at", self.tantivy.FieldType.Unsigned, low)
            )
        return self._must(parts + filters)

    def query(self, spec: Spec) -> Query | None:
        schema, searcher, query = self.schema, self.searcher, self._query(spec)
        if not spec.terms and not spec.phrase:  # filter-only: newest first, as ade's match-all
            return lambda: searcher.search(query, LIMIT, order_by_field="updated_at").count
        if not self.stored:
            return lambda: searcher.search(query, LIMIT).count
        snippets = self.tantivy.SnippetGenerator.create(searcher, query, schema, "body")

        def run() -> object:
            hits = searcher.search(query, LIMIT).hits
            return [snippets.snippet_from_doc(searcher.doc(addr)).fragment() for _, addr in hits]

        return run

    def matches(self, spec: Spec) -> int | None:
        return int(self.searcher.search(self._query(spec), 1).count)

    def close(self) -> None:
        self.index = self.searcher = None


def all_peers(with_tantivy: bool) -> list[Peer]:
    peers: list[Peer] = [RawFts5(), Ade()]
    if with_tantivy:
        peers += [TantivyPeer(threads=t, stored=s) for s in (True, False) for t in (1, 2)]
    return peers
