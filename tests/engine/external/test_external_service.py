"""Claude Code and Codex transcripts through the whole tool: `ade search`, `ade open`, the
ingestion service's reconcile, drain, watcher routing and ``session:`` freshness.

The fixture homes (``CLAUDE_CONFIG_DIR``/``CODEX_HOME`` in ``tmp_path``) hold the real formats
written by ``test_external_sources``: a Claude session in the linked worktree (with a corrupt
line, a spliced line, a 3 MB line, a torn tail and a subagent file) and a Codex rollout in the
main worktree (duplicate ``event_msg`` copies, reasoning).
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import no_daemon_flag

from engine.external.catalog import FOREIGN, ExternalCatalog, project_sessions
from engine.external.discover import claude_slug
from engine.index.db import connect, list_sources
from engine.ingest.timers import ManualTimerFactory
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service
from tui.cli import main

from .test_external_sources import claude_msg, homes

__all__ = ["homes"]

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


@pytest.fixture
def env(homes: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in homes.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    return homes


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
        "50",
        *query,
    ]
    code = main(argv)
    out = capsys.readouterr().out
    assert code in (0, 1), out
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


def one_hit(capsys: pytest.CaptureFixture[str], root: Path, *query: str) -> dict[str, Any]:
    items = [i for i in search(capsys, root, *query) if i["kind"] == "chat"]
    assert len(items) == 1, items
    return items[0]


@pytest.mark.usefixtures("cli_path")
def test_search_finds_every_message_kind_of_both_tools_with_lanes(
    repo: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {
        "zorblax crash": ("claude-abc-123", "feature-x"),  # user text
        "frobnicate": ("claude-abc-123", "feature-x"),  # assistant text
        "quuxify": ("claude-abc-123", "feature-x"),  # tool call (and its result)
        "flibbertigibbet": ("claude-abc-123", "feature-x"),  # tool result
        "wibblewobble": ("claude-abc-123", "feature-x"),  # the 3 MB line
        "grommets": ("claude-abc-123", "feature-x"),  # the subagent, under its parent
        "splunge pass": ("codex-0199-abc", "primary"),  # assistant, both copies → one
        "pytest splunge": ("codex-0199-abc", "primary"),  # function call
        "tests passed": ("codex-0199-abc", "primary"),  # its output, decoded from JSON
    }
    for query, (sid, lane) in expected.items():
        hits = [i for i in search(capsys, repo, query) if i["kind"] == "chat"]
        assert hits, query
        assert {(h["sessionId"], h["laneId"]) for h in hits} == {(sid, lane)}, query
    # The user's Codex message is said twice on purpose (two docs), each copy pair once.
    # (message documents only: the session's own row now links to a message as well)
    hits = search(capsys, repo, "run the splunge tests")
    user = [i for i in hits if i["docId"] != "chat:codex-0199-abc"]
    assert len(user) == 2, [(i["docId"], i["anchor"]) for i in user]
    for hidden in ("secretthought", "hiddenreason", "elsewhere", "spliced", "environment_context"):
        assert search(capsys, repo, hidden) == [], hidden


@pytest.mark.usefixtures("cli_path")
def test_torn_tail_is_found_once_after_completion_and_reconcile_keeps_everything(
    repo: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert search(capsys, repo, "torn tail text") == []
    path = Path(env["CLAUDE_CONFIG_DIR"]) / "projects"
    path = path / claude_slug(repo.parent / "proj-wt" / "feature-x") / "abc-123.jsonl"
    with path.open("ab") as handle:
        handle.write(claude_msg("u10", "user", "torn tail text", "x")[-10:])
    assert one_hit(capsys, repo, "torn tail text")["sessionId"] == "claude-abc-123"
    before = {i["docId"] for i in search(capsys, repo, "kind:chat")}
    assert "chat:claude-abc-123:s1" in before  # the subagent's doc (its source is kept too)
    for _ in range(2):  # warm reconciles: nothing re-listed as gone
        assert {i["docId"] for i in search(capsys, repo, "kind:chat")} == before
    assert one_hit(capsys, repo, "torn tail text")["sessionId"] == "claude-abc-123"
    assert one_hit(capsys, repo, "grommets")["sessionId"] == "claude-abc-123"
    keys = {row.key for row in list_sources(connect(open_project(repo).index_path))}
    assert {"chat:claude-abc-123", "chat:claude-abc-123/agent-7f"} <= keys  # cursors kept


def test_chat_link_opens_the_exact_message(
    repo: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {"frobnicate": "Let me look at frobnicate.", "grommets": "subagent found grommets",
             "All splunge": "All splunge tests pass.", "flibbertigibbet": "plain result flibbertigibbet"}  # fmt: skip
    for query, text in cases.items():
        link = one_hit(capsys, repo, query)["deepLink"]
        capsys.readouterr()
        assert main(["open", "--project", str(repo), link]) == 0
        out = capsys.readouterr().out
        focus = [ln for ln in out.splitlines() if ln.startswith("> ")]
        assert len(focus) == 1, out
        assert focus[0].endswith(text), out


def test_listing_and_session_freshness(repo: Path, env: dict[str, str]) -> None:
    project = open_project(repo)
    listed = {m.id: m for m in project_sessions(project, WarningTally())}
    assert listed["claude-abc-123"].tool == "claude"
    assert listed["codex-0199-abc"].tool == "codex"
    timers = ManualTimerFactory()
    service = create_project_service(project, clock=lambda: NOW, timer=timers, start_worker=False)
    try:
        service.catch_up()
        # A line appended after the catch-up is matched live under session:, before any pass.
        path = listed["codex-0199-abc"].transcript_path
        assert path is not None
        with path.open("ab") as handle:
            handle.write(json.dumps({"timestamp": "2026-05-28T11:05:00Z", "type": "event_msg",
                                     "payload": {"type": "agent_message",
                                                 "message": "fresh kerfuffle"}}).encode() + b"\n")  # fmt: skip
        args = SearchQueryArgs(query="session:codex-0199-abc kerfuffle")
        assert [i.session_id for i in service.query(args).items] == ["codex-0199-abc"]
        assert service.query(SearchQueryArgs(query="kerfuffle")).items == ()
        # The watcher's routing: a known file queues its session, another project's is ignored.
        catalog = service.drainer.external
        service.notify_external_file(path)
        assert "codex-0199-abc" in service.queue.pending["external"]
        other = next(path.parent.glob("rollout-*zzz.jsonl"))
        assert catalog.owner(other) == FOREIGN
        new = path.parent / "rollout-new.jsonl"
        new.write_bytes(other.read_bytes())
        assert catalog.owner(new) is None  # unknown until listed: the service re-lists
        service.notify_external_file(new)
        assert "watch" in service.queue.pending["reconcile"]
        service.process_pending_now()
        assert [i.session_id for i in service.query(SearchQueryArgs(query="kerfuffle")).items] == [
            "codex-0199-abc"
        ]
    finally:
        service.dispose()


class Calls:
    """A watcher target recording external-file notices."""

    def __init__(self) -> None:
        self.paths: list[Path] = []
        self.changed = threading.Condition()

    def notify_external_file(self, path: Path) -> None:
        with self.changed:
            self.paths.append(path)
            self.changed.notify_all()

    def __getattr__(self, name: str) -> Any:
        return lambda *args: None  # the .ade/ and git hooks: not under test here

    def poke_until(self, path: Path, deadline_s: float = 10.0) -> bool:
        """Append to ``path`` until its notice arrives ("watching" is reported just before the
        watch is armed, so the first append may land in between)."""
        for _ in range(int(deadline_s / 0.2)):
            with path.open("ab") as handle:
                handle.write(b"\n")
            with self.changed:
                if self.changed.wait_for(lambda: path in self.paths, 0.2):
                    return True
        return False


def test_watcher_hands_claude_and_codex_file_changes_to_the_service(
    repo: Path, env: dict[str, str]
) -> None:
    from engine.ingest.watcher import Watcher

    project = open_project(repo)
    project.ade_dir.mkdir()
    catalog = ExternalCatalog(project)
    homes = [Path(env["CLAUDE_CONFIG_DIR"]) / "projects", Path(env["CODEX_HOME"]) / "sessions"]
    assert catalog.watch_roots()[:2] == homes  # then the other tools', made or not
    target, states = Calls(), []
    watcher = Watcher(project, target, list, states.append, catalog.watch_roots)  # type: ignore[arg-type]
    watcher.start()
    try:
        claude = next((Path(env["CLAUDE_CONFIG_DIR"]) / "projects").glob("*/abc-123/subagents/*"))
        codex = next((Path(env["CODEX_HOME"]) / "sessions").glob("*/*/*/rollout-*abc.jsonl"))
        assert target.poke_until(claude)  # a subagent file, two folders down
        assert target.poke_until(codex)
    finally:
        watcher.stop()


def test_head_cache_lets_a_warm_listing_read_no_transcript(
    repo: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.external.finding as finding

    project = open_project(repo)
    first = ExternalCatalog(project).refresh(list_lanes(project, WarningTally()), WarningTally())
    reads: list[Path] = []
    real_head = finding.read_head
    monkeypatch.setattr(finding, "read_head", lambda p, b=None: reads.append(p) or real_head(p, b))
    again = ExternalCatalog(project)  # a new process: the cache comes from .ade/cache
    assert again.refresh(list_lanes(project, WarningTally()), WarningTally()) == first
    assert reads == []
    # A file replaced by another (new inode) is read again; its new cwd decides.
    codex = next(m.transcript_path for m in first if m.source == "codex")
    assert codex is not None
    data = codex.read_bytes().replace(str(repo / "src").encode(), b"/elsewhere")
    codex.unlink()
    codex.write_bytes(data)
    listed = again.refresh(list_lanes(project, WarningTally()), WarningTally())
    assert reads == [codex]
    assert [m.id for m in listed] == ["claude-abc-123"]


@pytest.mark.usefixtures("cli_path")
def test_plain_folder_project_and_a_deleted_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    folder = tmp_path / "claude" / "projects" / claude_slug(root)
    folder.mkdir(parents=True)
    transcript = folder / "n1.jsonl"
    transcript.write_bytes(claude_msg("u1", "user", "the snorkel budget", str(root)))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    hits = search(capsys, root, "snorkel")  # the session (titled by it) and the message
    assert {(h["docId"], h["laneId"]) for h in hits} == {
        ("chat:claude-n1", "primary"),
        ("chat:claude-n1:u1", "primary"),
    }
    project = open_project(root)
    service = create_project_service(project, clock=lambda: NOW, timer=ManualTimerFactory(),
                                     start_worker=False)  # fmt: skip
    try:
        service.catch_up()
        # Ours, or unknown (the warm catch-up's manifest matched, nothing was listed): never
        # foreign, so a change to it is followed.
        assert service.drainer.external.owner(transcript) in ("claude-n1", None)
        transcript.unlink()
        service.notify_external_file(transcript)
        assert "watch" in service.queue.pending["reconcile"]  # gone: re-list, docs dropped
    finally:
        service.dispose()
    assert search(capsys, root, "snorkel") == []


@pytest.mark.usefixtures("cli_path")
def test_a_token_in_a_claude_title_is_not_indexed_listed_or_found(
    repo: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.engine.ingest.test_redaction_index import file_bytes, fragments
    from tests.engine.test_redaction import GHP

    folder = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / claude_slug(repo)
    folder.mkdir(parents=True)
    (folder / "tok-1.jsonl").write_bytes(
        claude_msg("t1", "user", f"push with {GHP} to the vexillum remote", str(repo))
    )
    hits = [i for i in search(capsys, repo, "vexillum") if i["kind"] == "chat"]
    assert hits
    assert all(GHP not in f"{h['title']} {h['snippet']}" for h in hits)
    assert any("[REDACTED:github-token]" in h["title"] for h in hits)
    assert search(capsys, repo, GHP) == []
    listed = [m for m in project_sessions(open_project(repo), WarningTally()) if "tok-1" in m.id]
    assert listed
    assert GHP not in listed[0].title
    raw = file_bytes(open_project(repo).index_path)
    for fragment in fragments(GHP):
        assert fragment not in raw
