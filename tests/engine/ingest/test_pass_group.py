"""A first index commits several transcript passes per transaction (the first-index budget, pass_group).

Every check reads the index through a connection of its own, so it sees what is committed,
never the writer's open transaction. Groups are driven by the queue and by counts: the time
bound is lifted (``WriteTuning.group_seconds``) so that no assertion depends on the machine's speed.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.index.db import connect
from engine.index.tuning import WriteTuning
from engine.project.model import Project
from engine.service import SearchService

SESSIONS = [f"s{i}" for i in range(7)]
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def tuning() -> WriteTuning:
    return WriteTuning(group_seconds=math.inf)


def _groups_of(passes: int) -> pytest.MarkDecorator:
    """Groups of ``passes`` whether or not a planning worker runs (these tests run none)."""
    tuning = WriteTuning(group_passes=passes, group_passes_alone=passes, group_seconds=math.inf)
    return pytest.mark.parametrize("tuning", [tuning])


def _sessions(writer, count: int = len(SESSIONS)) -> list[str]:
    for sid in SESSIONS[:count]:
        writer.session(sid)
        writer.chat(sid, "user_message", id=f"u-{sid}", text=f"word{sid}", status="accepted")
    return SESSIONS[:count]


def _committed(project: Project) -> set[str]:
    """Sessions whose message and cursor another connection sees."""
    conn = connect(project.index_path)
    try:
        ids = {str(r[0]) for r in conn.execute("SELECT doc_id FROM docs")}
        keys = {str(r[0]) for r in conn.execute("SELECT key FROM sources WHERE cursor > 0")}
    finally:
        conn.close()
    with_docs = {sid for sid in SESSIONS if f"chat:{sid}:u-{sid}" in ids}
    with_cursor = {sid for sid in SESSIONS if f"chat:{sid}" in keys}
    assert with_docs == with_cursor  # docs and cursors commit together
    return with_docs


def _drain_stepwise(service: SearchService, project: Project, between=None) -> list[set[str]]:
    """Run the queued chat entries one by one inside one first-index scope (as ``drain``
    does), recording what is committed after each."""
    drainer, seen = service.drainer, []
    with drainer.lock, drainer.deferring_recent():
        while (entry := service.queue.pop_next(ignore_due=True)) is not None:
            drainer.run(entry)
            seen.append(_committed(project))
            if between is not None:
                between(entry)
    return seen


def _queue(service: SearchService, sids: list[str]) -> None:
    for sid in sids:
        service.queue.add("chat", sid, delay=0.0)


@_groups_of(3)
def test_a_first_index_commits_its_passes_in_groups(service, project, writer):
    sids = _sessions(writer)
    _queue(service, sids)
    seen = _drain_stepwise(service, project)
    assert [len(s) for s in seen] == [0, 0, 0, 3, 3, 3, 6]
    assert seen[3] == {"s0", "s1", "s2"}
    assert _committed(project) == set(sids)  # the last group commits as the scope ends


@pytest.mark.parametrize("tuning", [WriteTuning(group_passes=2, group_passes_alone=4,
                                                  group_seconds=math.inf)])  # fmt: skip
def test_without_a_worker_a_group_holds_group_passes_alone(service, project, writer):
    """Without a planning worker (these tests start none) a group holds ``group_passes_alone``
    passes: fewer groups, fewer ``docs_fts`` segments for the end to merge."""
    sids = _sessions(writer)
    _queue(service, sids)
    seen = _drain_stepwise(service, project)
    assert [len(s) for s in seen] == [0, 0, 0, 0, 4, 4, 4]
    assert _committed(project) == set(sids)


def test_a_group_beside_a_planning_worker_holds_group_passes(tmp_path: Path) -> None:
    """While a worker plans ahead, a group ends after ``group_passes`` (its lookahead covers
    that many); alone, after ``group_passes_alone``."""
    from engine.index.writer import IndexWriter
    from engine.ingest.pass_group import PassGroup

    tuning = WriteTuning(group_passes=2, group_passes_alone=3, group_seconds=math.inf)
    group = PassGroup(IndexWriter(tmp_path / "index.db", tuning))
    group.begin(live_adds=0)
    admitted = {True: 0, False: 0}
    for worker in (True, False):
        group.entries = []
        while group.admits("chat", 0, worker=worker):
            group.joined(("chat", f"s{len(group.entries)}"))
            admitted[worker] += 1
    assert admitted == {True: 2, False: 3}
    assert not group.admits("history", 0, worker=False)  # only transcript passes join


@_groups_of(8)
def test_a_queued_live_entry_ends_the_group(service, project, writer):
    sids = _sessions(writer)
    _queue(service, sids)

    def live(entry: tuple[str, str]) -> None:
        if entry == ("chat", "s1"):
            service.notify_chat_event("s5")  # queued already: no new entry, the group goes on
        if entry == ("chat", "s2"):
            writer.session("live")
            writer.chat("live", "user_message", id="u-live", text="now", status="accepted")
            service.notify_chat_event("live")

    seen = _drain_stepwise(service, project, between=live)
    # s0-s2 were one group; the live entry ended it before s3, which began the next one.
    assert [len(s) for s in seen[:4]] == [0, 0, 0, 3]
    assert seen[3] == {"s0", "s1", "s2"}
    assert seen[-1] == {"s0", "s1", "s2"}  # s3..s6 and the live entry: one group, still open
    assert _committed(project) == set(sids)


def test_later_drains_commit_each_pass_alone(service, project, writer):
    sids = _sessions(writer, 3)
    service.catch_up()
    for sid in sids:
        writer.chat(sid, "user_message", id=f"v-{sid}", text="later", status="accepted")
    _queue(service, sids)
    drainer, visible = service.drainer, []
    with drainer.lock, drainer.deferring_recent():
        while (entry := service.queue.pop_next(ignore_due=True)) is not None:
            drainer.run(entry)
            conn = connect(project.index_path)
            visible.append({str(r[0]) for r in conn.execute(
                "SELECT doc_id FROM docs WHERE doc_id LIKE 'chat:%:v-%'")})  # fmt: skip
            conn.close()
    assert visible == [{"chat:s0:v-s0"}, {"chat:s0:v-s0", "chat:s1:v-s1"},
                       {"chat:s0:v-s0", "chat:s1:v-s1", "chat:s2:v-s2"}]  # fmt: skip


@_groups_of(8)
def test_a_fault_inside_a_group_queues_its_passes_again(service, project, writer, timers):
    sids = _sessions(writer)
    service.drainer.connection().execute(
        "CREATE TEMP TRIGGER fault BEFORE INSERT ON sources WHEN NEW.key = 'chat:s3'"
        " BEGIN SELECT RAISE(ABORT, 'injected'); END"
    )  # s3's commit fails inside the group that holds s0-s2: the whole group rolls back
    _queue(service, sids)
    service.process_pending_now()
    # s0-s2 were queued again and written; s3 waits out its backoff (the connection that held
    # the trigger was closed after the error).
    assert _committed(project) == set(sids) - {"s3"}
    timers.advance(60)
    service.process_pending_now()
    assert _committed(project) == set(sids)
    conn = connect(project.index_path)
    ids = [
        str(r[0]) for r in conn.execute("SELECT doc_id FROM docs WHERE doc_id LIKE 'chat:%:u-%'")
    ]
    conn.close()
    assert sorted(ids) == sorted(f"chat:{sid}:u-{sid}" for sid in sids)


KILLED_AFTER = """
import os, signal, sys
from pathlib import Path
from engine.index.tuning import WriteTuning
from engine.ingest import tailing
from engine.project.locate import open_project
from engine.wiring import create_project_service

