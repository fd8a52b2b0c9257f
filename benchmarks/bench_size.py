"""Index size after a real ingestion, and the query classes, old code vs new (index-size budget).

The corpus (``benchmarks.corpus``) is written as the transcripts of a project (hard links into
``.ade/chats`` and ``.ade/terminals``, one session record each) and ingested by the real ingester
(``SearchService.catch_up``: chunking, sanitizing, redaction, identifier parts, the write path).
Size is the ``.db`` after a checkpoint over the sanitized text the index holds (every document's
indexed text, stored or re-derived from its transcript, which also counts any re-derivation that
does not match). The query classes are ``bench_index.query_classes`` through ``run_query``.

``compare`` builds one project per code tree (``--base`` is a source tree of the old code, e.g.
``git archive main``) and alternates query rounds between the two, each round a fresh process
per side, so the two sides share the machine's load. Run:
``nice -n 5 python -m benchmarks.bench_size compare --mb 40 --base /tmp/size-base --work DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.corpus import generate
from benchmarks.timing import Stopwatch, percentile, timed

REPO = Path(__file__).resolve().parents[1]


def make_project(corpus: Path, root: Path) -> Path:
    """A git project whose sessions are the corpus transcripts (hard links, no copy)."""
    if (root / ".ade" / "sessions").exists():
        return root
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / ".gitignore").write_text(".ade/\n", encoding="utf-8")
    ade = root / ".ade"
    for kind, folder, suffix in (("terminal", "terminals", ".log"), ("chat", "chats", ".jsonl")):
        (ade / folder).mkdir(parents=True)
        (ade / "sessions").mkdir(exist_ok=True)
        for i, path in enumerate(sorted((corpus / folder).glob(f"*{suffix}"))):
            os.link(path, ade / folder / path.name)
            day = 1 + i % 28
            stamp = f"2026-05-{day:02d}T10:00:00+00:00"
            record = {"id": path.stem, "kind": kind, "title": f"{kind} {path.stem}",
                      "laneId": None, "createdAt": stamp, "updatedAt": stamp, "endedAt": stamp}  # fmt: skip
            (ade / "sessions" / f"{path.stem}.json").write_text(json.dumps(record))
    return root


def _service(root: Path) -> Any:
    from engine.project.locate import open_project
    from engine.wiring import create_project_service

    return create_project_service(open_project(root), start_worker=False)


def _texts(conn: Any, project: Any) -> tuple[int, int, int]:
    """Bytes of sanitized text, documents, and sourced documents whose text did not re-derive."""
    try:
        from engine.query.source_text import document_texts
    except ImportError:  # the old code stores every body
        total, docs = 0, 0
        for (body,) in conn.execute("SELECT body FROM docs"):
            total += len(zlib.decompress(body))
            docs += 1
        return total, docs, 0
    ids = [str(r[0]) for r in conn.execute("SELECT doc_id FROM docs")]
    sourced = {
        str(r[0]) for r in conn.execute("SELECT doc_id FROM docs WHERE src_offset IS NOT NULL")
    }
    total, failed = 0, 0
    for i in range(0, len(ids), 2000):
        for doc_id, text in document_texts(conn, project, ids[i : i + 2000]).items():
            total += len(text.encode("utf-8"))
            failed += doc_id in sourced and not text
    return total, len(ids), failed


def build(root: Path) -> dict[str, Any]:
    """Ingest the project (first index), then measure the file and what it holds."""
    import apsw

    service = _service(root)
    seconds, _ = timed(service.catch_up)
    service.dispose()
    db = root / ".ade" / "cache" / "search-index.db"
    conn = apsw.Connection(str(db))
    conn.pragma("wal_checkpoint", "TRUNCATE")
    parts: dict[str, int] = defaultdict(int)
    for name, size in conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
        parts[_group(str(name))] += int(size)
    service = _service(root)
    text, docs, failed = _texts(service.readers.reader(), service.project)
    service.dispose()
    conn.close()
    size = db.stat().st_size
    return {"seconds": round(seconds, 2), "db_bytes": size, "text_bytes": text, "docs": docs,
            "rederive_failures": failed, "ratio": round(size / text, 3),
            "parts": {k: round(v / text, 3) for k, v in sorted(parts.items())}}  # fmt: skip


def _group(name: str) -> str:
    for table in ("docs_fts", "docs_recent", "docs_title"):
        if name.startswith(table):
            return table
    if name.startswith("docs_by") or name.startswith("sqlite_autoindex_docs"):
        return "docs indexes"
    return name


def query_round(root: Path, runs: int) -> dict[str, list[float]]:
    """One round: every class's queries ``runs`` times each after one untimed warm pass."""
    from datetime import UTC, datetime

    from benchmarks.bench_index import query_classes
    from engine.query.run import run_query
    from engine.types import SearchQueryArgs

    service = _service(root)
    conn = service.readers.reader()
    vocab = json.loads((root / ".vocabulary.json").read_text())
    now = datetime(2026, 6, 1, tzinfo=UTC)
    out: dict[str, list[float]] = {}
    for name, queries in query_classes(conn, vocab).items():
        for q in queries:
            run_query(conn, SearchQueryArgs(query=q, limit=50), project=service.project, now=now)
        samples = []
        for _ in range(runs):
            for q in queries:
                with Stopwatch() as watch:
                    args = SearchQueryArgs(query=q, limit=50)
                    run_query(conn, args, project=service.project, now=now)
                samples.append(watch.ms)
        out[name] = samples
    service.dispose()
    return out


