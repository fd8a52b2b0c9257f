"""The planning worker process and this process's channel to it (the first-index budget).

``python -m engine.ingest.plan_worker FD`` serves plan jobs over the socket ``FD``:
``("plan", kind, sid, row)`` in, a ``Planned`` out, one answer per job; ``("cancel", kind, sid)``
drops a job it has not started yet (answered "cancelled"), so the writing process can plan
that pass itself while it would otherwise wait (``engine.ingest.planner``). ``None`` or a closed
socket ends it. What may be planned, and when a plan is used, is ``engine.ingest.planner``'s.
"""

from __future__ import annotations

import os
import pickle
import select
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.index.db import SourceRow
from engine.index.tuning import WriteTuning
from engine.ingest import gzcache, tailing
from engine.ingest.plan_wire import WirePlan, pack, unpack
from engine.ingest.queue import Entry
from engine.project.model import Project, SessionKind
from engine.project.tally import WarningTally

CANCELLED = "cancelled"
"""The error of a job the worker dropped before starting it (the parent planned it)."""


@dataclass
class Planned:
    """What was made of one job: a plan, or why there is none."""

    entry: Entry
    row: SourceRow
    signature: str
    plan: tailing.Plan | None = None
    """A plan made in this process (the writer's own, planned while it waited)."""
    wire: WirePlan | None = None
    """A plan made by the worker, its documents as tuples (``PreparedDocs`` keys derived values
    by object id, which pickling does not keep; and tuples load faster in the writer)."""
    skipped: list[tuple[str, str, int]] = field(default_factory=list)
    """The builder's counts of skipped or truncated lines, added to the tally once used."""
    error: str | None = None

    def take_plan(self) -> tailing.Plan | None:
        if self.plan is not None:
            return self.plan
        return unpack(self.wire) if self.wire is not None else None


def plan_job(
    project: Project, kind: SessionKind, sid: str, row: SourceRow, tuning: WriteTuning
) -> Planned:
    """Plan one pass the way ``process_session`` would (no database), in whichever process."""
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
        done.plan = tailing.plan_pass(path, row, builder, tuning)
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
    """The worker's loop: the project and the drain's ``WriteTuning`` first, then jobs, until ``None`` or the
    parent's end of the socket closes.

    Between two jobs every waiting message is read, so a cancel reaches a job still queued. An
    answer (a slice's documents: megabytes) is pickled into an unlinked temporary file whose
    descriptor travels over the socket: the send never waits for the parent to read, so the
    next plan starts at once (through the socket itself each answer took a dozen wake-ups of
    both processes, which under load cost more than the planning saved).
    """
    try:
        project, tuning = _receive(channel)
    except (EOFError, OSError):
        return
    jobs: deque[tuple[SessionKind, str, SourceRow]] = deque()
    while True:
        try:
            messages = [] if jobs else [_receive(channel)]
            messages += _waiting(channel)
        except (EOFError, OSError):
            return
        for message in messages:
            if message is None:
                return
            if message[0] == "cancel":
                dropped = [job for job in jobs if job[:2] == message[1:]]
                for job in dropped:
                    jobs.remove(job)
                    answer = Planned(entry=job[:2], row=job[2], signature="", error=CANCELLED)
                    if not _answer(channel, answer):
                        return
            else:
                jobs.append(message[1:])
        if not jobs:
            continue
        kind, sid, row = jobs.popleft()
        answer = plan_job(project, kind, sid, row, tuning)
        if answer.plan is not None:
            try:
                answer.wire, answer.plan = pack(answer.plan), None
            except ValueError as err:
                answer.plan, answer.error = None, str(err)
        if answer.wire is None or not answer.wire.plan.more:
            gzcache.release()  # keep an inflated ``.gz`` only for its own next pass
        if not _answer(channel, answer):
            return


def _answer(channel: socket.socket, answer: Planned) -> bool:
    """Send one answer; False when the parent is gone (killed mid-pass)."""
    with tempfile.TemporaryFile() as holder:
        pickle.dump(answer, holder, protocol=pickle.HIGHEST_PROTOCOL)
        holder.flush()
        try:
            socket.send_fds(channel, [b"plan"], [holder.fileno()])
        except OSError:
            return False
    return True


_PACKET = 1 << 20
"""Largest control message (a job: two names and a source row)."""


