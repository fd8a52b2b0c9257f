"""A warm `ade search` imports only what it uses and spawns each git command once (start-up budget).

Start-up time is a feature of the command line: every module a warm, nothing-changed search
imports is paid on every run. Each check runs a fresh interpreter (nothing pytest imported hides
a leak) on a copy of the demo whose index is already built, and a positive control shows the
deferred modules are the ones actually used when something does change.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import (
    CLEAN_ENV,
    DEMO_NOW,
    ROOT,
    loaded_modules,
    run_main,
    search_argv,
    wait_until_listening,
)
from warm_path import kept_off_the_warm_path

from tui.daemon_search import SEARCH_RENDERER

NOT_ON_A_WARM_SEARCH = kept_off_the_warm_path()
"""What ARCHITECTURE.md's warm-path section lists, each name with its reason there: the one
place the warm path is written down."""

CLEAN_GIT_ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}

INGESTION = (
    "engine.ingest.docs",
    "engine.ingest.transcripts",
    "engine.redaction",
)
"""What a changed transcript needs (sorted, as ``_loaded`` returns them). The bulk redaction
automaton (``ahocorasick_rs``) only for a pass of ``BULK_REDACTION_BYTES`` or more."""


def _modules(
    argv: list[str], env: dict[str, str] | None = None, *, site: bool = True, cwd: Path = ROOT
) -> set[str]:
    """The modules ``ade argv`` leaves loaded (``cli_helpers.loaded_modules``), in this
    process's environment without ``CLEAN_ENV``, plus ``env``."""
    full = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    full.update({"ADE_NOW": DEMO_NOW, **(env or {})})
    if env is not None and "ADE_DAEMON" not in env:
        full.pop("ADE_DAEMON", None)  # a daemon's environment: the suite's "off" uses none
    code, modules = loaded_modules(argv, full, site=site, cwd=cwd)
    assert code in (0, 1)
    return modules


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(m == n or m.startswith(f"{n}.") for m in modules))


def test_a_warm_search_imports_no_ui_watcher_linear_or_ingestion(queried_demo: Path) -> None:
    modules = _modules(search_argv(queried_demo, "timeout", "--json"))
    assert _loaded(modules, NOT_ON_A_WARM_SEARCH) == []
    assert "engine.delegates.files" in modules  # the default kinds do run the file delegate


def test_the_chunker_is_imported_only_for_a_terminal_snippet(warm_demo: Path) -> None:
    # A terminal chunk's snippet is chunked again from its raw bytes (the index-size budget); a page
    # without one does not load the chunker.
    assert "engine.terminal.chunking" in _modules(search_argv(warm_demo, "timeout", "--json"))
    modules = _modules(search_argv(warm_demo, "kind:chat", "timeout", "--json"))
    assert "engine.terminal.chunking" not in modules


def test_a_typo_brings_in_the_fuzzy_matcher(warm_demo: Path) -> None:
    """The positive control of ``rapidfuzz`` staying out: a word the index does not hold is
    corrected, which needs it."""
    assert "rapidfuzz" in _modules(search_argv(warm_demo, "timeoutt", "--json"))


@pytest.mark.skipif(importlib.util.find_spec("wordllama") is None, reason="the semantic extra")
def test_with_the_semantic_extra_a_warm_search_loads_no_vector_store(warm_demo: Path) -> None:
    """The writer connection hands new documents to the vector store, but a catch-up that
    writes nothing never imports it (nor numpy); a search ranked by meaning does."""
    semantic = {"ADE_SEMANTIC": "1", "ADE_DAEMON": "off"}
    modules = _modules(search_argv(warm_demo, "timeout", "--json"), semantic)
    assert _loaded(modules, ("engine.semantic.store", "numpy", "rapidfuzz")) == []
    chat = next((warm_demo / ".ade" / "chats").glob("*.jsonl"))
    last = json.loads(chat.read_text(encoding="utf-8").splitlines()[-1])
    line = {**last, "seq": last["seq"] + 1, "id": "appended", "text": "a new note on timeouts"}
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    modules = _modules(search_argv(warm_demo, "timeout", "--json"), semantic)
    assert "engine.semantic.store" in modules  # the new message was written: its vector too


