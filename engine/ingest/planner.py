"""Plan the next transcript passes in a worker process while this one writes (issue 14.1).

A pass is two halves: planning (read the slice, parse, chunk, sanitize, redact, and derive the
column values: ``tailing.plan_pass``) and writing (``tailing.commit_pass``). Planning is pure
Python over bytes and needs no database, so during a big backlog (a first index, a large import)
a worker *process* plans the passes the queue will run next while this process commits the
current one: the two cores both work. A thread could not: apsw takes the GIL back between the
rows of ``executemany`` and convoys behind a planning thread (benchmarks/RESULTS.md, issue 4).

Nothing about crash safety moves to the worker. It never opens the index; it is handed the
source row a pass starts from and returns a plan. A plan is used only when, at the moment this
process runs that entry, the source row is still the one it was planned from and the session's
stat signature (metadata, transcript, ``.gz``, sidecar) is unchanged; the commit re-checks the row
under the write lock as always. Anything else — no plan, a stale one, a worker that raised, died
or hung — means the pass is planned here, as it is without a worker: a worker can cost time and
a warning, never a line.

The worker is started (fork + exec: safe in a process that runs threads) only when the queued
transcripts hold at least ``WORKER_MIN_BACKLOG_BYTES`` not yet ingested, so the debounced
appends of a live session never wait for it, and only while a core is free (load average), and
stopped when no transcript entry is left.
``ADE_INGEST_WORKER=0`` turns it off.
"""

from __future__ import annotations

import logging
import os
import pickle
import select
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw

from engine.index.db import SourceRow, get_source
from engine.ingest import gzcache, tailing
from engine.ingest.plan_wire import WirePlan, pack, unpack
from engine.project.model import Project, SessionKind
from engine.project.tally import WarningTally

log = logging.getLogger(__name__)

WORKER_MIN_BACKLOG_BYTES = 24 * 1024 * 1024
"""Queued transcript bytes past their cursors that pay for a worker: its start (~0.2-0.4 s,
benchmarks/RESULTS.md) is a few percent of planning that much."""

LOOKAHEAD = 2
"""Passes planned ahead: one being planned while the one before it waits, ready. Each holds a
slice's documents (a few MB), so memory stays bounded by the slice size."""

MAX_LOAD_PER_CPU = 0.75
"""Start a worker only while the 1-minute load average per CPU is below this: a second process
pays only on a core nobody else uses; on a machine whose cores are all busy it measured slower
than planning in process (benchmarks/RESULTS.md, issue 14.1)."""

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

Entry = tuple[str, str]


@dataclass
class Planned:
    """What the worker made of one job: a plan, or why there is none."""

    entry: Entry
    row: SourceRow
    signature: str
    wire: WirePlan | None = None
    """The plan, its documents as tuples (``PreparedDocs`` keys derived values by object id,
    which pickling does not keep; and tuples load faster in the writer)."""
    skipped: list[tuple[str, str, int]] = field(default_factory=list)
    """The builder's counts of skipped or truncated lines, added to the tally once used."""
    error: str | None = None


