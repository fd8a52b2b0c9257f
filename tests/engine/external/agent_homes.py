"""The fixture homes of the agents read from ``tests/fixtures/agents/<agent>/``, installed where
a test wants them with the project's and the second lane's folders put in.

A fixture holds ``home/`` (the agent's home: copied), ``sessions.sql`` (the agent's database:
built at the folder its sessions' ``file`` names in ``expect.json``) and ``worktrees/primary``
and ``worktrees/fix`` (files the agent keeps in each lane itself: Aider's history). In every
file ``@PROJECT@`` and ``@LANE@`` become the lanes' folders; in a name ``@PROJECT_SLUG@`` and
``@LANE_SLUG@`` become the agent's own folder name for them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import apsw

from engine.external.cursor import slug
from engine.external.roots import claude_slug

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"

SLUGS: dict[str, Callable[[Path], str]] = {"claude": claude_slug}
"""How an agent names the folder of a working directory (default: Cursor's slug)."""


def agent_slug(name: str, folder: Path) -> str:
    """Agent ``name``'s folder name for the working directory ``folder``."""
    return SLUGS.get(name, slug)(folder)


def put_in(name: str, text: str, project: Path, lane: Path) -> str:
    """``text`` with the lanes' folders and their slugs put in."""
    text = text.replace("@PROJECT_SLUG@", agent_slug(name, project))
    text = text.replace("@LANE_SLUG@", agent_slug(name, lane))
    return text.replace("@PROJECT@", str(project)).replace("@LANE@", str(lane))


def install_home(name: str, home: Path, project: Path, lane: Path) -> Path:
    """Agent ``name``'s fixture installed: its home at ``home``, its database, the files it
    keeps in the lanes; returns ``home``."""
    folder = FIXTURES / name
    if name == "crush":
        install_crush(project, lane)
    if (folder / "sessions.sql").is_file():
        spec = json.loads((folder / "expect.json").read_text())
        install_database(name, home / Path(spec["sessions"][0]["file"]).parent, project, lane)
    if (folder / "home").is_dir():
        _copy(name, folder / "home", home, project, lane)
    for lane_name, target in (("primary", project), ("fix", lane)):
        if (folder / "worktrees" / lane_name).is_dir():
            _copy(name, folder / "worktrees" / lane_name, target, project, lane)
    if name == "cursor-ide":
        install_cursor_ide(home, project, lane)
    return home


def install_real_home(name: str, home: Path, project: Path, lane: Path) -> Path:
    """The home agent ``name`` really wrote here (``tests/fixtures/agents/<name>/real/home``,
    its README says how) installed at ``home`` with the lanes' folders put in."""
    _copy(name, FIXTURES / name / "real" / "home", home, project, lane)
    return home


def _copy(name: str, source: Path, target: Path, project: Path, lane: Path) -> None:
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        rel = put_in(name, str(path.relative_to(source)), project, lane)
        out = target / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(put_in(name, path.read_text(), project, lane))


def install_goose(db: Path, project: Path, lane: Path) -> Path:
    """Goose's ``sessions.db`` built from the fixture's SQL at ``db``."""
    return install_database("goose", db, project, lane)


def install_database(name: str, db: Path, project: Path, lane: Path) -> Path:
    """Agent ``name``'s database built from its fixture's ``sessions.sql`` at ``db``."""
    db.parent.mkdir(parents=True)
    sql = (FIXTURES / name / "sessions.sql").read_text()
    conn = apsw.Connection(str(db))
    conn.execute(put_in(name, sql, project, lane))
    conn.close()
    return db


def install_crush(project: Path, lane: Path) -> tuple[Path, Path]:
    """Crush's databases: the project's ``.crush/crush.db`` and one in a subfolder of the second
    lane (``pkg/.crush``, registered in the fixture's ``projects.json``), built from the
    fixture's SQL."""
    built = []
    for folder, script in ((project, "project.sql"), (lane / "pkg", "lane.sql")):
        db = folder / ".crush" / "crush.db"
        db.parent.mkdir(parents=True)
        sql = (FIXTURES / "crush" / "schema.sql").read_text() + (
            FIXTURES / "crush" / script
        ).read_text()
        conn = apsw.Connection(str(db))
        conn.execute("PRAGMA journal_mode = WAL").fetchall()  # as Crush opens it
        conn.execute(put_in("crush", sql, project, lane))
        conn.close()
        built.append(db)
    return built[0], built[1]


CURSOR_WORKSPACES = {
    "0f1e2d3c4b5a69788796a5b4c3d2e1f0": "ws-project.sql",
    "1a2b3c4d5e6f70819293a4b5c6d7e8f9": "ws-lane.sql",
    "2b3c4d5e6f708192a3b4c5d6e7f80912": "ws-multiroot.sql",
    "3c4d5e6f708192a3b4c5d6e7f8091a2b": "ws-foreign.sql",
}
"""The Cursor editor fixture's workspace folders and the SQL of each one's ``state.vscdb``."""


def install_cursor_ide(home: Path, project: Path, lane: Path) -> Path:
    """The Cursor editor's databases under ``home`` (``$VSCODE_APPDATA``): the global
    ``state.vscdb`` and each workspace's; returns the global one."""
    user = home / "Cursor" / "User"
    built = [(user / "globalStorage" / "state.vscdb", "global.sql")]
    built += [
        (user / "workspaceStorage" / h / "state.vscdb", s) for h, s in CURSOR_WORKSPACES.items()
    ]
    for db, script in built:
        db.parent.mkdir(parents=True, exist_ok=True)
        conn = apsw.Connection(str(db))
        sql = (FIXTURES / "cursor-ide" / script).read_text()
        conn.execute(put_in("cursor-ide", sql, project, lane))
        conn.close()
    return built[0][0]
