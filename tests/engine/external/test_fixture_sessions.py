"""Every agent read from its fixture in the shared layout (``tests/fixtures/agents/<name>/``,
docs/agents.md; each README names the agent's source files and real sessions), the way the index
reads it: a real git repository and its linked worktree as the two lanes, each session found in
its lane, its events with roles in order and each message once, hidden text absent, skipped
records counted with their reasons, a live append read (the bytes appended to a tailed
transcript from where the last pass stopped, torn first; a store read whole re-derived when its
signature moves: a database's new rows, a document rewritten), and the resume command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import apsw
import pytest

from engine.agent_table import AGENT_NAMES, entry
from engine.external.agent_format import AgentFormat
from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.git import worktrees
from engine.project.lanes import lanes_from_worktrees
from engine.project.model import Lane, SessionMeta
from engine.project.tally import WarningTally
from tests.conftest import git
from tests.engine.external.agent_homes import FIXTURES, install_home, put_in
from tests.engine.external.fixture_reads import events_of, expect, shown

LAID_OUT = tuple(name for name in AGENT_NAMES if (FIXTURES / name / "expect.json").is_file())
"""The agents whose fixtures are in the shared layout (``test_agent_fixtures``: all of them but
those still pending)."""

Installed = tuple[Path, dict[str, str], list[Lane]]


def _lanes(tmp: Path) -> list[Lane]:
    """A git repository ``work/demo`` and its linked worktree ``work/demo-lanes/fix``, as the
    project lists them."""
    project, lane = tmp / "work" / "demo", tmp / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    git(project, "init", "-q", "-b", "main")
    (project / "README").write_text("demo\n")
    git(project, "add", "README")
    git(project, "commit", "-q", "-m", "first")
    git(project, "worktree", "add", "-q", "-b", "fix", str(lane))
    lanes = lanes_from_worktrees(worktrees(project), WarningTally())
    assert [(x.id, x.path) for x in lanes] == [("primary", project), ("fix", lane)]
    return lanes


def _install(name: str, tmp: Path) -> Installed:
    """The fixture's home under ``tmp`` (moved there by the agent's variable, or at its default
    under ``HOME``) and the two lanes."""
    lanes = _lanes(tmp)
    line = entry(name)
    environ = {"HOME": str(tmp / "user")}
    home = Path(environ["HOME"]) / line.default
    if line.variable is not None:
        home = tmp / "moved-home"
        environ[line.variable] = str(home)
    install_home(name, home, lanes[0].path, lanes[1].path)
    return home, environ, lanes


def _file(name: str, home: Path, spec: dict[str, Any], lanes: list[Lane]) -> Path:
    """A session's file: ``file`` under the home, or in a lane (``@PROJECT@/…``)."""
    return home / put_in(name, str(spec["file"]), lanes[0].path, lanes[1].path)


def _found(fmt: AgentFormat, installed: Installed) -> list[SessionMeta]:
    _, environ, lanes = installed
    return fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))


@pytest.mark.parametrize("name", LAID_OUT)
def test_each_session_is_found_in_its_lane(name: str, tmp_path: Path) -> None:
    installed = home, _, lanes = _install(name, tmp_path)
    fmt = agent_format(name)
    found = _found(fmt, installed)
    sessions = expect(name)["sessions"]
    got = {(m.id, m.lane_id, m.title, m.tool, m.transcript_path) for m in found}
    want = {(s["id"], s["lane"], s["title"], name, _file(name, home, s, lanes)) for s in sessions}
    assert got == want
    folders = {lane.id: lane.path for lane in lanes}
    for meta in found:
        cwd = fmt.recorded_cwd(meta)
        assert cwd is None or cwd == folders[meta.lane_id] or folders[meta.lane_id] in cwd.parents


