"""The planning worker (first-index budget): a real second process plans the next passes of a backlog.

Whatever the worker does — plan, raise, die from a real signal, hang — the index must come out
exactly as an ingestion without it: every line once, cursors with their docs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import msgspec
import pytest

from engine.index.tuning import WriteTuning
from engine.ingest import plan_worker, planner
from engine.project.locate import open_project
from engine.service import SearchService
from engine.wiring import create_project_service
from tests.engine.ingest.conftest import NOW, ProjectWriter

SESSIONS = 6


def _fill(writer: ProjectWriter) -> None:
    """Chat and terminal sessions, a few slices each at the test's slice size."""
    for i in range(SESSIONS):
        writer.session(f"c{i}", "chat", endedAt="2026-06-01T10:00:00+00:00")
        for n in range(60):
            writer.chat(f"c{i}", "user_message", id=f"m{n}", status="accepted",
                        text=f"chat {i} message {n} readTimeoutError café ✓ token{n * i}")  # fmt: skip
        writer.session(f"t{i}", "terminal", endedAt="2026-06-01T10:00:00+00:00")
        writer.terminal(f"t{i}", b"".join(
            f"\x1b[32mline {n} of t{i}\x1b[0m HTTPServerError ok\r\n".encode() for n in range(300)
        ))  # fmt: skip


def _index_hash(service: SearchService) -> tuple[int, str]:
    conn = service.readers.reader()
    rows = conn.execute(
        "SELECT doc_id, title, rank_title, anchor, digest FROM docs ORDER BY doc_id"
    ).fetchall()
    cursors = conn.execute(
        "SELECT key, cursor, state FROM sources WHERE key NOT LIKE 'stat:%' ORDER BY key"
    ).fetchall()
    blob = json.dumps([[r[0], r[1], r[2], r[3], bytes(r[4]).hex()] for r in rows] + cursors)
    return len(rows), hashlib.sha256(blob.encode()).hexdigest()


def _service(root: Path, tuning: WriteTuning | None = None) -> SearchService:
    return create_project_service(
        open_project(root), clock=lambda: NOW, start_worker=False, tuning=tuning
    )


def _reference(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tuning: WriteTuning
) -> tuple[int, str]:
    """The same project ingested with the worker switched off."""
    copy = tmp_path / "reference"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("cache"))
    monkeypatch.setenv(planner.ENV_SWITCH, "0")
    svc = _service(copy, tuning)
    try:
        svc.catch_up()
        return _index_hash(svc)
    finally:
        svc.dispose()
        monkeypatch.delenv(planner.ENV_SWITCH)


SMALL_SLICES = WriteTuning(
    slice_bytes=4096,
    worker_min_backlog_bytes=0,
    max_load_per_cpu=float("inf"),  # whatever else runs here
)


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> WriteTuning:
    """Several passes per transcript, and a worker for any backlog."""
    monkeypatch.delenv(planner.ENV_SWITCH, raising=False)
    return SMALL_SLICES