def test_linear_is_imported_when_asked_for(warm_demo: Path) -> None:
    modules = _modules(search_argv(warm_demo, "--kind", "linear", "timeout", "--json"))
    assert "engine.delegates.linear" in modules


def test_a_changed_transcript_brings_in_the_ingestion_processors(warm_demo: Path) -> None:
    chat = next((warm_demo / ".ade" / "chats").glob("*.jsonl"))
    st = chat.stat()
    os.utime(chat, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    modules = _modules(search_argv(warm_demo, "timeout", "--json"))
    assert _loaded(modules, INGESTION) == list(INGESTION)
    # A few changed lines start no planning worker: its process code stays out, and a pass
    # that logs nothing imports no `logging` (the planner's logger is lazy, as every module's).
    assert "engine.ingest.plan_worker" not in modules
    assert "engine.ingest.planner" in modules
    assert "logging" not in modules
    # The pass's records are msgspec Structs: `dataclasses` would bring `inspect`, `ast`, `dis`
    # and `tokenize` into every search right after a write (the read-your-writes budget).
    assert "dataclasses" not in modules


def test_only_a_large_pass_loads_the_bulk_redaction_automaton(warm_demo: Path) -> None:
    """A few appended lines are redacted literal by literal (a search right after a write does
    not pay the automaton); a pass of ``BULK_REDACTION_BYTES`` or more loads it."""
    from engine.ingest.transcripts import BULK_REDACTION_BYTES

    chat = next((warm_demo / ".ade" / "chats").glob("*.jsonl"))
    last = json.loads(chat.read_text(encoding="utf-8").splitlines()[-1])

    def append(n: int, text: str) -> None:
        with chat.open("a", encoding="utf-8") as handle:
            for i in range(n):
                line = {**last, "seq": last["seq"] + 1 + i, "id": f"{text}-{i}", "text": text}
                handle.write(json.dumps(line) + "\n")
        last["seq"] += n

    append(1, "one appended line")
    modules = _modules(search_argv(warm_demo, "appended", "--json"))
    assert "engine.ingest.transcripts" in modules  # the line was ingested by that search
    assert "ahocorasick_rs" not in modules
    append(BULK_REDACTION_BYTES // 40, "many appended lines of words " * 2)
    assert "ahocorasick_rs" in _modules(search_argv(warm_demo, "appended", "--json"))


def test_a_new_commit_brings_in_the_history_walk(warm_demo: Path) -> None:
    """The positive control of ``git_stream`` staying out: a commit moves a lane's tip, so the
    catch-up walks the history to it with ``git log``."""
    env = {**CLEAN_GIT_ENV, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
           "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}  # fmt: skip
    subprocess.run(["git", "-C", str(warm_demo), "commit", "-q", "--allow-empty", "-m", "later"],
                   env=env, check=True, capture_output=True)  # fmt: skip
    modules = _modules(search_argv(warm_demo, "timeout", "--json"))
    assert "engine.project.git_stream" in modules
    # ... and `subprocess`, which a warm search's two git commands do without (engine.basics.spawn)
    assert "subprocess" in modules


def test_a_compacted_transcript_brings_in_the_inflater(warm_demo: Path) -> None:
    """The positive control of the inflater staying out: a transcript with a ``.gz`` copy
    (lossless compaction, canonical when present) is inflated, so ``gzip_read`` loads."""
    import gzip

    chat = next((warm_demo / ".ade" / "chats").glob("*.jsonl"))
    chat.with_name(chat.name + ".gz").write_bytes(gzip.compress(chat.read_bytes()))
    assert "engine.project.gzip_read" in _modules(search_argv(warm_demo, "timeout", "--json"))


def test_help_still_takes_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """The positive control of ``shutil`` staying out: usage and help shown to the user are
    wrapped to the terminal's width (``COLUMNS`` here), as argparse does by default."""
    from tui.cli_parser import OneLineParser

    parser = OneLineParser(prog="ade search")
    parser.add_argument("--some-long-option-name", metavar="VALUE", help="word " * 30)

    def widest_help_line(columns: str) -> int:
        monkeypatch.setenv("COLUMNS", columns)
        return max(len(line) for line in parser.format_help().splitlines() if "word" in line)

    assert widest_help_line("40") <= 40
    assert widest_help_line("200") > 100
    monkeypatch.setenv("COLUMNS", "200")
    assert len(parser.format_usage().splitlines()) == 1


COLLECTOR_PROBE = """
import gc, json, sys
from tui import collector
from tui.cli import main
collector.hold()  # what main_entry does first
code = main(sys.argv[1:])
print(json.dumps({"code": code, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def _collector_after(argv: list[str]) -> dict[str, int]:
    full = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    full["ADE_NOW"] = DEMO_NOW
    done = subprocess.run([sys.executable, "-c", COLLECTOR_PROBE, *argv], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    report: dict[str, int] = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] in (0, 1), done.stderr
    return report


def test_a_search_collects_again_once_its_engine_is_imported(warm_demo: Path) -> None:
    """The collector is held for the start-up's imports only (start-up budget): once the index is
    open it runs again (a catch-up may ingest), over a young generation, what start-up built
    being frozen."""
    report = _collector_after(search_argv(warm_demo, "timeout", "--json"))
    assert report["enabled"]
    assert report["frozen"] > 10_000


def test_every_other_command_collects_again_before_it_runs(warm_demo: Path) -> None:
    report = _collector_after(["skill"])
    assert report["enabled"]
    assert report["frozen"] > 0


def test_release_without_hold_leaves_the_collector_alone() -> None:
    import gc

    from tui import collector

    before = gc.get_freeze_count()
    collector.release()
    assert gc.isenabled()
    assert gc.get_freeze_count() == before


def test_a_warm_search_spawns_each_git_command_once(warm_demo: Path, tmp_path: Path) -> None:
    """A real git behind a logging shim on PATH: the lane list is taken once per command."""
    shims = tmp_path / "bin"
    shims.mkdir()
    log = tmp_path / "git.log"
    real = shutil.which("git")
    assert real is not None
    shim = shims / "git"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec {real} "$@"\n')
    shim.chmod(0o755)
    path = f"{shims}{os.pathsep}{os.environ['PATH']}"
    _modules(search_argv(warm_demo, "timeout", "--json"), env={"PATH": path})
    calls = log.read_text().splitlines()
    assert sum("worktree list" in call for call in calls) <= 1, calls
    assert sum("remote get-url origin" in call for call in calls) <= 1, calls
    # rev-parse --show-toplevel, worktree list, ls-files, grep, and remote get-url origin (the
    # portable envelope of the hits' links, for exact places: one lookup per query for every lane).
    assert len(calls) <= 5, calls
    # The next command reads the origin from .ade/cache/origin.json: git's config is unchanged.
    log.unlink()
    _modules(search_argv(warm_demo, "timeout", "--json"), env={"PATH": path})
    again = log.read_text().splitlines()
    assert not [call for call in again if "remote get-url" in call], again
    # ... and the worktrees from .ade/cache/worktrees.json: none of git's files changed.
    assert not [call for call in again if "worktree list" in call], again
    assert len(again) <= 4, again


def _claude_line(text: str, cwd: Path) -> bytes:
    return (json.dumps({"parentUuid": None, "isSidechain": False, "cwd": str(cwd),
                        "sessionId": "s1", "type": "user", "uuid": "u1",
                        "message": {"role": "user", "content": text},
                        "timestamp": "2026-05-28T10:00:00.000Z"}) + "\n").encode()  # fmt: skip


def test_a_warm_search_with_claude_code_installed_lists_no_session(
    queried_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A home with Claude Code's folder and a real session of the demo: once caught up, a warm
    search neither lists sessions nor imports the tools' readers, and still finds the session."""
    from engine.external.discover import claude_slug

    home = Path(os.environ["HOME"])
    folder = home / ".claude" / "projects" / claude_slug(queried_demo)
    folder.mkdir(parents=True)
    (folder / "cc-1.jsonl").write_bytes(_claude_line("claude spoke of quibblewort", queried_demo))
    for _ in range(2):  # ingested, then the manifest stored
        assert run_main(capsys, search_argv(queried_demo, "--status")).code == 0
    modules = _modules(search_argv(queried_demo, "quibblewort", "--json"))
    assert _loaded(modules, NOT_ON_A_WARM_SEARCH) == []
    found = run_main(capsys, search_argv(queried_demo, "quibblewort", "--json"))
    assert {item["sessionId"] for item in json.loads(found.out)["items"]} == {"claude-cc-1"}


def test_a_line_appended_lists_no_agent_session_and_keeps_theirs(
    warm_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A search right after a line is appended to the project's own transcript ingests it
    without listing the agents' sessions: their folders and the session files are as the stored
    manifest vouched for (the read-your-writes budget). A Claude Code session indexed before
    still answers; a new one (its folder changed) is listed and found."""
    from engine.external.discover import claude_slug

    home = Path(os.environ["HOME"])
    folder = home / ".claude" / "projects" / claude_slug(warm_demo)
    folder.mkdir(parents=True)
    (folder / "cc-1.jsonl").write_bytes(_claude_line("claude spoke of quibblewort", warm_demo))
    for _ in range(2):  # ingested, then the manifest stored
        assert run_main(capsys, search_argv(warm_demo, "--status")).code == 0
    chat = next((warm_demo / ".ade" / "chats").glob("*.jsonl"))
    last = json.loads(chat.read_text(encoding="utf-8").splitlines()[-1])
    line = {**last, "seq": last["seq"] + 1, "id": "appended", "text": "a note on zwiebelfisch"}
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    modules = _modules(search_argv(warm_demo, "zwiebelfisch", "--json"))
    assert "engine.ingest.transcripts" in modules  # the line was ingested by that search
    assert _loaded(modules, ("engine.external.discover", "engine.external.registry")) == []

    def sessions(word: str) -> set[str]:
        found = run_main(capsys, search_argv(warm_demo, word, "--json"))
        return {item["sessionId"] for item in json.loads(found.out)["items"]}

    assert sessions("zwiebelfisch") == {chat.stem}
    assert sessions("quibblewort") == {"claude-cc-1"}
    (folder / "cc-2.jsonl").write_bytes(_claude_line("claude spoke of wurzelbrot", warm_demo))
    assert "engine.external.discover" in _modules(search_argv(warm_demo, "wurzelbrot", "--json"))
    assert sessions("wurzelbrot") == {"claude-cc-2"}


DAEMON_ANSWER_MAY_IMPORT = {
    "engine",
    "engine.basics",
    "engine.basics.caller_env",
    "engine.errors",
    "engine.kinds",
    "engine.rpc",
    "engine.rpc.connection",
    "engine.rpc.framing",
    "engine.rpc.paths",
    "engine.rpc.roles",
    "tui",
    "tui.cli",
    "tui.collector",
    "tui.commands",
    "tui.commands.search",
    "tui.daemon_search",
}
"""Everything of ade a daemon-answered `ade search` imports, `--json` or text: argument parsing
and the socket. The daemon parses, finds the root, queries and renders (``search.cli``); the
client writes its texts — no index, query language, ingestion, project reader, git, wire types,
answer check, formatter or output boundary."""


@pytest.fixture
def daemon_env(warm_demo: Path) -> Iterator[dict[str, str]]:
    """A real daemon (``python -m engine.rpc``) serving this machine, in folders of its own."""
    base = Path(tempfile.mkdtemp(prefix="ade-cli-", dir="/tmp"))  # a socket path fits in 107 bytes
    # ADE_DAEMON=off (the suite's) would mean no daemon is used
    env = {k: v for k, v in os.environ.items() if k not in (*CLEAN_ENV, "ADE_DAEMON")}
    env.update(
        ADE_NOW=DEMO_NOW, ADE_RUNTIME_DIR=str(base / "run"), ADE_CONFIG_DIR=str(base / "cfg")
    )
    log = base / "daemon.log"
    command = [sys.executable, "-m", "engine.rpc", "--log-file", str(log), "--backfill-delay", "0",
               "--renderer", SEARCH_RENDERER]  # fmt: skip
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_listening(proc, log)
        yield env
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
        shutil.rmtree(base, ignore_errors=True)


def _ade(env: dict[str, str], *argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    # -P: the cwd (a project folder with its own modules) never shadows an import
    command = [sys.executable, "-P", "-c", "from tui.cli import main_entry; main_entry()", *argv]
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_a_daemon_answered_search_imports_only_the_socket_and_the_output(
    warm_demo: Path, daemon_env: dict[str, str]
) -> None:
    argv = ["search", "--project", str(warm_demo), "timeout", "--json"]
    assert _ade(daemon_env, *argv).returncode == 0  # the daemon opens the project once
    modules = _modules(argv, env=daemon_env)
    ours = {m for m in modules if m.split(".")[0] in {"engine", "tui"}}
    assert ours == DAEMON_ANSWER_MAY_IMPORT
    assert not {"apsw", "subprocess", "msgspec", "dataclasses"} & modules  # no index, no git
    assert "argparse" not in modules  # a plain argv (tui.commands.search.parse_plain)
    # A Unix socket client needs neither the socket module's wrappers nor threading (~4 ms).
    assert not {"socket", "selectors", "threading"} & modules
    # Annotations only need `typing`, and the socket's path is a string (~6 ms, the start-up budget).
    installed = _modules(argv, env=daemon_env, site=False)
    assert {
        m for m in installed if m.split(".")[0] in {"engine", "tui"}
    } == DAEMON_ANSWER_MAY_IMPORT
    assert not {"typing", "pathlib", "urllib.parse", "ipaddress"} & installed
    # Nor `re` (with `enum`, `functools`, `collections`) nor the `json` package: ~6 ms of a ~10 ms
    # interpreter (framing.decode_json_line reads the answer line).
    heavy = {
        "re",
        "json",
        "enum",
        "functools",
        "collections",
        "contextlib",
        "importlib",
        "warnings",
    }
    assert not heavy & installed


def test_a_daemon_answered_text_search_imports_what_the_json_one_does(
    warm_demo: Path, daemon_env: dict[str, str]
) -> None:
    """What a person types, ``ade search timeout``: the daemon renders the text too, so the
    client imports no formatter, no wire types and no answer check (``from_wire`` with msgspec
    was ~110 M instructions, three bare interpreters; the views that replaced it, still some)."""
    argv = ["search", "--project", str(warm_demo), "timeout"]
    assert _ade(daemon_env, *argv).returncode == 0  # the daemon opens the project once
    installed = _modules(argv, env=daemon_env, site=False)
    assert {
        m for m in installed if m.split(".")[0] in {"engine", "tui"}
    } == DAEMON_ANSWER_MAY_IMPORT
    assert not {"msgspec", "argparse", "typing", "collections.abc", "json", "re"} & installed


def test_the_ade_script_imports_nothing_before_the_command_line(
    warm_demo: Path, daemon_env: dict[str, str]
) -> None:
    """``scripts/ade``, which pip installs as ``ade``: pip's own entry-point wrapper imports
    ``re`` before ``main_entry`` (~6 ms); ours imports only ``tui.cli``. Run as a wheel install
    runs it (``-S``: without this checkout's editable finder), with ``-X importtime``."""
    argv = ["search", "--project", str(warm_demo), "timeout", "--json"]
    assert _ade(daemon_env, *argv).returncode == 0  # the daemon opens the project once
    env = {
        **daemon_env,
        "PYTHONPATH": os.pathsep.join([sysconfig.get_paths()["purelib"], str(ROOT)]),
    }
    script = ROOT / "scripts" / "ade"
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", str(script), *argv],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["items"]
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "tui.cli" in imported
    assert not {"re", "json", "enum", "functools", "typing", "pathlib"} & imported


@pytest.mark.parametrize(
    "query",
    [
        ["timeout", "--json"],
        ["--kind", "chat", "webhook", "--json", "--limit", "3"],
        ["kind:terminal", "error"],
        ["zzznothingzzz", "--json"],
        ["since:yesterday-ish", "--json"],
        ['"timed out"', "--json"],  # a phrase: the one-phrase scorer's order (the start-up budget)
        ["retr", "time", "--json", "--limit", "50"],  # prefixes, file and lane delegates merged
    ],
)
def test_a_daemon_answer_prints_what_the_in_process_search_prints(
    warm_demo: Path, daemon_env: dict[str, str], query: list[str]
) -> None:
    base = ["search", "--project", str(warm_demo), *query]
    remote = _ade(daemon_env, *base)
    local = _ade(daemon_env, *base, "--no-daemon")
    assert (remote.returncode, remote.stdout, remote.stderr) == (
        local.returncode, local.stdout, local.stderr
    )  # fmt: skip


def test_a_daemon_answer_finds_the_project_from_the_cwd_as_git_does(
    warm_demo: Path, daemon_env: dict[str, str]
) -> None:
    """No --project: a subfolder of the main worktree (found without git) and a linked
    worktree (a `.git` file: git names the main worktree) answer as in-process."""
    linked = next((warm_demo / ".worktrees").iterdir())
    subfolder = next(p for p in warm_demo.iterdir() if p.is_dir() and not p.name.startswith("."))
    for cwd in (warm_demo, subfolder, linked):
        remote = _ade(daemon_env, "search", "retry", "--json", cwd=cwd)
        local = _ade(daemon_env, "search", "retry", "--json", "--no-daemon", cwd=cwd)
        assert remote.returncode == 0, (cwd, remote.stderr)
        assert (remote.stdout, remote.stderr) == (local.stdout, local.stderr), cwd


def test_a_daemon_answered_search_from_the_repo_imports_no_pathlib(
    warm_demo: Path, daemon_env: dict[str, str]
) -> None:
    """The common case, `ade search foo` typed in the repo (no --project): the daemon finds the
    root from the cwd sent, so the client imports no `pathlib` nor any repository check."""
    argv = ["search", "timeout", "--json"]
    assert _ade(daemon_env, *argv, cwd=warm_demo).returncode == 0  # the daemon opens it once
    installed = _modules(argv, env=daemon_env, site=False, cwd=warm_demo)
    ours = {m for m in installed if m.split(".")[0] in {"engine", "tui"}}
    assert ours == DAEMON_ANSWER_MAY_IMPORT  # the root is found by the daemon, from our cwd
    assert not {"pathlib", "typing", "apsw", "msgspec"} & installed


def test_a_daemon_answered_search_without_a_config_override_imports_no_platformdirs(
    warm_demo: Path, daemon_env: dict[str, str]
) -> None:
    """A user sets no ``ADE_CONFIG_DIR``: the config folder (the CTO token's) would come from
    ``platformdirs`` (~10-15 ms); a search needs no role, so the client never looks for it."""
    argv = ["search", "--project", str(warm_demo), "timeout", "--json"]
    env = {k: v for k, v in daemon_env.items() if k != "ADE_CONFIG_DIR"}
    answered = _ade(env, *argv)
    assert answered.returncode == 0
    assert answered.stdout == _ade(daemon_env, *argv).stdout
    installed = _modules(argv, env=env, site=False)
    assert {
        m for m in installed if m.split(".")[0] in {"engine", "tui"}
    } == DAEMON_ANSWER_MAY_IMPORT
    assert "platformdirs" not in installed
