"""Every search method over a real daemon and socket, with the real engine behind it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import apsw
import pytest

from engine.errors import CursorError, UsageError
from engine.index.db import IndexDoc, connect, immediate, upsert_docs
from engine.rpc.client import DaemonError, connect_daemon
from engine.rpc.connection import call_once
from engine.types import SearchQueryArgs
from tui.cli import main as ade_main

SPELLINGS = ["callerScope", "caller_scope", "CallerScope", "CALLERSCOPE", "caller-scope"]


@pytest.fixture
def project(short_dir: Path, chat_project: Any) -> Path:
    return chat_project(short_dir / "alpha", "alpha", "Alpha", 12).resolve()


def _query(conn: Any, root: Path, **params: Any) -> dict[str, Any]:
    return conn.call("search.query", {"projectRoot": str(root), **params})  # type: ignore[no-any-return]


def test_query_answers_with_project_identity(daemon: Any, project: Path) -> None:
    result = _query(daemon.connect(), project, query="zebra", limit=5)["result"]
    assert result["total"] == 12
    assert len(result["items"]) == 5
    assert result["nextCursor"] is not None
    assert result["resultsTruncated"] is False
    first = result["items"][0]
    assert first["kind"] == "chat"
    assert (first["projectId"], first["projectName"], first["projectRoot"]) == (
        "alpha", "Alpha", str(project)
    )  # fmt: skip


def test_cursor_pages_and_refuses_tampering(daemon: Any, project: Path) -> None:
    conn = daemon.connect()
    first = _query(conn, project, query="zebra", limit=5)["result"]
    second = _query(conn, project, query="zebra", limit=5, cursor=first["nextCursor"])["result"]
    ids = [i["docId"] for i in first["items"] + second["items"]]
    assert len(set(ids)) == 10
    bad = _query(conn, project, query="zebra", cursor=first["nextCursor"][:-3] + "AAA")
    assert bad["error"]["code"] == -32602
    assert bad["error"]["data"] == {"type": "CursorError"}
    other = _query(conn, project, query="note", cursor=first["nextCursor"])
    assert other["error"]["code"] == -32602


def test_engine_usage_errors_are_invalid_params(daemon: Any, project: Path) -> None:
    answer = _query(daemon.connect(), project, query="since:yesterday-ish")
    assert answer["error"]["code"] == -32602
    assert answer["error"]["data"]["type"] == "UsageError"


@pytest.mark.parametrize("key", SPELLINGS)
def test_caller_scope_never_narrows_results(daemon: Any, project: Path, key: str) -> None:
    conn = daemon.connect()
    plain = _query(conn, project, query="zebra", limit=50)["result"]
    scope = {"sessionId": "chat-other", "laneId": "nope", "kinds": ["pr"]}
    top = _query(conn, project, query="zebra", limit=50, **{key: scope})["result"]
    assert top == plain
    nested_params = {"projectRoot": str(project), "query": "zebra", "limit": 50,
                     key: {"inner": {key: scope}}}  # fmt: skip
    assert conn.call("search.query", nested_params)["result"] == plain


def test_index_status_and_cto_rebuild(daemon: Any, project: Path) -> None:
    conn = daemon.cto()
    status = conn.call("search.indexStatus", {"projectRoot": str(project)})["result"]
    assert status["docCount"] >= 12
    assert status["dbPath"] == str(project / ".ade" / "cache" / "search-index.db")
    rebuilt = conn.call("search.rebuildIndex", {"projectRoot": str(project)})["result"]
    assert rebuilt["ok"] is True
    assert rebuilt["docCount"] == status["docCount"]
    assert f"rebuild of {project} by role=cto" in daemon.log_text()


def _index_facts(index: Path) -> tuple[list[str], list[tuple[str, int, str]], str | None]:
    """What a rebuild would change: every doc id, every source cursor, the backfill stamp.

    Read from the file itself (a second, read-only connection), not through the daemon.
    """
    conn = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        docs = [str(r[0]) for r in conn.execute("SELECT doc_id FROM docs ORDER BY doc_id")]
        sources = [
            (str(k), int(c), str(i))
            for k, c, i in conn.execute("SELECT key, cursor, identity FROM sources ORDER BY key")
        ]
        row = conn.execute("SELECT value FROM meta WHERE key = 'backfill_completed_at'").fetchone()
    finally:
        conn.close()
    return docs, sources, None if row is None else str(row[0])


SENTINEL = "sentinel:planted-by-test"


def _plant_sentinel(index: Path) -> None:
    conn = connect(index)
    try:
        doc = IndexDoc(SENTINEL, "chat", "sentinel", "sentinel", "sentinel body", 1_700_000_000_000)
        with immediate(conn):
            upsert_docs(conn, [doc])
    finally:
        conn.close()


def test_agent_rebuild_is_refused_without_side_effects(
    daemon: Any, project: Path, rpc_wait_indexed: Any
) -> None:
    conn = daemon.connect()  # no hello: an agent
    # Quiescent first: the backfill and the watcher's passes are done, so anything that changes
    # below could only be the refused rebuild. (The file's mtime is no witness: an idle WAL
    # checkpoint or a periodic reconcile touches it without changing a row.)
    rpc_wait_indexed(conn, project)
    index = project / ".ade" / "cache" / "search-index.db"
    _plant_sentinel(index)  # no source produces it: only a clear of the rows removes it
    facts = _index_facts(index)
    before = conn.call("search.indexStatus", {"projectRoot": str(project)})["result"]
    assert SENTINEL in facts[0]  # the comparison below is not vacuous
    assert facts[1]
    assert facts[2] is not None
    refused = conn.call("search.rebuildIndex", {"projectRoot": str(project)})
    assert refused["error"]["code"] == -32001
    assert "CTO-only" in refused["error"]["message"]
    wrong = daemon.connect()
    assert wrong.call("rpc.hello", {"ctoToken": "0" * 64})["result"]["role"] == "agent"
    assert (
        wrong.call("search.rebuildIndex", {"projectRoot": str(project)})["error"]["code"] == -32001
    )
    after = conn.call("search.indexStatus", {"projectRoot": str(project)})["result"]
    assert after["docCount"] == before["docCount"]
    assert after["lastIngestAt"] == before["lastIngestAt"]
    assert after["backfillCompletedAt"] == before["backfillCompletedAt"]  # clear_index drops it
    assert after["state"] != "rebuilding"
    assert _index_facts(index) == facts  # same rows, same cursors: nothing cleared or re-read
    log = daemon.log_text()
    assert "refused search.rebuildIndex for role=agent" in log
    assert "wrong CTO token" in log
    assert "rebuild of" not in log


def test_daemon_client_speaks_the_search_client_protocol(daemon: Any, project: Path) -> None:
    env = {"ADE_RUNTIME_DIR": str(daemon.runtime), "ADE_CONFIG_DIR": str(daemon.config)}
    client = connect_daemon(project, env=env)
    assert client is not None
    assert client.connection.hello["role"] == "cto"
    result = client.query(SearchQueryArgs(query="zebra", limit=3))
    raw = _query(daemon.connect(), project, query="zebra", limit=3)["result"]
    assert [i.doc_id for i in result.items] == [i["docId"] for i in raw["items"]]
    assert client.index_status().doc_count >= 12
    assert client.rebuild_index().ok
    with pytest.raises(CursorError):
        client.query(SearchQueryArgs(query="zebra", cursor="garbage!"))
    with pytest.raises(UsageError):
        client.query(SearchQueryArgs(query="since:nonsense"))
    assert [s.id for s in client.list_sessions()] == ["chat-alpha"]
    assert client.transcript_path("chat-alpha") == project / ".ade/chats/chat-alpha.jsonl"
    client.close()
    agent = connect_daemon(project, env={**env, "ADE_SESSION_ID": "chat-alpha"})
    assert agent is not None
    assert agent.connection.hello["role"] == "agent"
    with pytest.raises(DaemonError) as info:
        agent.rebuild_index()
    assert info.value.code == -32001
    agent.close()


def test_a_one_shot_call_greets_and_asks_in_one_write(
    daemon: Any, project: Path, short_dir: Path
) -> None:
    """``call_once`` (the shell's ``ade search``) pipelines the hello and the request: the role
    the hello binds holds for the request, the daemon's own errors are raised as such, and no
    daemon is ``None``."""
    env = {"ADE_RUNTIME_DIR": str(daemon.runtime), "ADE_CONFIG_DIR": str(daemon.config)}
    params = {"projectRoot": str(project), "query": "zebra", "limit": 3}
    answered = call_once("search.query", params, 30, env=env)
    assert answered is not None
    line, result = answered
    assert line.startswith(b'{"jsonrpc":"2.0","id":2,"result":')  # the hello was id 1
    assert result == _query(daemon.connect(), project, query="zebra", limit=3)["result"]
    rebuilt = call_once("search.rebuildIndex", {"projectRoot": str(project)}, 60, env=env)
    assert rebuilt is not None
    assert rebuilt[1]["ok"]  # CTO-only: the hello's role came first
    agent = {**env, "ADE_SESSION_ID": "chat-alpha"}
    with pytest.raises(DaemonError) as info:
        call_once("search.rebuildIndex", {"projectRoot": str(project)}, 60, env=agent)
    assert info.value.code == -32001
    with pytest.raises(UsageError):
        call_once("search.query", {**params, "query": "since:nonsense"}, 30, env=env)
    nobody = {"ADE_RUNTIME_DIR": str(short_dir / "nothing"), "ADE_CONFIG_DIR": str(short_dir)}
    assert call_once("search.query", params, 30, env=nobody, meanwhile=lambda: 1 / 0) is None


def test_a_one_shot_call_sends_and_reads_without_the_json_package(
    daemon: Any, project: Path
) -> None:
    """``call_once`` writes its request and reads the answer without the ``json`` package
    (``framing.compact_json``, ``framing.decode_json_line``: json's decoder imports ``re``), and
    runs ``meanwhile`` while the daemon answers: the daemon already holds the connection."""
    env = {"ADE_RUNTIME_DIR": str(daemon.runtime), "ADE_CONFIG_DIR": str(daemon.config)}
    params = {"projectRoot": str(project), "query": "zebra", "limit": 3}
    held: list[int] = []

    def meanwhile() -> None:  # our request's connection is open while we are here
        held.append(daemon.connect().call("rpc.status", {})["result"]["connections"])

    answered = call_once("search.query", params, 30, env=env, meanwhile=meanwhile)
    assert answered is not None
    assert answered[1]["total"] == 12
    assert held == [2]
    code = (
        "import sys; from engine.rpc.connection import call_once; seen = [];"
        f" call_once('search.query', {params!r}, 30, env={env!r},"
        " meanwhile=lambda: seen.append('json' in sys.modules)); print(seen, 'json' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, **env})  # fmt: skip
    assert done.stdout.split() == ["[False]", "False"]


def test_client_reconnects_after_an_idle_cut_off(make_daemon: Any, project: Path) -> None:
    daemon = make_daemon("--idle-timeout", "0.3")
    env = {"ADE_RUNTIME_DIR": str(daemon.runtime), "ADE_CONFIG_DIR": str(daemon.config)}
    client = connect_daemon(project, env=env)
    assert client is not None
    assert client.query(SearchQueryArgs(query="zebra")).total == 12
    probe = daemon.connect()
    assert probe.closed_by_peer()  # proves the 0.3 s idle cut-off has happened
    assert client.query(SearchQueryArgs(query="zebra")).total == 12
    assert client.connection.hello["role"] == "cto"  # role re-proved on the new connection


def test_connect_daemon_is_fast_and_none_without_a_daemon(short_dir: Path, project: Path) -> None:
    env = {"ADE_RUNTIME_DIR": str(short_dir / "nothing"), "ADE_CONFIG_DIR": str(short_dir)}
    started = time.perf_counter()
    assert connect_daemon(project, env=env, timeout=30) is None
    # No socket file means no wait at all: far below the 30 s connect timeout even on a busy box.
    assert time.perf_counter() - started < 5


def test_ade_daemon_status_and_stop(
    daemon: Any, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ADE_RUNTIME_DIR", str(daemon.runtime))
    monkeypatch.setenv("ADE_CONFIG_DIR", str(daemon.config))
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    _query(daemon.connect(), project, query="zebra")
    assert ade_main(["daemon", "status"]) == 0
    out = capsys.readouterr().out
    assert f"pid {daemon.proc.pid}" in out
    assert str(project) in out
    assert "your role:   cto" in out
    assert ade_main(["daemon", "stop"]) == 0
    assert daemon.proc.wait(timeout=20) == 0
    assert not daemon.socket.exists()
    assert ade_main(["daemon", "status"]) == 1
    assert ade_main(["daemon", "stop"]) == 1


def test_ade_projects_commands(
    short_dir: Path,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ADE_CONFIG_DIR", str(short_dir / "cfg"))
    assert ade_main(["projects", "list"]) == 1
    assert ade_main(["projects", "add", str(project)]) == 0
    assert ade_main(["projects", "list"]) == 0
    assert f"alpha  Alpha  {project}" in capsys.readouterr().out
    assert ade_main(["projects", "add", str(short_dir / "missing")]) == 2
    assert ade_main(["projects", "remove", "alpha"]) == 0
    assert ade_main(["projects", "remove", "alpha"]) == 2
    assert os.path.exists(short_dir / "cfg" / "projects.json")


def test_unopenable_index_degrades_and_the_daemon_keeps_serving(
    daemon: Any, project: Path, short_dir: Path
) -> None:
    broken = short_dir / "broken"
    (broken / ".ade").mkdir(parents=True)
    (broken / ".ade" / "cache").write_text("a file where the cache folder should be")
    conn = daemon.connect()
    answer = _query(conn, broken, query="zebra")["result"]  # an answer, not an error
    assert answer["items"] == []
    assert any(w.startswith("search index unavailable") for w in answer["warnings"])
    status = conn.call("search.indexStatus", {"projectRoot": str(broken)})["result"]
    assert status["state"] == "degraded"
    assert any("NotADirectoryError" in w for w in status["warnings"])
    assert _query(conn, project, query="zebra")["result"]["total"] == 12


def test_sigterm_disposes_open_services(daemon: Any, project: Path) -> None:
    assert _query(daemon.connect(), project, query="zebra")["result"]["total"] == 12
    assert daemon.stop() == 0
    assert "disposing 1 services" in daemon.log_text()
    assert not daemon.socket.exists()
    index = project / ".ade" / "cache" / "search-index.db"
    # Every connection closed: SQLite removes the WAL when the last one goes.
    assert not index.with_name(index.name + "-wal").exists()


def test_the_client_s_cto_methods_are_the_daemon_s() -> None:
    """``call_once`` presents the token only for these; the daemon refuses them to agents."""
    from engine.actions import CTO_ONLY
    from engine.rpc.roles import CTO_METHODS

    assert CTO_METHODS == CTO_ONLY
