"""Projects and whole-process measurements of the scale series (``benchmarks.bench_scale``).

A size is the generated corpus (``benchmarks.corpus``, its fixed seed) of that many MB, turned
into a project as ``bench_cli.corpus_project`` does (transcripts hard-linked). Each first index
runs in a fresh copy of the project (no index), as a whole ``ade search`` process:

* in process: ``ade search <term> --json --no-daemon``;
* the default path: ``ade search <term> --json`` with a runtime folder of its own and no daemon
  (the search indexes and answers in its process, then starts the daemon, as a user's first
  search does); the daemon is waited for until it has settled and its memory is read.

The baseline of a first index is a raw FTS5 insert (``bench_index.build_raw``) of the same
sanitized text in a process of its own, only the insert timed. Wall and CPU come from the
process's own resource usage (``os.wait4``), peak RSS too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bench_cli import corpus_project
from benchmarks.corpus import generate
from benchmarks.timing import Stopwatch

RYW_SESSION = "ryw-notes"
"""The chat session the read-your-writes rounds append to (the corpus's files are hard links:
they are never written)."""


def corpus_dir(work: Path, mb: int) -> Path:
    return work / f"c{mb}"


def scale_project(work: Path, mb: int) -> Path:
    """The project of size ``mb`` under ``work`` (generated and linked once)."""
    base = corpus_dir(work, mb)
    generate(mb, out=base)
    root = corpus_project(base=base)
    ade = root / ".ade"
    chat = ade / "chats" / f"{RYW_SESSION}.jsonl"
    if not chat.exists():
        chat.write_text(_chat_line(1, "the first note of this session") + "\n")
        stamp = "2026-05-30T10:00:00+00:00"
        meta = {"id": RYW_SESSION, "kind": "chat", "title": "notes", "laneId": None,
                "createdAt": stamp, "updatedAt": stamp, "endedAt": None}  # fmt: skip
        (ade / "sessions" / f"{RYW_SESSION}.json").write_text(json.dumps(meta))
    return root


def _chat_line(seq: int, text: str) -> str:
    return json.dumps({"seq": seq, "ts": "2026-05-30T10:00:00+00:00", "type": "user_message",
                       "id": f"m{seq}", "text": text, "status": "accepted"})  # fmt: skip


def transcripts(root: Path) -> list[Path]:
    ade = root / ".ade"
    return sorted([*(ade / "chats").glob("*.jsonl"), *(ade / "terminals").glob("*.log")])


def text_bytes(root: Path) -> int:
    """Bytes of the raw transcripts the project holds (what a person has on disk)."""
    return sum(p.stat().st_size for p in transcripts(root))


def index_bytes(root: Path) -> int:
    """Bytes of the index on disk: the database, its ``-wal`` and ``-shm``."""
    cache = root / ".ade" / "cache"
    return sum(p.stat().st_size for p in cache.glob("search-index.db*") if p.is_file())


def fresh_copy(root: Path, dest: Path) -> Path:
    """``root`` without its index: git folder copied, transcripts and session files linked."""
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(root / ".git", dest / ".git")
    for part in ("chats", "terminals", "sessions"):
        shutil.copytree(root / ".ade" / part, dest / ".ade" / part, copy_function=os.link)
    return dest


@dataclass(frozen=True)
class Run:
    """One whole process: wall and CPU (user + sys) ms, peak RSS MB."""

    wall: float
    cpu: float
    rss_mb: float


def run_process(cmd: list[str], env: Mapping[str, str]) -> Run:
    """Run ``cmd`` to its end, reading its stdout as a caller would; its own resource usage."""
    with Stopwatch() as watch:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
    wall = watch.ms
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} exited {proc.returncode}")
    return Run(wall, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss / 1024)


_INSTALLED_BIN: list[Path] = []
"""The ``bin`` folder of the install the timed processes run (``use_wheel_install``); empty: this
interpreter's own (the repository's venv, an editable install)."""


def use_wheel_install(tree: Path, folder: Path) -> Path:
    """Build ``tree``'s wheel and install it with its dependencies into a fresh venv under
    ``folder``; ``ade_command`` and ``python_command`` then name that venv's. What a user gets
    (``pip install .``): an editable install's finder, run by ``site`` at every start, imports
    ``pathlib``, ``re`` and ``urllib.parse``, which makes ``python -c pass`` ~18 ms instead of
    ~9 here and hides a client's own imports (journal 2026-12-07-lean-client.md)."""
    wheels, venv = folder / "wheel", folder / "venv"
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(tree)], check=True,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    built = sorted(wheels.glob("ade_search-*.whl"))
    subprocess.run([str(venv / "bin" / "python"), *pip[1:], "install", str(built[-1])],
                   check=True, stderr=subprocess.DEVNULL)  # fmt: skip
    _INSTALLED_BIN[:] = [venv / "bin"]
    return venv / "bin"