def enabled() -> bool:
    """Whether the environment allows a planning worker."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "off", "no", "false")


# --- the worker process ---------------------------------------------------------------------


def plan_job(project: Project, kind: SessionKind, sid: str, row: SourceRow) -> Planned:
    """Plan one pass the way ``process_session`` would (the worker's half; no database)."""
    from engine.ingest.reconcile import session_signature
    from engine.ingest.transcripts import chat_builder, terminal_builder
    from engine.project.sessions import read_session
    from engine.project.transcripts import transcript_file

    # The signature first, as the drain takes it: a change after it is seen as stale.
    signature = session_signature(project, kind, sid)
    done = Planned(entry=(kind, sid), row=row, signature=signature)
    meta = read_session(project, sid, WarningTally())  # its warnings are counted by the drain
    path = transcript_file(project, kind, sid)
    if meta is None or meta.kind != kind or path is None:
        done.error = "no transcript"
        return done
    skipped = WarningTally()
    builder = chat_builder(sid, meta, skipped) if kind == "chat" else terminal_builder(sid, meta)
    try:
        done.wire = pack(tailing.plan_pass(path, row, builder))
    except Exception as err:  # planned again in the drain, which handles it as it always does
        done.error = f"{type(err).__name__}: {err}"
        return done
    done.skipped = [
        (source, reason, n)
        for source in skipped.snapshot()
        for reason, n in skipped.reasons(source).items()
    ]
    return done


def serve(channel: socket.socket) -> None:
    """The worker's loop: the project and slice sizes first, then a ``(kind, sid, row)`` job in
    and a ``Planned`` out, until ``None`` or the parent's end of the socket closes.

    An answer (a slice's documents: megabytes) is pickled into an unlinked temporary file whose
    descriptor travels over the socket: the send never waits for the parent to read, so the
    next plan starts at once (through the socket itself each answer took a dozen wake-ups of
    both processes, which under load cost more than the planning saved).
    """
    try:
        project, tailing.SLICE_BYTES, tailing.LONG_LINE_CAP = _receive(channel)
    except (EOFError, OSError):
        return
    while True:
        try:
            job = _receive(channel)
        except (EOFError, OSError):
            return
        if job is None:
            return
        kind, sid, row = job
        answer = plan_job(project, kind, sid, row)
        if answer.wire is None or not answer.wire.plan.more:
            gzcache.release()  # keep an inflated ``.gz`` only for its own next pass
        with tempfile.TemporaryFile() as holder:
            pickle.dump(answer, holder, protocol=pickle.HIGHEST_PROTOCOL)
            holder.flush()
            try:
                socket.send_fds(channel, [b"plan"], [holder.fileno()])
            except OSError:
                return  # the parent is gone (killed mid-pass): nothing to answer


_PACKET = 1 << 20
"""Largest control message (a job: two names and a source row)."""


def _receive(channel: socket.socket) -> Any:
    data = channel.recv(_PACKET)
    if not data:
        raise EOFError("closed")
    return pickle.loads(data)


# --- this process's side --------------------------------------------------------------------


class WorkerFailed(Exception):
    """The worker died, hung or broke its pipe: stop using it."""


class PlanWorker:
    """One planning process and the jobs sent to it, answered in order.

    Started with ``subprocess`` (fork + exec of ``python -m engine.ingest.planner FD``) over a
    socket pair: safe in a process that runs threads, and, unlike ``multiprocessing``'s spawn,
    it never re-imports the parent's main script.
    """

    def __init__(self, project: Project) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (package_root, os.environ.get("PYTHONPATH")) if p
        )}  # fmt: skip
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "engine.ingest.planner", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
            )
        finally:
            theirs.close()
        self._channel = ours
        self.sent: list[tuple[Entry, SourceRow]] = []
        """Jobs sent and not yet answered, in order."""
        self.answered: dict[Entry, Planned] = {}
        try:
            self._send((project, tailing.SLICE_BYTES, tailing.LONG_LINE_CAP))
        except OSError as err:
            self.stop(kill=True)
            raise WorkerFailed(f"cannot reach the planning worker: {err}") from None

    @property
    def pid(self) -> int:
        return self.process.pid

    def _send(self, message: Any) -> None:
        self._channel.sendall(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def submit(self, entry: Entry, row: SourceRow) -> None:
        try:
            self._send((entry[0], entry[1], row))
        except (OSError, ValueError) as err:
            raise WorkerFailed(f"cannot reach the planning worker: {err}") from None
        self.sent.append((entry, row))

    def outstanding(self) -> set[Entry]:
        return {entry for entry, _ in self.sent} | set(self.answered)

    def collect(self, entry: Entry, timeout: float) -> Planned | None:
        """The answer for ``entry`` (waiting for it if it was sent), or None when not sent."""
        if entry in self.answered:
            return self.answered.pop(entry)
        if all(sent != entry for sent, _ in self.sent):
            return None
        deadline = time.monotonic() + timeout
        while self.sent:
            left = deadline - time.monotonic()
            try:
                ready = left > 0 and select.select([self._channel], [], [], left)[0]
                if not ready:
                    raise WorkerFailed(f"the planning worker gave no answer in {timeout:.1f} s")
                answer = self._read_answer()
            except (EOFError, OSError, pickle.UnpicklingError) as err:
                raise WorkerFailed(f"the planning worker stopped ({err or 'closed'})") from None
            self.sent.pop(0)
            if answer.entry == entry:
                return answer
            self.answered[answer.entry] = answer
        return None

    def _read_answer(self) -> Planned:
        message, fds, _, _ = socket.recv_fds(self._channel, 16, 1)
        if not message or not fds:
            for fd in fds:
                os.close(fd)
            raise EOFError("closed")
        with os.fdopen(fds[0], "rb") as holder:
            holder.seek(0)
            answer: Planned = pickle.load(holder)
        return answer

    def stop(self, *, kill: bool = False) -> None:
        """End the worker: politely (it finishes the job in hand), or at once with ``kill``."""
        if not kill:
            try:
                self._send(None)
            except (OSError, ValueError):
                kill = True
        if kill:
            self.process.kill()
        try:
            self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5.0)
        self._channel.close()
        self.sent.clear()
        self.answered.clear()


