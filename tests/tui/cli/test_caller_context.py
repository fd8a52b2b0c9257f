"""The caller's context travels with the request: same argv, same environment, same
bytes, whether a daemon started elsewhere answers or the search runs in this process.

Each row sets one variable a reader consults (``engine.basics.caller_env``) to a value that changes
the answer, runs ``ade search --json`` through the module's daemon (``module_daemon``: started
with another ``HOME`` and no ``ADE_NOW``) and then with ``--no-daemon``, and asserts the same
exit code, stdout and warnings. Rows the daemon applies (the agent folders, ``ADE_NOW``) must
also be answered by the daemon (its log names the caller's folders); rows it cannot apply
(process-wide variables) must be refused by it, and the client answers in process, silently.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import apsw
import pytest
from cli_helpers import Run, run_ade
from daemon_machine import Machine

from engine.basics.caller_env import AGENT_FOLDERS, MATCHED, PER_REQUEST, caller_context
from engine.errors import INVALID_PARAMS
from engine.external.roots import claude_slug
from engine.rpc.connection import DaemonError, open_connection
from tests.engine.external.agent_fixtures import write_copilot, write_gemini, write_opencode
from tests.engine.external.agent_homes import FIXTURES, install_home


def _line(obj: dict[str, object]) -> str:
    return json.dumps(obj) + "\n"


def _claude(projects: Path, repo: Path, word: str) -> None:
    folder = projects / claude_slug(repo)
    folder.mkdir(parents=True)
    (folder / "5e551011-0000-4000-8000-000000000001.jsonl").write_text(_line({
        "parentUuid": None, "isSidechain": False, "cwd": str(repo), "type": "user",
        "sessionId": "5e551011-0000-4000-8000-000000000001", "uuid": "u1",
        "timestamp": "2026-06-14T10:00:00.000Z",
        "message": {"role": "user", "content": f"why does the {word} retry"}}))  # fmt: skip


def _codex(sessions: Path, repo: Path, word: str) -> None:
    day = sessions / "2026" / "06" / "14"
    day.mkdir(parents=True)
    ident = "0199aaaa-0000-7000-8000-000000000001"

    def item(kind: str, payload: dict[str, object]) -> str:
        return _line({"timestamp": "2026-06-14T11:00:00.000Z", "type": kind, "payload": payload})

    (day / f"rollout-2026-06-14T11-00-00-{ident}.jsonl").write_text(
        item("session_meta", {"id": ident, "timestamp": "2026-06-14T11:00:00Z", "cwd": str(repo),
                              "originator": "codex_cli_rs", "cli_version": "0.40.0"})
        + item("response_item", {"type": "message", "role": "user",
                                 "content": [{"type": "input_text", "text": f"fix {word}"}]})
    )  # fmt: skip


@dataclass(frozen=True)
class Row:
    """One variable: how to point it somewhere that changes the answer, and the query."""

    name: str
    setup: Callable[[Path, Path], str]
    """(tmp folder, project) → the variable's value, after writing what it points at."""
    query: str
    applied: bool
    """True: the daemon answers in the caller's value; False: it refuses and the caller answers."""
    hits: bool = True
    """Whether the answer has hits (a comparison of two empty answers proves little)."""


def _home(tmp: Path, repo: Path) -> str:
    _claude(tmp / "caller-home" / ".claude" / "projects", repo, "zorbleflux")
    return str(tmp / "caller-home")


def _claude_config(tmp: Path, repo: Path) -> str:
    _claude(tmp / "claude-config" / "projects", repo, "zorbleflux")
    return str(tmp / "claude-config")


def _codex_home(tmp: Path, repo: Path) -> str:
    _codex(tmp / "codex-home" / "sessions", repo, "zorbleflux")
    return str(tmp / "codex-home")


def _gemini_home(tmp: Path, repo: Path) -> str:
    (repo / "src").mkdir()
    write_gemini(tmp / "gemini-home", repo, repo)
    return str(tmp / "gemini-home")


def _xdg_data(tmp: Path, repo: Path) -> str:
    write_opencode(tmp / "xdg-data", repo, repo)
    return str(tmp / "xdg-data")


def _copilot_home(tmp: Path, repo: Path) -> str:
    write_copilot(tmp / "copilot-home", repo)
    return str(tmp / "copilot-home")


