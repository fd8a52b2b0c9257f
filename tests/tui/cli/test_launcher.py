"""The compiled ``ade`` launcher (native/ade_launcher.c): a plain ``ade search`` answered by the
daemon prints exactly what the Python client and ``--no-daemon`` print, and every other case
(another command, no daemon, a socket the Python checks would not trust, a secret, a locale…)
is the Python ``ade``'s own answer.

``LONE`` is a copy of the launcher in a folder without ``ade-py``: when it answers, the launcher
answered; when it execs Python it fails with 127 — how a test tells the two apart without
tracing. The real one (beside ``ade-py``) then gives the Python ``ade``'s output.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import CLEAN_ENV, DEMO_NOW, copy_demo, on_a_terminal
from daemon_machine import Machine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.basics import caller_env
from engine.rpc import connection, paths
from tui.cli import main

BIN = Path(sys.executable).parent
LAUNCHER, PYTHON_ADE = BIN / "ade", BIN / "ade-py"
SOURCE = Path(__file__).resolve().parents[3] / "native" / "ade_launcher.c"
FAKE = Path(__file__).resolve().parents[2] / "engine" / "rpc" / "fake_daemon.py"
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/bin") or sys.executable
"""The fake daemon's interpreter: one ``nobody`` can run (not this checkout's venv)."""
EXEC_FAILED = 127
"""The lone launcher's exit when it tried to exec the Python ``ade`` (there is none beside it)."""

built = LAUNCHER.exists() and LAUNCHER.read_bytes()[:4] == b"\x7fELF"
needs_launcher = pytest.mark.skipif(not built, reason="no compiled launcher (no C compiler)")


def test_the_launcher_is_built_where_a_compiler_is() -> None:
    if not sys.platform.startswith("linux") or shutil.which("gcc") is None:
        pytest.skip("the launcher is built on Linux with a C compiler")
    assert built, f"{LAUNCHER} is not the compiled launcher: reinstall (setup.py build_scripts)"
    assert PYTHON_ADE.read_bytes().startswith(b"#!"), "the Python ade is not beside it"


def _c_list(name: str) -> list[str]:
    found = re.search(rf"\b{name}\[\] = \{{(.*?)\}};", SOURCE.read_text(), re.S)
    assert found, name
    return re.findall(r'"([^"]*)"', found.group(1))


def _c_number(name: str) -> int:
    found = re.search(rf"#define {name} (\d+)", SOURCE.read_text())
    assert found, name
    return int(found.group(1))


def test_the_launchers_lists_are_the_python_ones() -> None:
    assert _c_list("PER_REQUEST") == list(caller_env.PER_REQUEST)
    assert _c_list("AGENT_FOLDERS") == list(caller_env.AGENT_FOLDERS)
    assert _c_list("MATCHED") == list(caller_env.MATCHED)
    assert sorted(_c_list("SECRETS")) == sorted(caller_env.SECRETS)
    assert f'MATCHED_PREFIX[] = "{caller_env.MATCHED_PREFIX}"' in SOURCE.read_text()
    assert sorted(_c_list("DAEMON_OFF")) == sorted(connection._OFF)
    assert _c_number("CONNECT_TIMEOUT_MS") == connection.CONNECT_TIMEOUT_S * 1000
    assert _c_number("CALL_TIMEOUT_MS") == connection.CALL_TIMEOUT_S * 1000
    assert _c_number("SUN_PATH_MAX") == paths.SUN_PATH_MAX
    assert f'setenv("{connection.LOST}"' in SOURCE.read_text()


# ---- processes ---------------------------------------------------------------------------------


def _env(machine: Machine | None = None, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (*CLEAN_ENV, "ADE_DAEMON")}
    env["ADE_NOW"] = DEMO_NOW
    if machine is not None:
        env.update(ADE_RUNTIME_DIR=machine.env["ADE_RUNTIME_DIR"],
                   ADE_CONFIG_DIR=machine.env["ADE_CONFIG_DIR"])  # fmt: skip
    env.update(more)
    return env