class Prefetcher:
    """The drain's use of a planning worker: start it for a backlog, feed it the entries the
    queue will run next, hand their plans over when they run, fall back when it fails."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.worker: PlanWorker | None = None
        self.disabled = not enabled()
        self.failure: str | None = None
        """Why the worker was given up (the drain plans in process from then on)."""
        self._checked_at = -RECHECK_S
        self.started = 0
        self.plans_used = 0
        """Counts for tests and benchmarks: workers started, worker plans committed."""
        self.waited_s = 0.0
        """Seconds this process spent waiting for the worker's answers (benchmarks)."""

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
            if backlog < WORKER_MIN_BACKLOG_BYTES or not upcoming or not core_free():
                return
            try:
                self.worker = PlanWorker(self.project)
            except (OSError, WorkerFailed) as err:
                self._give_up(f"cannot start the planning worker: {err}")
                return
            self.started += 1
        # A plan whose entry left the window (the queue's order changed) would hold its slot.
        for entry in [e for e in self.worker.answered if e not in upcoming and e != current]:
            del self.worker.answered[entry]
        given = self.worker.outstanding()
        try:
            for entry in upcoming:
                if len(given) >= LOOKAHEAD:
                    break
                if entry in given or entry == current:
                    continue
                row = get_source(conn, f"{entry[0]}:{entry[1]}") or SourceRow(
                    key=f"{entry[0]}:{entry[1]}"
                )
                self.worker.submit(entry, row)
                given.add(entry)
        except WorkerFailed as err:
            self._give_up(str(err))

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
        """The worker's plan for ``entry`` if it still starts at the stored source row and the
        session's stat ``signature`` is unchanged, else None (the caller plans in process).
        The builder's counts of skipped lines are added to ``tally`` with a plan handed over."""
        if self.worker is None:
            return None
        began = time.perf_counter()
        try:
            answer = self.worker.collect(
                entry, RESULT_TIMEOUT_S + START_TIMEOUT_S * (not self.plans_used)
            )
        except WorkerFailed as err:
            self._give_up(str(err))
            return None
        finally:
            self.waited_s += time.perf_counter() - began
        if answer is None or answer.wire is None:
            return None
        key = f"{entry[0]}:{entry[1]}"
        row = get_source(conn, key) or SourceRow(key=key)
        if answer.signature != signature or not _same_row(answer.row, row):
            return None
        for source, reason, n in answer.skipped:
            tally.add(source, reason, n)
        self.plans_used += 1
        return unpack(answer.wire)

    def idle(self) -> None:
        """No transcript entry is left: stop the worker (a later backlog starts a new one)."""
        if self.worker is not None:
            self.worker.stop()
            self.worker = None
            self._checked_at = -RECHECK_S

    def close(self) -> None:
        self.idle()

    def _give_up(self, why: str) -> None:
        log.warning("ingestion planning worker: %s; planning in this process", why)
        self.failure = why
        if self.worker is not None:
            self.worker.stop(kill=True)
            self.worker = None
        self.disabled = True


def core_free() -> bool:
    """Whether the machine has a core to spare (load average per CPU under the bound)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return True
    return load / (os.cpu_count() or 1) < MAX_LOAD_PER_CPU


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


def main() -> None:
    """``python -m engine.ingest.planner FD``: serve the parent over the socket ``FD``."""
    # Through the package, not this ``__main__`` copy: what the worker pickles must name
    # ``engine.ingest.planner.Planned`` for the parent to load it.
    from engine.ingest import planner

    channel = socket.socket(fileno=int(sys.argv[1]))
    try:
        planner.serve(channel)
    finally:
        channel.close()


if __name__ == "__main__":
    main()
