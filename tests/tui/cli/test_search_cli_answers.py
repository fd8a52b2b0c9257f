"""``search.cli``: the daemon answers a whole ``ade search`` with what ``--no-daemon`` writes.

A real daemon (the module's, ``module_daemon``: started with another ``HOME``, no ``ADE_NOW``
and ``NO_COLOR`` set, and the front end's renderer) is sent the argv, cwd and colour of a
search; its ``{"exit", "writes"}`` must be, byte for byte, the stdout, stderr and exit code of
the same search run in this process with ``--no-daemon``, on a real git project (a copy of the
demo, with a transcript of hostile text). Where the plain shortcut does not apply it answers
``{"fallback": reason}``, and the client runs its full path.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ADE_ENTRY, DEMO_NOW, Run, copy_demo, on_a_terminal, run_main
from daemon_machine import Machine

from engine import RELEASE
from engine.rpc.connection import ContextNotServed, call_once

HOSTILE = (
    "zapword \x1b]0;owned\x07 \x1b[2J\x1b[31mred\x1b[0m bell\x07 cr\rline\u202eevil"
    " \x9b31m c1 \ud7ff \ufeff nul-free tail"
)
"""Terminal escapes, a bell, a carriage return, a bidi override, a C1 control: what a
transcript may hold and neither path may pass to a terminal as it is."""


@pytest.fixture(scope="module")
def project(demo_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo (a git repository with lanes) whose chats hold hostile text."""
    root = copy_demo(demo_project, tmp_path_factory.mktemp("cli-answers") / "demo")
    chat = sorted((root / ".ade" / "chats").glob("*.jsonl"))[0]
    last = json.loads(chat.read_text(encoding="utf-8").splitlines()[-1])
    line = {**last, "seq": last["seq"] + 1, "id": "hostile", "text": HOSTILE}
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    return root


@pytest.fixture
def daemon(module_daemon: Machine, monkeypatch: pytest.MonkeyPatch) -> Machine:
    """This process a caller of the module's daemon (its runtime folder, the daemon on)."""
    monkeypatch.delenv("ADE_DAEMON", raising=False)
    for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR"):
        monkeypatch.setenv(name, module_daemon.env[name])
    return module_daemon


def _answer(argv: list[str], cwd: Path, *, color: bool = False, version: str = RELEASE) -> Any:
    """The daemon's ``search.cli`` answer (this process's context, as ``call_once`` sends it)."""
    params = {"argv": argv, "cwd": str(cwd), "color": color, "version": version}
    answered = call_once("search.cli", params, 60.0)
    assert answered is not None, "no daemon answered"
    return answered[1]


def _written(answer: Any) -> Run:
    assert "fallback" not in answer, answer
    out = "".join(text for fd, text in answer["writes"] if fd == 1)
    err = "".join(text for fd, text in answer["writes"] if fd == 2)
    return Run(answer["exit"], out, err)


def _in_process(capsys: pytest.CaptureFixture[str], argv: list[str], cwd: Path) -> Run:
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return run_main(capsys, ["search", "--no-daemon", *argv])
    finally:
        os.chdir(here)


def _same(capsys: pytest.CaptureFixture[str], argv: list[str], cwd: Path) -> Run:
    """The daemon's answer, asserted equal to the in-process run's."""
    remote = _written(_answer(argv, cwd))
    local = _in_process(capsys, argv, cwd)
    assert remote == local, argv
    return remote


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["timeout", "--json"], 0),
        (["timeout"], 0),
        (["--kind", "chat", "webhook", "--json", "--limit", "3"], 0),
        (["kind:terminal", "error"], 0),
        (["since:7d", "retry", "--json"], 0),
        (["since:yesterday-ish", "retry"], 2),
        (["timeoutt", "retyr"], 0),  # two warnings on stderr
        (["kind:linear", "retry"], 1),  # "not configured"
        (["session:zzz", "retry"], 1),
        (["cwd:~/src", "retry"], 1),  # the caller's ~
        (["lane:nosuchlane", "retry"], 2),
        (["retry", "--offset", "3", "--limit", "2"], 0),
        (["retry", "--sessions"], 0),
        (["zzznothingzzz"], 1),
        (["zzznothingzzz", "--json"], 1),
        (["--limit", "0", "timeout"], 2),
        (["--kind", "nope", "timeout"], 2),
        (["--offset", "2", "--cursor", "abc", "timeout"], 2),
        (["--cursor", "not-a-cursor", "timeout"], 2),
        (["zapword"], 0),
        (["zapword", "--json"], 0),
    ],
)
def test_the_daemon_writes_what_the_in_process_search_writes(
    daemon: Machine,
    project: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
) -> None:
    ran = _same(capsys, ["--project", str(project), *argv], Path("/"))
    assert ran.code == code, ran.err
    if code == 2:
        assert ran.out == ""
        assert ran.err.startswith("ade search: ")
        assert ran.err.count("\n") == 1
    if argv[0] == "zapword":  # found, and made printable on both paths
        assert "zapword" in ran.out
        assert not {"\x1b", "\x07", "\r", "\u202e", "\x9b"} & set(ran.out)