def ade_command() -> str:
    """The ``ade`` of the install the timed processes run."""
    if _INSTALLED_BIN:
        return str(_INSTALLED_BIN[0] / "ade")
    return str(Path(sys.executable).with_name("ade"))


def python_command() -> str:
    """The interpreter of that install: its ``python -c pass`` is the start-up baseline."""
    if _INSTALLED_BIN:
        return str(_INSTALLED_BIN[0] / "python")
    return sys.executable


def raw_insert(corpus: Path, folder: Path, env: Mapping[str, str]) -> Run:
    """The baseline: a process loads the corpus's sanitized documents (untimed) and inserts
    their bodies into ``fts5(body)``; the insert's wall and CPU, the process's peak RSS."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    cmd = [sys.executable, "-m", "benchmarks.scale_paths", "raw", str(corpus), str(folder)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    out = json.loads(proc.stdout)
    return Run(out["wall"], out["cpu"], out["rss_mb"])


def _raw_main(corpus: Path, folder: Path) -> None:
    import resource

    from benchmarks.bench_index import build_raw, load_docs

    docs = load_docs(corpus)
    cpu = time.process_time()
    wall = build_raw(folder / "raw.db", docs)
    cpu = time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"wall": wall * 1000, "cpu": cpu * 1000, "rss_mb": rss}))


def first_index(root: Path, copy: Path, env: Mapping[str, str], daemon: bool) -> Run:
    """A first index of a fresh copy of ``root`` by one ``ade search`` (``daemon``: the default
    path, which starts the daemon once it has answered)."""
    fresh_copy(root, copy)
    cmd = [ade_command(), "search", "timeout", "--json", "--project", str(copy)]
    return run_process(cmd if daemon else [*cmd, "--no-daemon"], env)


def daemon_memory(pid: int) -> tuple[float, float]:
    """A daemon's resident and peak resident MB (``VmRSS``, ``VmHWM``)."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def append_note(root: Path, word: str) -> None:
    """Append a message holding ``word`` to the read-your-writes session (as an agent does)."""
    chat = root / ".ade" / "chats" / f"{RYW_SESSION}.jsonl"
    seq = sum(1 for _ in chat.open(encoding="utf-8")) + 1
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(_chat_line(seq, f"a note about {word} written just now") + "\n")


def search_finds(root: Path, word: str, env: Mapping[str, str], daemon: bool) -> tuple[Run, bool]:
    """One whole ``ade search <word> --json`` process, and whether its answer holds ``word``."""
    cmd = [ade_command(), "search", word, "--json", "--project", str(root)]
    if not daemon:
        cmd.append("--no-daemon")
    with Stopwatch() as watch:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    return Run(watch.ms, 0.0, 0.0), word in proc.stdout


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="the raw FTS5 baseline (run by bench_scale)")
    parser.add_argument("what", choices=["raw"])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("folder", type=Path)
    ns = parser.parse_args()
    _raw_main(ns.corpus, ns.folder)