def _agent_home(name: str) -> Callable[[Path, Path], str]:
    """The agent's fixture home (``tests/fixtures/agents/<name>``) with its session in ``repo``."""
    return lambda tmp, repo: str(install_home(name, tmp / f"{name}-home", repo, tmp / "no-lane"))


def _vscode_portable(tmp: Path, repo: Path) -> str:
    """A portable VS Code's data folder holding Cline's fixture in ``user-data``."""
    home = install_home("cline", tmp / "cline-home", repo, tmp / "no-lane")
    (home / "Code").rename(tmp / "user-data")
    portable = tmp / "portable"
    portable.mkdir()
    (tmp / "user-data").rename(portable / "user-data")
    return str(portable)


def _cline_folder(below: str) -> Callable[[Path, Path], str]:
    """A folder of Cline CLI's fixture home (its data or sessions) with its session in ``repo``."""
    return lambda tmp, repo: str(Path(_agent_home("cline-cli")(tmp, repo), below))


def _crush_global_data(tmp: Path, repo: Path) -> str:
    """Crush's global data folder registering a database kept outside the repository."""
    data, store = tmp / "crush-data", tmp / "crush-store"
    data.mkdir()
    store.mkdir()
    sql = "".join((FIXTURES / "crush" / n).read_text() for n in ("schema.sql", "lane.sql"))
    conn = apsw.Connection(str(store / "crush.db"))
    conn.execute(sql)
    conn.close()
    entry = {"path": str(repo), "data_dir": str(store), "last_accessed": "2026-06-01T11:00:00Z"}
    (data / "projects.json").write_text(json.dumps({"projects": [entry]}))
    return str(data)


def _value(value: str) -> Callable[[Path, Path], str]:
    return lambda tmp, repo: value


def _git_config(tmp: Path, repo: Path) -> str:
    (tmp / "gitconfig").write_text("[core]\n\tabbrev = 12\n")
    return str(tmp / "gitconfig")


ROWS = [
    Row("HOME", _home, "zorbleflux", applied=True),
    Row("CLAUDE_CONFIG_DIR", _claude_config, "zorbleflux", applied=True),
    Row("CODEX_HOME", _codex_home, "zorbleflux", applied=True),
    Row("GEMINI_CLI_HOME", _gemini_home, "zizzle", applied=True),
    Row("XDG_DATA_HOME", _xdg_data, "wombat", applied=True),
    Row("COPILOT_HOME", _copilot_home, "kumquat", applied=True),
    Row("QWEN_RUNTIME_DIR", _agent_home("qwen"), "quokka", applied=True),
    Row("PI_CODING_AGENT_DIR", _agent_home("pi"), "narwhal", applied=True),
    Row("OPENCLAW_STATE_DIR", _agent_home("openclaw"), "flamingo", applied=True),
    Row("VIBE_HOME", _agent_home("vibe"), "gazelle", applied=True),
    Row("KIRO_HOME", _agent_home("kiro"), "marten", applied=True),
    Row("GROK_HOME", _agent_home("grok"), "lynx", applied=True),
    Row("GOOSE_PATH_ROOT", _agent_home("goose"), "jerboa", applied=True),
    Row("VSCODE_APPDATA", _agent_home("cline"), "ocelot", applied=True),
    Row("CRUSH_GLOBAL_DATA", _crush_global_data, "tapir", applied=True),
    Row("VSCODE_PORTABLE", _vscode_portable, "ocelot", applied=True),
    Row("CLINE_DIR", _agent_home("cline-cli"), "heron", applied=True),
    Row("CLINE_DATA_DIR", _cline_folder("data"), "heron", applied=True),
    Row("CLINE_SESSION_DATA_DIR", _cline_folder("data/sessions"), "heron", applied=True),
    # The daemon's clock is the real one: a commit of today is within 3 days of it, not of 2030
    Row("ADE_NOW", _value("2030-01-01T00:00:00+00:00"), "first since:3d", applied=True, hits=False),
    Row("TZ", _value("Asia/Tokyo"), "first", applied=False),
    Row("ADE_HISTORY_DEPTH", _value("1"), "first", applied=False),
    Row("ADE_LINEAR_API_KEY", _value("lin_api_test"), "first", applied=False),
    Row("LINEAR_API_KEY", _value("lin_api_test"), "first", applied=False),
    Row("ADE_LINEAR_API_URL", _value("http://127.0.0.1:9/graphql"), "first", applied=False),
    Row("XDG_CONFIG_HOME", lambda tmp, repo: str(tmp), "first", applied=False),
    Row("GIT_CONFIG_GLOBAL", _git_config, "first", applied=False),
    # The suite's daemon runs with ADE_SEMANTIC=0 (tests/conftest.py): a caller with it on
    Row("ADE_SEMANTIC", _value("1"), "first", applied=False),
]