@pytest.mark.parametrize(
    "argv",
    [["--limit=3", "timeout"], ["--", "-flaky", "retry", "--json"], ["timeout", "--kind=chat"]],
)
def test_an_argv_argparse_parses_is_answered_too(
    daemon: Machine, project: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """What ``parse_plain`` leaves to argparse is parsed there, quietly, in the daemon."""
    assert _same(capsys, ["--project", str(project), *argv], Path("/")).code == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["timeout", "--json"],
        ["timeout"],
        ["timeoutt", "retyr", "--limit", "3"],
        ["zzznothingzzz"],
        ["--limit", "0", "timeout"],
        ["zapword"],
        ["--", "-flaky", "retry"],
        ["--explain", "timeout", "--limit", "2"],  # not rendered: the full path, with the daemon
    ],
)
def test_ade_search_writes_the_daemons_answer(
    daemon: Machine, project: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """The client (``tui.daemon_search``) writes what it is given: ``ade search`` with the
    daemon up prints what ``--no-daemon`` prints."""
    full = ["--project", str(project), *argv]
    assert run_main(capsys, ["search", *full]) == _in_process(capsys, full, Path("/"))


def test_a_context_the_daemon_does_not_serve_is_answered_in_process(
    daemon: Machine,
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "Pacific/Chatham")
    full = ["--project", str(project), "timeout"]
    assert run_main(capsys, ["search", *full]) == _in_process(capsys, full, Path("/"))


def test_a_later_page_counts_from_its_cursor(
    daemon: Machine, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _same(capsys, ["--project", str(project), "retry", "--json", "--limit", "2"], project)
    cursor = json.loads(first.out)["nextCursor"]
    assert cursor
    later = _same(capsys, ["--project", str(project), "retry", "--limit", "2", "--cursor", cursor],
                  project)  # fmt: skip
    assert later.code == 0
    assert "3–4 of" in later.out


def test_the_root_comes_from_the_callers_cwd_and_home(
    daemon: Machine, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --project (the cwd's repository, from a subfolder), a relative --project and one
    under ``~`` (the caller's HOME, not the daemon's) name the root the in-process search does."""
    subfolder = next(p for p in project.iterdir() if p.is_dir() and not p.name.startswith("."))
    home = Path(os.environ["HOME"])
    (home / "the-demo").symlink_to(project)
    for argv, cwd in (
        (["retry", "--json"], subfolder),
        (["--project", "demo", "retry", "--json"], project.parent),
        (["--project", "~/the-demo", "retry", "--json"], Path("/")),
    ):
        assert _same(capsys, argv, cwd).code == 0, (argv, cwd)


def test_a_write_is_answered_right_after(
    daemon: Machine, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read your writes: a line appended to a transcript is in the very next answer."""
    chat = sorted((project / ".ade" / "chats").glob("*.jsonl"))[-1]
    last = json.loads(chat.read_text(encoding="utf-8").splitlines()[-1])
    line = {**last, "seq": last["seq"] + 1, "id": "fresh", "text": "a fresh quokkaword note"}
    with chat.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    argv = ["--project", str(project), "quokkaword", "--json"]
    answer = _written(_answer(argv, Path("/")))
    assert answer.code == 0
    assert "quokkaword" in answer.out
    assert answer == _in_process(capsys, argv, Path("/"))


def test_colour_is_the_clients_decision(daemon: Machine, project: Path) -> None:
    """``color: true`` (the client's stdout is a terminal and it has no ``NO_COLOR``, though the
    daemon has): what the in-process search writes on a terminal."""
    argv = ["--project", str(project), "timeout", "--limit", "2"]
    coloured = _written(_answer(argv, Path("/"), color=True))
    assert "\x1b[1;33m" in coloured.out
    assert coloured.out == _on_a_terminal(["search", "--no-daemon", *argv])
    assert "\x1b[" not in _written(_answer(argv, Path("/"))).out


def _on_a_terminal(argv: list[str]) -> str:
    """What ``ade argv`` writes to stdout on a pseudo-terminal (raw: no newline translation)."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    _, out, _ = on_a_terminal([sys.executable, "-c", ADE_ENTRY, *argv], env, raw=True)
    return out.decode()


@pytest.mark.parametrize(
    ("argv", "cwd", "said"),
    [
        (["--limit=abc", "timeout"], None, "argparse"),
        (["--help"], None, "argparse"),
        (["--explain", "timeout"], None, "--explain"),
        (["--status"], None, "--status"),
        (["timeout", "--no-daemon"], None, "--no-daemon"),
        (["timeout"], "outside", "git names it"),
    ],
)
def test_what_the_plain_shortcut_cannot_answer_falls_back(
    daemon: Machine, project: Path, tmp_path: Path, argv: list[str], cwd: str | None, said: str
) -> None:
    where = tmp_path if cwd == "outside" else Path("/")
    full = argv if cwd == "outside" else ["--project", str(project), *argv]
    answer = _answer(full, where)
    assert set(answer) == {"fallback"}
    assert said in answer["fallback"]


def test_another_version_falls_back_and_a_context_not_served_is_refused(
    daemon: Machine, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["--project", str(project), "timeout"]
    assert "another version" in _answer(argv, Path("/"), version="0.0.1")["fallback"]
    monkeypatch.setenv("TZ", "Pacific/Chatham")  # read process-wide: the daemon's is not this
    with pytest.raises(ContextNotServed):  # -32003, as for search.query
        _answer(argv, Path("/"))


def test_a_client_of_another_release_is_answered_in_process(
    daemon: Machine,
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client installed beside an older (or newer) daemon: the daemon says fallback and the
    client's own full path answers, with the same output."""
    import engine

    monkeypatch.setattr(engine, "RELEASE", "0.0.1")  # what an older ade would send
    full = ["--project", str(project), "timeout", "--limit", "3"]
    assert "another version" in _answer(full, Path("/"), version=engine.RELEASE)["fallback"]
    assert run_main(capsys, ["search", *full]) == _in_process(capsys, full, Path("/"))


def test_a_daemon_without_a_renderer_falls_back(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m engine.rpc`` as such names no renderer (the engine knows no front end)."""
    from daemon_machine import private_machine

    from engine.rpc.autostart import restart_daemon

    for machine in private_machine():
        env = {k: v for k, v in machine.env.items() if k != "ADE_NOW"}
        assert restart_daemon(str(machine.socket), env)
        monkeypatch.delenv("ADE_DAEMON", raising=False)
        for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR"):
            monkeypatch.setenv(name, machine.env[name])
        monkeypatch.setenv("ADE_NOW", DEMO_NOW)
        argv = ["--project", str(project), "timeout"]
        assert _answer(argv, Path("/")) == {"fallback": "this daemon has no renderer"}
        assert run_main(capsys, ["search", *argv]) == _in_process(capsys, argv, Path("/"))


def test_the_release_a_client_sends_is_the_installed_version() -> None:
    from importlib.metadata import version

    assert version("ade-search") == RELEASE


def test_one_request_line_without_a_greeting_is_answered(
    daemon: Machine, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a compiled client sends: the request alone (no ``rpc.hello``), one line."""
    import socket

    from engine.basics.caller_env import caller_context

    argv = ["--project", str(project), "timeout", "--json"]
    params = {"argv": argv, "cwd": "/", "color": False, "version": RELEASE,
              "context": caller_context()}  # fmt: skip
    request = {"jsonrpc": "2.0", "id": 1, "method": "search.cli", "params": params}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(daemon.socket))
        sock.sendall(json.dumps(request).encode() + b"\n")
        line = sock.makefile("rb").readline()
    answer = json.loads(line)
    assert answer["id"] == 1
    assert _written(answer["result"]) == _in_process(capsys, argv, Path("/"))


def test_ade_daemon_run_names_the_renderer_and_the_engine_alone_does_not() -> None:
    """``ade daemon run`` (the front end's) renders ``search.cli``; ``python -m engine.rpc``
    renders only when told (``--renderer``): the engine knows no front end."""
    import argparse

    from engine.rpc.cli_args import add_run_arguments, options_from_args
    from tui.commands.daemon import configure
    from tui.daemon_search import SEARCH_RENDERER

    front = argparse.ArgumentParser()
    configure(front)
    assert options_from_args(front.parse_args(["run"])).renderer == SEARCH_RENDERER
    engine_alone = argparse.ArgumentParser()
    add_run_arguments(engine_alone)
    assert options_from_args(engine_alone.parse_args([])).renderer is None
