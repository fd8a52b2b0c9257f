"""`ade search --json` answers byte for byte the same through the daemon and in-process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

QUERIES = [
    ["retry"],
    ["--kind", "chat", "webhook"],
    ["--kinds", "commit,branch", "backoff"],
    ["--limit", "3", "webhook"],
    ["kind:terminal", "error"],
    ["--kind", "pr", "retry"],
]


def _ade(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from tui.cli import main_entry; main_entry()", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


@pytest.fixture
def demo_copy(demo_project: Path, short_dir: Path) -> Path:
    return Path(shutil.copytree(demo_project, short_dir / "demo", symlinks=True)).resolve()


def test_daemon_and_in_process_answers_are_identical(daemon: Any, demo_copy: Path) -> None:
    env = daemon.env
    for query in QUERIES:
        base = ["search", "--json", "--project", str(demo_copy)]
        remote = _ade(env, *base, *query)  # first: the daemon builds the index itself
        local = _ade(env, *base, "--no-daemon", *query)
        assert local.returncode == remote.returncode, (query, local.stderr, remote.stderr)
        assert local.stdout == remote.stdout, query
        assert json.loads(local.stdout)["items"], query  # the comparison is not vacuous
    assert "opened search service" in daemon.log_text()  # the daemon really answered


def test_second_page_through_either_path_is_the_same(daemon: Any, demo_copy: Path) -> None:
    base = ["search", "--json", "--project", str(demo_copy), "--limit", "2"]
    first = json.loads(_ade(daemon.env, *base, "--no-daemon", "retry").stdout)
    cursor = first["nextCursor"]
    assert cursor
    local = _ade(daemon.env, *base, "--no-daemon", "--cursor", cursor, "retry")
    remote = _ade(daemon.env, *base, "--cursor", cursor, "retry")
    assert local.stdout == remote.stdout
    bad_local = _ade(daemon.env, *base, "--no-daemon", "--cursor", cursor + "x", "retry")
    bad_remote = _ade(daemon.env, *base, "--cursor", cursor + "x", "retry")
    assert bad_local.returncode == bad_remote.returncode == 2