def test_worker_plans_a_backlog_into_the_same_index(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
) -> None:
    _fill(writer)
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert prefetch is not None
        assert prefetch.started == 1
        assert prefetch.plans_used > SESSIONS  # most passes were planned by the worker
        assert not prefetch.running  # stopped once no transcript entry was left
        assert prefetch.failure is None
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_small_appends_stay_in_process(
    writer: ProjectWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(planner.ENV_SWITCH, raising=False)
    writer.session("live", "chat")
    writer.chat("live", "user_message", id="m1", status="accepted", text="hello there")
    svc = _service(writer.root)
    try:
        svc.catch_up()
        writer.chat("live", "user_message", id="m2", status="accepted", text="fresh words")
        svc.notify_chat_event("live")
        svc.process_pending_now()
        prefetch = svc.drainer.prefetch
        assert prefetch is not None
        assert prefetch.started == 0
        assert "chat:live:m2" in {
            str(r[0]) for r in svc.readers.reader().execute("SELECT doc_id FROM docs")
        }
    finally:
        svc.dispose()


def test_switched_off_by_the_environment(
    writer: ProjectWriter, monkeypatch: pytest.MonkeyPatch, small_slices: WriteTuning
) -> None:
    _fill(writer)
    monkeypatch.setenv(planner.ENV_SWITCH, "0")
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        assert svc.drainer.prefetch is not None
        assert svc.drainer.prefetch.started == 0
    finally:
        svc.dispose()


def _signal_worker_on_take(
    monkeypatch: pytest.MonkeyPatch, sig: int, at_call: int, timeout: float | None = None
) -> list[int]:
    """Send ``sig`` to the worker as the drain asks for its ``at_call``-th plan, while a job is
    in its hands (so it lands mid-pass), and from then on wait ``timeout`` for an answer.
    Returns the pids signalled."""
    real = planner.Prefetcher.take
    calls, hit = [0], []

    def take(self: planner.Prefetcher, *args: Any) -> Any:
        calls[0] += 1
        worker = self.worker
        if calls[0] >= at_call and not hit and worker is not None and worker.sent:
            os.kill(worker.pid, sig)
            hit.append(worker.pid)
            if timeout is not None:
                monkeypatch.setattr(planner, "RESULT_TIMEOUT_S", timeout)
        return real(self, *args)

    monkeypatch.setattr(planner.Prefetcher, "take", take)
    return hit


def test_worker_killed_mid_pass_loses_no_line(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
    caplog: pytest.LogCaptureFixture,
) -> None:
    _fill(writer)
    killed = _signal_worker_on_take(monkeypatch, signal.SIGKILL, at_call=4)
    svc = _service(writer.root, small_slices)
    try:
        with caplog.at_level(logging.WARNING, logger=planner.__name__):
            svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert killed
        assert prefetch is not None
        assert prefetch.failure is not None
        # Found dead on the answer it owed, or on the next job sent to it.
        assert "stopped" in prefetch.failure or "cannot reach" in prefetch.failure
        assert not prefetch.running
        assert any("planning worker" in r.getMessage() for r in caplog.records)
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_hung_worker_is_killed_and_planning_returns_here(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
) -> None:
    _fill(writer)
    stopped = _signal_worker_on_take(monkeypatch, signal.SIGSTOP, at_call=3, timeout=0.2)
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert stopped
        assert prefetch is not None
        assert prefetch.failure is not None
        assert "no answer" in prefetch.failure
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_a_pass_whose_planning_raises_is_planned_again_here(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
) -> None:
    _fill(writer)
    writer.session("bad", "chat")
    garbage = writer.ade / "chats" / "bad.jsonl.gz"
    garbage.write_bytes(b"this is not gzip data at all\n" * 200)
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert prefetch is not None
        assert prefetch.plans_used > SESSIONS
        assert prefetch.failure is None  # one bad transcript does not retire the worker
        warnings = svc.tally.snapshot()
        assert warnings.get("chat:bad") == 1  # counted by the drain, once
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_the_writer_plans_a_queued_job_itself_while_the_worker_is_behind(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
) -> None:
    """A worker held by a real SIGSTOP from its start cannot answer: the writer takes back its
    last queued job (a real ``cancel`` message) and plans it; then the worker resumes, drops the
    job it was told to drop, and goes on. Every pass is committed once, as without a worker."""
    _fill(writer)
    stopped: list[int] = []

    class HeldWorker(plan_worker.PlanWorker):
        def __init__(self, project: Any, tuning: WriteTuning) -> None:
            super().__init__(project, tuning)
            os.kill(self.pid, signal.SIGSTOP)
            stopped.append(self.pid)

    real_plan_job = plan_worker.plan_job

    def plan_here(*args: Any) -> Any:
        answer = real_plan_job(*args)
        os.kill(stopped[0], signal.SIGCONT)  # behind only for as long as one steal takes
        return answer

    monkeypatch.setattr(plan_worker, "PlanWorker", HeldWorker)
    monkeypatch.setattr(plan_worker, "plan_job", plan_here)
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert stopped
        assert prefetch is not None
        assert prefetch.failure is None
        assert prefetch.stolen >= 1
        assert prefetch.own_used >= 1  # a plan made while waiting was committed
        assert prefetch.plans_used > SESSIONS  # and the worker went on planning after it
        assert not prefetch.running
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_a_core_idle_now_counts_though_the_load_average_still_trails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gate reads the idle CPU since its last check (``/proc/stat``), which says at once
    what the 1-minute load average says a minute late. The machine's load cannot be set from a
    test, so its two readings are scripted here; the decision is the code under test."""
    readings = iter([[100, 0, 100, 800, 0, 0, 0], [200, 0, 200, 1400, 0, 0, 0]])
    monkeypatch.setattr(planner, "_cpu_times", lambda: next(readings))
    monkeypatch.setattr(planner.os, "getloadavg", lambda: (9.0, 9.0, 9.0))  # a minute ago
    idle = planner.IdleCores(clock=iter([10.0, 12.0]).__next__, cpus=2)
    assert planner.core_free(idle)  # 600 of 800 ticks idle: 1.5 of 2 cores
    assert not planner.core_free()  # without a measurement, the trailing average decides


def test_a_busy_machine_keeps_planning_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    readings = iter([[100, 0, 100, 800, 0, 0, 0], [480, 0, 480, 840, 0, 0, 0]])
    monkeypatch.setattr(planner, "_cpu_times", lambda: next(readings))
    monkeypatch.setattr(planner.os, "getloadavg", lambda: (0.1, 0.1, 0.1))  # trailing: idle
    assert not planner.core_free(
        planner.IdleCores(clock=iter([10.0, 12.0]).__next__, cpus=2)
    )  # 40 of 800 ticks idle: 0.1 core


def test_a_pass_planned_ahead_that_fails_is_planned_again_at_its_turn(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
) -> None:
    """Planning a taken-back job fails (an injected I/O error): not the current entry's fault,
    so nothing backs off or warns; the job is planned again when its entry runs."""
    _fill(writer)
    stopped: list[int] = []

    class HeldWorker(plan_worker.PlanWorker):
        def __init__(self, project: Any, tuning: WriteTuning) -> None:
            super().__init__(project, tuning)
            os.kill(self.pid, signal.SIGSTOP)
            stopped.append(self.pid)

    def failing_plan_job(*args: Any) -> Any:
        os.kill(stopped[0], signal.SIGCONT)
        raise OSError("injected: the transcript vanished for a moment")

    monkeypatch.setattr(plan_worker, "PlanWorker", HeldWorker)
    monkeypatch.setattr(plan_worker, "plan_job", failing_plan_job)
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert prefetch is not None
        assert prefetch.stolen >= 1
        assert prefetch.own_used == 0
        assert prefetch.failure is None
        assert not svc.drainer.failures
        assert not svc.tally.snapshot()
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_one_long_transcript_has_its_next_pass_planned_while_one_is_written(
    writer: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    small_slices: WriteTuning,
) -> None:
    """A backlog of one transcript (a big import, one long log) has no other entry to plan
    ahead: the worker is sent its next pass, from the source row the current pass's commit
    stores, and that plan is used; the index is the one without a worker."""
    writer.session("long", "chat", endedAt="2026-06-01T10:00:00+00:00")
    for n in range(400):
        writer.chat("long", "user_message", id=f"m{n}", status="accepted",
                    text=f"long message {n} parseHTTPResponse token{n} ✓")  # fmt: skip
    svc = _service(writer.root, small_slices)
    try:
        svc.catch_up()
        prefetch = svc.drainer.prefetch
        assert prefetch is not None
        assert prefetch.started == 1
        assert prefetch.failure is None
        assert prefetch.sent_ahead > 3
        assert prefetch.plans_used > 3  # next passes planned by the worker were committed
        got = _index_hash(svc)
    finally:
        svc.dispose()
    assert got == _reference(writer.root, tmp_path, monkeypatch, small_slices)


def test_an_idle_reading_over_a_long_gone_past_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readings = iter([[100, 0, 100, 800, 0, 0, 0], [200, 0, 200, 1400, 0, 0, 0]])
    monkeypatch.setattr(planner, "_cpu_times", lambda: next(readings))
    monkeypatch.setattr(planner.os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    idle = planner.IdleCores(clock=iter([10.0, 10.0 + 3600]).__next__, cpus=2)
    assert not planner.core_free(idle)  # idle an hour on average says nothing of now


def test_a_wait_for_the_worker_first_commits_the_open_group_of_passes(
    writer: ProjectWriter, monkeypatch: pytest.MonkeyPatch, small_slices: WriteTuning
) -> None:
    """A first index groups its passes in one transaction (``pass_group``); when the writer has
    to block on the worker (here a real SIGSTOP, and no job to take back), it commits the group
    first, so no write lock is held through the wait (a hung worker can take minutes)."""
    from engine.index.db import connect

    tuning = msgspec.structs.replace(
        small_slices, group_passes=1000, group_seconds=float("inf"), steal_while_waiting=False
    )
    _fill(writer)
    index = open_project(writer.root).index_path
    seen: list[int] = []

    class HeldWorker(plan_worker.PlanWorker):
        def __init__(self, project: Any, tuning: WriteTuning) -> None:
            super().__init__(project, tuning)
            os.kill(self.pid, signal.SIGSTOP)

        def collect(self, entry: Any, timeout: float) -> Any:
            if not seen:
                other = connect(index)  # what another process sees as the wait begins
                seen.append(int(other.execute("SELECT count(*) FROM sources").fetchone()[0]))
                other.close()
                os.kill(self.pid, signal.SIGCONT)
            return super().collect(entry, timeout)

    monkeypatch.setattr(plan_worker, "PlanWorker", HeldWorker)
    svc = _service(writer.root, tuning)
    try:
        svc.catch_up()
        # The first transcript entry is planned here (nothing was sent yet) and written in the
        # group; the second was sent to the held worker, and the writer waits for it.
        assert seen
        assert seen[0] >= 1
        assert svc.drainer.prefetch is not None
        assert svc.drainer.prefetch.plans_used > 0
    finally:
        svc.dispose()
