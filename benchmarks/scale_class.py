"""Query classes, the auto-started daemon, read-your-writes and Tantivy of the scale series
(``benchmarks.bench_scale``; the rules of each figure are in its module docstring)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import statistics
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from benchmarks.cli_classes import _run, class_queries, one_shot_listing, scan_term
from benchmarks.cli_default_path import daemons_in, stop_daemons, wait_listening, wait_settled
from benchmarks.scale_paths import (
    Run,
    ade_command,
    append_note,
    python_command,
    run_process,
    search_finds,
)
from benchmarks.timing import interleaved, percentile

CLASSES = {
    "rare": "rare term",
    "common": "very common term",
    "prefix": "one-term prefix",
    "two-term": "two-term prefix",
    "phrase": "phrase",
}
"""The table's short names of ``bench_index.query_classes``'s classes."""

CLASS_NAMES = tuple(CLASSES)


@contextlib.contextmanager
def in_process_env(env: Mapping[str, str]) -> Iterator[None]:
    """This process's environment is ``env`` for the block (the in-process runs see the same
    HOME as the processes)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def auto_daemon(
    root: Path, env: dict[str, str], temporary: Path
) -> Iterator[tuple[int, Run, Any, dict[str, str]]]:
    """The default path on ``root``: the first ``ade search`` (answers in its process, a first
    index when there is no index, then starts the daemon), the second (the daemon opens the
    project), the daemon settled. Yields its pid, the first search's run, a connection to it
    and the environment that finds it (``TMPDIR`` the block's own: no other daemon is used)."""
    from engine.rpc.connection import open_connection

    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    env = {**env, "TMPDIR": str(temporary)}
    argv = [ade_command(), "search", "timeout", "--json", "--project", str(root)]
    connection = None
    try:
        first = run_process(argv, env)
        wait_listening(temporary / f"ade-{os.getuid()}" / "daemon.sock")
        _run(argv, env)
        connection = open_connection(env=env)
        assert connection is not None, "the auto-started daemon does not answer"
        wait_settled(connection, root)
        pids = daemons_in(f"TMPDIR={temporary}")
        yield pids[0], first, connection, env
    finally:
        if connection is not None:
            connection.close()
        stop_daemons(f"TMPDIR={temporary}")
        shutil.rmtree(temporary, ignore_errors=True)


def classes(
    root: Path, corpus: Path, env: Mapping[str, str], runs: int, connection: Any = None
) -> dict[str, str]:
    """p95 of a whole ``ade search`` over ``rg``'s per class (and each over ``python -c
    pass``'s: keys ``<class>/pass``, ``<class>/rg-pass``), and the start-up ratio (rare class). ``connection``: the default path (the process finds the daemon through ``env``;
    its own work is the daemon's request), else in process (``--no-daemon``; its own work is
    ``main(argv)`` in this process)."""
    from engine.rpc.connection import CALL_TIMEOUT_S
    from tui.cli import main

    picked = class_queries(root, corpus / "vocabulary.json")
    rg = shutil.which("rg") or "rg"
    files = [str(p) for p in sorted((root / ".ade").glob("[ct]*s/*")) if p.is_file()]
    out: dict[str, str] = {}
    for short, name in CLASSES.items():
        queries = picked[name]
        turn = {"ade": 0, "own": 0, "rg": 0}

        def nxt(job: str, queries: list[str] = queries, turn: dict[str, int] = turn) -> str:
            turn[job] += 1
            return queries[(turn[job] - 1) % len(queries)]

        def argv(query: str) -> list[str]:
            flag = [] if connection is not None else ["--no-daemon"]
            return ["search", *query.split(), "--json", "--project", str(root), *flag]

        def own() -> None:
            if connection is not None:
                params = {"query": nxt("own"), "limit": 20, "projectRoot": str(root)}
                connection.call("search.query", params, CALL_TIMEOUT_S)
                return
            one_shot_listing()
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                main(argv(nxt("own")))

        jobs: dict[str, Callable[[], object]] = {
            "pass": lambda: _run([python_command(), "-c", "pass"], env),
            "ade": lambda: _run([ade_command(), *argv(nxt("ade"))], env),
            "own": own,
            "rg": lambda: _run([rg, "-L", "-c", "-i", "-F", scan_term(nxt("rg")), *files], env),
        }
        t = interleaved(jobs, runs)
        out[short] = f"{t['ade'].p95 / t['rg'].p95:.2f}"
        # Point 4's other bound: where rg answers before any Python process starts, ade's
        # whole process within 1.5x of ``python -c pass`` (p95 of each, the same rounds).
        out[f"{short}/pass"] = f"{t['ade'].p95 / t['pass'].p95:.2f}"
        out[f"{short}/rg-pass"] = f"{t['rg'].p95 / t['pass'].p95:.2f}"
        if short == "rare":
            overhead = t["ade"].median - t["own"].median
            out["startup"] = f"{overhead / t['pass'].median:.2f}"
    return out


