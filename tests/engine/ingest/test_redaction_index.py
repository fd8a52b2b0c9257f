"""Redaction on every indexed field (docs/redaction.md): a secret in a chat title, a message, a
terminal's command line (its title) and output, an OSC 133 command, a PR title, a commit subject
or a branch tip is neither found, nor shown, nor stored: the db and -wal bytes are read raw.

(A branch *named* like a token gets a hashed doc id and anchor: tests/engine/test_secret_places.py.)"""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.ingest.timers import ManualTimerFactory
from engine.links.details import commit_detail, pr_detail
from engine.project.locate import open_project
from engine.service import SearchService
from engine.terminal.recorder import TerminalRecorder
from engine.types import INDEXED_KINDS, SearchQueryArgs
from engine.wiring import create_project_service
from tests.engine.ingest.conftest import ProjectWriter, _git
from tests.engine.test_redaction import (
    AWS_ID,
    AWS_SECRET,
    GHP,
    GITLAB,
    GOOGLE,
    JWT,
    NPM,
    OPENAI,
    PGP,
    PGP_BODY,
    SLACK_HOOK,
    STRIPE_LIVE,
    STRIPE_RESTRICTED,
)

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

SECRETS = {
    "github": GHP,
    "openai": OPENAI,
    "jwt": JWT,
    "aws": f"{AWS_ID},{AWS_SECRET}",  # a bare secret key is redacted next to its key id
    "slack-webhook": SLACK_HOOK,
    "stripe": STRIPE_LIVE,
    "stripe-restricted": STRIPE_RESTRICTED,
    "google": GOOGLE,
    "npm": NPM,
    "gitlab": GITLAB,
}
"""One-line secrets (each fits a title); the PGP block goes into bodies only."""


def fragments(secret: str) -> list[bytes]:
    """What of ``secret`` would be in the file if it were indexed: FTS5 stores each token
    lowercased (``unicode61`` splits on ``_ - / .``), prefix-compressed against its neighbour, so
    the tail of every token is always there; ``docs.title`` stores the text itself."""
    tokens = [t for t in re.split(r"[^A-Za-z0-9]+", secret) if len(t) >= 8]
    return [secret.lower().encode(), *(t[-8:].lower().encode() for t in tokens)]


def file_bytes(db: Path) -> bytes:
    parts = [db, db.with_name(db.name + "-wal")]
    return b"".join(p.read_bytes() for p in parts if p.exists()).lower()


def command(line: str, output: str) -> bytes:
    return (b"\x1b]133;A\x07$ \x1b]133;B\x07" + line.encode() + b"\r\n\x1b]133;C\x07"
            + output.encode() + b"\r\n\x1b]133;D;0\x07\r\n")  # fmt: skip


@pytest.fixture
def secret_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".ade/\n", encoding="utf-8")
    writer = ProjectWriter(root)
    for n, (name, secret) in enumerate(SECRETS.items(), 1):
        sid = f"c{n}"
        writer.session(sid, title=f"chat about {name} {secret}")
        writer.chat(sid, "user_message", id="m1", text=f"zebra {name} uses {secret}")
        writer.chat(sid, "session_title", title=f"renamed {name} {secret}")
        writer.pr(n, f"Rotate {name} {secret}", body=f"zebra {secret}")
        writer.commit(f"zebra rotate {name} {secret}\n\nold value {secret}")
        _git(root, "branch", f"rotate-{name}")  # its tip subject holds the secret
    writer.chat("pgp", "user_message", id="m1", text=f"zebra key\n{PGP}")
    writer.session("pgp", title="pgp")
    project = open_project(root)
    for n, (name, secret) in enumerate(SECRETS.items(), 1):
        # `ade term -- deploy --key SECRET`: the command line is the session's title.
        line = f"deploy --{name} {secret}"
        rec = TerminalRecorder(project, title=line, command=line, tool="shell", lane_id=None,
                               clock=lambda: NOW)  # fmt: skip
        rec.start()
        rec.write(f"zebra output {name} {secret}\r\n".encode())
        rec.write(command(f"export KEY_{n}={secret}", f"zebra done {secret}"))
        rec.write(f"gpg -a --export-secret-keys\r\n{PGP}\r\n".replace("\n", "\r\n").encode())
        rec.finish(0)
    return root