def _receive(channel: socket.socket) -> Any:
    data = channel.recv(_PACKET)
    if not data:
        raise EOFError("closed")
    return pickle.loads(data)


def _waiting(channel: socket.socket) -> list[Any]:
    """Every message already waiting on ``channel``, without blocking."""
    found: list[Any] = []
    while True:
        try:
            data = channel.recv(_PACKET, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return found
        if not data:
            raise EOFError("closed")
        found.append(pickle.loads(data))


class WorkerFailed(Exception):
    """The worker died, hung or broke its pipe: stop using it."""


class PlanWorker:
    """One planning process and the jobs sent to it.

    Started with ``subprocess`` (fork + exec of ``python -m engine.ingest.plan_worker FD``) over
    a socket pair: safe in a process that runs threads, and, unlike ``multiprocessing``'s spawn,
    it never re-imports the parent's main script.
    """

    def __init__(self, project: Project, tuning: WriteTuning) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        package_root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (package_root, os.environ.get("PYTHONPATH")) if p
        )}  # fmt: skip
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "engine.ingest.plan_worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env=env,
            )
        finally:
            theirs.close()
        self._channel = ours
        self.sent: list[tuple[Entry, SourceRow]] = []
        """Jobs sent and not yet answered, in the order sent."""
        self.answered: dict[Entry, Planned] = {}
        self.cancelled: set[Entry] = set()
        """Jobs taken back (``cancel``): their one answer, a plan or "cancelled", is dropped."""
        try:
            self._send((project, tuning))
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
            self._send(("plan", entry[0], entry[1], row))
        except (OSError, ValueError) as err:
            raise WorkerFailed(f"cannot reach the planning worker: {err}") from None
        self.sent.append((entry, row))

    def cancel(self, entry: Entry) -> None:
        """Take back a job sent and not answered: the caller plans it instead."""
        try:
            self._send(("cancel", entry[0], entry[1]))
        except (OSError, ValueError) as err:
            raise WorkerFailed(f"cannot reach the planning worker: {err}") from None
        self.cancelled.add(entry)

    def waiting(self) -> list[Entry]:
        """Jobs sent, neither answered nor taken back, in the order sent."""
        return [entry for entry, _ in self.sent if entry not in self.cancelled]

    def outstanding(self) -> set[Entry]:
        return {entry for entry, _ in self.sent} | set(self.answered)

    def ready(self) -> bool:
        """Whether an answer waits to be read."""
        return bool(select.select([self._channel], [], [], 0)[0])

    def collect(self, entry: Entry, timeout: float) -> Planned | None:
        """The answer for ``entry`` (waiting for it if it was sent), or None when not sent."""
        if entry in self.answered:
            return self.answered.pop(entry)
        if entry not in self.waiting():
            return None
        deadline = time.monotonic() + timeout
        while self.sent:
            answer = self.read_one(deadline - time.monotonic(), timeout)
            if answer is not None and answer.entry == entry:
                return self.answered.pop(entry)
        return None

    def read_one(self, left: float, timeout: float) -> Planned | None:
        """Read the next answer (waiting up to ``left`` seconds); keep it unless it answers a
        job taken back. Returns it when kept."""
        try:
            ready = left > 0 and select.select([self._channel], [], [], left)[0]
            if not ready:
                raise WorkerFailed(f"the planning worker gave no answer in {timeout:.1f} s")
            answer = self._read_answer()
        except (EOFError, OSError, pickle.UnpicklingError) as err:
            raise WorkerFailed(f"the planning worker stopped ({err or 'closed'})") from None
        for i, (sent, _) in enumerate(self.sent):
            if sent == answer.entry:
                del self.sent[i]
                break
        if answer.entry in self.cancelled:
            self.cancelled.discard(answer.entry)
            return None
        self.answered[answer.entry] = answer
        return answer

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
        self.cancelled.clear()


def main() -> None:
    """``python -m engine.ingest.plan_worker FD``: serve the parent over the socket ``FD``."""
    # Through the package, not this ``__main__`` copy: what the worker pickles must name
    # ``engine.ingest.plan_worker.Planned`` for the parent to load it.
    from engine.ingest import plan_worker

    channel = socket.socket(fileno=int(sys.argv[1]))
    try:
        plan_worker.serve(channel)
    finally:
        channel.close()


if __name__ == "__main__":
    main()
