"""One product on every path: a table of queries over the demo and a fixture project answers
byte for byte the same JSON (ids, order, totals, warnings) and exit code in process
(``--no-daemon``), through a daemon ``ade search`` started by itself, through a daemon started
by hand (``python -m engine.rpc``), and through the palette's client (``open_palette_client``).

Every path is a real process on a real socket; each answer is checked to be non-vacuous where
the table says it has hits, and each daemon is checked to have really answered.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from daemon_machine import Machine, private_machine

DEMO_QUERIES: list[tuple[list[str], int]] = [
    (["retry"], 0),
    (["--kind", "chat", "webhook"], 0),
    (["--kinds", "commit,branch", "backoff"], 0),
    (["--limit", "3", "webhook"], 0),
    (["kind:terminal", "error"], 0),
    (["--kind", "pr", "retry"], 0),
    (["since:30d", "retry"], 0),
    (['"exponential backoff"'], 0),
    (["--", "retry", "-backoff"], 0),
    (["webhook|timeout"], 0),
    (["--lane", "main", "retry"], 0),
    (["kind:file", "retry"], 0),
    (["zqxjkvbnonesuch"], 1),
    (["lane:no-such-lane", "retry"], 2),
]
"""(argv after ``search --json --project ROOT``, the exit code every path must give)."""

FIXTURE_QUERIES: list[tuple[list[str], int]] = [
    (["zebra"], 0),
    (["kind:commit", "zebra"], 0),
    (["kind:branch", "zebra"], 0),
    (["kind:file", "zebra"], 0),
    (["kind:chat", "zebra", "note"], 0),
    (["--limit", "1", "zebra"], 0),
    (["--", "zebra", "-note"], 0),
]


def _fixture_project(root: Path, write_chat_project: Any) -> Path:
    """A git repository with a chat session, commits, a branch and files that share a word."""
    root.mkdir()

    def git(*argv: str) -> None:
        subprocess.run(["git", "-C", str(root), *argv], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.invalid")
    git("config", "user.name", "t")
    (root / "zoo.py").write_text("def zebra_stripes():\n    return 'zebra crossing'\n")
    (root / "notes.md").write_text("# notes\n\nthe zebra escaped at noon\n")
    git("add", ".")
    git("commit", "-q", "-m", "add the zebra enclosure")
    git("branch", "zebra-feed")
    (root / "zoo.py").write_text("def zebra_stripes():\n    return 'zebra stripes'\n")
    git("commit", "-q", "-am", "zebra stripes, not crossing")
    write_chat_project(root, "fixture", "zoo", 6)
    return root


@pytest.fixture
def projects(
    demo_project: Path, short_dir: Path, chat_project: Any
) -> dict[str, tuple[Path, list[tuple[list[str], int]]]]:
    demo = Path(shutil.copytree(demo_project, short_dir / "demo", symlinks=True)).resolve()
    fixture = _fixture_project(short_dir / "zoo", chat_project).resolve()
    return {"demo": (demo, DEMO_QUERIES), "fixture": (fixture, FIXTURE_QUERIES)}


@pytest.fixture(scope="module")
def machine() -> Iterator[Machine]:
    yield from private_machine()


def _run(env: dict[str, str], *argv: str) -> tuple[int, str, str]:
    command = [sys.executable, "-P", "-c", "from tui.cli import main_entry; main_entry()", *argv]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=90)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def _answers(env: dict[str, str], root: Path, queries: list[tuple[list[str], int]], *flags: str):  # type: ignore[no-untyped-def]
    base = ["search", "--json", "--project", str(root), *flags]
    return [(_run(env, *base, *query)[:2], code) for query, code in queries]


def _palette_answers(
    env: dict[str, str],
    root: Path,
    queries: list[tuple[list[str], int]],
    monkeypatch: pytest.MonkeyPatch,
) -> list[str | None]:
    """The palette's client (the daemon's, as the palette opens it) asked the same arguments."""
    import argparse

    from engine.errors import AdeError
    from engine.rpc.client import DaemonClient
    from engine.types import to_json
    from tui.commands.search import build_args, configure
    from tui.palette_client import open_palette_client

    for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR", "ADE_NOW"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("ADE_DAEMON", raising=False)
    client = open_palette_client(root, use_daemon=True, watch=False)
    assert isinstance(client, DaemonClient), "the palette did not reach the daemon"
    found: list[str | None] = []
    try:
        for query, _ in queries:
            parser = argparse.ArgumentParser()
            configure(parser)
            ns = parser.parse_args(["--json", "--project", str(root), *query])
            try:
                found.append(to_json(client.query(build_args(ns))).decode())
            except AdeError:
                found.append(None)
    finally:
        client.close()
    return found


@pytest.mark.parametrize("name", ["demo", "fixture"])
def test_every_path_answers_the_same_bytes(
    name: str,
    projects: dict[str, tuple[Path, list[tuple[list[str], int]]]],
    machine: Machine,
    daemon: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, queries = projects[name]
    in_process = _answers(machine.env, root, queries, "--no-daemon")
    for ((code, out), expected), (name, _) in zip(in_process, queries, strict=True):
        assert code == expected, (name, code, out)
        if expected == 0:
            assert json.loads(out)["items"], out  # the comparison is not vacuous

    # An auto-started daemon: the first search starts it, every later one is its answer.
    _run(machine.env, "search", "--json", "--project", str(root), "warm-up")
    machine.wait_listening()
    auto = _answers(machine.env, root, queries)
    assert str(root) in machine.status()["projects"]  # type: ignore[operator]
    assert auto == in_process

    # A daemon started by hand with its own runtime folder.
    hand_env = {k: v for k, v in daemon.env.items() if k != "ADE_DAEMON"}
    hand_env["ADE_NOW"] = machine.env["ADE_NOW"]
    hand = _answers(hand_env, root, queries)
    assert (
        f"opened search service for {root}" in daemon.log_text() or str(root) in daemon.log_text()
    )
    assert hand == in_process

    # A write made after both daemons answered: every path sees it at once.
    if name == "fixture":
        chat = next((root / ".ade" / "chats").glob("*.jsonl"))
        event = {"seq": 99, "ts": "2026-06-01T11:00:00+00:00", "type": "user_message",
                 "id": "m99", "status": "accepted", "text": "a quagga joined the zebras"}  # fmt: skip
        with chat.open("a") as out:
            out.write(json.dumps(event) + "\n")
        fresh = [(["quagga"], 0)]
        # The daemons are asked first, at once: nothing else gives them time to catch up.
        auto_fresh = _answers(machine.env, root, fresh)
        hand_fresh = _answers(hand_env, root, fresh)
        written = _answers(machine.env, root, fresh, "--no-daemon")
        assert written[0][0][0] == 0, written
        assert auto_fresh == written
        assert hand_fresh == written
        queries = [*queries, *fresh]
        in_process = [*in_process, *written]

    palette = _palette_answers(hand_env, root, queries, monkeypatch)
    for (query, expected), ((_code, out), _), answer in zip(
        queries, in_process, palette, strict=True
    ):
        if expected == 2:
            assert answer is None, query
        else:
            assert answer == out.rstrip("\n"), query
