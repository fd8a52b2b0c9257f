"""Gemini CLI, OpenCode, Copilot CLI and Aider sessions through the whole tool (docs/agents.md):
discovery by cwd (a lane subfolder included), every message part, what is left out, torn tails,
rewrites without duplicates, half-written files, ``tool:``, ``ade open`` at the exact message,
``session:`` live matching and the watcher's routing. HOME is always a tmp folder."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw
import pytest
from cli_helpers import no_daemon_flag

from engine.external.catalog import FOREIGN, project_sessions
from engine.external.discover import external_sessions
from engine.ingest.timers import ManualTimerFactory
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service
from tui.cli import main

from .agent_fixtures import (
    COPILOT_SID,
    GEMINI_SID,
    GEMINI_WT_SID,
    TOKEN,
    copilot_events,
    gemini_jsonl,
    write_aider,
    write_copilot,
    write_gemini,
    write_opencode,
)

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.fixture
def agent_env(tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The four stores, each moved by the variable its tool honours; HOME is an empty tmp."""
    worktree = tmp_path / "proj-wt" / "feature-x"
    env = {
        "HOME": str(tmp_path / "home"),
        "GEMINI_CLI_HOME": str(tmp_path / "gem"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "COPILOT_HOME": str(tmp_path / "copilot"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
    }
    (tmp_path / "home").mkdir()
    write_gemini(tmp_path / "gem", repo, worktree)
    write_opencode(tmp_path / "xdg", repo, worktree)
    write_copilot(tmp_path / "copilot", worktree)
    write_aider(repo, worktree)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    return env


def search(capsys: pytest.CaptureFixture[str], root: Path, *query: str) -> list[dict[str, Any]]:
    capsys.readouterr()
    # --exact: these tests ask what is indexed, not what a relaxed answer would add
    argv = [
        "search",
        *no_daemon_flag(),
        "--json",
        "--exact",
        "--project",
        str(root),
        "--limit",
        "100",
        *query,
    ]
    code = main(argv)
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return [i for i in json.loads(out)["items"] if i["kind"] == "chat"]


SESSIONS = {
    f"gemini-{GEMINI_SID}": ("primary", "gemini", "Build the zizzle target"),
    f"gemini-{GEMINI_WT_SID}": ("feature-x", "gemini", "legacy gemini quokka question"),
    "opencode-ses_main": ("primary", "opencode", "Tune the wombat cache"),
    "opencode-ses_wt": ("feature-x", "opencode", "Worktree numbat work"),
    f"copilot-{COPILOT_SID}": ("feature-x", "copilot", "why is the kumquat parser slow"),
    "aider-primary": ("primary", "aider", "make the marmot retry configurable and document it"),
    "aider-feature-x": ("feature-x", "aider", "make the ferret retry configurable and document it"),
}


def test_discovery_attributes_each_session_to_its_lane(
    repo: Path, agent_env: dict[str, str]
) -> None:
    project = open_project(repo)
    tally = WarningTally()
    found = external_sessions(project, list_lanes(project, tally), tally, agent_env)
    assert {m.id: (m.lane_id, m.tool, m.title) for m in found} == SESSIONS
    assert all(m.source == m.tool and m.transcript_path is not None for m in found)


def test_aider_needs_no_home_configuration(repo: Path, tmp_path: Path) -> None:
    write_aider(repo, tmp_path / "proj-wt" / "feature-x")
    project = open_project(repo)
    tally = WarningTally()
    bare = {"HOME": str(tmp_path / "nothing-here")}  # no tool configured anywhere
    found = external_sessions(project, list_lanes(project, tally), tally, bare)
    assert [m.id for m in found] == ["aider-feature-x", "aider-primary"]


EXPECTED = {
    # Gemini: user text, reply text (not the thought part), tool call, tool result display
    "zizzle target": f"gemini-{GEMINI_SID}",
    "Building zizzle": f"gemini-{GEMINI_SID}",
    "make zizzle": f"gemini-{GEMINI_SID}",
    "zizzle built ok": f"gemini-{GEMINI_SID}",
    "quokka answer": f"gemini-{GEMINI_WT_SID}",  # the legacy one-document file
    "gizzards": f"gemini-{GEMINI_SID}",  # a subagent's file, under its parent session
    # OpenCode: user part, assistant part, tool input and output
    "wombatuser": "opencode-ses_main",
    "wombatreply": "opencode-ses_main",
    "wombatgrep": "opencode-ses_main",
    "wombatoutput": "opencode-ses_main",
    "numbatreply": "opencode-ses_wt",
    # Copilot: user, assistant, tool call arguments, detailed result
    "kumquat parser slow": f"copilot-{COPILOT_SID}",
    "Profiling kumquat": f"copilot-{COPILOT_SID}",
    "kumquatspy": f"copilot-{COPILOT_SID}",
    "kumquatprofile": f"copilot-{COPILOT_SID}",
    # Aider: the #### input, the reply (with its edit block), aider's own output lines
    "marmot retry configurable": "aider-primary",
    "marmot_retries": "aider-primary",
    "marmotcommit": "aider-primary",
    "ferret_retries": "aider-feature-x",
}

HIDDEN = [
    "secretgeminithought", "thoughtpart", "injectedscaffold", "infonotice", "rewoundmessage",
    "wombatreasoning", "wombatsynthetic", "foreignocelot", "copilotsecretthought",
    "transformedscaffold", "skillinjected", "torn tail",
]  # fmt: skip


@pytest.mark.usefixtures("cli_path")
def test_search_finds_every_visible_part_and_nothing_hidden(
    repo: Path, agent_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for query, sid in EXPECTED.items():
        hits = search(capsys, repo, query)
        assert {h["sessionId"] for h in hits} == {sid}, query
        lane, tool, _ = SESSIONS[sid]
        assert {(h["laneId"], h["tool"]) for h in hits} == {(lane, tool)}, query
    for word in HIDDEN:
        assert search(capsys, repo, word) == [], word
    (reply,) = search(capsys, repo, "wombatreply")
    assert reply["snippet"].endswith("[REDACTED:github-token]")  # the index holds no secret
    assert search(capsys, repo, TOKEN) == []
    # The Gemini reply was written three times under one id: indexed once.
    assert len(search(capsys, repo, "Building zizzle")) == 1


@pytest.mark.usefixtures("cli_path")
def test_tool_filter_narrows_to_one_agent_and_rejects_unknown_ones(
    repo: Path, agent_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    every = search(capsys, repo, "kind:chat")
    assert {h["tool"] for h in every} == {"gemini", "opencode", "copilot", "aider"}
    gemini = search(capsys, repo, "tool:gemini")
    assert gemini
    assert {h["tool"] for h in gemini} == {"gemini"}
    both = search(capsys, repo, "--tool", "aider", "--tool", "copilot,aider")
    assert {h["tool"] for h in both} == {"aider", "copilot"}
    assert search(capsys, repo, "tool:claude,codex") == []
    assert search(capsys, repo, "tool:gemini", "kumquat") == []
    capsys.readouterr()
    assert main(["search", *no_daemon_flag(), "--project", str(repo), "tool:windsurf"]) == 2
    err = capsys.readouterr().err
    assert "unknown tool:'windsurf'" in err
    assert "gemini, opencode, copilot, aider" in err
    assert main(["search", *no_daemon_flag(), "--project", str(repo), "--tool", "vim"]) == 2


@pytest.mark.usefixtures("cli_path")
def test_torn_tails_are_indexed_once_when_completed(
    repo: Path, agent_env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert search(capsys, repo, "torn tail") == []
    worktree = str(tmp_path / "proj-wt" / "feature-x")
    copilot = Path(agent_env["COPILOT_HOME"]) / "session-state" / COPILOT_SID / "events.jsonl"
    gemini = next(Path(agent_env["GEMINI_CLI_HOME"]).glob(".gemini/tmp/proj/chats/session-*.jsonl"))
    for path, whole in (
        (copilot, copilot_events(COPILOT_SID, worktree, torn=False)),
        (gemini, gemini_jsonl(str(repo / "src"), torn=False)),
    ):
        with path.open("ab") as handle:  # the writer finishes its line
            handle.write(whole[path.stat().st_size :])
    with (repo / ".aider.chat.history.md").open("ab") as handle:
        handle.write(b"  \n")
    hits = search(capsys, repo, "torn tail")
    assert sorted(h["sessionId"] for h in hits) == sorted(
        [f"copilot-{COPILOT_SID}", "aider-primary", f"gemini-{GEMINI_SID}"]
    )
    assert len(search(capsys, repo, "torn tail")) == 3  # a warm run adds nothing


@pytest.mark.usefixtures("cli_path")
def test_gemini_rewrites_and_rewinds_never_duplicate(
    repo: Path, agent_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = next(Path(agent_env["GEMINI_CLI_HOME"]).glob(".gemini/tmp/proj/chats/session-*.jsonl"))
    before = {h["docId"] for h in search(capsys, repo, "zizzle")}
    assert len(before) == 5  # session, user, reply, tool call, tool result
    lines = [
        {
            "id": "m6",
            "timestamp": "2026-06-01T11:00:00Z",
            "type": "user",
            "content": "pangolin one",
        },
        {
            "id": "m6",
            "timestamp": "2026-06-01T11:00:00Z",
            "type": "user",
            "content": "pangolin two",
        },
    ]
    with path.open("ab") as handle:
        handle.write(b"\n" + b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    hits = search(capsys, repo, "pangolin")
    assert [h["snippet"] for h in hits] == ["pangolin two"]  # the later copy replaced it
    with path.open("ab") as handle:
        handle.write(b'{"$rewindTo": "m6"}\n')
    assert search(capsys, repo, "pangolin") == []  # rewound: gone from the index too
    assert {h["docId"] for h in search(capsys, repo, "zizzle")} == before


@pytest.mark.usefixtures("cli_path")
def test_half_written_legacy_file_is_skipped_and_counted_and_keeps_its_docs(
    repo: Path, agent_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(search(capsys, repo, "quokka answer")) == 1
    legacy = next(Path(agent_env["GEMINI_CLI_HOME"]).glob(".gemini/tmp/*/chats/*.json"))
    whole = legacy.read_bytes()
    legacy.write_bytes(whole[: len(whole) // 2])  # caught mid-rewrite
    assert len(search(capsys, repo, "quokka answer")) == 1
    capsys.readouterr()
    assert main(["search", *no_daemon_flag(), "--status", "--json", "--project", str(repo)]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    # counted, not fatal: under the session it belongs to (its docs are kept)
    assert warnings.get(f"chat:gemini-{GEMINI_WT_SID}", 0) >= 1, warnings
    legacy.write_bytes(whole.replace(b"legacy quokka answer", b"legacy quokka reply"))
    assert search(capsys, repo, "quokka answer") == []
    assert len(search(capsys, repo, "quokka reply")) == 1


def test_corrupt_lines_and_rows_are_skipped_and_counted(
    repo: Path, agent_env: dict[str, str]
) -> None:
    service = create_project_service(
        open_project(repo), clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    try:
        service.catch_up()
        skipped = service.drainer.tally.snapshot()
    finally:
        service.dispose()
    assert skipped[f"chat:gemini-{GEMINI_SID}"] == 1  # its corrupt line
    assert skipped["chat:opencode-ses_main"] == 1  # the part row whose JSON does not decode
    assert skipped[f"chat:copilot-{COPILOT_SID}"] == 1  # its corrupt line


@pytest.mark.usefixtures("cli_path")
def test_a_corrupt_opencode_database_is_counted_not_fatal(
    repo: Path, agent_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = Path(agent_env["XDG_DATA_HOME"]) / "opencode" / "opencode-beta.db"
    bad.write_bytes(b"this is not a database" * 100)
    assert len(search(capsys, repo, "wombatreply")) == 1
    assert len(search(capsys, repo, "kumquatspy")) == 1


@pytest.mark.usefixtures("cli_path")
def test_links_open_the_exact_message(
    repo: Path, agent_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {
        "zizzle built ok": "zizzle built ok",
        "quokka answer": "legacy quokka answer",
        "gizzards": "subagent found gizzards",
        "wombatoutput": "src/x.py: wombatoutput",
        "kumquatprofile": "kumquatprofile hot loop",
        "marmotcommit": "Applied edit to config.py",  # the first line of aider's output block
        "marmot_retries": "I'll add a `marmot_retries` setting.",
    }
    for query, text in cases.items():
        (hit,) = search(capsys, repo, query)
        capsys.readouterr()
        assert main(["open", "--project", str(repo), hit["deepLink"]]) == 0
        out = capsys.readouterr().out
        focus = [ln for ln in out.splitlines() if ln.startswith("> ")]
        assert len(focus) == 1, out
        assert focus[0].endswith(text), out


def test_session_filter_matches_unindexed_writes_live_and_the_watcher_routes_them(
    repo: Path, agent_env: dict[str, str]
) -> None:
    project = open_project(repo)
    listed = {m.id: m for m in project_sessions(project, WarningTally())}
    service = create_project_service(
        project, clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    try:
        service.catch_up()
        copilot = listed[f"copilot-{COPILOT_SID}"].transcript_path
        assert copilot is not None
        with copilot.open("ab") as handle:
            handle.write(b"\n" + json.dumps({"type": "assistant.message", "id": "late",
                         "timestamp": "2026-06-02T11:00:00Z", "parentId": None,
                         "data": {"messageId": "x", "content": "fresh capybara"}}).encode() + b"\n")  # fmt: skip
        db = Path(agent_env["XDG_DATA_HOME"]) / "opencode" / "opencode.db"
        conn = apsw.Connection(str(db))
        conn.execute(
            "INSERT INTO part VALUES ('prt_ses_main_9', 'msg_ses_main_2', 'ses_main', ?, ?, ?)",
            (1780309000000, 1780309000000, json.dumps({"type": "text", "text": "fresh axolotl"})),
        )
        conn.close()
        with (repo / ".aider.chat.history.md").open("ab") as handle:
            handle.write(b"  \n\n#### fresh tapir question  \n")  # ends the torn input first
        gemini = next(Path(agent_env["GEMINI_CLI_HOME"]).glob(".gemini/tmp/proj/chats/*.jsonl"))
        with gemini.open("ab") as handle:
            handle.write(b"\n" + json.dumps({"id": "m9", "timestamp": "2026-06-01T12:00:00Z",
                         "type": "gemini", "content": "fresh okapi"}).encode() + b"\n")  # fmt: skip
        fresh = {f"copilot-{COPILOT_SID}": "capybara", "opencode-ses_main": "axolotl",
                 "aider-primary": "tapir", f"gemini-{GEMINI_SID}": "okapi"}  # fmt: skip
        for sid, word in fresh.items():
            live = service.query(SearchQueryArgs(query=f"session:{sid} {word} kind:chat")).items
            assert [i.session_id for i in live] == [sid], word
            assert live[0].tool == sid.split("-")[0]
            assert service.query(SearchQueryArgs(query=f"{word} kind:chat")).items == ()  # not yet
        catalog = service.drainer.external
        assert set(catalog.watch_roots()) >= {  # the watcher follows each tool's store
            Path(agent_env["GEMINI_CLI_HOME"]) / ".gemini" / "tmp",
            Path(agent_env["XDG_DATA_HOME"]) / "opencode",
            Path(agent_env["COPILOT_HOME"]) / "session-state",
        }
        service.notify_external_file(copilot)
        assert f"copilot-{COPILOT_SID}" in service.queue.pending["external"]
        assert catalog.owner(db) is None  # a database write: re-list, signatures decide
        assert catalog.owner(db.with_name("opencode.db-shm")) == FOREIGN  # our own reads
        foreign = Path(agent_env["GEMINI_CLI_HOME"]) / ".gemini/tmp/elsewhere/chats/session-x.jsonl"
        assert catalog.owner(foreign) == FOREIGN
        new = Path(agent_env["GEMINI_CLI_HOME"]) / ".gemini/tmp/proj/chats/session-new.jsonl"
        assert catalog.owner(new) is None
        service.request_reconcile()
        service.process_pending_now()
        for word in fresh.values():
            assert len(service.query(SearchQueryArgs(query=f"{word} kind:chat")).items) == 1, word
    finally:
        service.dispose()
