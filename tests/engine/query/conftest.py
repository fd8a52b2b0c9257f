"""One small real project for the query-plan tests: every source holds the same two records.

``A`` and ``B`` are written into each source the plan is read by: a chat (indexed), a chat of
session ``live`` appended after the index caught up (freshness), a lane (its branch), an
artifact (its title) and a file line of the primary lane. A query's reading is then the set of
labels each source finds, and "the same reading in every source" is one set for all of them.
Built once per module (a real git repository with two linked worktrees and a real index).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.project.model import Project
from engine.service import SearchService
from engine.wiring import create_project_service

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

TEXT = {
    "A": "flamingo indexer naïve café connectTimeout",
    "B": "zebra reindex flamingo naive",
}
"""Record A has every word the queries ask for; B shares some, and ``reindex`` is no ``index*``."""

DAY = {"A": "2026-06-01", "B": "2026-06-10"}
"""When each record was made (commit, artifact, message, file mtime): for since:/until:."""

PASTE = " ".join(
    f"the {w} of step{i} and" if i % 3 == 0 else f"{w}{i}"
    for i, w in enumerate(["gateway", "retry", "webhook", "ledger", "refund"] * 12)
)
"""A pasted paragraph (a chat message of session s3): 140 words, 65 distinct ones past the stop words."""

LANE_OF = {"A": "alpha", "B": "beta"}
SESSION_OF = {"A": "s1", "B": "s2"}


def _git(cwd: Path, *args: str, day: str = "2026-05-01") -> None:
    stamp = f"{day}T10:00:00+00:00"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd),
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Ada",
           "GIT_AUTHOR_EMAIL": "ada@example.com", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.com", "GIT_AUTHOR_DATE": stamp,
           "GIT_COMMITTER_DATE": stamp}  # fmt: skip
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _ms(day: str) -> float:
    return datetime.fromisoformat(f"{day}T10:00:00+00:00").timestamp()


def _write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def _session(ade: Path, sid: str, lane: str = "primary") -> None:
    _write_json(ade / "sessions" / f"{sid}.json",
                {"id": sid, "kind": "chat", "title": f"Session {sid}", "laneId": lane,
                 "createdAt": "2026-05-01T09:00:00+00:00",
                 "updatedAt": "2026-05-01T09:00:00+00:00"})  # fmt: skip


def _message(ade: Path, sid: str, seq: int, mid: str, text: str, day: str) -> None:
    line = {"seq": seq, "ts": f"{day}T09:30:00+00:00", "type": "user_message", "id": mid,
            "text": text, "status": "accepted"}  # fmt: skip
    path = ade / "chats" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def _branch(label: str) -> str:
    return "-".join(TEXT[label].split())


@dataclass
class World:
    """The project, its service, and which doc id is which record in each source."""

    project: Project
    service: SearchService
    labels: dict[str, dict[str, str]]
    """source → doc id → record label."""


def build_world(base: Path) -> tuple[Project, dict[str, dict[str, str]]]:
    root = base / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".ade/\n", encoding="utf-8")
    (root / "notes").mkdir()
    for label in TEXT:
        (root / "notes" / f"{label.lower()}.md").write_text(f"{TEXT[label]}\n", encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first")
    for label, lane in LANE_OF.items():
        _git(root, "worktree", "add", "-q", "-b", _branch(label), str(base / "lanes" / lane))
        _git(base / "lanes" / lane, "commit", "-q", "--allow-empty", "-m", "work", day=DAY[label])
    for label in TEXT:
        path = root / "notes" / f"{label.lower()}.md"
        os.utime(path, (_ms(DAY[label]), _ms(DAY[label])))
    ade = root / ".ade"
    for label, sid in SESSION_OF.items():
        _session(ade, sid, LANE_OF[label])
        _message(ade, sid, 1, f"m{label}", TEXT[label], DAY[label])
        _write_json(ade / "artifacts" / f"art{label}.json",
                    {"id": f"art{label}", "title": TEXT[label], "kind": "screenshot",
                     "path": f"shot{label}.png", "laneId": LANE_OF[label], "sessionId": sid,
                     "createdAt": f"{DAY[label]}T10:00:00+00:00"})  # fmt: skip
    _session(ade, "s3")
    _message(ade, "s3", 1, "paste", PASTE, "2026-06-02")
    _session(ade, "live")
    labels = {
        "index": {f"chat:{SESSION_OF[k]}:m{k}": k for k in TEXT},
        "live": {f"chat:live:live{k}": k for k in TEXT},
        "lane": {f"lane:{LANE_OF[k]}": k for k in TEXT},
        "artifact": {f"artifact:art{k}": k for k in TEXT},
        "file": {f"file:notes/{k.lower()}.md:1": k for k in TEXT},
    }
    return open_project(root), labels


def append_live(project: Project) -> None:
    """Session ``live``'s messages, written after the index caught up (not indexed yet)."""
    for seq, label in enumerate(TEXT, 1):
        _message(project.ade_dir, "live", seq, f"live{label}", TEXT[label], DAY[label])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    project, labels = build_world(tmp_path_factory.mktemp("proj"))
    service = create_project_service(
        project, clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    service.catch_up()
    append_live(project)
    yield World(project, service, labels)
    service.dispose()
