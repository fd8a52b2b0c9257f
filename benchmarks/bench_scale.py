"""The scale series: generated projects of about 10 MB, 100 MB and 1 GB of transcripts, each in
process and on the default path (the auto-started daemon), every figure a ratio against a
baseline interleaved in the same run (journal: 2026-12-06-scale.md).

Run: ``python -m benchmarks.bench_scale --sizes 10,100 --runs 11 --rounds 2 --work DIR`` and
``--sizes 1000 --first-only`` (``--paths in-process`` for one path, ``--no-tantivy``,
``--append`` writes the table into benchmarks/RESULTS.md; ``--semantic`` keeps the semantic
extra on where it is installed: by default ``ADE_SEMANTIC=0``, search as installed without it).

Per size (``benchmarks.scale_paths`` makes the projects and runs the processes):

* **first index** of a fresh copy of the project by one whole ``ade search`` process, against a
  raw FTS5 insert of the same sanitized text (``bench_index.build_raw``), ``--rounds``
  interleaved rounds: the ratio raw / ade of the medians, wall and CPU (higher is faster; 1.0 is
  as fast as the bare insert), and the ade process's peak RSS;
* **index / text**: the index's bytes on disk (database, ``-wal``, ``-shm``) once the first index
  has settled (the process exited; on the default path the daemon's backfill and health check
  done) over the raw transcripts' bytes;
* **p95 / rg** per query class (rare, common, prefix, two-term, phrase: the classes of
  ``bench_index``): a whole ``ade search <q> --json`` process against ``rg -L -c -i -F`` over the
  same transcripts, interleaved with ``python -c pass``;
* **start-up / ``python -c pass``**: the whole process minus the same search's own work (in
  process: ``main(argv)`` in this process; default path: the ``search.query`` request), over
  ``python -c pass``, rare class;
* **after a write / settled**: a search for a word just appended to a transcript against a search
  for one already indexed (the share of answers that held the new word is printed);
* **Tantivy** (the ``bench`` extra, one thread, body stored) over the same sanitized documents:
  build time against the raw insert, size against the text, in-process p50 per class against
  ade's ``run_query`` on the project's index.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from benchmarks.cli_classes import bench_env
from benchmarks.results import replace_section
from benchmarks.scale_class import (
    CLASS_NAMES,
    auto_daemon,
    classes,
    in_process_env,
    read_your_writes,
    tantivy_line,
)
from benchmarks.scale_paths import (
    Run,
    ade_command,
    corpus_dir,
    daemon_memory,
    first_index,
    fresh_copy,
    index_bytes,
    raw_insert,
    run_process,
    scale_project,
    text_bytes,
    use_wheel_install,
)
from benchmarks.timing import percentile

NOW = "2026-06-15T12:00:00+00:00"
HEADING = "## Speed at every size: the scale series"


def _first_rounds(
    root: Path, corpus: Path, folder: Path, env: dict[str, str], rounds: int, paths: list[str]
) -> tuple[list[Run], dict[str, list[Run]], dict[str, float], tuple[float, float] | None]:
    """Interleaved first-index rounds: the raw insert's runs, each path's runs, each path's
    index bytes after the last round settled, and the daemon's (RSS, peak RSS) MB then."""
    raws: list[Run] = []
    runs: dict[str, list[Run]] = {p: [] for p in paths}
    sizes: dict[str, float] = {}
    memory = None
    for i in range(rounds):
        order = paths if i % 2 == 0 else paths[::-1]
        raws.append(raw_insert(corpus, folder / "raw", env))
        for path in order:
            copy = folder / f"first-{path}"
            if path == "in-process":
                runs[path].append(first_index(root, copy, env, daemon=False))
                sizes[path] = index_bytes(copy)
            else:
                fresh_copy(root, copy)
                with auto_daemon(copy, env, folder / "tmp-first") as (pid, run, _, _):
                    runs[path].append(run)
                    sizes[path] = index_bytes(copy)
                    memory = daemon_memory(pid)
    return raws, runs, sizes, memory


def _ratio(base: list[float], ours: list[float]) -> float:
    return percentile(base, 0.5) / percentile(ours, 0.5)


