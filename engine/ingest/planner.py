"""Plan the next transcript passes in a worker process while this one writes (first-index budget).

A pass is two halves: planning (read the slice, parse, chunk, sanitize, redact, and derive the
column values: ``tailing.plan_pass``) and writing (``tailing.commit_pass``). Planning is pure
Python over bytes and needs no database, so during a big backlog (a first index, a large import)
a worker *process* plans the passes the queue will run next while this process commits the
current one: the two cores both work. A thread could not: apsw takes the GIL back between the
rows of ``executemany`` and convoys behind a planning thread (benchmarks/journal/waves-1-to-3.md, "Ingestion").

Nothing about crash safety moves to the worker. It never opens the index; it is handed the
source row a pass starts from and returns a plan. A plan is used only when, at the moment this
process runs that entry, the source row is still the one it was planned from and the session's
stat signature (metadata, transcript, ``.gz``, sidecar) is unchanged; the commit re-checks the row
under the write lock as always. Anything else — no plan, a stale one, a worker that raised, died
or hung — means the pass is planned here, as it is without a worker: a worker can cost time and
a warning, never a line.

While the plan of the pass it is to write next is not ready, this process does not idle: it
takes back the last job the worker has not started (``cancel``) and plans that pass itself, so
both cores plan and neither waits while there is work (journal: "Planning and overlap").

The worker (``engine.ingest.plan_worker``) is started (fork + exec: safe in a process that runs
threads) only when the queued transcripts hold at least ``WriteTuning.worker_min_backlog_bytes`` not yet
ingested, so the debounced appends of a live session never wait for it, and only while a core is
free (idle CPU measured since the last check, else the load average), and stopped when no
transcript entry is left. ``ADE_INGEST_WORKER=0`` turns it off.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.index.db import SourceRow, get_source
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.ingest import tailing
from engine.ingest.queue import Entry
from engine.project.model import Project, SessionKind
from engine.project.tally import WarningTally

if TYPE_CHECKING:
    # The worker's process, socket and pickling are imported once a worker is started or a
    # pass planned ahead: a catch-up of a few lines never pays them (~16 ms of a search right
    # after a write, journal 2026-12-06-scale.md).
    from engine.ingest.plan_worker import Planned, PlanWorker

log = get_logger(__name__)

RESULT_TIMEOUT_S = 120.0
"""Longest wait for one plan (a 4 MiB slice plans in well under a second on a loaded machine):
past it the worker counts as hung, is killed, and planning returns to this process."""

START_TIMEOUT_S = 60.0
"""Added to the first wait: the worker imports the engine before it can answer."""

RECHECK_S = 2.0
"""While no worker runs, the backlog is measured at most this often."""

ENV_SWITCH = "ADE_INGEST_WORKER"
"""``0`` (or ``off``) keeps all planning in this process."""

SESSION_KINDS: tuple[SessionKind, ...] = ("chat", "terminal")


def enabled() -> bool:
    """Whether the environment allows a planning worker."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "no", "false")