def read_your_writes(root: Path, env: Mapping[str, str], runs: int, daemon: bool) -> str:
    """A search for a word appended just before it against one for a word already indexed,
    interleaved: the median ratio, and how many of the first answers held the new word."""
    settled, fresh, found = [], [], 0
    word = "zqnote0000x"
    append_note(root, word)
    search_finds(root, word, env, daemon)  # indexed: the first settled search's word
    for i in range(1, runs + 1):
        run, _ = search_finds(root, word, env, daemon)
        settled.append(run.wall)
        word = f"zqnote{os.getpid() % 1000:03d}{i:04d}x"
        append_note(root, word)
        run, held = search_finds(root, word, env, daemon)
        fresh.append(run.wall)
        found += held
    ratio = statistics.median(fresh) / statistics.median(settled)
    return f"{ratio:.2f} ({found}/{runs} found)"


def tantivy_line(
    mb: int, root: Path, corpus: Path, folder: Path, raws: list[Run], text: int, runs: int
) -> str:
    """Tantivy (one thread, body stored) over the sanitized documents, beside ade's index."""
    from benchmarks.bench_index import load_docs
    from benchmarks.bench_peers import _bare
    from benchmarks.peers import Ade, Spec, TantivyPeer

    docs = load_docs(corpus)
    peer = TantivyPeer(threads=1, stored=True)
    seconds = peer.build(folder, docs)
    del docs
    size = peer.size(folder)
    peer.open(folder)
    ade = Ade()
    ade.open(root)
    picked = class_queries(root, corpus / "vocabulary.json")
    ratios = []
    try:
        for name in CLASSES.values():
            specs = [Spec(q, phrase=tuple(q.strip('"').split())) if q.startswith('"') else _bare(q)
                     for q in picked[name]]  # fmt: skip
            jobs: dict[str, Callable[[], object]] = {}
            for i, spec in enumerate(specs):
                for side, who in (("t", peer), ("a", ade)):
                    job = who.query(spec)
                    if job is not None:
                        jobs[f"{side}{i}"] = job
            t = interleaved(jobs, runs)
            tan = [w for k, v in t.items() if k[0] == "t" for w in v.wall]
            ours = [w for k, v in t.items() if k[0] == "a" for w in v.wall]
            ratios.append(f"{percentile(ours, 0.5) / percentile(tan, 0.5):.1f}")
    finally:
        ade.close()
        peer.close()
    raw = statistics.median(r.wall for r in raws) / 1000
    return (f"- {mb} MB Tantivy (1 thread, body stored): build {seconds:.1f} s (raw insert"
            f" {raw:.1f} s: {raw / seconds:.2f}x), {size / text:.2f}x the text; ade in-process"
            f" p50 / Tantivy p50 ({' · '.join(CLASS_NAMES)}): {' · '.join(ratios)}")  # fmt: skip