tuning = WriteTuning(group_passes=3, group_passes_alone=3, group_seconds=float("inf"))
real, done = tailing.commit_pass, []

def commit_then_die(*args):
    written = real(*args)
    done.append(1)
    if len(done) == 5:  # two passes into the second group: its COMMIT never comes
        os.kill(os.getpid(), signal.SIGKILL)
    return written

tailing.commit_pass = commit_then_die
project = open_project(Path(sys.argv[1]))
create_project_service(project, start_worker=False, tuning=tuning).catch_up()
"""


def test_a_process_killed_mid_group_stores_none_of_the_groups_passes(project_root, project,
                                                                    writer):  # fmt: skip
    sids = _sessions(writer)
    env = {**os.environ, "PYTHONPATH": str(REPO), "ADE_INGEST_WORKER": "0"}
    child = subprocess.run([sys.executable, "-c", KILLED_AFTER, str(project_root)], env=env,
                           cwd=REPO, capture_output=True, timeout=120)  # fmt: skip
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()
    # The first group (3 passes) committed; the second one's 2 passes left nothing behind.
    assert len(_committed(project)) == 3
    from engine.wiring import create_project_service

    svc = create_project_service(project, start_worker=False)
    try:
        svc.catch_up()  # the next drain redoes them
    finally:
        svc.dispose()
    assert _committed(project) == set(sids)
    conn = connect(project.index_path)
    ids = [
        str(r[0]) for r in conn.execute("SELECT doc_id FROM docs WHERE doc_id LIKE 'chat:%:u-%'")
    ]
    cursors = dict(conn.execute("SELECT key, cursor FROM sources WHERE key LIKE 'chat:%'"))
    conn.close()
    assert sorted(ids) == sorted(f"chat:{sid}:u-{sid}" for sid in sids)
    assert cursors == {f"chat:{sid}": writer.chat_path(sid).stat().st_size for sid in sids}
