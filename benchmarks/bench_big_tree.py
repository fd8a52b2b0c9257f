"""A 200,000-file tree answered no slower than ``git grep`` on it (the tree git sees).

Run: ``python -m benchmarks.bench_big_tree [--files 200000] [--runs 7] [--keep DIR]``

Builds (or reuses, with ``--keep``) a git repository of ``--files`` small tracked files in
folders of 500, plus 20 untracked ones, one rare word in a few of them and a common one in every
hundredth. Then times, interleaved (``benchmarks.timing``): the file delegate in this process
(``file_candidates``: listing, every grep pass, path matching, candidates) and ``git grep -I -i
-c`` of the same word as a process, and prints each p50 over git grep's. Ratios, never absolute
figures alone: the machine is shared.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.timing import interleaved, ratios

NOW = datetime(2026, 12, 6, tzinfo=UTC)


def build(root: Path, files: int) -> None:
    if (root / ".git").is_dir():
        return
    root.mkdir(parents=True, exist_ok=True)
    for n in range(files):
        folder = root / f"pkg{n // 500:04}"
        if n % 500 == 0:
            folder.mkdir(exist_ok=True)
        body = f"module {n}\nvalue = {n}\n"
        if n % 100 == 0:
            body += "commonword here\n"
        if n % 40_000 == 7:
            body += "quetzalcoatl rare\n"
        (folder / f"file{n:06}.py").write_text(body)
    for n in range(20):
        (root / f"untracked{n}.txt").write_text("quetzalcoatl untracked\n" if n == 3 else "x\n")
    git = ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@e"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "pkg*"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "tree"], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build the tree here and reuse it")
    args = parser.parse_args()
    from engine.delegates import git_process
    from engine.delegates.context import DelegateContext
    from engine.delegates.file_hits import file_candidates
    from engine.project.locate import open_project
    from engine.project.model import Lane
    from engine.query.plan import build_plan
    from engine.types import SearchQueryArgs

    # Timed whole: on a loaded machine the 5 s bound would cut both runs short at different points.
    git_process.GREP_TIMEOUT_SECONDS = 600.0
    with tempfile.TemporaryDirectory(prefix="ade-big-") as tmp:
        root = (args.keep or Path(tmp) / "tree").resolve()
        build(root, args.files)
        lane = Lane(id="primary", name=root.name, path=root, branch=None, primary=True)
        project = open_project(root)
        for word in ("quetzalcoatl", "commonword"):
            plan = build_plan(SearchQueryArgs(query=word, kinds=("file",)), now=NOW, lanes=[lane])
            ctx = DelegateContext(project, plan, [lane], {})
            found, said = file_candidates(ctx)
            grep = ["git", "-C", str(root), "grep", "-I", "-i", "-c", "-e", word, "--"]
            measured = interleaved(
                {
                    "ade file delegate": lambda ctx=ctx: file_candidates(ctx),
                    "git grep -c": lambda grep=grep: subprocess.run(grep, capture_output=True),
                },
                args.runs,
            )
            over = ratios(measured, "git grep -c")
            print(f"{word} ({len(found)} hits, {args.files:,} files; warnings: {said}):")
            for name, timing in measured.items():
                print(f"  {name}: p50 {timing.median:.0f} ms ({over[name]:.2f}x git grep)")


if __name__ == "__main__":
    main()