def _run(src: Path, *args: str) -> Any:
    env = {**os.environ, "PYTHONPATH": f"{src}:{REPO}"}
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    done = subprocess.run(cmd, env=env, cwd=src, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(mb: int, base: Path, work: Path, rounds: int, runs: int, corpus: Path | None) -> None:
    corpus = corpus or generate(mb, work / f"corpus-{mb}")
    sides = {"old": base, "new": REPO}
    roots = {}
    for side, src in sides.items():
        root = make_project(corpus, work / f"project-{mb}-{side}")
        (root / ".vocabulary.json").write_text((corpus / "vocabulary.json").read_text())
        roots[side] = root
        if not (root / ".ade" / "cache" / "build.json").exists():
            figures = _run(src, "build", str(root))
            (root / ".ade" / "cache" / "build.json").write_text(json.dumps(figures))
        print(side, json.loads((root / ".ade" / "cache" / "build.json").read_text()), flush=True)
    samples: dict[str, dict[str, list[float]]] = {side: defaultdict(list) for side in sides}
    for _ in range(rounds):
        for side, src in sides.items():
            for name, values in _run(src, "queries", str(roots[side]), str(runs)).items():
                samples[side][name] += values
    print(f"| class | old p50 | old p95 | new p50 | new p95 | ({rounds} rounds interleaved) |")
    for name in samples["old"]:
        old, new = samples["old"][name], samples["new"][name]
        print(f"| {name} | {percentile(old, 0.5):.1f} | {percentile(old, 0.95):.1f} |"
              f" {percentile(new, 0.5):.1f} | {percentile(new, 0.95):.1f} | n={len(new)} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("root", type=Path)
    q = sub.add_parser("queries")
    q.add_argument("root", type=Path)
    q.add_argument("runs", type=int)
    c = sub.add_parser("compare")
    c.add_argument("--mb", type=int, default=40)
    c.add_argument("--base", type=Path, required=True)
    c.add_argument("--work", type=Path, required=True)
    c.add_argument(
        "--corpus", type=Path, help="an existing corpus folder (e.g. /work/corpora/c330)"
    )
    c.add_argument("--rounds", type=int, default=11)
    c.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    if args.cmd == "build":
        print(json.dumps(build(args.root)))
    elif args.cmd == "queries":
        print(json.dumps(query_round(args.root, args.runs)))
    else:
        compare(args.mb, args.base, args.work, args.rounds, args.runs, args.corpus)


if __name__ == "__main__":
    main()