@pytest.fixture
def indexed(secret_project: Path) -> SearchService:
    service = create_project_service(open_project(secret_project), clock=lambda: NOW,
                                     timer=ManualTimerFactory(), start_worker=False)  # fmt: skip
    service.catch_up()
    yield service
    service.dispose()


def test_no_secret_is_stored_in_the_index_file(indexed: SearchService) -> None:
    kinds = {
        k for (k,) in indexed.readers.reader().execute("SELECT DISTINCT kind FROM docs").fetchall()
    }
    assert {"chat", "terminal", "pr", "commit", "branch"} <= kinds
    raw = file_bytes(indexed.project.index_path)
    assert b"redacted" in raw
    for name, secret in {**SECRETS, "pgp": PGP_BODY.splitlines()[0]}.items():
        for fragment in fragments(secret):
            assert fragment not in raw, (name, fragment)


def test_no_secret_is_found_or_shown(indexed: SearchService) -> None:
    everything = SearchQueryArgs(query="zebra", kinds=INDEXED_KINDS, limit=500)
    shown = indexed.query(everything).items
    assert len(shown) > 40
    titles = " ".join(item.title for item in shown)
    assert "[REDACTED:" in titles
    for secret in [*SECRETS.values(), PGP_BODY[:40]]:
        assert all(secret not in f"{item.title} {item.snippet}" for item in shown)
    for name, secret in SECRETS.items():
        query = SearchQueryArgs(query=f'"{secret}"', kinds=INDEXED_KINDS, limit=500)
        assert indexed.query(query).items == (), name
    titled = SearchQueryArgs(query="deploy", kinds=("terminal",), limit=500)
    commands = [item.title for item in indexed.query(titled).items]
    assert commands
    assert all("[REDACTED:" in title for title in commands)


def test_listings_and_detail_screens_show_no_secret(indexed: SearchService) -> None:
    project = indexed.project
    sessions = EmbeddedClient(indexed, lambda: NOW).list_sessions()
    assert len(sessions) == 2 * len(SECRETS) + 1
    for meta in sessions:
        for secret in SECRETS.values():
            assert secret not in meta.title
            assert secret not in (meta.command or "")
    pr = pr_detail(project, 1)
    assert GHP not in f"{pr.title} {pr.body}"
    assert "[REDACTED:" in pr.title
    sha = subprocess.run(["git", "-C", str(project.root), "rev-parse", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    shown = commit_detail(project.root, sha)
    assert GITLAB not in f"{shown.title} {shown.body}"
    assert "[REDACTED:" in shown.title


def test_an_index_from_before_title_redaction_is_recreated_and_scrubbed(tmp_path: Path) -> None:
    """A version-4 index holds titles raw: opening it recreates it, and the dropped pages do not
    keep the token in the file."""
    import apsw

    from engine.index.db import connect, open_index
    from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION

    db = tmp_path / "cache" / "search-index.db"
    open_index(db)
    conn = connect(db)
    conn.execute(
        "INSERT INTO docs(doc_id, kind, title, rank_title, title_norm, body, updated_at, digest)"
        " VALUES ('pr:1', 'pr', ?, ?, '', x'', 0, x'')",
        (f"#1 Rotate {GHP}", f"Rotate {GHP}"),
    )
    conn.execute("INSERT INTO docs_title(rowid, rank_title, parts) VALUES (1, ?, '')", (GHP,))
    conn.pragma("user_version", 4)
    conn.close()
    assert GHP.lower().encode() in file_bytes(db)
    report = open_index(db)
    assert report.recreated_reason == f"schema version 4, expected {SEARCH_INDEX_SCHEMA_VERSION}"
    apsw.Connection(str(db)).close()  # the last connection closing checkpoints the WAL
    raw = file_bytes(db)
    for fragment in fragments(GHP):
        assert fragment not in raw
