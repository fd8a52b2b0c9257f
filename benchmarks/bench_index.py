"""Index and query benchmark: every figure is a ratio measured in this same run.

Run: ``python -m benchmarks.bench_index`` (generates ``benchmarks/.corpus`` first).

* build throughput: our ``upsert_docs`` vs raw FTS5 insertion of the same pre-sanitized text;
* index size / sanitized text size (its documents carry no ``source_span``, so every body is
  stored: an upper bound since snippets are cut from the source; ``benchmarks.bench_size`` measures what the real
  ingester stores, chat and terminal bodies left in their transcripts);
* query latency p50/p95 over >= 200 runs per class through ``run_query`` vs ``rg -c -i`` (or
  ``grep -r -c -i``) over the raw corpus as a whole process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import apsw

from benchmarks.corpus import generate
from benchmarks.timing import Stopwatch, percentile, timed
from engine.index.db import IndexDoc, connect, immediate, open_index, upsert_docs
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs

NOW = datetime(2026, 6, 1, tzinfo=UTC)
NOW_MS = int(NOW.timestamp() * 1000)
DAY_MS = 86_400_000
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]")
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def sanitize(raw: str) -> str:
    """A simple stand-in for the terminal sanitizer: strip ANSI/OSC, keep what ``\\r`` left."""
    text = _ANSI.sub("", raw)
    text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return _CTRL.sub("", text)


def _chunks(text: str, size: int = 4096) -> Iterator[tuple[int, str]]:
    start = 0
    while start < len(text):
        end = text.rfind("\n", start, start + size) + 1 if start + size < len(text) else len(text)
        end = end if end > start else min(len(text), start + size)
        yield start, text[start:end]
        start = end


def load_docs(corpus: Path) -> list[IndexDoc]:
    """Pre-sanitized documents: terminal chunks, chat messages, and one titled doc per session."""
    docs: list[IndexDoc] = []
    for i, path in enumerate(sorted((corpus / "terminals").glob("*.log"))):
        sid, base = path.stem, NOW_MS - (i % 60) * DAY_MS
        text = sanitize(path.read_bytes().decode("utf-8", "replace"))
        title = f"{' '.join(text.split()[3:7])} run {i}"
        docs.append(IndexDoc(f"terminal:{sid}", "terminal", title, title, "", base, sid, "primary"))
        for n, (offset, body) in enumerate(_chunks(text)):
            docs.append(IndexDoc(f"terminal:{sid}@{offset}", "terminal", title, "", body,
                                 base - n * 1000, sid, "primary", str(offset), sid))  # fmt: skip
    for i, path in enumerate(sorted((corpus / "chats").glob("*.jsonl"))):
        sid, base = path.stem, NOW_MS - (i % 60) * DAY_MS - 7_000
        events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        title = " ".join(events[0]["text"].split()[:5])
        docs.append(IndexDoc(f"chat:{sid}", "chat", title, title, "", base, sid, "primary"))
        for ev in events:
            docs.append(IndexDoc(f"chat:{sid}:{ev['id']}", "chat", title, "", ev["text"],
                                 base - ev["seq"] * 1000, sid, "primary", str(ev["seq"]), sid))  # fmt: skip
    return docs


def build_raw(path: Path, docs: list[IndexDoc]) -> float:
    """Seconds to insert every body into a plain ``fts5(body)`` table (the baseline)."""
    conn = connect(path)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body)")

    def insert() -> None:
        for i in range(0, len(docs), 1000):
            with immediate(conn):
                conn.executemany(
                    "INSERT INTO t(body) VALUES (?)", [(d.body,) for d in docs[i : i + 1000]]
                )

    elapsed, _ = timed(insert)
    conn.pragma("wal_checkpoint", "TRUNCATE")
    conn.close()
    return elapsed


def build_ours(path: Path, docs: list[IndexDoc]) -> float:
    """Seconds to build our index through ``upsert_docs`` in 1000-doc transactions."""
    open_index(path)
    conn = connect(path)

    def upsert() -> None:
        for i in range(0, len(docs), 1000):
            with immediate(conn):
                upsert_docs(conn, docs[i : i + 1000])

    elapsed, _ = timed(upsert)
    conn.pragma("wal_checkpoint", "TRUNCATE")
    conn.close()
    return elapsed


def query_classes(conn: apsw.Connection, vocab: list[str]) -> dict[str, list[str]]:
    """Deterministic queries per class, picked from the Zipf vocabulary by rank."""

    def df(term: str) -> int:
        row = conn.execute(
            "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?", (f'"{term}"',)
        ).fetchone()
        return int(row[0]) if row else 0

    tail = sorted((df(w), w) for w in vocab[-300:])
    rare = [w for n, w in tail if n > 0][:10]
    return {
        "rare term": rare,
        "one-term prefix": [w[:5] for w in vocab[150:400:25] if len(w) > 5][:10],
        "two-term prefix": [
            f"{a[:4]} {b[:4]}" for a, b in zip(vocab[110:130:2], vocab[131:151:2], strict=True)
        ],
        "phrase": ['"most recent call"', '"of the"', '"number of"', '"the value"', '"use the"'],
        "very common term": ["the", "of", "and"],
        "2-character prefix": ["co", "re", "ma", "pa", "te", "ha", "ze"],
        "1-character (first keystroke)": ["t", "r", "m", "p"],
        "filter-only": ["kind:terminal", "kind:chat since:7d", "since:2w", "lane:primary"],
    }


def time_queries(
    conn: apsw.Connection, project: Project, queries: list[str], runs: int
) -> tuple[list[float], list[int]]:
    samples, totals = [], []
    for i in range(runs):
        q = queries[i % len(queries)]
        with Stopwatch() as watch:
            result = run_query(conn, SearchQueryArgs(query=q, limit=50), project=project, now=NOW)
        samples.append(watch.ms)
        if i < len(queries):
            totals.append(result.total)
    return samples, totals


def scan_cmd(term: str, corpus: Path) -> list[str]:
    term = term.strip('"').split(":")[0].split()[0]
    if shutil.which("rg"):
        return ["rg", "-c", "-i", "--no-ignore", "--hidden", term, str(corpus)]
    return ["grep", "-r", "-c", "-i", term, str(corpus)]


def time_scan(queries: list[str], corpus: Path, runs: int) -> list[float]:
    samples = []
    for i in range(runs):
        cmd = scan_cmd(queries[i % len(queries)], corpus)
        with Stopwatch() as watch:
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append(watch.ms)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=330)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--scan-runs", type=int, default=20)
    parser.add_argument(
        "--work", type=Path, help="keep (or reuse) the built indexes in this folder"
    )
    args = parser.parse_args()
    corpus = generate(args.mb)
    raw_bytes = sum(p.stat().st_size for p in corpus.rglob("*") if p.suffix in (".log", ".jsonl"))
    docs = load_docs(corpus)
    text_bytes = sum(len(d.body.encode("utf-8")) for d in docs)
    print(
        f"corpus: {raw_bytes / 1e6:.0f} MB raw, {text_bytes / 1e6:.0f} MB sanitized, {len(docs)} docs"
    )
    work = args.work or Path(tempfile.mkdtemp(prefix="ade-bench-"))
    index = work / ".ade" / "cache" / "search-index.db"
    try:
        stamp = work / "build.json"
        if stamp.exists():
            raw_s, ours_s = json.loads(stamp.read_text())
            print("(build figures from the first run with this --work folder)")
        else:
            raw_s = build_raw(work / "raw.db", docs)
            ours_s = build_ours(index, docs)
            stamp.write_text(json.dumps([raw_s, ours_s]))
        raw_size, ours_size = (work / "raw.db").stat().st_size, index.stat().st_size
        print(
            f"build: raw FTS5 {text_bytes / 1e6 / raw_s:.1f} MB/s, ours {text_bytes / 1e6 / ours_s:.1f} MB/s"
            f" -> ratio {raw_s / ours_s:.2f} (goal >= 0.75)"
        )
        print(
            f"size: ours {ours_size / 1e6:.0f} MB = {ours_size / text_bytes:.2f}x sanitized text"
            f" (goal <= 1.0x); raw FTS5 with content {raw_size / text_bytes:.2f}x"
        )
        project = Project(root=work, id="bench", name="bench", is_git=False)
        vocab = json.loads((corpus / "vocabulary.json").read_text())
        conn = connect(index)
        classes = query_classes(conn, vocab)
        print(
            f"{'class':32} {'p50 ms':>8} {'p95 ms':>8} {'scan p50':>9} {'scan p95':>9} {'p95 ratio':>9}  totals"
        )
        for name, queries in classes.items():
            if not queries:
                print(f"{name:32} (no query of this class in the corpus)")
                continue
            samples, totals = time_queries(conn, project, queries, args.runs)
            scan = time_scan(queries, corpus, args.scan_runs)
            print(
                f"{name:32} {percentile(samples, 0.5):8.1f} {percentile(samples, 0.95):8.1f} {percentile(scan, 0.5):9.1f}"
                f" {percentile(scan, 0.95):9.1f} {percentile(samples, 0.95) / percentile(scan, 0.95):9.2f}  {totals[:4]}"
            )
        conn.close()
        print(
            f"(scan = {' '.join(scan_cmd('x', corpus)[:-2])} TERM corpus, whole process;"
            f" {os.cpu_count()} cpus; mean scan {statistics.mean(scan):.0f} ms)"
        )
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
