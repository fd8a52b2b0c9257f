"""Honest file search on a real repository: reachability, ranking, truncation, time.

Run: ``python -m benchmarks.bench_file_search --repo /tmp/gitgit --term strbuf_addf``
(a clone of git.git: ``git clone https://github.com/git/git /tmp/gitgit``; never commit it).

* **truth**: ``git grep -I -i -F -c <term>`` — matching lines and files.
* **reachable**: every page of ``kind:file <term>`` through ``run_query`` (the service's merge,
  ranking and paging; an empty index so only the file delegate answers): distinct lines shown,
  whether the defining file appears and at which rank, ``resultsTruncated`` and the warnings.
* **time**: p50 of the file delegate in-process (``file_candidates``) and as a whole process
  (``python -c`` running it once) against ``git grep -c <term>`` as a process, interleaved
  (``benchmarks.timing``), and each p50 over git grep's.
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.timing import Timing, interleaved, ratios

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)

PROCESS_PROBE = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from engine.delegates.context import DelegateContext
from engine.delegates.file_hits import file_candidates
from engine.project.locate import open_project
from engine.project.model import Lane
from engine.query.plan import build_plan
from engine.types import SearchQueryArgs
root = Path(sys.argv[1])
lane = Lane(id="primary", name=root.name, path=root, branch=None, primary=True)
plan = build_plan(SearchQueryArgs(query=sys.argv[2], kinds=("file",)), now=datetime.now(UTC),
                  lanes=[lane])
file_candidates(DelegateContext(open_project(root), plan, [lane], {}))
"""


def truth(root: Path, term: str) -> tuple[int, int]:
    """(matching lines, matching files) as git grep counts them."""
    out = subprocess.run(["git", "-C", str(root), "grep", "-I", "-i", "-F", "-c", "-e", term, "--"],
                         capture_output=True, text=True, check=False).stdout  # fmt: skip
    counts = [int(line.rsplit(":", 1)[1]) for line in out.splitlines() if ":" in line]
    return sum(counts), len(counts)


def reachable(root: Path, term: str, defining: str) -> dict[str, object]:
    """Page through ``kind:file <term>`` and report what a user can reach."""
    from engine.delegates.gather import delegated_for_args
    from engine.index.db import connect, open_index
    from engine.project.locate import open_project
    from engine.project.model import Lane
    from engine.query.run import run_query
    from engine.types import SearchQueryArgs

    project = open_project(root)
    lanes = [Lane(id="primary", name=root.name, path=root, branch=None, primary=True)]
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(open_index(Path(tmp) / "index.db").path)
        lines: list[tuple[str, int]] = []
        first_rank, rank, truncated, cursor = None, 0, False, None
        warnings: list[str] = []
        while True:
            args = SearchQueryArgs(query=f"kind:file {term}", limit=500, cursor=cursor)
            extras, said = delegated_for_args(project, args, NOW, lanes)
            result = run_query(conn, args, project=project, now=NOW, lanes=lanes,
                               extra_candidates=extras)  # fmt: skip
            truncated = truncated or result.results_truncated
            warnings = warnings or said
            for item in result.items:
                rank += 1
                path, _, line = (item.anchor or "").rpartition(":")
                if line.isdigit():
                    lines.append((path, int(line)))
                if first_rank is None and (item.anchor or "").startswith(f"{defining}:"):
                    first_rank = rank
            cursor = result.next_cursor
            if cursor is None:
                break
        conn.close()
    in_file_order = all(a[1] < b[1] for a, b in itertools.pairwise(lines) if a[0] == b[0])
    return {"lines": len(set(lines)), "files": len({p for p, _ in lines}),
            "first_rank_of_defining_file": first_rank, "results_truncated": truncated,
            "warnings": warnings, "line_numbers_ascending_within_a_file": in_file_order}  # fmt: skip


def timings(root: Path, term: str, runs: int) -> dict[str, Timing]:
    from engine.delegates.context import DelegateContext
    from engine.delegates.file_hits import file_candidates
    from engine.project.locate import open_project
    from engine.project.model import Lane
    from engine.query.plan import build_plan
    from engine.types import SearchQueryArgs

    lane = Lane(id="primary", name=root.name, path=root, branch=None, primary=True)
    plan = build_plan(SearchQueryArgs(query=term, kinds=("file",)), now=NOW, lanes=[lane])
    ctx = DelegateContext(open_project(root), plan, [lane], {})
    grep = ["git", "-C", str(root), "grep", "-c", "-e", term, "--"]
    probe = [sys.executable, "-c", PROCESS_PROBE, str(root), term]
    return interleaved(
        {
            "delegate in-process": lambda: file_candidates(ctx),
            "delegate process": lambda: subprocess.run(probe, capture_output=True, check=True),
            "git grep -c process": lambda: subprocess.run(grep, capture_output=True, check=False),
        },
        runs,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--term", default="strbuf_addf")
    parser.add_argument("--defining", default="strbuf.c", help="file that defines the term")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    root = args.repo.resolve()
    lines, files = truth(root, args.term)
    print(f"git grep: {lines} lines in {files} files")
    print(reachable(root, args.term, args.defining))
    measured = timings(root, args.term, args.runs)
    over_grep = ratios(measured, "git grep -c process")
    for name, timing in measured.items():
        print(f"{name}: p50 {timing.median:.1f} ms ({over_grep[name]:.2f}x git grep)")


if __name__ == "__main__":
    main()
