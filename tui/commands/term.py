"""`ade term [-- COMMAND…]`: run your shell (or a command) recorded as a terminal session.

Everything passes through to your terminal; the raw output is appended to
``.ade/terminals/<id>.log`` as it arrives, so ``ade search`` finds it while the session runs.
The session file gets its end time and exit code when the program exits; ``ade term`` exits
with the program's status. An interactive bash or zsh gets prompt marks (OSC 133) through its
prompt hooks, so each command is a hit of its own (``engine.terminal.shell_integration``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from engine.importers.lane_choice import choose_lane
from engine.importers.recording import program_name
from engine.project.git_exclude import note_excluded
from engine.project.locate import open_project
from engine.terminal.recorder import TerminalRecorder
from engine.terminal.shell_integration import integrated
from tui.term_recorder import run_on_pty

EXAMPLES = """\
examples:
  ade term                      record an interactive shell in this lane
  ade term -- pytest -x         record one command; exits with its status
  ade term --title deploy -- ./deploy.sh staging
  ade search exit:fail took:10s every failed command that ran 10 s or more (docs/terminal.md)
"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.add_argument("--title", help="session title (default: the command line)")
    parser.add_argument("--lane", metavar="LANE", help="lane id or name (default: the cwd's lane)")
    parser.add_argument("--project", metavar="DIR", help="project folder (default: git top level)")
    parser.add_argument(
        "--plain", action="store_true",
        help="start bash/zsh without the prompt marks that make each command a hit",
    )  # fmt: skip
    parser.add_argument(
        "command", nargs=argparse.REMAINDER, help="command and arguments (after --)"
    )


def run(args: argparse.Namespace) -> int:
    argv = list(args.command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    shell = os.environ.get("SHELL") or "/bin/sh"
    command = shlex.join(argv) if argv else None
    project = open_project(Path(args.project) if args.project else None)
    recorder = TerminalRecorder(
        project,
        title=args.title or command or f"{program_name(shell) or 'shell'} shell",
        command=command or shell,
        tool=program_name(argv[0]) or "shell" if argv else "shell",
        lane_id=choose_lane(project, args.lane, Path.cwd()),
    )
    recorder.start()
    env = dict(os.environ, ADE_TERMINAL_SESSION_ID=recorder.session_id)
    print(f"ade term: recording {recorder.session_id}", file=sys.stderr)
    excluded = note_excluded(project, "ade term")
    if excluded is not None:
        print(excluded, file=sys.stderr)
    code: int | None = None
    try:
        if args.plain:
            code = run_on_pty(argv or [shell], recorder.write, env)
        else:
            with integrated(argv or [shell], env) as (hooked, hooked_env):
                code = run_on_pty(hooked, recorder.write, hooked_env)
    finally:
        recorder.finish(code)
    return code
