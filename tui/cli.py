"""The ``ade`` command line: a lazy dispatcher over ``tui.commands.*``.

Each sub-command lives in its own module exposing ``configure(parser)`` and ``run(args) -> int``;
only the chosen one is imported, which keeps ``ade search`` start-up close to a bare interpreter
(the CLI path never imports Textual). Bare ``ade`` opens the palette.

Exit codes everywhere: 0 success (or results), 1 nothing found / cancelled, 2 usage error.
stdout carries results only; diagnostics go to stderr as one line, never a traceback.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import argparse
import gc
import importlib
import os
import re
import sys

from engine.errors import AdeError
from tui import collector

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

COMMANDS: dict[str, tuple[str, str]] = {
    "palette": ("tui.commands.palette", "open the full-screen search palette (default)"),
    "search": ("tui.commands.search", "search the project's chats, terminals, PRs, commits…"),
    "open": ("tui.commands.open_link", "print what an ade:// deep link points at"),
    "resume": ("tui.commands.resume", "continue a chat session in its own tool (claude, codex…)"),
    "demo": ("tui.commands.demo", "build the deterministic demo project"),
    "skill": ("tui.commands.skill", "print the agent skill (how an agent should search)"),
    "daemon": ("tui.commands.daemon", "run, query or stop the local search daemon"),
    "projects": ("tui.commands.projects", "register projects for multi-project search"),
    "term": ("tui.commands.term", "run a shell or command, recording it as a terminal session"),
    "import": ("tui.commands.import_recording", "import asciicast/script/tmux recordings"),
    "prs": ("tui.commands.prs", "sync pull requests from gh into .ade/prs"),
    "mcp": ("tui.commands.mcp", "serve the search to agents over MCP (read-only, stdio)"),
}
"""Command name → (module, one-line help); a module is imported only when its command runs."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line plus a hint, not the whole usage block."""

    _showing = False
    """Formatting usage or help for the terminal (``format_usage``/``format_help``)."""

    def error(self, message: str) -> NoReturn:
        from tui.printable import printable  # argv may hold a pasted escape sequence

        print(printable(f"{self.prog}: {message}{_hint(message, self.prog)}"), file=sys.stderr)
        raise SystemExit(2)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # ``add_argument`` builds a formatter per option only to check its metavar; asking the
        # terminal's width there imports ``shutil`` (with bz2, lzma: ~3 ms of every command's
        # start-up, the start-up budget). Only usage and help shown to the user need the real width.
        if self._showing:
            return super()._get_formatter()
        return self.formatter_class(prog=self.prog, width=80)  # type: ignore[call-arg]

    def format_usage(self) -> str:
        self._showing = True
        try:
            return super().format_usage()
        finally:
            self._showing = False

    def format_help(self) -> str:
        self._showing = True
        try:
            return super().format_help()
        finally:
            self._showing = False


def _hint(message: str, prog: str) -> str:
    """What to do about an argparse error, appended to its one line."""
    if re.search(r"unrecognized arguments: -[^-]", message):
        return " (a query term starting with - goes after --, e.g. `ade search -- -flaky`)"
    return f" (try `{prog} --help`)"


def _top_parser() -> argparse.ArgumentParser:
    lines = "\n".join(f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="ade",
        description="Find anything that happened in your project and jump to it.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"commands:\n{lines}\n\nRun `ade COMMAND --help` for a command's options.",
        usage="ade [--version] [COMMAND] [ARGS…]",
    )
    from engine import __version__  # lazy: importlib.metadata is slow to import

    parser.add_argument("--version", action="version", version=f"ade {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (tests call this directly)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in {"-h", "--help", "--version"}:
        try:
            _top_parser().parse_args(args[:1])
        except SystemExit as exit_:
            return int(exit_.code or 0)
    name = args[0] if args and args[0] in COMMANDS else "palette"
    rest = args[1:] if args and args[0] in COMMANDS else args
    if args and not args[0].startswith("-") and args[0] not in COMMANDS:
        print(f"ade: unknown command {_shown(args[0])!r} (try `ade --help`)", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    parser = OneLineParser(prog=f"ade {name}", description=COMMANDS[name][1])
    module.configure(parser)
    try:
        namespace = parser.parse_args(rest)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    if name != "search":  # a search releases it once its index is open (tui.search_run)
        collector.release()
    try:
        return int(module.run(namespace))
    except AdeError as err:  # UsageError included
        print(f"ade {name}: {_shown(str(err))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise  # the reader went away (`| head`): main_entry exits quietly, as rg does
    except OSError as err:
        # A folder that cannot be created or written (a file in its place, read-only, /proc…):
        # the user's input, said in one line like any other usage error.
        where = f" ({err.filename})" if err.filename else ""
        print(_shown(f"ade {name}: {err.strerror or err}{where}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _shown(text: str) -> str:
    """An error line made printable: it may quote a link, a path or a name someone else chose."""
    from tui.printable import printable

    return printable(text)


def main_entry() -> None:
    """Console-script entry point."""
    collector.hold()
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (`| head`) went away: that is not an error worth a traceback. Point stdout
        # at devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except KeyboardInterrupt:
        # Ctrl+C before a command's own handler is in place (while it is imported or its
        # arguments parsed): the shell's convention, 128 + SIGINT, and no traceback.
        code = 130
    # The interpreter's exit would run one more full collection over every object the command
    # made and imported (~10-15 ms of a warm `ade search`, the start-up budget); frozen, they are freed by
    # reference counting as the modules are cleared. Only garbage cycles go uncollected, and
    # their memory goes with the process.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":  # `python -m tui.cli …` (profiling with -X importtime)
    main_entry()