class Prefetcher:
    """The drain's use of a planning worker: start it for a backlog, feed it the entries the
    queue will run next, hand their plans over when they run, fall back when it fails."""

    def __init__(self, project: Project, tuning: WriteTuning = DEFAULT_TUNING) -> None:
        self.project = project
        self.tuning = tuning
        self.worker: PlanWorker | None = None
        self.disabled = not enabled()
        self.failure: str | None = None
        """Why the worker was given up (the drain plans in process from then on)."""
        self._checked_at = -RECHECK_S
        self._idle = IdleCores()
        self.started = 0
        self.plans_used = 0
        """Counts for tests and benchmarks: workers started, worker plans committed."""
        self.own_used = 0
        self.stolen = 0
        """Passes this process planned while waiting (taken back from the worker), and how many
        of those plans were committed."""
        self.sent_ahead = 0
        """Next passes of an entry sent before its current pass was written."""
        self._tail = False
        """The queue's rest fits in the planning window (set by ``before``)."""
        self._ahead: dict[Entry, int] = {}
        """Transcript bytes of a pass each job given to the worker covers (``WriteTuning.lookahead_slices``)."""
        self.own: dict[Entry, Planned] = {}
        """Plans this process made while waiting, kept until their entry runs."""
        self.waited_s = 0.0
        """Seconds this process spent waiting for the worker's answers (benchmarks)."""
        self.before_wait: Callable[[], None] = lambda: None
        """Called before this process blocks on the worker: the drain commits its open group of
        passes (``engine.ingest.pass_group``), so no write lock is held through the wait."""

    @property
    def running(self) -> bool:
        return self.worker is not None

    def before(
        self, conn: apsw.Connection, current: Entry, upcoming: list[Entry], backlog: int
    ) -> None:
        """Called as ``current`` starts: start the worker when ``backlog`` bytes pay for it,
        and send it the ``upcoming`` entries it has not been given yet."""
        if self.disabled:
            return
        if self.worker is None:
            # ``current`` alone can be the backlog (one long transcript): its next passes are
            # then planned ahead (``take``).
            tuning = self.tuning
            if backlog < tuning.worker_min_backlog_bytes or not core_free(
                self._idle, tuning.max_load_per_cpu
            ):
                return
            from engine.ingest.plan_worker import PlanWorker, WorkerFailed

            try:
                self.worker = PlanWorker(self.project, self.tuning)
            except (OSError, WorkerFailed) as err:
                self._give_up(f"cannot start the planning worker: {err}")
                return
            self.started += 1
        from engine.ingest.plan_worker import WorkerFailed  # imported with the worker

        # A plan whose entry left the window (the queue's order changed) would hold its slot.
        for entry in [e for e in self.worker.answered if e not in upcoming and e != current]:
            del self.worker.answered[entry]
        for entry in [e for e in self.own if e not in upcoming and e != current]:
            del self.own[entry]
        given = self.worker.outstanding() | set(self.own)
        self._ahead = {e: n for e, n in self._ahead.items() if e in given}
        # The rest of the queue fits in the window: ``current``'s next pass, re-queued behind
        # it, is still in the window when it runs, so planning it ahead is not wasted.
        self._tail = len(upcoming) < self.tuning.window
        budget = self.tuning.lookahead_slices * self.tuning.slice_bytes
        try:
            for entry in upcoming:
                if (
                    len(self.worker.waiting()) >= self.tuning.lookahead
                    or sum(self._ahead.values()) >= budget
                ):
                    break
                if entry in given or entry == current:
                    continue
                row = _row(conn, entry)
                self.worker.submit(entry, row)
                self._ahead[entry] = self._pass_bytes(entry, row)
                given.add(entry)
        except WorkerFailed as err:
            self._give_up(str(err))

    def _pass_bytes(self, entry: Entry, row: SourceRow) -> int:
        """What one pass of ``entry`` reads: its transcript past the stored cursor, at most one
        slice (one whose plain file cannot be read, a ``.gz``, counts a full slice)."""
        plain = plain_path(self.project, *entry)
        try:
            left = os.stat(plain).st_size - row.cursor
        except OSError:
            return self.tuning.slice_bytes
        return max(0, min(left, self.tuning.slice_bytes))

    def should_check(self) -> bool:
        """Whether the backlog is worth measuring now (never while a worker runs)."""
        if self.disabled or self.worker is not None:
            return False
        now = time.monotonic()
        if now - self._checked_at < RECHECK_S:
            return False
        self._checked_at = now
        return True

    def take(
        self, entry: Entry, conn: apsw.Connection, signature: str, tally: WarningTally
    ) -> tailing.Plan | None:
        """The plan made ahead for ``entry`` (by the worker, or here while waiting) if it still
        starts at the stored source row and the session's stat ``signature`` is unchanged, else
        None (the caller plans in process). The builder's counts of skipped lines are added to
        ``tally`` with a plan handed over."""
        if self.worker is None:
            return None
        from engine.ingest.plan_worker import WorkerFailed  # imported with the worker

        try:
            answer = self._answer(entry, conn)
        except WorkerFailed as err:
            self._give_up(str(err))
            return None
        if answer is None and self._tail:
            # Nothing was planned ahead for it: plan it here now (what the caller would do), so
            # that its next pass can go to the worker before this one is written.
            answer = self._plan_here(entry, conn)
        if answer is None or answer.error is not None:
            return None
        if answer.signature != signature or not _same_row(answer.row, _row(conn, entry)):
            return None
        plan = answer.take_plan()
        if plan is None:
            return None
        for source, reason, n in answer.skipped:
            tally.add(source, reason, n)
        if answer.plan is not None:
            self.own_used += 1
        else:
            self.plans_used += 1
        if plan.more and self._tail:
            self._send_next_pass(entry, plan)
        return plan

    def _send_next_pass(self, entry: Entry, plan: tailing.Plan) -> None:
        """Send the worker ``entry``'s next pass, from the source row this pass's commit will
        store: while this pass is written, the next one is planned. If the commit stores
        anything else (another writer got there first), that plan is stale and unused."""
        if self.worker is None or entry in self.worker.outstanding():
            return
        from engine.ingest.plan_worker import WorkerFailed  # imported with the worker

        after = SourceRow(
            key=plan.row.key,
            cursor=plan.cursor,
            identity=plan.identity,
            size=plan.size,
            state=tailing.state_json(plan.state),
        )
        try:
            self.worker.submit(entry, after)
        except WorkerFailed as err:
            self._give_up(str(err))
            return
        self._ahead[entry] = max(0, min(plan.size - plan.cursor, self.tuning.slice_bytes))
        self.sent_ahead += 1

    def _plan_here(self, entry: Entry, conn: apsw.Connection) -> Planned | None:
        from engine.ingest.plan_worker import plan_job  # imported with the worker

        kind, sid = entry
        try:
            row = _row(conn, entry)
            return plan_job(self.project, kind, sid, row, self.tuning)  # type: ignore[arg-type]
        except Exception:
            # Planned again by the caller, which handles whatever it raises there.
            log.debug("planning %s:%s ahead failed", kind, sid, exc_info=True)
            return None

    def _answer(self, entry: Entry, conn: apsw.Connection) -> Planned | None:
        """The answer for ``entry``. While the worker has not answered it, this process plans
        the last job the worker has not started instead of waiting (``cancel``), and waits only
        when no such job is left."""
        worker = self.worker
        assert worker is not None
        if entry in self.own:
            return self.own.pop(entry)
        if entry not in worker.answered and entry not in worker.waiting():
            return None
        timeout = RESULT_TIMEOUT_S + START_TIMEOUT_S * (not self.plans_used)
        while entry not in worker.answered:
            if worker.ready():
                worker.read_one(timeout, timeout)
                continue
            victim = self._victim(entry)
            if victim is None:
                self.before_wait()
                began = time.perf_counter()
                try:
                    return worker.collect(entry, timeout)
                finally:
                    self.waited_s += time.perf_counter() - began
            worker.cancel(victim)
            self.stolen += 1
            # Its failure is not this entry's: the victim is planned again at its own turn.
            planned = self._plan_here(victim, conn)
            if planned is not None:
                self.own[victim] = planned
        return worker.answered.pop(entry)

    def _victim(self, entry: Entry) -> Entry | None:
        """The job to take back from the worker: the last one sent, when it is not ``entry``
        and its transcript is plain (a ``.gz`` is inflated whole, and the worker holds it)."""
        waiting = self.worker.waiting() if self.worker is not None else []
        if not self.tuning.steal_while_waiting or len(waiting) < 2 or waiting[-1] == entry:
            return None
        kind, sid = waiting[-1]
        plain = plain_path(self.project, kind, sid)
        return None if plain.with_name(plain.name + ".gz").exists() else waiting[-1]

    def idle(self) -> None:
        """No transcript entry is left: stop the worker (a later backlog starts a new one)."""
        self.own.clear()
        self._ahead.clear()
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
            self._checked_at = -RECHECK_S

    def close(self) -> None:
        self.idle()

    def _give_up(self, why: str) -> None:
        log.warning("ingestion planning worker: %s; planning in this process", why)
        self.failure = why
        self.own.clear()
        self._ahead.clear()
        if self.worker is not None:
            self.worker.stop(kill=True)
            self.worker = None
        self.disabled = True


