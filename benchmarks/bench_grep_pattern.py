"""The file delegate's accent-aware grep pattern: its cost against a fixed string.

Run: ``python -m benchmarks.bench_grep_pattern [--runs N] [--files N]``.

The query plan hands ``git grep`` an extended regex in which every letter matches its accented
forms (``cafe`` finds ``café``, precomposed or decomposed), because a fixed-string search for the
ASCII form cannot find ``naïve``. On the generated 10,000-file repository of ``bench_cli``, per
term: ``git grep -I -i -F`` (the fixed string, what the delegate ran before) and ``git grep -I -E``
with the plan's pattern, both as whole processes, interleaved (``benchmarks.timing``); wall and
CPU (user + sys) medians. ``--files`` makes the generated repository smaller, for a quick check.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from benchmarks.bench_cli import FILE_COUNT, file_repo, pick_terms
from benchmarks.timing import interleaved
from engine.query.match import LineFilter

RUNS = 9


def measure(root: Path, runs: int) -> list[str]:
    env = {"LC_ALL": "C", "PATH": "/usr/bin:/bin"}
    rows = ["| term | fixed wall ms | regex wall ms | fixed CPU ms | regex CPU ms | CPU ratio |",
            "|---|---|---|---|---|---|"]  # fmt: skip
    for term in [*pick_terms()[:4], "naive"]:
        pattern = LineFilter.of_words([term]).grep_pattern()
        base = ["git", "-C", str(root), "grep", "-I", "-n", "-z"]
        jobs = {
            "fixed": [*base, "-i", "-F", "-e", term, "--"],
            "regex": [*base, "-E", "-e", pattern, "--"],
        }
        timing = interleaved(
            {name: lambda a=a: subprocess.run(a, capture_output=True, env=env, check=False)
             for name, a in jobs.items()},
            runs,
        )  # fmt: skip
        fixed, regex = timing["fixed"], timing["regex"]
        rows.append(f"| `{term}` | {fixed.median:.0f} | {regex.median:.0f} | {fixed.cpu_median:.0f}"
                    f" | {regex.cpu_median:.0f} | {regex.cpu_median / fixed.cpu_median:.2f}x |")  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--files", type=int, default=FILE_COUNT, help="files in the generated repo")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grep-") as tmp:
        print("\n".join(measure(file_repo(Path(tmp), args.files), args.runs)))


if __name__ == "__main__":
    main()
