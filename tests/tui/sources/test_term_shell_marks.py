"""`ade term` shells emit prompt marks, so each command is a hit with its exit status, folder and
duration, and ``exit:``, ``cwd:`` and ``took:`` narrow them (docs/terminal.md).

One real bash runs on a real PTY under ``ade term`` once per module (zsh too when installed),
with a user startup file of its own that must still run (its alias and its prompt hook). The
searches then run on both CLI paths (in process and through the module's daemon).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from tests.conftest import git

pytestmark = pytest.mark.usefixtures("cli_path")

ADE = Path(sys.executable).with_name("ade")
DEADLINE_S = 20.0
"""Safety net only: each wait returns as soon as the awaited bytes arrive."""

SLOW_S = 0.6
"""The one command that takes time (``sleep``, the work being timed); the others take ms."""

PROMPT = b"\x1b]133;B"
"""The prompt-end mark: the shell waits for a command line after it."""

COMMANDS = (
    b"hello",  # the user's alias: their startup file ran
    b"echo alpha-out pc=$__user_prompts",
    b"mkdir -p sub && cd sub",
    b"ls no-such-file-xyz",
    f"sleep {SLOW_S}".encode(),
)


def _read_until_count(fd: int, needle: bytes, count: int, seen: bytearray) -> None:
    end = time.monotonic() + DEADLINE_S
    while seen.count(needle) < count:
        left = end - time.monotonic()
        assert left > 0, f"timed out waiting for {needle!r} x{count}; got {bytes(seen)!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            assert chunk, f"EOF; got {bytes(seen)!r}"
            seen += chunk


def record_shell(home: Path, repo: Path, shell: str, lines: Sequence[bytes]) -> bytes:
    """Run ``ade term`` with ``shell`` on a new PTY, type each line at its own prompt, exit 4."""
    master, slave = os.openpty()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "SHELL": shell, "TERM": "xterm",
           "ADE_DAEMON": "off"}  # fmt: skip
    proc = subprocess.Popen(
        [str(ADE), "term"], cwd=repo, stdin=slave, stdout=slave, stderr=slave,
        start_new_session=True, env=env,
    )  # fmt: skip
    seen = bytearray()
    try:
        for number, line in enumerate([*lines, b"exit 4"], start=1):
            _read_until_count(master, PROMPT, number, seen)
            os.write(master, line + b"\n")
        assert proc.wait(timeout=DEADLINE_S) == 4
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(slave)
    return bytes(seen)


@pytest.fixture(scope="module")
def bash_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    base = tmp_path_factory.mktemp("marks")
    home, repo = base / "home", base / "proj"
    home.mkdir()
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    (home / ".bashrc").write_text(
        "alias hello='echo user-rc-loaded'\nPROMPT_COMMAND='__user_prompts=$((__user_prompts+1))'\n"
    )
    return repo, record_shell(home, repo, shutil.which("bash") or "/bin/bash", COMMANDS)


def _titles(capsys: pytest.CaptureFixture[str], repo: Path, query: str) -> list[str]:
    run = run_main(capsys, search_argv(repo, "--json", "--limit", "50", query))
    assert run.code in (0, 1), run.err
    return [item["title"] for item in json.loads(run.out)["items"]]


def test_the_users_bashrc_runs_first_and_each_command_is_marked(
    bash_session: tuple[Path, bytes],
) -> None:
    repo, screen = bash_session
    assert b"user-rc-loaded" in screen  # their alias
    assert b"alpha-out pc=" in screen
    assert b"alpha-out pc=\r" not in screen
    sidecar = next((repo / ".ade" / "terminals").glob("*.commands.jsonl"))
    lines = [json.loads(x) for x in sidecar.read_text().splitlines()]
    assert [(x["command"], x["exitCode"]) for x in lines] == [
        ("hello", 0), ("echo alpha-out pc=$__user_prompts", 0), ("mkdir -p sub && cd sub", 0),
        ("ls no-such-file-xyz", 2), (f"sleep {SLOW_S}", 0),
    ]  # fmt: skip
    assert [x["cwd"] for x in lines] == [str(repo)] * 3 + [str(repo / "sub")] * 2


def test_every_command_is_a_hit_of_its_own(
    bash_session: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = bash_session
    titles = _titles(capsys, repo, "kind:terminal alpha")
    assert len(titles) == 1
    assert titles[0].startswith("$ echo alpha-out pc=$__user_prompts  (exit 0, ")
    assert titles[0].endswith(f", in {repo})")


def test_exit_narrows_to_the_failed_command(
    bash_session: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = bash_session
    failed = ["$ ls no-such-file-xyz  (exit 2, "]
    assert [t[: len(failed[0])] for t in _titles(capsys, repo, "exit:2")] == failed
    assert [t[: len(failed[0])] for t in _titles(capsys, repo, "exit:fail")] == failed
    assert len(_titles(capsys, repo, "exit:0")) == 4
    assert _titles(capsys, repo, "exit:0 no-such-file") == []


def test_cwd_narrows_to_the_commands_run_in_a_folder(
    bash_session: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = bash_session
    in_sub = _titles(capsys, repo, "cwd:sub")
    assert [t.split("  (")[0] for t in in_sub] == [f"$ sleep {SLOW_S}", "$ ls no-such-file-xyz"]
    assert _titles(capsys, repo, f"cwd:{repo / 'sub'}") == in_sub
    assert len(_titles(capsys, repo, f"cwd:{repo}")) == 5  # that folder and below
    assert _titles(capsys, repo, f"cwd:{repo}-other") == []


def test_took_narrows_to_the_slow_command(
    bash_session: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, _ = bash_session
    slow = _titles(capsys, repo, f"took:{int(SLOW_S * 1000) - 100}ms")
    assert [t.split("  (")[0] for t in slow] == [f"$ sleep {SLOW_S}"]
    assert f"$ sleep {SLOW_S}" not in [
        t.split("  (")[0] for t in _titles(capsys, repo, "took:<0.4s")
    ]
    assert len(_titles(capsys, repo, "took:0s..1h")) == 5


@pytest.mark.parametrize("query", ["exit:maybe", "took:soon", "took:5s..1s", "cwd:"])
def test_a_bad_command_filter_is_one_line_and_exit_2(
    bash_session: tuple[Path, bytes], capsys: pytest.CaptureFixture[str], query: str
) -> None:
    repo, _ = bash_session
    run = run_main(capsys, search_argv(repo, query))
    assert run.code == 2
    assert len(run.err.strip().splitlines()) == 1, run.err
    assert query.split(":")[0] + ":" in run.err


@pytest.fixture(scope="module")
def zsh_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    zsh = shutil.which("zsh")
    if zsh is None:
        pytest.skip("zsh is not installed on this machine")
    base = tmp_path_factory.mktemp("zsh-marks")
    home, repo = base / "home", base / "proj"
    home.mkdir()
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (home / ".zshenv").write_text("export FROM_ZSHENV=yes\n")
    (home / ".zshrc").write_text("alias hello='echo user-zshrc-loaded zshenv=$FROM_ZSHENV'\n")
    return repo, record_shell(home, repo, zsh, [b"hello", b"false"])


def test_zsh_commands_are_hits_with_the_users_startup_files(
    zsh_session: tuple[Path, bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, screen = zsh_session
    assert b"user-zshrc-loaded zshenv=yes" in screen
    failed = _titles(capsys, repo, "exit:1")
    assert len(failed) == 1
    assert failed[0].startswith("$ false  (exit 1, ")
    assert failed[0].endswith(f", in {repo})")
