"""The fixture homes of the agents read from ``tests/fixtures/agents/<agent>/``, installed where
a test wants them with the project's and the second lane's folders put in."""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw

from engine.external.cursor import slug

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "agents"


def install_home(name: str, home: Path, project: Path, lane: Path) -> Path:
    """Agent ``name``'s fixture home copied to ``home`` (``@PROJECT@`` and ``@LANE@`` replaced,
    the slug-named folders renamed); returns ``home``."""
    if name == "goose":
        install_goose(home / "data" / "sessions" / "sessions.db", project, lane)
        return home
    if name == "opencode":
        install_database("opencode", home / "opencode" / "opencode.db", project, lane)
        return home
    if name == "crush":
        install_crush(project, lane)
    shutil.copytree(FIXTURES / name / "home", home)
    for path in sorted(home.rglob("*"), key=lambda p: -len(p.parts)):
        if path.is_file():
            text = path.read_text().replace("@PROJECT@", str(project)).replace("@LANE@", str(lane))
            path.write_text(text)
        renamed = path.name.replace("@PROJECT_SLUG@", slug(project))
        renamed = renamed.replace("@LANE_SLUG@", slug(lane))
        if renamed != path.name:
            path.rename(path.with_name(renamed))
    return home


def install_goose(db: Path, project: Path, lane: Path) -> Path:
    """Goose's ``sessions.db`` built from the fixture's SQL at ``db``."""
    return install_database("goose", db, project, lane)


def install_database(name: str, db: Path, project: Path, lane: Path) -> Path:
    """Agent ``name``'s database built from its fixture's ``sessions.sql`` at ``db``."""
    db.parent.mkdir(parents=True)
    sql = (FIXTURES / name / "sessions.sql").read_text()
    conn = apsw.Connection(str(db))
    conn.execute(sql.replace("@PROJECT@", str(project)).replace("@LANE@", str(lane)))
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
        conn.execute(sql.replace("@PROJECT@", str(project)).replace("@LANE@", str(lane)))
        conn.close()
        built.append(db)
    return built[0], built[1]
