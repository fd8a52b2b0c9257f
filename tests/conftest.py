"""Fixtures shared by the whole suite.

``demo_project``: the deterministic demo (``ade demo``) built once per test session. Treat it as
read-only; a test that writes (an index in ``.ade/cache``, new transcript lines…) must copy it
first, e.g. ``shutil.copytree(demo_project, tmp_path / "demo", symlinks=True)``.

Every test runs with ``ADE_DAEMON=off`` (no ``ade search`` leaves a daemon behind) and with
``HOME`` (and each agent tool's home variable) pointing at a temporary folder: the suite never
reads this machine's ``~/.claude`` or ``~/.codex``. The git identity of
the real home is copied into that folder's ``.gitconfig`` so tests may commit. ``XDG_RUNTIME_DIR``
is a short folder of the session's own: a daemon a test starts on the default socket never meets
another run's (without it the default is ``/tmp/ade-<uid>``, one per machine).
"""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The CLI helpers (``cli_helpers``, ``daemon_machine``) are imported by name from every folder.
sys.path.insert(0, str(Path(__file__).parent / "tui" / "cli"))

from engine.demo import build_demo
from engine.demo.copy import copy_demo

SUBPROCESS_PACKAGES = ("engine", "tui", "benchmarks")
"""The checkout's packages that the suite's subprocesses (``ade``, daemons, benches) import."""


def pytest_configure(config: pytest.Config) -> None:
    """Compile the checkout's modules once, before the workers start: every ``ade`` and daemon
    subprocess then loads bytecode instead of compiling the same ~160 modules again (~0.15 s of
    CPU each), which ``PYTHONDONTWRITEBYTECODE=1`` in the environment would otherwise make it do
    every time. Python checks each cached file against its source, so an edit is still seen."""
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller compiled before starting it
    root = Path(__file__).resolve().parents[1]
    for package in SUBPROCESS_PACKAGES:
        compileall.compile_dir(root / package, quiet=1, workers=0)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n``/``-n auto`` without ``--dist``: work stealing instead of xdist's ``load``. ``load``
    deals the tests out in small alternating chunks, so both workers build nearly every
    module-scoped fixture (indexed demo copies, module daemons, generated corpora); ``worksteal``
    gives each worker one contiguous half and lets an idle worker take from the other's tail.
    Set here rather than in ``addopts`` so that ``-p no:xdist`` still parses."""
    option = config.option
    given = getattr(option, "dist", None) != "no" or getattr(option, "distload", False)
    if getattr(option, "numprocesses", None) and not given:
        option.dist = "worksteal"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker more than the cores this process may run on. The tests spend about
    half their time waiting on the processes they start (``ade``, daemons, shells in PTYs, git)
    and on Textual's timers: two workers on two cores used ~135 s of CPU each in ~250 s. A third
    worker runs while the others wait. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) + 1


AGENT_HOME_VARIABLES = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "XDG_DATA_HOME",
    "COPILOT_HOME",
    "VSCODE_APPDATA",
    "XDG_CONFIG_HOME",  # the VS Code agents' user data when VSCODE_APPDATA is unset
)
"""Variables that name an agent tool's folder somewhere other than under ``HOME``."""


def _git_identity() -> str:
    lines = []
    for key, fallback in (("user.name", "ade-search tests"), ("user.email", "tests@ade.invalid")):
        done = subprocess.run(["git", "config", "--global", key], capture_output=True, text=True)
        lines.append(f"\t{key.split('.')[1]} = {done.stdout.strip() or fallback}")
    return "[user]\n" + "\n".join(lines) + "\n"


@pytest.fixture(scope="session", autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A temporary ``HOME`` for the whole session, agent tool homes unset."""
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text(_git_identity())
    runtime = tempfile.mkdtemp(prefix="ade-run-", dir="/tmp")  # a socket path fits in 107 bytes
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_RUNTIME_DIR", runtime)
        # `ade search` never starts a daemon in the suite; tests of that turn it back on.
        patch.setenv("ADE_DAEMON", "off")
        # No meaning vectors unless a test asks (tests/engine/semantic): a model per process.
        patch.setenv("ADE_SEMANTIC", "0")
        for name in AGENT_HOME_VARIABLES:
            patch.delenv(name, raising=False)
        yield home
    shutil.rmtree(runtime, ignore_errors=True)


DAEMON_CONTEXT = {"HOME": "daemon-home"}
"""How the module's daemon's own environment differs from every caller's: another ``HOME`` (no
agent sessions, no git identity), a clock of its own (no ``ADE_NOW``) and ``NO_COLOR`` set (the
colour is the client's decision). An answer that depends on the daemon's environment instead of
the caller's differs."""


@pytest.fixture(scope="module")
def module_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A daemon started the way ``ade search`` starts one (``engine.rpc.autostart``), in a
    runtime folder of this test module's own, from an environment unlike its callers'."""
    from daemon_machine import Machine

    from engine.rpc.autostart import restart_daemon
    from tui.daemon_search import SEARCH_RENDERER

    base = Path(tempfile.mkdtemp(prefix="ade-cp-", dir="/tmp"))  # a socket path fits 107 bytes
    machine = Machine(base)
    home = tmp_path_factory.mktemp(DAEMON_CONTEXT["HOME"])
    env = {k: v for k, v in machine.env.items() if k != "ADE_NOW"}
    env.update(HOME=str(home), NO_COLOR="1")
    try:
        started = restart_daemon(str(machine.socket), env, renderer=SEARCH_RENDERER)
        assert started, "the module's daemon did not start"
        yield machine
    finally:
        machine.stop_all()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["in-process", "daemon"])
def cli_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Runs a CLI-level test on both paths a user's ``ade`` takes: in this process
    (``--no-daemon``), and through the module's auto-started daemon (``module_daemon``), with the
    caller's environment as the test sets it. ``cli_helpers.search_argv`` follows it."""
    from cli_helpers import CliPath

    if request.param == "daemon":
        machine = request.getfixturevalue("module_daemon")
        monkeypatch.delenv("ADE_DAEMON", raising=False)
        for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR"):
            monkeypatch.setenv(name, machine.env[name])  # type: ignore[attr-defined]
    CliPath.daemon = request.param == "daemon"
    try:
        yield request.param
    finally:
        CliPath.daemon = False


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Root of a freshly built demo project (a git repo with worktrees and a full ``.ade/``)."""
    root = tmp_path_factory.mktemp("demo") / "ade-demo"
    build_demo(root)
    return root


@pytest.fixture
def demo_copy(demo_project: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the demo whose linked worktrees point at the copy."""
    return copy_demo(demo_project, tmp_path / "ade-demo")


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity and no user or system config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Ada",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Ada",
        GIT_COMMITTER_EMAIL="ada@example.com",
        HOME=str(cwd),
    )
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository ``proj`` with one commit and a linked worktree ``proj-wt/feature-x``."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("hi\n")
    git(root, "add", "README")
    git(root, "commit", "-q", "-m", "first")
    git(root, "worktree", "add", "-q", "-b", "feature-x", str(tmp_path / "proj-wt" / "feature-x"))
    return root
