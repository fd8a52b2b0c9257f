"""A fingerprint of what a first index holds, to compare two trees (journal: "Planning CPU").

    python -m benchmarks.index_content --corpus-dir /work/corpora/c60 [--baseline-tree DIR]

The corpus is made an ade project (``bench_ingest._corpus_project``) and indexed once per tree
through the real ingester (``create_project_service(...).catch_up()``, in process) in a fresh
interpreter with that tree on ``PYTHONPATH``. The fingerprint is a sha256 over every ``docs``
column in row-id order, every ``sources`` row but its ``last_run`` time, and the row ids (in
order) of MATCH queries on each FTS table, body and ``parts`` columns alike; it is printed with
the doc count and, when the trees differ, the names of the parts that do.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_ingest import _corpus_project

QUERIES = {
    "docs_fts": ["error", "the", "token", "redacted", "th*", "parts:test", "parts:handler",
                 "parts:client", "parts:the", "parts:with*", "rank_title:chat"],
    "docs_recent": ["th*", "e*", "error", "parts:ab*", "parts:handler"],
    "docs_title": ["chat", "terminal", "parts:t*"],
}  # fmt: skip
"""MATCH expressions per FTS table: common and prefix terms, identifier parts, titles."""

_CHILD = r"""
import hashlib, json, os, sys
from pathlib import Path
os.environ["ADE_INGEST_WORKER"] = "0"
from engine.project.locate import open_project
from engine.wiring import create_project_service
import apsw
root, queries = Path(sys.argv[1]), json.loads(sys.argv[2])
project = open_project(root)
for suffix in ("", "-wal", "-shm"):
    Path(f"{project.index_path}{suffix}").unlink(missing_ok=True)
svc = create_project_service(project, start_worker=False)
svc.catch_up()
svc.dispose()
conn = apsw.Connection(str(project.index_path), flags=apsw.SQLITE_OPEN_READONLY)
parts = {}
def part(name, rows):
    h = hashlib.sha256()
    for row in rows:
        h.update(repr(row).encode())
    parts[name] = h.hexdigest()
cols = [r[1] for r in conn.execute("PRAGMA table_info(docs)")]
for col in cols:
    part(f"docs.{col}", conn.execute(f"SELECT {col} FROM docs ORDER BY id"))
docs = conn.execute("SELECT count(*) FROM docs").fetchall()[0][0]
part("sources", conn.execute("SELECT key, cursor, identity, size, state FROM sources ORDER BY 1"))
for table, matches in queries.items():
    for match in matches:
        part(f"{table} MATCH {match}", conn.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid", (match,)))
for table in queries:
    conn.execute(f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, {table}, instance)")
    part(f"{table} vocabulary", conn.execute(f"SELECT * FROM temp.v_{table} ORDER BY 1, 2, 3, 4"))
    part(f"{table} docsize", conn.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY 1"))
digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode())
print(json.dumps({"docs": docs, "sha256": digest.hexdigest(), "parts": parts}))
"""


def index_once(tree: Path, root: Path) -> dict[str, Any]:
    """First index of the project at ``root`` with the code of ``tree``; its fingerprint."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), json.dumps(QUERIES)],
        cwd=tree, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus = parser.add_mutually_exclusive_group(required=True)
    corpus.add_argument("--corpus-dir", type=Path, help="a generated corpus")
    corpus.add_argument("--project", type=Path, help="a scratch project (its index is deleted)")
    parser.add_argument("--baseline-tree", type=Path, help="an unpacked tree to compare against")
    args = parser.parse_args()
    trees = {"ours": Path(__file__).resolve().parents[1]}
    if args.baseline_tree:
        trees["baseline"] = args.baseline_tree.resolve()
    if args.project:
        found = {name: index_once(tree, args.project.resolve()) for name, tree in trees.items()}
    else:
        # The project sits beside the corpus: hard links need the same file system.
        with tempfile.TemporaryDirectory(dir=args.corpus_dir.resolve().parent) as tmp:
            root = Path(tmp) / "project"
            _corpus_project(args.corpus_dir, root)
            found = {name: index_once(tree, root) for name, tree in trees.items()}
    report: dict[str, object] = {
        name: {"docs": run["docs"], "sha256": run["sha256"]} for name, run in found.items()
    }
    if args.baseline_tree:
        ours, base = found["ours"]["parts"], found["baseline"]["parts"]
        report["same"] = found["ours"]["sha256"] == found["baseline"]["sha256"]
        report["differing"] = sorted(name for name in ours if ours[name] != base.get(name))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
