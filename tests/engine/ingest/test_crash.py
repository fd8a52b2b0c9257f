"""Crash safety and convergence with real processes (RELIABILITY 2, 12, 13).

A writer appends chat and terminal transcripts in random split sizes (mid-UTF-8, mid-escape)
while separate ingesting processes run on the same index; they are ``kill -9``-ed at random
moments and restarted. Afterwards the index must equal a one-shot ingestion of the final files:
every line once, no gaps, no duplicates. Waits are bounded deadlines on subprocesses only.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from engine.index.db import connect
from engine.project.locate import open_project
from engine.query.source_text import document_texts
from engine.wiring import create_project_service

WORKER = Path(__file__).with_name("ingest_worker.py")
REPO = Path(__file__).resolve().parents[3]
DEADLINE_S = 60.0

KILLS = 8
"""Enough kills to land in every phase of a pass (read, plan, commit) across a run."""


def _session(root: Path, sid: str, kind: str, ended: bool = False) -> None:
    folder = root / ".ade" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    record = {"id": sid, "kind": kind, "title": f"{kind} {sid}",
              "createdAt": "2026-06-01T09:00:00+00:00",
              "endedAt": "2026-06-01T10:00:00+00:00" if ended else None}  # fmt: skip
    (folder / f"{sid}.json").write_text(json.dumps(record), encoding="utf-8")


def _streams(rng: random.Random) -> tuple[bytes, bytes]:
    chat = b"".join(
        json.dumps({"seq": i, "type": "user_message", "id": f"m{i}", "status": "accepted",
                    "text": f"message {i} café 日本 ✓ {rng.random()}"},
                   ensure_ascii=False).encode() + b"\n"
        for i in range(1500)
    )  # fmt: skip
    term = b"".join(
        f"\x1b[3{i % 8}mline {i} naïve 日本\x1b[0m end{i}\r\n".encode() for i in range(3000)
    )
    return chat, term


def _write_in_pieces(path: Path, data: bytes, rng: random.Random, stop: threading.Event) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pos = 0
    with path.open("ab") as handle:
        while pos < len(data) and not stop.is_set():
            size = rng.randint(1, 700)
            handle.write(data[pos : pos + size])
            handle.flush()
            pos += size
            time.sleep(0.01)  # pacing the writer, not waiting for anything


def _spawn(root: Path, mode: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(WORKER), str(root), mode], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    return proc


def _snapshot(index: Path) -> tuple[dict[str, tuple[str, str]], Counter[str]]:
    """Chat docs by id (title, body) and the multiset of terminal lines."""
    conn = connect(index)
    chat: dict[str, tuple[str, str]] = {}
    lines: Counter[str] = Counter()
    rows = conn.execute("SELECT doc_id, kind, title FROM docs").fetchall()
    texts = document_texts(conn, open_project(index.parents[2]), [r[0] for r in rows])
    for doc_id, kind, title in rows:
        text = texts[doc_id]
        if kind == "chat":
            chat[doc_id] = (title, text)
        elif "@" in doc_id:
            lines.update(line for line in text.splitlines() if line.strip())
    conn.close()
    return chat, lines


def _one_shot(root: Path, tmp: Path) -> tuple[dict[str, tuple[str, str]], Counter[str]]:
    clean = tmp / "oneshot"
    shutil.copytree(root / ".ade", clean / ".ade", ignore=shutil.ignore_patterns("cache"))
    service = create_project_service(open_project(clean), start_worker=False)
    service.catch_up()
    service.dispose()
    return _snapshot(clean / ".ade" / "cache" / "search-index.db")


def _run_writers(root: Path, seed: int) -> tuple[list[threading.Thread], threading.Event]:
    rng = random.Random(seed)
    chat, term = _streams(rng)
    _session(root, "c1", "chat")
    _session(root, "t1", "terminal")
    stop = threading.Event()
    threads = [
        threading.Thread(target=_write_in_pieces, args=(root / ".ade/chats/c1.jsonl", chat,
                                                         random.Random(seed + 1), stop)),
        threading.Thread(target=_write_in_pieces, args=(root / ".ade/terminals/t1.log", term,
                                                         random.Random(seed + 2), stop)),
    ]  # fmt: skip
    for t in threads:
        t.start()
    return threads, stop


def _finish(root: Path, tmp: Path, threads: list[threading.Thread]) -> None:
    for t in threads:
        t.join(DEADLINE_S)
    _session(root, "t1", "terminal", ended=True)
    final = _spawn(root, "once")
    assert final.wait(DEADLINE_S) == 0, final.stderr.read() if final.stderr else ""
    got = _snapshot(root / ".ade" / "cache" / "search-index.db")
    want = _one_shot(root, tmp)
    assert got[0] == want[0]
    assert got[1] == want[1]
    assert len(want[0]) == 1501  # 1500 messages + the session doc
    assert sum(want[1].values()) >= 3000


@pytest.mark.slow
def test_kill_9_repeatedly_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    threads, stop = _run_writers(root, seed=7)
    rng = random.Random(11)
    try:
        for _ in range(KILLS):
            proc = _spawn(root, "loop")
            assert proc.stdout is not None
            proc.stdout.readline()  # "ready": imports done, the index is open
            time.sleep(rng.uniform(0.05, 0.4))  # let it ingest for a random while, then kill
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            proc.send_signal(signal.SIGKILL)
            proc.wait(DEADLINE_S)
    except BaseException:
        stop.set()
        raise
    _finish(root, tmp_path, threads)


@pytest.mark.slow
@pytest.mark.parametrize("second", ["loop", "rebuild"])
def test_two_processes_converge(tmp_path: Path, second: str) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    threads, _stop = _run_writers(root, seed=3)
    procs = [_spawn(root, "loop"), _spawn(root, second)]
    try:
        for t in threads:
            t.join(DEADLINE_S)
        for p in procs:
            assert p.poll() is None, p.stderr.read() if p.stderr else ""
    finally:
        for p in procs:
            p.send_signal(signal.SIGKILL)
            p.wait(DEADLINE_S)
    _finish(root, tmp_path, threads)
