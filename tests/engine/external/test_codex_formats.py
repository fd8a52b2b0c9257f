"""Every Codex store read (``tests/fixtures/agents/codex``, its README names the sources): the
day folders, ``archived_sessions`` (a session ``codex archive`` moved stays found, same id and
link), the legacy whole-JSON ``rollout-*.json``, thread names from ``session_index.jsonl`` as
titles (else the first user message), lines without or with an unknown ``type`` counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import no_daemon_flag

from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES
from tests.engine.external.fixture_reads import check_events, expect, install
from tui.cli import main

SPEC = expect("codex")


def _install(tmp: Path, project: Path, lane: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    return install("codex", tmp, project, lane)


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    project, lane = tmp_path / "work" / "demo", tmp_path / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    return _install(tmp_path, project, lane)


def test_day_archived_and_legacy_sessions_are_found_titled_by_thread_name(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, environ, lanes = installed
    tally = WarningTally()
    found = agent_format("codex").sessions(lanes, tally, environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, m.transcript_path) for m in found}
    want = {(s["id"], s["lane"], s["title"], home / s["file"]) for s in SPEC["sessions"]}
    assert got == want
    assert tally.total() == 0


def test_events_have_roles_hidden_text_never_comes_out_and_skips_have_reasons(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    check_events("codex", installed[0])


def test_an_appended_line_is_read_from_where_the_last_pass_stopped(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, _, _ = installed
    fmt = agent_format("codex")
    path = home / SPEC["sessions"][0]["file"]
    _, used, state = fmt.parse(path.read_bytes(), 0, "chat:s", WarningTally(), {})
    added = (FIXTURES / "codex" / "append.jsonl").read_bytes()
    with path.open("ab") as handle:
        handle.write(added[:-8])
    assert fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)[:2] == ([], 0)
    with path.open("ab") as handle:
        handle.write(added[-8:])
    events, more, _ = fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)
    etype, word = SPEC["append"]
    assert [(e.type, word in e.data["text"], e.offset) for e in events] == [(etype, True, used)]
    assert more == len(added)


def test_resume_and_recorded_cwd_for_every_store(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    _, environ, lanes = installed
    fmt = agent_format("codex")
    by_id = {m.id: m for m in fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))}
    lane_path = {lane.id: lane.path for lane in lanes}
    for spec in SPEC["sessions"]:
        meta = by_id[spec["id"]]
        assert list(fmt.resume_argv(meta) or ()) == spec["resume"]
        assert fmt.recorded_cwd(meta) == lane_path[spec["lane"]]


def test_the_watcher_takes_archived_and_legacy_files_for_new_sessions(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, environ, _ = installed
    fmt = agent_format("codex")
    assert fmt.owner_hint(home / "archived_sessions" / "rollout-x.jsonl", environ, None) == (
        "if-unseen"
    )
    assert fmt.owner_hint(home / "sessions" / "rollout-x.json", environ, None) == "if-unseen"
    assert fmt.owner_hint(home / "sessions" / "2026" / "a.txt", environ, None) == "foreign"
    assert home / "archived_sessions" in fmt.watch_roots(environ)


def _search(capsys: pytest.CaptureFixture[str], root: Path, query: str) -> list[dict[str, Any]]:
    capsys.readouterr()
    argv = ["search", *no_daemon_flag(), "--json", "--exact", "--project", str(root), query]
    assert main(argv) in (0, 1)
    items: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["items"]
    return [i for i in items if i["kind"] == "chat"]


@pytest.mark.usefixtures("cli_path")
def test_a_session_moved_by_codex_archive_stays_in_the_index_with_its_link(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    home, environ, _ = _install(tmp_path, repo, tmp_path / "proj-wt" / "feature-x")
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    before = _search(capsys, repo, "wombat parser drop")
    assert {(h["sessionId"], h["laneId"]) for h in before} == {
        (SPEC["sessions"][0]["id"], "primary")
    }
    legacy = _search(capsys, repo, "echidna fixture")
    assert {h["sessionId"] for h in legacy} == {SPEC["sessions"][2]["id"]}
    day = home / SPEC["sessions"][0]["file"]
    day.rename(home / "archived_sessions" / day.name)  # what `codex archive` does
    after = _search(capsys, repo, "wombat parser drop")
    assert [(h["sessionId"], h["deepLink"]) for h in after] == [
        (h["sessionId"], h["deepLink"]) for h in before
    ]
    capsys.readouterr()
    assert main(["open", "--project", str(repo), after[0]["deepLink"]]) == 0
    focus = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("> ")]
    assert len(focus) == 1
    assert "wombat parser drop" in focus[0]