def _run(command: list[str | bytes], env: dict[str, str], cwd: Path) -> tuple[int, bytes, bytes]:
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, timeout=60, check=False)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def lone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lone")
    shutil.copy2(LAUNCHER, folder / "ade")
    return folder / "ade"


HOSTILE = 'zebrahostile \x1b]52;c;eA==\x07 \x1b[2J \u202eevil\u202c 😀 日本語 \\ " \t end'


@pytest.fixture(scope="module")
def project(demo_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An indexed demo copy whose chat holds hostile text (escapes, bidi, astral, quotes)."""
    root = copy_demo(demo_project, tmp_path_factory.mktemp("launcher") / "demo")
    line = {"seq": 90, "ts": "2026-06-09T18:20:00.000Z", "type": "assistant_message",
            "id": "msg_hostile", "text": HOSTILE}  # fmt: skip
    with (root / ".ade" / "chats" / "chat-release-notes.jsonl").open("a") as chats:
        chats.write(json.dumps(line) + "\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ADE_NOW", DEMO_NOW)
        for name in CLEAN_ENV:
            mp.delenv(name, raising=False)
        assert main(["search", "--project", str(root), "--no-daemon", "--status"]) == 0
    return root


ANSWERED = [
    ["timeout"],
    ["timeout", "--json"],
    ["--json", "--limit", "2", "retry"],
    ["tool:codex", "timeout"],
    ["--kind", "chat", "webhook", "--json", "--limit", "3"],
    ["zzznothingzzz"],
    ["zzznothingzzz", "--json"],
    ["zebrahostile"],
    ["zebrahostile", "--json"],
    ["日本語"],
    ["café", "--json"],
    ["timeout", "--limit", "1", "--offset", "2"],
    ['"timed out"'],
    ["--limit", "0", "timeout"],
    ["--kind", "nosuchkind", "timeout"],
    ["--", "--json"],  # argparse's shape, the daemon's parse: a usage error
]


@needs_launcher
@pytest.mark.parametrize("argv", ANSWERED, ids=" ".join)
@pytest.mark.parametrize("where", ["cwd", "--project"])
def test_the_launcher_answers_as_the_python_client_and_the_process_do(
    module_daemon: Machine, project: Path, lone: Path, argv: list[str], where: str
) -> None:
    env = _env(module_daemon)
    head = ["search", "--project", str(project)] if where == "--project" else ["search"]
    python = _run([str(PYTHON_ADE), *head, *argv], env, project)
    alone = _run([str(lone), *head, *argv], env, project)
    local = _run([str(PYTHON_ADE), head[0], "--no-daemon", *head[1:], *argv], env, project)
    assert alone == python == local
    assert alone[0] != EXEC_FAILED
    if "zebrahostile" in argv:  # found, and its escapes shown, never sent to the terminal
        assert alone[0] == 0
        assert b"\x1b" not in alone[1]


@needs_launcher
@pytest.mark.parametrize(
    "argv", [["timeout"], ["zebrahostile"], ["timeout", "--json"]], ids=" ".join
)
def test_on_a_terminal_the_launcher_colours_as_the_python_ade_does(
    module_daemon: Machine, project: Path, lone: Path, argv: list[str]
) -> None:
    env = _env(module_daemon)
    alone = on_a_terminal([str(lone), "search", *argv], env, project)
    local = on_a_terminal([str(PYTHON_ADE), "search", "--no-daemon", *argv], env, project)
    assert alone == local
    if "--json" not in argv:
        assert b"\x1b[" in alone[1], "no colour on a terminal"
    no_color = _env(module_daemon, NO_COLOR="")
    plain = on_a_terminal([str(lone), "search", *argv], no_color, project)
    assert plain == on_a_terminal([str(PYTHON_ADE), "search", *argv], no_color, project)
    assert b"\x1b[" not in plain[1]


# ---- every doubt: the Python ade ---------------------------------------------------------------


@needs_launcher
@pytest.mark.parametrize(
    ("argv", "more"),
    [
        (["--version"], {}),
        (["--help"], {}),
        (["search", "--status"], {}),  # the daemon's fallback
        (["search", "--limit", "x", "timeout"], {}),  # argparse's error: the daemon's fallback
        (["search", "timeout", "--kind", "chat", "retry"], {}),
        (["search", "--no-daemon", "timeout"], {}),  # the daemon's fallback
        (["search", "timeout"], {"ADE_DAEMON": " Off "}),
        (["search", "timeout"], {"LINEAR_API_KEY": "lin_secret"}),  # sent only as a digest
        (["search", "timeout"], {"TZ": "Asia/Tokyo"}),  # the daemon's TZ differs: not served
        (["search", "timeout"], {"LANG": "en_US.ISO-8859-1", "LC_ALL": "", "LC_CTYPE": ""}),
        (["search", "timeout"], {"LC_ALL": "de_DE"}),
        (["search", "timeout"], {"PYTHONIOENCODING": "utf-8"}),
    ],
)
def test_every_other_case_is_the_python_ades(
    module_daemon: Machine, project: Path, lone: Path, argv: list[str], more: dict[str, str]
) -> None:
    env = _env(module_daemon, **more)
    code, out, err = _run([str(lone), *argv], env, project)
    assert (code, out) == (EXEC_FAILED, b""), err
    assert b"cannot run the Python ade" in err
    launched = _run([str(LAUNCHER), *argv], env, project)
    assert launched == _run([str(PYTHON_ADE), *argv], env, project)


@needs_launcher
def test_an_argv_that_is_not_utf8_is_the_python_ades(
    module_daemon: Machine, project: Path, lone: Path
) -> None:
    env = _env(module_daemon)
    argv: list[str | bytes] = ["search", b"caf\xe9", "--json"]
    assert _run([str(lone), *argv], env, project)[0] == EXEC_FAILED
    launched = _run([str(LAUNCHER), *argv], env, project)
    assert launched == _run([str(PYTHON_ADE), *argv], env, project)


# ---- sockets of no daemon, or not ours ---------------------------------------------------------


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short private runtime folder (a socket path fits 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="ade-l-", dir="/tmp"))
    folder.chmod(0o755)  # nobody may traverse to run/ (the wrong-owner cases)
    (folder / "run").mkdir(mode=0o700)
    yield folder / "run"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def fake(runtime: Path) -> Iterator[list[subprocess.Popen[str]]]:
    """Starts ``fake_daemon.py`` on ``runtime/daemon.sock`` (``procs.append`` the mode)."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def _start_fake(
    procs: list[subprocess.Popen[str]], runtime: Path, mode: str, *, as_nobody: bool = False
) -> Path:
    """``fake_daemon.py`` on ``runtime/daemon.sock``, as ``nobody`` when asked (with root and
    ``setpriv``: the folder is opened for it to bind, then private again). Returns its record."""
    record = runtime.parent / f"record-{len(procs)}"
    script = runtime.parent / "fake.py"  # where nobody can read it
    shutil.copy(FAKE, script)
    command = [SYSTEM_PYTHON, str(script), str(runtime / "daemon.sock"), str(record), mode]
    if as_nobody:
        runtime.chmod(0o777)
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    procs.append(proc)
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"  # listening: no waiting by the clock
    runtime.chmod(0o700)
    return record