def measure_size(mb: int, ns: argparse.Namespace, folder: Path) -> list[str]:
    """The table rows of one size, and the lines under it."""
    root = scale_project(ns.work, mb)
    corpus = corpus_dir(ns.work, mb)
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = bench_env(home, folder / "pycache", NOW)
    env.pop("ADE_DAEMON", None)
    if not ns.semantic:  # the default install: without the extra, search is lexical only
        env["ADE_SEMANTIC"] = "0"
    text = text_bytes(root)
    load = os.getloadavg()
    raws, firsts, sizes, memory = _first_rounds(root, corpus, folder, env, ns.rounds, ns.paths)
    rows = []
    notes = [f"- {mb} MB: {text / 2**20:.0f} MiB of transcripts; raw insert"
             f" {percentile([r.wall for r in raws], 0.5) / 1000:.1f} s"]  # fmt: skip
    for path in ns.paths:
        runs = firsts[path]
        wall = _ratio([r.wall for r in raws], [r.wall for r in runs])
        cpu = _ratio([r.cpu for r in raws], [r.cpu for r in runs])
        rss = max(r.rss_mb for r in runs)
        notes[-1] += (f"; {path} first index {percentile([r.wall for r in runs], 0.5) / 1000:.1f} s,"
                      f" peak RSS {rss:.0f} MB")  # fmt: skip
        row = {"first": f"{wall:.2f} · {cpu:.2f}", "size": f"{sizes[path] / text:.2f}",
               "rss": f"{rss:.0f}"}  # fmt: skip
        rows.append((path, row))
    if memory is not None:
        notes[-1] += (
            f"; the daemon after its first index: RSS {memory[0]:.0f} MB (peak {memory[1]:.0f})"
        )
    if not ns.first_only:
        # The project's own index, built by this tree: one left by an earlier run holds that
        # tree's tables (a 100 MB index from before the recent-prefix bound held 56 documents
        # in ``docs_recent``, so its short prefixes ranked on ``docs_fts``, 3-4x slower).
        for old in (root / ".ade" / "cache").glob("search-index.db*"):
            old.unlink()
        run_process([ade_command(), "search", "timeout", "--json", "--project", str(root),
                     "--no-daemon"], env)  # fmt: skip
        for path, row in rows:
            if path == "in-process":
                with in_process_env(env):
                    row.update(classes(root, corpus, env, ns.runs))
                    row["ryw"] = read_your_writes(root, env, ns.runs, daemon=False)
            else:
                with auto_daemon(root, env, folder / "tmp-default") as (pid, _, conn, denv):
                    row.update(classes(root, corpus, denv, ns.runs, conn))
                    row["ryw"] = read_your_writes(root, denv, ns.runs, daemon=True)
                    after = daemon_memory(pid)
                    notes.append(f"- {mb} MB: the daemon after the query rounds: RSS"
                                 f" {after[0]:.0f} MB (peak {after[1]:.0f})")  # fmt: skip
        if ns.tantivy:
            notes.append(tantivy_line(mb, root, corpus, folder / "tantivy", raws, text, ns.runs))
    end = os.getloadavg()
    notes.append(f"- {mb} MB: load average {load[0]:.1f} before, {end[0]:.1f} after"
                 f" ({os.cpu_count()} CPUs, shared)")  # fmt: skip
    for path, row in rows:
        if "rare/pass" in row:
            ours = " · ".join(row.get(f"{name}/pass", "–") for name in CLASS_NAMES)
            rgs = " · ".join(row.get(f"{name}/rg-pass", "–") for name in CLASS_NAMES)
            notes.append(f"- {mb} MB {path}: p95 / `python -c pass`, ade {ours}; rg {rgs}")
    lines = []
    for path, row in rows:
        p95 = " · ".join(row.get(name, "–") for name in CLASS_NAMES)
        lines.append(f"| {mb} MB | {path} | {row['first']} | {row['size']} | {p95} |"
                     f" {row.get('startup', '–')} | {row.get('ryw', '–')} | {row['rss']} |")  # fmt: skip
    return [*lines, "\x00", *notes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10,100,1000", help="MB of transcripts, comma-separated")
    parser.add_argument("--runs", type=int, default=11, help="interleaved rounds of each query")
    parser.add_argument("--rounds", type=int, default=2, help="first-index rounds")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "ade-scale")
    parser.add_argument("--paths", default="in-process,default")
    parser.add_argument("--first-only", action="store_true", help="first index, size, memory")
    parser.add_argument("--no-tantivy", dest="tantivy", action="store_false")
    parser.add_argument("--semantic", action="store_true", help="with the semantic extra on")
    parser.add_argument("--append", action="store_true", help="write the RESULTS section")
    parser.add_argument("--install", choices=("wheel", "here"), default="wheel",
                        help="time a wheel of this tree in its own venv (what users get), or "
                             "this interpreter's install (an editable one in a checkout)")  # fmt: skip
    ns = parser.parse_args(argv)
    ns.paths = ns.paths.split(",")
    if ns.tantivy:
        try:
            import tantivy  # noqa: F401  # the bench extra
        except ImportError:
            ns.tantivy = False
    ns.work.mkdir(parents=True, exist_ok=True)
    rows, notes = [], []
    with tempfile.TemporaryDirectory(dir=ns.work) as tmp:
        if ns.install == "wheel":
            use_wheel_install(Path(__file__).resolve().parents[1], Path(tmp) / "install")
        for mb in (int(s) for s in ns.sizes.split(",")):
            out = measure_size(mb, ns, Path(tmp) / f"s{mb}")
            cut = out.index("\x00")
            rows += out[:cut]
            notes += out[cut + 1 :]
    classes = " · ".join(CLASS_NAMES)
    table = [
        f"| size | path | first index / raw insert (wall · CPU) | index / text |"
        f" p95 / `rg -c -i -F` ({classes}) | start-up / `python -c pass` |"
        f" after a write / settled | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
    ]
    flags = (" --first-only" if ns.first_only else "") + (
        " --install here" if ns.install == "here" else ""
    )
    command = (f"python -m benchmarks.bench_scale --sizes {ns.sizes} --runs {ns.runs}"
               f" --rounds {ns.rounds}{flags}")  # fmt: skip
    text = "\n".join([*table, "", f"Command: `{command}`", "", *notes]) + "\n"
    print(text)
    if ns.append:
        replace_section(HEADING, f"{HEADING}\n\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
