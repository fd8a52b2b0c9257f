"""A reconcile signs the project's sessions from the manifest's walk (the read-your-writes budget).

The manifest (``engine.ingest.manifest``) lists ``.ade/sessions``, ``chats`` and ``terminals``
and keeps each entry's stats; the reconcile that follows compares every session's stat
signature from them (``reconcile.listed_signature``) instead of four ``stat`` calls a session,
and takes a session file unread only when the listing saw a regular file.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

import engine.ingest.reconcile as reconcile
from engine.ingest.manifest import project_manifest
from engine.project.model import Project
from engine.service import SearchService
from engine.types import SearchQueryArgs

pytestmark = pytest.mark.usefixtures("no_external_tools")


def _ids(service: SearchService, text: str) -> list[str]:
    res = service.query(SearchQueryArgs(query=text, kinds=("chat", "terminal")))
    return [item.doc_id for item in res.items]


def test_the_listed_signature_is_the_stat_signature(
    project: Project, writer: Any, tmp_path: Path
) -> None:
    writer.session("plain")
    writer.chat("plain", "user_message", id="m1", text="hello", status="accepted")
    writer.session("packed")
    with gzip.open(writer.ade / "chats" / "packed.jsonl.gz", "wb") as handle:
        handle.write(writer.event("packed", "user_message", id="m1", text="old words"))
    writer.chat("packed", "user_message", id="m2", text="new words", status="accepted")
    writer.session("term", kind="terminal")
    writer.terminal("term", b"$ make\n")
    (writer.ade / "terminals" / "term.commands.jsonl").write_text("{}\n")
    writer.session("bare", kind="terminal")  # no transcript yet
    outside = tmp_path / "linked.log"
    outside.write_bytes(b"linked bytes\n")
    writer.session("linked", kind="terminal")
    writer.terminal_path("linked").symlink_to(outside)  # stat follows it, as the listing does
    manifest = project_manifest(project, [])
    assert manifest is not None
    assert manifest.listing is not None
    for kind, sid in [("chat", "plain"), ("chat", "packed"), ("terminal", "term"),
                      ("terminal", "bare"), ("terminal", "linked"), ("chat", "absent")]:  # fmt: skip
        listed = reconcile.listed_signature(manifest.listing, kind, sid)  # type: ignore[arg-type]
        assert listed == reconcile.session_signature(project, kind, sid)  # type: ignore[arg-type]


def test_a_reconcile_after_a_write_stats_no_session_file_of_its_own(
    service: SearchService, writer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for sid in ("c1", "c2", "c3"):
        writer.session(sid)
        writer.chat(sid, "user_message", id="m1", text=f"settled words {sid}", status="accepted")
    service.catch_up()  # cold: everything ingested, the manifest stored
    signed: list[str] = []
    real = reconcile.stat_signature

    def spy(paths: Any) -> str:
        signed.extend(Path(p).name for p in paths)
        return real(paths)

    monkeypatch.setattr(reconcile, "stat_signature", spy)
    monkeypatch.setattr(reconcile, "_regular", lambda *a: pytest.fail("lstat of a session file"))
    writer.chat("c2", "assistant_message", id="m2", text="appended listing words")
    service.catch_up()
    assert service.drainer.skipped_reconciles == 0  # the reconcile ran, from the listing
    assert signed == ["c2.json", "c2.jsonl", "c2.jsonl.gz"]  # the pass's own signature only
    assert _ids(service, "appended") == ["chat:c2:m2"]
    assert sorted(_ids(service, "settled")) == ["chat:c1:m1", "chat:c2:m1", "chat:c3:m1"]


def test_a_session_file_turned_into_a_symlink_is_read_not_kept(
    service: SearchService, writer: Any, tmp_path: Path
) -> None:
    for sid in ("c1", "c2"):
        writer.session(sid)
        writer.chat(sid, "user_message", id="m1", text=f"linked words {sid}", status="accepted")
    service.catch_up()
    path = writer.ade / "sessions" / "c2.json"
    outside = tmp_path / "outside.json"
    outside.write_text(path.read_text())
    path.unlink()
    path.symlink_to(outside)  # out of the project: refused when read, so the session is gone
    service.catch_up()
    assert _ids(service, "linked") == ["chat:c1:m1"]