@needs_launcher
def test_no_socket_is_the_python_ades(runtime: Path, project: Path, lone: Path) -> None:
    env = _env(ADE_RUNTIME_DIR=str(runtime), ADE_DAEMON="on")
    assert _run([str(lone), "search", "timeout"], env, project)[0] == EXEC_FAILED
    assert not list(runtime.iterdir()), "the launcher started or made something"


@needs_launcher
@pytest.mark.parametrize(
    "setup",
    ["open folder", "folder of another user", "symlink", "socket of another user",
     "peer of another user"],
)  # fmt: skip
def test_an_untrusted_runtime_folder_is_the_python_ades_warning(
    runtime: Path, fake: list[subprocess.Popen[str]], project: Path, lone: Path, setup: str
) -> None:
    another = setup.endswith("of another user")
    if another and (os.geteuid() != 0 or shutil.which("setpriv") is None):
        pytest.skip("another user's folder, socket or daemon needs root and setpriv")
    record = _start_fake(fake, runtime, "ok", as_nobody=setup.startswith(("socket", "peer")))
    folder = runtime
    if setup == "open folder":
        runtime.chmod(0o750)
    elif setup == "folder of another user":
        os.chown(runtime, 65534, 65534)
    elif setup == "peer of another user":
        os.chown(runtime / "daemon.sock", os.getuid(), os.getgid())  # the file lies; the peer not
    elif setup == "symlink":
        folder = runtime.parent / "link"
        folder.symlink_to(runtime)
    env = _env(ADE_RUNTIME_DIR=str(folder), ADE_CONFIG_DIR=str(runtime.parent / "cfg"))
    argv = ["search", "--project", str(project), "timeout", "--json"]
    assert _run([str(lone), *argv], env, project)[0] == EXEC_FAILED
    launched = _run([str(LAUNCHER), *argv], env, project)
    assert launched == _run([str(PYTHON_ADE), *argv], env, project)
    assert launched[2].startswith(b"warning: not using the ade daemon: ")
    assert not record.exists(), "something was sent to an untrusted daemon"