@pytest.mark.parametrize("name", LAID_OUT)
def test_events_have_roles_hidden_text_never_comes_out_skips_are_counted(
    name: str, tmp_path: Path
) -> None:
    home, _, lanes = _install(name, tmp_path)
    for spec in expect(name)["sessions"]:
        tally = WarningTally()
        events = events_of(name, _file(name, home, spec, lanes), tally)
        said = [(e.type, shown(e)) for e in events]
        assert [t for t, _ in said] == [t for t, _ in spec["events"]], said
        for (_, text), (_, word) in zip(said, spec["events"], strict=True):
            assert word in text, (text, word)
        for word in spec["hidden"]:
            assert all(word not in json.dumps(e.data) for e in events), word
        assert tally.total() == spec["skipped"], tally.reasons("chat:s")
        if "skips" in spec:
            assert tally.reasons("chat:s") == spec["skips"]


def _appended(name: str) -> Path:
    (found,) = sorted(FIXTURES.joinpath(name).glob("append.*"))
    return found


@pytest.mark.parametrize("name", LAID_OUT)
def test_a_live_append_is_read(name: str, tmp_path: Path) -> None:
    installed = home, _, lanes = _install(name, tmp_path)
    fmt = agent_format(name)
    spec = expect(name)
    session = spec["sessions"][spec.get("append_to", 0)]
    path = _file(name, home, session, lanes)
    source = _appended(name)
    added = put_in(name, source.read_text(), lanes[0].path, lanes[1].path)
    etype, word = spec["append"]
    if not fmt.derived_file(path):
        _tailed(name, path, added, (etype, word))
        return
    meta = next(m for m in _found(fmt, installed) if m.id == session["id"])
    before, signed = events_of(name, path, WarningTally()), fmt.signature(meta)
    if source.suffix == ".sql":  # the rows the agent adds to its database
        conn = apsw.Connection(str(path.parent))
        conn.execute(added)
        conn.close()
    elif source.suffix == ".json":  # the document the agent rewrites whole
        path.write_text(added)
    else:
        with path.open("a") as handle:
            handle.write(added)
    _found(fmt, installed)  # a listing takes the signatures
    assert fmt.signature(meta) != signed
    after = events_of(name, path, WarningTally())
    assert after[: len(before)] == before
    assert [(e.type, word in shown(e)) for e in after[len(before) :]] == [(etype, True)]


def _tailed(name: str, path: Path, added: str, want: tuple[str, str]) -> None:
    """``added`` appended to the transcript at ``path`` in two writes: nothing is read of the
    torn record, the whole one is read from where the last pass stopped."""
    fmt = agent_format(name)
    _, used, state = fmt.parse(path.read_bytes(), 0, "chat:s", WarningTally(), {})
    assert used == path.stat().st_size
    with path.open("a") as handle:
        handle.write(added[:-8])  # torn: not read yet
    events, more, state = fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)
    assert events == []
    with path.open("a") as handle:
        handle.write(added[-8:])
    at = used + more
    events, rest, _ = fmt.parse(path.read_bytes()[at:], at, "chat:s", WarningTally(), state)
    assert [(e.type, want[1] in shown(e)) for e in events] == [(want[0], True)]
    assert used <= events[0].offset < used + len(added.encode())
    assert at + rest == path.stat().st_size


@pytest.mark.parametrize("name", LAID_OUT)
def test_resume_is_the_agents_own_command(name: str, tmp_path: Path) -> None:
    installed = home, _, lanes = _install(name, tmp_path)
    fmt = agent_format(name)
    found = {m.id: m for m in _found(fmt, installed)}
    for spec in expect(name)["sessions"]:
        if "resume" not in spec:
            continue
        want = spec["resume"]
        if want is None:
            assert fmt.resume_argv(found[spec["id"]]) is None
            assert fmt.no_resume
            continue
        path = str(_file(name, home, spec, lanes))
        argv = [put_in(name, w, lanes[0].path, lanes[1].path).replace("{path}", path) for w in want]
        assert list(fmt.resume_argv(found[spec["id"]]) or ()) == argv
