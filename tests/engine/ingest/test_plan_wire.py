"""The worker's plan transport (first-index budget): documents shipped as tuples come back as the very
documents and derived values an in-process plan holds, so the index cannot tell them apart."""

from __future__ import annotations

import pickle

import pytest

from engine.index.db import SourceRow
from engine.index.tuning import WriteTuning
from engine.ingest import plan_worker, tailing
from engine.ingest.plan_wire import pack, unpack
from engine.ingest.transcripts import chat_builder, terminal_builder
from engine.project.model import Project, SessionKind
from engine.project.sessions import read_session
from engine.project.tally import WarningTally
from engine.project.transcripts import transcript_file
from tests.engine.ingest.conftest import ProjectWriter


def _sessions(writer: ProjectWriter) -> None:
    writer.session("c1", "chat")
    for n in range(20):
        writer.chat("c1", "user_message", id=f"m{n}", status="accepted",
                    text=f"message {n} readTimeoutError café ✓ sk-{'a' * 40}")  # fmt: skip
    writer.chat("c1", "user_message", id="m3", status="accepted", text="a replayed id")
    writer.session("t1", "terminal", endedAt="2026-06-01T10:00:00+00:00")
    writer.terminal("t1", b"".join(
        f"\x1b[31mline {n}\x1b[0m HTTPServerError token=abcdef0123456789abcdef\r\n".encode()
        for n in range(400)
    ))  # fmt: skip


def _in_process(project: Project, kind: SessionKind, sid: str) -> tailing.Plan:
    meta = read_session(project, sid, WarningTally())
    builder = (
        chat_builder(sid, meta, WarningTally()) if kind == "chat" else terminal_builder(sid, meta)
    )
    path = transcript_file(project, kind, sid)
    assert path is not None
    return tailing.plan_pass(path, SourceRow(key=f"{kind}:{sid}"), builder)


def test_a_shipped_plan_holds_the_same_documents_and_derived_values(
    writer: ProjectWriter, project: Project
) -> None:
    _sessions(writer)
    sessions: tuple[tuple[SessionKind, str], ...] = (("chat", "c1"), ("terminal", "t1"))
    for kind, sid in sessions:
        local = _in_process(project, kind, sid)
        row = SourceRow(key=f"{kind}:{sid}")
        answer = plan_worker.plan_job(project, kind, sid, row, WriteTuning())
        assert answer.error is None
        assert answer.plan is not None
        wire = pack(answer.plan)  # as the worker sends it
        shipped = unpack(pickle.loads(pickle.dumps(wire, protocol=pickle.HIGHEST_PROTOCOL)))
        assert len(local.prepared) > 2
        assert list(shipped.prepared) == list(local.prepared)
        assert [shipped.prepared.derive(d) for d in shipped.prepared] == [
            local.prepared.derive(d) for d in local.prepared
        ]
        # Derived values travel with the documents: none is computed again in the writer.
        assert all(shipped.prepared.derived[id(d)][0] is d for d in shipped.prepared)
        assert shipped.output == local.output
        assert (shipped.cursor, shipped.identity, shipped.state, shipped.more) == (
            local.cursor, local.identity, local.state, local.more,
        )  # fmt: skip
        assert shipped.output.session is shipped.prepared[0]


def test_a_plan_whose_documents_are_out_of_order_is_refused(
    writer: ProjectWriter, project: Project
) -> None:
    _sessions(writer)
    local = _in_process(project, "chat", "c1")
    local.prepared.reverse()
    with pytest.raises(ValueError, match="pass order"):
        pack(local)
