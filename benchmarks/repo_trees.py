"""Two checkouts side by side on a real repository: the same in-process ``ade search`` from each.

Run: ``python -m benchmarks.repo_trees --before /tmp/old --after . --repo /tmp/git --word the``
(each tree on ``PYTHONPATH`` of this interpreter, its compiled parts built in place:
``python setup.py build_ext --inplace`` in it). Each tree searches its own copy of the repository
(``cp -a``: its own ``.ade`` index) with its own ``HOME`` — one index and one ``HOME`` shared by
two versions would have each re-check what the other wrote — with the daemon off, from the
copy's folder without ``--project``, interleaved over ``--runs`` rounds (two untimed runs of
each first: the first indexes the copy when its index is of another version). Two runs on two
installs or at two loads do not compare (benchmarks/RESULTS.md, "Words of real repositories").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import interleaved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--word", default="the")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="ade-repo-trees-") as temporary:
        places = {}
        for name in trees:
            copy, home = Path(temporary) / name / "repo", Path(temporary) / name / "home"
            home.mkdir(parents=True)
            subprocess.run(["cp", "-a", str(args.repo.resolve()), str(copy)], check=True)
            places[name] = (copy, home)

        def run(name: str) -> None:
            copy, home = places[name]
            env = {**os.environ, "HOME": str(home), "ADE_SEMANTIC": "0",
                   "PYTHONPATH": str(trees[name]), "ADE_DAEMON": "off"}  # fmt: skip
            env.pop("ADE_RUNTIME_DIR", None)
            command = [sys.executable, "-c", "from tui.cli import main_entry; main_entry()",
                       "search", args.word, "--json"]  # fmt: skip
            subprocess.run(command, cwd=copy, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)  # fmt: skip

        for name in trees:
            run(name)
            run(name)
        timings = interleaved({name: (lambda n=name: run(n)) for name in trees}, args.runs)
    for name, timing in timings.items():
        print(f"{args.word} {name}: p50 {timing.median:.0f} ms, CPU p50"
              f" {statistics.median(timing.cpu):.0f} ms ({trees[name]})")  # fmt: skip


if __name__ == "__main__":
    main()