@needs_launcher
@pytest.mark.parametrize("mode", ["notjson", "hangup"])
def test_a_daemon_answering_no_cli_answer_is_the_python_ades(
    runtime: Path, fake: list[subprocess.Popen[str]], project: Path, lone: Path, mode: str
) -> None:
    """Garbage, an answer of another shape, a daemon gone with the request sent (``hangup``:
    killed mid-request): the Python ``ade``'s answer, the same one warning line as when that
    happens to the Python client itself — and the lost daemon is not asked a second time."""
    record = _start_fake(fake, runtime, mode)
    env = _env(ADE_RUNTIME_DIR=str(runtime), ADE_CONFIG_DIR=str(runtime.parent / "cfg"))
    argv = ["search", "--project", str(project), "timeout", "--json"]
    assert _run([str(lone), *argv], env, project)[0] == EXEC_FAILED
    sent = record.read_bytes()
    request = json.loads(sent.splitlines()[1])
    assert request["method"] == "search.cli"
    launched = _run([str(LAUNCHER), *argv], env, project)
    python = _run([str(PYTHON_ADE), *argv], env, project)
    local = _run([str(PYTHON_ADE), "search", "--no-daemon", *argv[1:]], env, project)
    assert launched == python
    assert (launched[0], launched[1]) == (local[0], local[1])
    assert launched[2].startswith(b"warning: ")
    assert launched[2].count(b"\n") == 1
    if mode == "hangup":
        assert b"lost the ade daemon" in launched[2]
        asked = record.read_bytes()[len(sent) :].count(b'"search.')
        assert asked == 2, "the launcher and the Python client each asked once, no more"


@needs_launcher
def test_the_request_carries_the_callers_argv_cwd_context_and_version(
    runtime: Path, fake: list[subprocess.Popen[str]], project: Path, lone: Path
) -> None:
    from importlib.metadata import version

    record = _start_fake(fake, runtime, "ok")
    env = _env(ADE_RUNTIME_DIR=str(runtime), GIT_DIR="/nowhere", TZ="UTC", NO_COLOR="")
    env["CODEX_HOME"] = 'x\ny\u00e9\x01"\\'
    argv = ["search", "a\tb", "é", "😀", '"q"', "\\", "--json"]
    _run([str(lone), *argv], env, project / ".ade")
    hello, request = (json.loads(line) for line in record.read_bytes().splitlines())
    assert hello == {"jsonrpc": "2.0", "id": 1, "method": "rpc.hello", "params": {}}
    assert request["id"] == 2
    assert request["params"] == {
        "argv": argv[1:],
        "cwd": str(project / ".ade"),
        "color": False,
        "version": version("ade-search"),
        "context": caller_env.caller_context(env),
    }