def test_the_table_lists_every_variable_the_context_carries() -> None:
    named = {row.name for row in ROWS}
    assert {*PER_REQUEST, *AGENT_FOLDERS, *MATCHED} <= named
    assert any(name.startswith("GIT_") for name in named)


@pytest.fixture
def daemon_env(module_daemon: Machine, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The caller's own environment, finding the module's daemon (started elsewhere)."""
    monkeypatch.delenv("ADE_DAEMON", raising=False)
    return {name: module_daemon.env[name] for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR")}


def _search(env: dict[str, str], root: Path, query: str, *flags: str) -> Run:
    return run_ade(["search", "--project", str(root), "--json", *flags, query], env=env)


def _warnings(run: Run) -> list[str]:
    return [line for line in run.err.splitlines() if line.startswith("warning:")]


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.name)
def test_both_paths_answer_alike_in_the_callers_context(
    row: Row, repo: Path, tmp_path: Path, daemon_env: dict[str, str], module_daemon: Machine
) -> None:
    value = row.setup(tmp_path, repo)
    env = {**daemon_env, row.name: value}
    through_daemon = _search(env, repo, row.query)  # first: the daemon indexes it itself
    in_process = _search(env, repo, row.query, "--no-daemon")
    assert through_daemon.code == in_process.code, (through_daemon.err, in_process.err)
    assert through_daemon.out == in_process.out
    assert _warnings(through_daemon) == _warnings(in_process)
    assert bool(json.loads(in_process.out)["items"]) == row.hits, in_process.out
    log = module_daemon.log.read_text()
    served = f"opened search service for {repo.resolve()}"
    if row.applied:
        assert served in log, "the daemon did not answer"
        if row.name in AGENT_FOLDERS:
            assert repr(value) in log, "the daemon's service does not look in the caller's folder"
    else:
        assert served not in log, "the daemon answered a context it cannot apply"
    assert "daemon failed" not in through_daemon.err  # a refused context is not a failure


def test_the_daemon_says_in_its_greeting_which_contexts_it_serves(
    module_daemon: Machine, daemon_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**os.environ, **daemon_env}
    ours = caller_context()
    for context, served in (
        (ours, True),
        ({**ours, "HOME": str(tmp_path), "ADE_NOW": "2030-01-01T00:00:00Z"}, True),
        ({**ours, "TZ": "Asia/Tokyo"}, False),
        ({**ours, "GIT_DIR": str(tmp_path)}, False),
    ):
        connection = open_connection(env=env, context=context)
        assert connection is not None
        try:
            assert connection.context_served is served, context
        finally:
            connection.close()


def test_a_project_served_for_too_many_folder_sets_is_answered_in_process(
    repo: Path, tmp_path: Path, daemon_env: dict[str, str], module_daemon: Machine
) -> None:
    """Each set of agent folders is a service of its own: a fifth for one project is refused
    and the caller answers, saying nothing about it."""
    runs = []
    for n in range(5):
        _claude(tmp_path / f"home{n}" / ".claude" / "projects", repo, f"zorbleflux{n}")
        env = {**daemon_env, "HOME": str(tmp_path / f"home{n}")}
        runs.append((_search(env, repo, f"zorbleflux{n}"),
                     _search(env, repo, f"zorbleflux{n}", "--no-daemon")))  # fmt: skip
    for through_daemon, in_process in runs:
        assert (through_daemon.code, through_daemon.out) == (in_process.code, in_process.out)
        assert json.loads(in_process.out)["items"]
        assert through_daemon.err == in_process.err
    log = module_daemon.log.read_text()
    assert log.count(f"opened search service for {repo.resolve()}") == 4


@pytest.mark.parametrize(
    "context",
    [
        ["HOME"],
        {"PATH": "/bin"},
        {"HOME": 3},
        {"HOME": "a\x00b"},
        {f"GIT_{n}": "x" for n in range(65)},
    ],
    ids=["not-an-object", "unknown-variable", "not-a-string", "nul", "too-many"],
)
def test_a_malformed_context_is_invalid_params(
    context: object, repo: Path, daemon_env: dict[str, str]
) -> None:
    connection = open_connection(env={**os.environ, **daemon_env})
    assert connection is not None
    try:
        params = {"query": "first", "projectRoot": str(repo), "context": context}
        with pytest.raises(DaemonError) as raised:
            connection.call("search.query", params, 10.0)
        assert raised.value.code == INVALID_PARAMS
        assert "context" in str(raised.value)
    finally:
        connection.close()


def test_a_caller_without_home_is_answered_in_the_accounts_home() -> None:
    """In process, an unset ``HOME`` means the account's folder (``expanduser``): the daemon
    must not fill in its own."""
    import pwd

    from engine.basics.caller_env import served

    context = {k: v for k, v in caller_context().items() if k != "HOME"}
    assert served(context).environ["HOME"] == pwd.getpwuid(os.getuid()).pw_dir


def test_the_daemons_own_environment_is_read_again_after_it_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon keeps its own context between requests (``caller_env._own``): a variable
    set, changed or unset in its environment since is compared and applied at the next one."""
    from engine.basics.caller_env import served, unserved_reason

    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("ADE_HISTORY_DEPTH", "5")
    context = caller_context()
    assert unserved_reason(context) is None
    assert served(context).environ["ADE_HISTORY_DEPTH"] == "5"
    monkeypatch.setenv("TZ", "Europe/Paris")
    assert unserved_reason(context) == (
        "TZ differs from the daemon's (read process-wide, not per request)"
    )
    monkeypatch.delenv("TZ")
    assert unserved_reason(context) is not None
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("ADE_HISTORY_DEPTH", "7")
    assert unserved_reason(caller_context()) is None
    assert served(caller_context()).environ["ADE_HISTORY_DEPTH"] == "7"
    environ = served(caller_context()).environ
    environ["ADE_HISTORY_DEPTH"] = "mutated by one request"
    assert served(caller_context()).environ["ADE_HISTORY_DEPTH"] == "7"


def test_git_answers_in_the_callers_home(
    repo: Path, tmp_path: Path, daemon_env: dict[str, str], module_daemon: Machine
) -> None:
    """git reads the caller's ``~/.gitconfig``, through the daemon (started with another
    ``HOME``) as in process: its ``core.excludesFile`` hides a file from ``kind:file``, its
    ``url.*.insteadOf`` renames the origin every hit's envelope names. A second caller with no
    such config, answered by the same daemon after it, sees the file and the plain origin."""
    (repo / "plan.md").write_text("zorbleplan tracked\n")
    subprocess.run(["git", "-C", str(repo), "add", "plan.md"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e",
                    "commit", "-q", "-m", "plan"], check=True)  # fmt: skip
    subprocess.run(["git", "-C", str(repo), "remote", "add", "origin",
                    "https://example.invalid/plainowner/proj.git"], check=True)  # fmt: skip
    (repo / "notes.secret").write_text("zorbleplan untracked\n")
    home = tmp_path / "git-home"
    home.mkdir()
    (home / "ignored").write_text("*.secret\n")
    (home / ".gitconfig").write_text(
        f"[core]\n\texcludesFile = {home / 'ignored'}\n"
        '[url "https://example.invalid/callerowner/"]\n'
        "\tinsteadOf = https://example.invalid/plainowner/\n"
    )
    plain = tmp_path / "plain-home"
    plain.mkdir()
    for caller, hidden, owner in ((home, True, "callerowner"), (plain, False, "plainowner")):
        env = {**daemon_env, "HOME": str(caller)}
        answers = []
        for query in ("kind:file zorbleplan", "kind:lane proj"):
            through_daemon = _search(env, repo, query)
            in_process = _search(env, repo, query, "--no-daemon")
            assert through_daemon.code == in_process.code, (through_daemon.err, in_process.err)
            assert through_daemon.out == in_process.out, query
            answers.append(in_process.out)
        files, lanes = answers
        assert ("notes.secret" in files) is not hidden, files
        assert f"repo={owner}%2Fproj" in lanes, lanes
    log = module_daemon.log.read_text()
    assert log.count(f"opened search service for {repo.resolve()}") == 2, (
        "the daemon did not answer"
    )
