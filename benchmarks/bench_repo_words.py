"""Words of a real repository, as a user searches them: the whole ``ade search <word> --json``
process in process (``--no-daemon``) and on the default path (the auto-started daemon, settled),
against ``rg -c -i -F <word>`` and ``python -c pass``, interleaved in the same rounds.

The scale series (``benchmarks.bench_scale``) generates transcripts in a repository with no
files; a user's repository has files, and a common word's file lines (git grep's, then matched,
scored and ranked in Python) are most of such a query (journal 2026-12-07-file-lines.md).

Run: ``python -m benchmarks.bench_repo_words --repo /tmp/git --words the,strbuf_addf,preview``
(a clone of a public repository, e.g. git.git or junegunn/fzf; never commit it). The first
search indexes the repository when it has no index (its time is not counted). ``HOME`` and the
runtime folder are temporary; the semantic extra is off (``ADE_SEMANTIC=0``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from benchmarks.scale_class import auto_daemon
from benchmarks.scale_paths import ade_command, python_command, use_wheel_install
from benchmarks.timing import interleaved


def _quiet(cmd: list[str], env: dict[str, str], cwd: Path) -> None:
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                   check=False)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--words", default="the", help="comma-separated words")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--install", choices=("wheel", "here"), default="wheel",
                        help="time a wheel of this tree in its own venv (what users get), or "
                             "this interpreter's install")  # fmt: skip
    args = parser.parse_args()
    root = args.repo.resolve()
    with tempfile.TemporaryDirectory(prefix="ade-repo-words-") as temporary:
        if args.install == "wheel":
            use_wheel_install(Path(__file__).resolve().parents[1], Path(temporary) / "install")
        home = Path(temporary) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "ADE_SEMANTIC": "0"}
        # The daemon is found through the block's own TMPDIR (auto_daemon): a runtime folder of
        # the caller's would send the searches to another socket than the one waited for.
        env.pop("ADE_RUNTIME_DIR", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as a user has it
        with auto_daemon(root, env, Path(temporary) / "run") as (_, _, _, daemon_env):
            print(f"repo {root}, {args.runs} rounds, {args.install} install; p50 / p95 ms;"
                  " ratios of p95")  # fmt: skip
            print("| word | rg | pass | in process | default | in process / rg | default / rg "
                  "| default / pass |")  # fmt: skip
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            for word in args.words.split(","):
                # Run in the repository without --project, as a user does: the project is found
                # from the working folder (engine.project.locate).
                search = [ade_command(), "search", word, "--json"]
                jobs = {
                    "rg": lambda w=word: _quiet(["rg", "-c", "-i", "-F", "--", w], env, root),
                    "pass": lambda: _quiet([python_command(), "-c", "pass"], env, root),
                    "in process": lambda s=search: _quiet([*s, "--no-daemon"], env, root),
                    "default": lambda s=search: _quiet(s, daemon_env, root),
                }
                t = interleaved(jobs, args.runs)
                cells = [f"{t[n].median:.0f} / {t[n].p95:.0f}" for n in jobs]
                print(f"| {word} | " + " | ".join(cells)
                      + f" | {t['in process'].p95 / t['rg'].p95:.1f}"
                      f" | {t['default'].p95 / t['rg'].p95:.1f}"
                      f" | {t['default'].p95 / t['pass'].p95:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
