"""Why does a rare term cost more on a larger corpus at the same number of matches (issue 14.3)?

Reuses the indexes ``bench_peers --work DIR`` built at each scale. Per scale, ten tail words whose
prefix matches 25-60 documents are timed (interleaved rounds, medians) through the whole
``run_query`` and through each SQL statement it ran alone, with the page reads each statement
causes (``SQLITE_DBSTATUS_CACHE_MISS``), on the index as built and again with a larger page cache
(``--cache-mb``) and on a copy merged into one FTS5 segment (``--optimize``: FTS5's
``'optimize'`` command). Raw FTS5 ``"w"*`` and ``"w"`` (top 50 by bm25) show what FTS5 alone does.

Run: ``python -m benchmarks.bench_rare_scale --work DIR --mb 330 --corpus DIR
[--scales 0.25,0.5,1] [--runs 11] [--cache-mb 256] [--optimize]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path
from typing import Any

import apsw

from benchmarks.bench_peers import RARE_BAND, rare_specs, statement_label, statements_of
from benchmarks.peers import Ade, RawFts5, Spec
from benchmarks.timing import interleaved


def _misses(conn: apsw.Connection, job: Any) -> int:
    conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS, True)
    job()
    return int(conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS, True)[0])


def probe(ade: Ade, raw: RawFts5, specs: list[Spec], runs: int) -> dict[str, Any]:
    """Median ms (and page reads, from a run after the others) per statement label."""
    jobs: dict[str, Any] = {}
    for i, spec in enumerate(specs):
        whole = ade.query(spec)
        jobs[f"whole run_query\x00{i}"] = whole
        for j, (sql, bindings) in enumerate(statements_of(ade, spec)):
            label = statement_label(sql)
            jobs[f"{label}\x00{i}.{j}"] = lambda s=sql, b=bindings: ade.conn.execute(
                s, b
            ).fetchall()
        for form in ('"{}"*', '"{}"'):
            match = form.format(spec.text)
            jobs[f"raw FTS5 {form.format('w')} top 50\x00{i}"] = lambda m=match: raw.conn.execute(
                "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 50", (m,)
            ).fetchall()
    timings = interleaved(jobs, runs)
    pages: dict[str, list[int]] = {}
    for key, job in jobs.items():
        conn = raw.conn if key.startswith("raw") else ade.conn
        pages.setdefault(key.split("\x00")[0], []).append(_misses(conn, job))
    per: dict[str, list[float]] = {}
    for key, timing in timings.items():
        per.setdefault(key.split("\x00")[0], []).append(timing.median)
    return {
        label: {"ms": statistics.median(ms), "pages": statistics.median(pages[label])}
        for label, ms in per.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--mb", type=int, default=330)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--scales", default="0.25,0.5,1")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--cache-mb", type=int, default=256)
    parser.add_argument("--optimize", action="store_true")
    args = parser.parse_args()
    vocab = json.loads((args.corpus / "vocabulary.json").read_text())
    out: dict[str, Any] = {}
    for scale in (float(s) for s in args.scales.split(",")):
        folder = args.work / f"mb{args.mb}-x{scale}"
        raw, ade = RawFts5(), Ade()
        raw.open(folder / "raw-FTS5")
        ade.open(folder / "ade")
        specs = rare_specs(raw, vocab)
        row: dict[str, Any] = {
            "matches": statistics.median(raw.df(f'"{s.text}"*') for s in specs),
            "segments": int(ade.conn.execute(
                "SELECT count(DISTINCT segid) FROM docs_fts_idx").fetchone()[0]),
            "docs": int(ade.conn.execute("SELECT count(*) FROM docs").fetchone()[0]),
        }  # fmt: skip
        row["as built"] = probe(ade, raw, specs, args.runs)
        ade.conn.pragma("cache_size", -args.cache_mb * 1024)
        raw.conn.pragma("cache_size", -args.cache_mb * 1024)
        row[f"cache {args.cache_mb} MB"] = probe(ade, raw, specs, args.runs)
        ade.close()
        if args.optimize:
            merged = folder / "ade-optimized"
            if not (merged / "done").exists():
                shutil.rmtree(merged, ignore_errors=True)
                shutil.copytree(folder / "ade", merged)
                conn = apsw.Connection(str(Ade.index_path(merged)))
                conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")
                conn.pragma("wal_checkpoint", "TRUNCATE")
                conn.close()
                (merged / "done").write_text("")
            ade.open(merged)
            row["optimized segments"] = int(ade.conn.execute(
                "SELECT count(DISTINCT segid) FROM docs_fts_idx").fetchone()[0])  # fmt: skip
            row["optimized"] = probe(ade, raw, specs, args.runs)
            ade.close()
        raw.close()
        out[str(scale)] = row
        print(json.dumps({str(scale): row}, indent=1), flush=True)
    (args.work / f"rare-mb{args.mb}.json").write_text(json.dumps(out, indent=1))
    print(f"band {RARE_BAND}")


if __name__ == "__main__":
    main()