# ---- the answer's decoding ---------------------------------------------------------------------


class OneAnswer:
    """A socket of the test's own in a private folder: greets each connection and answers its
    request with ``line`` (a stand-in daemon whose answer the test chooses)."""

    def __init__(self, runtime: Path) -> None:
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(runtime / "daemon.sock"))
        self.server.listen(4)
        self.line = b""

    def serve_one(self) -> None:
        conn, _ = self.server.accept()
        with conn:
            received = b""
            while received.count(b"\n") < 2 and (chunk := conn.recv(65536)):
                received += chunk
            hello = b'{"jsonrpc":"2.0","id":1,"result":{"role":"agent","pid":1,"version":"x"}}\n'
            conn.sendall(hello + self.line + b"\n")


@pytest.fixture
def one_answer(runtime: Path) -> Iterator[OneAnswer]:
    served = OneAnswer(runtime)
    yield served
    served.server.close()


def _answered(
    served: OneAnswer, lone: Path, runtime: Path, line: bytes
) -> tuple[int, bytes, bytes]:
    served.line = line
    thread = threading.Thread(target=served.serve_one)
    thread.start()
    try:
        return _run([str(lone), "search", "x"], _env(ADE_RUNTIME_DIR=str(runtime)), runtime)
    finally:
        thread.join(timeout=60)


@needs_launcher
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    writes=st.lists(st.tuples(st.sampled_from([1, 2]), st.text()), max_size=4),
    code=st.integers(0, 2),
    ascii_only=st.booleans(),
)
def test_the_launcher_writes_each_text_of_the_answer_as_utf8(
    one_answer: OneAnswer,
    lone: Path,
    runtime: Path,
    writes: list[tuple[int, str]],
    code: int,
    ascii_only: bool,
) -> None:
    result = {"exit": code, "writes": writes}
    line = json.dumps({"jsonrpc": "2.0", "id": 2, "result": result}, ensure_ascii=ascii_only)
    got = _answered(one_answer, lone, runtime, line.encode("utf-8", "surrogatepass"))
    if any(0xD800 <= ord(ch) <= 0xDFFF for _, text in writes for ch in text):
        assert got[0] == EXEC_FAILED  # a lone surrogate: Python's print would raise on it
        return
    if any("\x1b" in text or "\x9b" in text for _, text in writes):
        assert got[0] == EXEC_FAILED  # an escape without colour: a broken daemon's
        return
    expected = [b"".join(t.encode() for fd, t in writes if fd == n) for n in (1, 2)]
    assert got == (code, *expected)


@needs_launcher
@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":2,"result":{"fallback":"not the plain shape"}}',
        b'{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no such method"}}',
        b'{"jsonrpc":"2.0","id":3,"result":{"exit":0,"writes":[]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":3,"writes":[]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":-1,"writes":[]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"\x1b[2J"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[2,"\\u001b]52;c;x"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"\\u009b2J"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[3,"x"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"\\ud800"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"\\udc00\\ud800"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"\\x"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"\xff"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"a\nb"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"x"]],"more":1}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"x"]]}} trailing',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0.5,"writes":[]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"writes":[[1,"no exit"]]}}',
        b'{"jsonrpc":"2.0","id":2,"result":{"exit":0,"writes":[[1,"unterminated',
        b"not json",
        b'{"":1}',
        b'{"jsonrpc":"2.0","id":2,"result":{"":0}}',
        b"",
    ],
)
def test_an_answer_of_any_other_shape_is_the_python_ades(
    one_answer: OneAnswer, lone: Path, runtime: Path, line: bytes
) -> None:
    code, out, err = _answered(one_answer, lone, runtime, line)
    assert (code, out) == (EXEC_FAILED, b""), err