IDLE_WINDOW_S = 10.0
"""Longest interval whose idle CPU still says what the machine has to spare now (a daemon's
first backlog in hours falls back to the load average)."""

MIN_IDLE_CORES = 0.75
"""Measured idle CPU (in cores, over the last recheck period) that counts as a free core."""


class IdleCores:
    """Idle CPU since the last reading of ``/proc/stat``: what the machine has to spare now,
    where the 1-minute load average trails by a minute (a first index started as another job
    ended would otherwise plan alone for that minute)."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, cpus: int | None = None
    ) -> None:
        self._clock = clock
        self._cpus = cpus or os.cpu_count() or 1
        self._last = _cpu_times()
        self._at = clock()

    def cores(self) -> float | None:
        """Idle cores since the last call (None when unknown or too short to tell)."""
        now, times = self._clock(), _cpu_times()
        last, at = self._last, self._at
        self._last, self._at = times, now
        if times is None or last is None or not 0.2 <= now - at <= IDLE_WINDOW_S:
            return None  # too short to tell, or an average over a long-gone past
        busy = [b - a for a, b in zip(last, times, strict=True)]
        total = sum(busy)
        if total <= 0:
            return None
        idle = busy[3] + busy[4]  # idle + iowait
        return idle / total * self._cpus


def _cpu_times() -> list[int] | None:
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 6 or fields[0] != b"cpu":
        return None
    return [int(f) for f in fields[1:8]]


def core_free(
    idle: IdleCores | None = None, max_load_per_cpu: float = DEFAULT_TUNING.max_load_per_cpu
) -> bool:
    """Whether the machine has a core to spare: measured idle CPU since the last check when
    there is such a measurement, else the 1-minute load average per CPU under
    ``max_load_per_cpu`` (``WriteTuning``; infinite: always)."""
    if math.isinf(max_load_per_cpu):
        return True  # forced (benchmarks, tests)
    measured = idle.cores() if idle is not None else None
    if measured is not None:
        return measured >= MIN_IDLE_CORES
    try:
        load = os.getloadavg()[0]
    except OSError:
        return True
    return load / (os.cpu_count() or 1) < max_load_per_cpu


def _row(conn: apsw.Connection, entry: Entry) -> SourceRow:
    key = f"{entry[0]}:{entry[1]}"
    return get_source(conn, key) or SourceRow(key=key)


def _same_row(a: SourceRow, b: SourceRow) -> bool:
    return (a.cursor, a.identity, a.state) == (b.cursor, b.identity, b.state)


def backlog_bytes(conn: apsw.Connection, project: Project, entries: Iterable[Entry]) -> int:
    """Transcript bytes past the stored cursor over ``entries`` (a stat or two and one row
    each; a ``.gz`` counts its compressed size, which only underestimates)."""
    total = 0
    for kind, sid in entries:
        size = 0
        plain = plain_path(project, kind, sid)
        for path in (plain, plain.with_name(plain.name + ".gz")):
            try:
                size = max(size, os.stat(path).st_size)
            except OSError:
                continue
        if size:
            row = get_source(conn, f"{kind}:{sid}")
            total += max(0, size - (row.cursor if row is not None else 0))
    return total


def plain_path(project: Project, kind: str, sid: str) -> Path:
    folder, suffix = ("chats", ".jsonl") if kind == "chat" else ("terminals", ".log")
    return project.ade_dir / folder / f"{sid}{suffix}"
