"""Why does a rare term cost more on a larger corpus at the same number of matches (journal: "Rare terms")?

Reuses the indexes ``bench_peers --work DIR`` built at each scale. Per scale, ten tail words whose
prefix matches 38-48 documents (``--band``) are timed (interleaved rounds, medians) through the whole
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

from benchmarks.bench_peers import rare_specs, statement_label, statements_of
from benchmarks.peers import Ade, RawFts5, Spec
from benchmarks.timing import interleaved


def _misses(conn: apsw.Connection, job: Any) -> int:
    conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS, True)
    job()
    return int(conn.status(apsw.SQLITE_DBSTATUS_CACHE_MISS, True)[0])


def jobs_of(ade: Ade, raw: RawFts5, specs: list[Spec]) -> dict[str, tuple[Any, Any]]:
    """(connection, job) per ``label\x00query``: the whole ``run_query``, each of its statements
    alone, and raw FTS5's top 50 of ``"w"*`` and ``"w"``."""
    jobs: dict[str, tuple[Any, Any]] = {}
    for i, spec in enumerate(specs):
        jobs[f"whole run_query\x00{i}"] = (ade.conn, ade.query(spec))
        for j, (sql, bindings) in enumerate(statements_of(ade, spec)):
            run = lambda s=sql, b=bindings: ade.conn.execute(s, b).fetchall()  # noqa: E731
            jobs[f"{statement_label(sql)}\x00{i}.{j}"] = (ade.conn, run)
        for form in ('"{}"*', '"{}"'):
            match = form.format(spec.text)
            run = lambda m=match: raw.conn.execute(  # noqa: E731
                "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT 50", (m,)
            ).fetchall()
            jobs[f"raw FTS5 {form.format('w')} top 50\x00{i}"] = (raw.conn, run)
    return jobs


def probe(per_scale: dict[str, dict[str, tuple[Any, Any]]], runs: int) -> dict[str, Any]:
    """Every scale's jobs in the same interleaved rounds: median ms and page reads per label."""
    flat = {
        f"{scale}\x00{key}": job
        for scale, jobs in per_scale.items()
        for key, (_, job) in jobs.items()
    }
    timings = interleaved(flat, runs)
    out: dict[str, Any] = {}
    for scale, jobs in per_scale.items():
        ms: dict[str, list[float]] = {}
        pages: dict[str, list[int]] = {}
        # Label by label, so the other queries of a label churn the page cache between two
        # statements of one query (run right after its own query, a statement finds it warm).
        for key, (conn, job) in sorted(jobs.items()):
            label = key.split("\x00")[0]
            ms.setdefault(label, []).append(timings[f"{scale}\x00{key}"].median)
            pages.setdefault(label, []).append(_misses(conn, job))
        out[scale] = {
            label: {"ms": statistics.median(v), "pages": statistics.median(pages[label])}
            for label, v in ms.items()
        }
    return out


def _segments(conn: apsw.Connection) -> int:
    return int(conn.execute("SELECT count(DISTINCT segid) FROM docs_fts_idx").fetchone()[0])


def _optimized(folder: Path) -> Path:
    """A copy of the ade index merged into one FTS5 segment (made once, kept)."""
    merged = folder / "ade-optimized"
    if not (merged / "done").exists():
        shutil.rmtree(merged, ignore_errors=True)
        shutil.copytree(folder / "ade", merged)
        conn = apsw.Connection(str(Ade.index_path(merged)))
        conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")
        conn.pragma("wal_checkpoint", "TRUNCATE")
        conn.close()
        (merged / "done").write_text("")
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--mb", type=int, default=330)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--scales", default="0.25,0.5,1")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--cache-mb", type=int, default=256)
    parser.add_argument("--optimize", action="store_true")
    parser.add_argument("--band", default="38,48", help="matches of the rare words, at every scale")
    args = parser.parse_args()
    band = tuple(int(n) for n in args.band.split(","))
    vocab = json.loads((args.corpus / "vocabulary.json").read_text())
    folders = {s: args.work / f"mb{args.mb}-x{float(s)}" for s in args.scales.split(",")}
    raws, ades, specs, info = {}, {}, {}, {}
    for scale, folder in folders.items():
        raws[scale], ades[scale] = RawFts5(), Ade()
        raws[scale].open(folder / "raw-FTS5")
        ades[scale].open(folder / "ade")
        specs[scale] = rare_specs(raws[scale], vocab, band=(band[0], band[1]))
        info[scale] = {
            "docs": int(ades[scale].conn.execute("SELECT count(*) FROM docs").fetchone()[0]),
            "matches": statistics.median(raws[scale].df(f'"{s.text}"*') for s in specs[scale]),
            "segments": _segments(ades[scale].conn),
        }
    out: dict[str, Any] = {"info": info}
    jobs = {s: jobs_of(ades[s], raws[s], specs[s]) for s in folders}
    out["as built"] = probe(jobs, args.runs)
    for scale in folders:
        for conn in (ades[scale].conn, raws[scale].conn):
            conn.pragma("cache_size", -args.cache_mb * 1024)
    out[f"cache {args.cache_mb} MB"] = probe(jobs, args.runs)
    if args.optimize:
        for scale, folder in folders.items():
            ades[scale].close()
            ades[scale].open(_optimized(folder))
            info[scale]["optimized segments"] = _segments(ades[scale].conn)
        jobs = {s: jobs_of(ades[s], raws[s], specs[s]) for s in folders}
        out["one segment"] = probe(jobs, args.runs)
    (args.work / f"rare-mb{args.mb}.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    print(f"band {band}")


if __name__ == "__main__":
    main()
