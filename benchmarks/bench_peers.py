"""Peers and scale (journal: "Peers and scale"): raw FTS5, ade and Tantivy on the same documents.

Run: ``python -m benchmarks.bench_peers [--mb 330] [--corpus DIR] [--scales 0.25,0.5,1]
[--build-rounds 3,2,1] [--runs 11] [--work DIR] [--no-tantivy]``.

The corpus (``benchmarks.corpus``, written once into ``--corpus``) is pre-sanitized as
``bench_index.load_docs`` does; each scale keeps the first fraction of its terminal sessions and
of its chat sessions (slices of the full document list, same mix). Per scale:

* build time of every peer in interleaved rounds (one build of each per round, the last kept),
  the ratio to raw FTS5's median, and size on disk / sanitized text;
* every query class of ``bench_index`` on every peer that can express it, p50/p95 of interleaved
  rounds (one run of every query on every peer per round), ratios to raw FTS5 from the same rounds;
* the rare-term probe: tail words with a similar number of matches at every scale, through the
  whole ``run_query`` and statement by statement (every SQL ``run_query`` ran, captured with an
  exec tracer and re-timed alone), plus the FTS5 segment counts that a term lookup visits.

Tantivy is the ``bench`` extra (``pip install -e '.[bench]'``); without it the bench says so and
exits 2, unless ``--no-tantivy``. ``--work DIR`` keeps the indexes: a rerun only queries.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_index import load_docs
from benchmarks.corpus import CORPUS_DIR, generate
from benchmarks.peers import Ade, Peer, RawFts5, Spec, TantivyPeer, all_peers, fts5_match
from benchmarks.timing import interleaved, percentile, rounds
from engine.index.db import IndexDoc

RARE_BAND = (25, 60)
"""Matches of a "rare term" at every scale, so its cost can be compared across corpus sizes."""


def slice_docs(docs: Sequence[IndexDoc], fraction: float) -> list[IndexDoc]:
    """The documents of the first ``fraction`` of terminal sessions and of chat sessions."""
    by_kind: dict[str, list[str]] = {}
    for d in docs:
        sessions = by_kind.setdefault(d.kind, [])
        if d.session_id and (not sessions or sessions[-1] != d.session_id):
            sessions.append(d.session_id)
    keep = {s for ids in by_kind.values() for s in ids[: math.ceil(len(ids) * fraction)]}
    return [d for d in docs if d.session_id in keep]


def _bare(text: str) -> Spec:
    """ade's bare words: each a prefix, a one-character word exact (parser's policy)."""
    return Spec(text, terms=tuple((w, len(w) > 1) for w in text.split()))


def rare_specs(raw: RawFts5, vocab: list[str], band: tuple[int, int] = RARE_BAND) -> list[Spec]:
    """Ten words from the Zipf tail up whose prefix matches ``band`` documents."""
    out = []
    for word in reversed(vocab):
        if band[0] <= raw.df(f'"{word}"*') <= band[1]:
            out.append(_bare(word))
            if len(out) == 10:
                break
    return out


def query_specs(raw: RawFts5, vocab: list[str]) -> dict[str, list[Spec]]:
    """``bench_index.query_classes`` as specs (the rare class by number of matches)."""
    return {
        "rare term": rare_specs(raw, vocab),
        "one-term prefix": [_bare(w[:5]) for w in vocab[150:400:25] if len(w) > 5][:10],
        "two-term prefix": [
            _bare(f"{a[:4]} {b[:4]}")
            for a, b in zip(vocab[110:130:2], vocab[131:151:2], strict=True)
        ],
        "phrase": [
            Spec(f'"{p}"', phrase=tuple(p.split()))
            for p in ("most recent call", "of the", "number of", "the value", "use the")
        ],
        "very common term": [_bare(w) for w in ("the", "of", "and")],
        "2-character prefix": [_bare(w) for w in ("co", "re", "ma", "pa", "te", "ha", "ze")],
        "1-character (first keystroke)": [_bare(w) for w in ("t", "r", "m", "p")],
        "filter-only": [
            Spec("kind:terminal", kind="terminal"),
            Spec("kind:chat since:7d", kind="chat", since_days=7),
            Spec("since:2w", since_days=14),
            Spec("lane:primary", lane="primary"),
        ],
    }


def time_class(peers: Sequence[Peer], specs: list[Spec], runs: int) -> dict[str, list[float]]:
    """Wall ms of every (peer, query) over ``runs`` interleaved rounds, pooled per peer."""
    jobs = {}
    for peer in peers:
        for i, spec in enumerate(specs):
            job = peer.query(spec)
            if job is not None:
                jobs[f"{peer.name}\x00{i}"] = job
    pooled: dict[str, list[float]] = {}
    for key, timing in interleaved(jobs, runs).items():
        pooled.setdefault(key.split("\x00")[0], []).extend(timing.wall)
    return pooled


def statements_of(ade: Ade, spec: Spec) -> list[tuple[str, Any]]:
    """Every SQL statement one ``run_query`` of ``spec`` executes, with its bindings."""
    seen: list[tuple[str, Any]] = []

    def trace(_cursor: Any, sql: str, bindings: Any) -> bool:
        seen.append((sql, bindings))
        return True

    ade.conn.set_exec_trace(trace)
    try:
        job = ade.query(spec)
        assert job is not None
        job()
    finally:
        ade.conn.set_exec_trace(None)
    return seen


def statement_label(sql: str) -> str:
    """A short, stable name for a statement of the query path."""
    flat = " ".join(sql.split())
    for needle, label in (("ORDER BY b1", "candidate window (window_sql)"),
                          ("json_each", "page bodies (fetch_bodies)"),
                          ("docs_title", "title candidates"), ("count(*)", "count"),
                          ("title_norm", "title prefix scan")):  # fmt: skip
        if needle in flat:
            return label
    return flat[:60]


def rare_probe(ade: Ade, raw: RawFts5, specs: list[Spec], runs: int) -> dict[str, Any]:
    """The rare-term cost statement by statement: each SQL of ``run_query`` re-timed alone."""
    jobs: dict[str, Any] = {}
    labels: dict[str, str] = {}
    for i, spec in enumerate(specs):
        for j, (sql, bindings) in enumerate(statements_of(ade, spec)):
            key = f"{i}\x00{j}"
            jobs[key] = lambda sql=sql, b=bindings: ade.conn.execute(sql, b).fetchall()
            labels[key] = statement_label(sql)
        whole = ade.query(spec)
        assert whole is not None
        jobs[f"{i}\x00whole"] = whole
        labels[f"{i}\x00whole"] = "whole run_query"
    per_label: dict[str, list[float]] = {}
    for key, timing in interleaved(jobs, runs).items():
        per_label.setdefault(labels[key], []).append(timing.median)
    matches = [raw.df(fts5_match(s) or "") for s in specs]
    return {
        "words": [s.text for s in specs],
        "matches": matches,
        "statements_ms": {k: statistics.median(v) for k, v in per_label.items()},
        "segments": {
            "ade docs_fts": _segments(ade.conn, "docs_fts"),
            "raw t": _segments(raw.conn, "t"),
        },
        "plan": [
            " | ".join(str(r[3]) for r in ade.conn.execute(f"EXPLAIN QUERY PLAN {sql}", b))
            for sql, b in statements_of(ade, specs[0])
        ]
        if specs
        else [],
    }


def _segments(conn: Any, table: str) -> int:
    try:
        return int(conn.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0])
    except Exception:  # another schema (a contentless or renamed table): not countable here
        return -1


def build_all(
    peers: Sequence[Peer], docs: list[IndexDoc], folder: Path, build_rounds: int
) -> dict[str, list[float]]:
    """Seconds of every peer's build over ``build_rounds`` interleaved rounds, stamped in
    ``folder`` so a rerun reuses the indexes (and the figures of the run that built them)."""
    stamp = folder / "build.json"
    names = [p.name for p in peers]
    if stamp.exists():
        known = json.loads(stamp.read_text())
        if all(n in known for n in names):
            return {n: known[n] for n in names}
    jobs = {p.name: (lambda p=p: p.build(folder / p.name.replace(" ", "-"), docs)) for p in peers}
    samples = rounds(jobs, build_rounds)
    stamp.write_text(json.dumps(samples))
    return samples


def run_scale(
    peers: Sequence[Peer], docs: list[IndexDoc], folder: Path, vocab: list[str], args: Any,
    build_rounds: int,
) -> dict[str, Any]:  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    text_bytes = sum(len(d.body.encode("utf-8")) for d in docs)
    builds = build_all(peers, docs, folder, build_rounds)
    out: dict[str, Any] = {"docs": len(docs), "text_mb": text_bytes / 1e6, "builds_s": builds}
    out["size_x"] = {p.name: p.size(folder / p.name.replace(" ", "-")) / text_bytes for p in peers}
    for p in peers:
        p.open(folder / p.name.replace(" ", "-"))
    raw = next(p for p in peers if isinstance(p, RawFts5))
    ade = next(p for p in peers if isinstance(p, Ade))
    classes = query_specs(raw, vocab)
    out["queries"], out["matches"] = {}, {}
    for name, specs in classes.items():
        pooled = time_class(peers, specs, args.runs)
        out["queries"][name] = {
            peer: [percentile(ms, 0.5), percentile(ms, 0.95)] for peer, ms in pooled.items()
        }
        print(
            f"  {name}: "
            + ", ".join(f"{k} {v[0]:.1f}/{v[1]:.1f}" for k, v in out["queries"][name].items()),
            flush=True,
        )
        counts = {p.name: [p.matches(spec) for spec in specs] for p in peers}
        out["matches"][name] = {n: c for n, c in counts.items() if None not in c}
    out["rare"] = rare_probe(ade, raw, classes["rare term"], args.runs)
    for p in peers:
        p.close()
    return out


def scale_series(
    folders: dict[str, Path], vocab: list[str], runs: int, with_tantivy: bool
) -> dict[str, Any]:
    """Every query class at every scale in the same interleaved rounds (load hits all alike):
    ade, raw FTS5 and Tantivy (1 thread, body stored) on the indexes the scales built."""
    peers: dict[str, list[Peer]] = {}
    for scale, folder in folders.items():
        here: list[Peer] = [RawFts5(), Ade()]
        if with_tantivy:
            here.append(TantivyPeer(threads=1, stored=True))
        for p in here:
            p.open(folder / p.name.replace(" ", "-"))
        peers[scale] = here
    specs = {s: query_specs(next(p for p in ps if isinstance(p, RawFts5)), vocab)
             for s, ps in peers.items()}  # fmt: skip
    out: dict[str, Any] = {}
    for cls in next(iter(specs.values())):
        jobs = {}
        for scale, here in peers.items():
            for p in here:
                for i, spec in enumerate(specs[scale][cls]):
                    job = p.query(spec)
                    if job is not None:
                        jobs[f"{scale}\x00{p.name}\x00{i}"] = job
        pooled: dict[str, list[float]] = {}
        for key, timing in interleaved(jobs, runs).items():
            scale, name, _ = key.split("\x00")
            pooled.setdefault(f"{scale}\x00{name}", []).extend(timing.wall)
        out[cls] = {k: [percentile(v, 0.5), percentile(v, 0.95)] for k, v in pooled.items()}
        print(f"  series {cls} done", flush=True)
    for here in peers.values():
        for p in here:
            p.close()
    return out


def series_report(series: dict[str, Any]) -> str:
    """One row per class and peer: p50/p95 at each scale, and the full / smallest p50 ratio."""
    scales = sorted({key.split("\x00")[0] for per in series.values() for key in per}, key=float)
    lines = ["| class | peer | " + " | ".join(f"x{s} p50 / p95" for s in scales)
             + f" | p50 x{scales[-1]} / x{scales[0]} |", "|---|---|" + "---:|" * (len(scales) + 1)]  # fmt: skip
    for cls, per in series.items():
        by_peer: dict[str, dict[str, list[float]]] = {}
        for key, value in per.items():
            scale, name = key.split("\x00")
            by_peer.setdefault(name, {})[scale] = value
        for name, scales in by_peer.items():
            ordered = sorted(scales, key=float)
            cells = " | ".join(
                f"{_fmt_ms(scales[s][0])} / {_fmt_ms(scales[s][1])}" for s in ordered
            )
            growth = scales[ordered[-1]][0] / max(scales[ordered[0]][0], 1e-6)
            lines.append(f"| {cls} | {name} | {cells} | {growth:.2f}x |")
    return "\n".join(lines)


def _fmt_ms(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def report(results: dict[str, Any], names: list[str]) -> str:
    """Markdown tables of every scale: builds, sizes, queries (ratios to raw FTS5)."""
    lines = []
    base = "raw FTS5"
    for scale, r in results.items():
        lines += [f"\n#### scale {scale}: {r['docs']:,} docs, {r['text_mb']:.1f} MB sanitized\n",
                  "| peer | build s (median, rounds) | / raw FTS5 | size / text |",
                  "|---|---:|---:|---:|"]  # fmt: skip
        raw_build = statistics.median(r["builds_s"][base])
        for n in names:
            b = r["builds_s"][n]
            lines.append(f"| {n} | {statistics.median(b):.1f} ({len(b)}) |"
                         f" {statistics.median(b) / raw_build:.2f}x | {r['size_x'][n]:.2f}x |")  # fmt: skip
        lines += ["", "| class | matches (median; raw, Tantivy / ade) | "
                  + " | ".join(f"{n} p50/p95" for n in names) + " |",
                  "|---|---:|" + "---:|" * len(names)]  # fmt: skip
        for cls, per in r["queries"].items():
            cells = []
            for n in names:
                if n not in per:
                    cells.append("n/a")
                    continue
                p50, p95 = per[n]
                ratio = f" ({p50 / per[base][0]:.2f}x)" if base in per and n != base else ""
                cells.append(f"{_fmt_ms(p50)} / {_fmt_ms(p95)}{ratio}")
            counts = r.get("matches", {}).get(cls, {})
            found = " / ".join(
                f"{statistics.median(counts[n]):,.0f}"
                for n in ("tantivy 1t", "ade") if n in counts
            )  # fmt: skip
            lines.append(f"| {cls} | {found} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=330)
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    parser.add_argument("--scales", default="0.25,0.5,1")
    parser.add_argument("--build-rounds", default="1", help="per scale, comma-separated")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--work", type=Path, help="keep (or reuse) the built indexes here")
    parser.add_argument("--no-tantivy", action="store_true")
    parser.add_argument(
        "--series", action="store_true", help="then time every scale in the same rounds"
    )
    parser.add_argument(
        "--series-only", action="store_true", help="only that, on the indexes in --work"
    )
    parser.add_argument(
        "--report-only", action="store_true", help="print the tables of the last run in --work"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report_only and args.work:
        saved = json.loads((args.work / f"results-mb{args.mb}.json").read_text())
        print(report(saved, list(next(iter(saved.values()))["builds_s"])))
        series_file = args.work / f"series-mb{args.mb}.json"
        if series_file.exists():
            print(series_report(json.loads(series_file.read_text())))
        return 0
    if not args.no_tantivy:
        try:
            import tantivy  # noqa: F401
        except ImportError:
            print("bench_peers: tantivy is not installed: pip install -e '.[bench]', or pass"
                  " --no-tantivy", file=sys.stderr)  # fmt: skip
            return 2
    if args.series_only and args.work:
        vocab = json.loads((args.corpus / "vocabulary.json").read_text())
        folders = {
            str(float(s)): args.work / f"mb{args.mb}-x{float(s)}" for s in args.scales.split(",")
        }
        series = scale_series(folders, vocab, args.runs, not args.no_tantivy)
        (args.work / f"series-mb{args.mb}.json").write_text(json.dumps(series, indent=1))
        print(series_report(series))
        return 0
    corpus = generate(args.mb, args.corpus)
    vocab = json.loads((corpus / "vocabulary.json").read_text())
    everything = load_docs(corpus)
    scales = [float(s) for s in args.scales.split(",")]
    per_scale = [int(n) for n in args.build_rounds.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="ade-peers-"))
    results: dict[str, Any] = {}
    try:
        peers = all_peers(not args.no_tantivy)
        for i, scale in enumerate(scales):
            docs = slice_docs(everything, scale)
            rounds_here = per_scale[min(i, len(per_scale) - 1)]
            print(f"scale {scale}: {len(docs)} docs, {rounds_here} build round(s)", flush=True)
            results[str(scale)] = run_scale(
                peers, docs, work / f"mb{args.mb}-x{scale}", vocab, args, rounds_here
            )
            (work / f"results-mb{args.mb}.json").write_text(json.dumps(results, indent=1))
        print(report(results, [p.name for p in peers]))
        if args.series:
            folders = {str(s): work / f"mb{args.mb}-x{s}" for s in scales}
            series = scale_series(folders, vocab, args.runs, not args.no_tantivy)
            (work / f"series-mb{args.mb}.json").write_text(json.dumps(series, indent=1))
            print(series_report(series))
        print(json.dumps({s: r["rare"] for s, r in results.items()}, indent=1))
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
