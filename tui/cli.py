"""The ``ade`` command line: a lazy dispatcher over ``tui.commands.*``.

Each sub-command lives in its own module exposing ``configure(parser)`` and ``run(args) -> int``
(and, optionally, ``parse_plain(argv)``: the namespace of a plain argv without argparse, or
``None`` for argparse to parse it); only the chosen one is imported, which keeps ``ade search`` start-up close to a bare interpreter
(the CLI path never imports Textual). Bare ``ade`` opens the palette.

Exit codes everywhere: 0 success (or results), 1 nothing found / cancelled, 2 usage error.
stdout carries results only; diagnostics go to stderr as one line, never a traceback.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import gc
import os
import sys

from engine.errors import AdeError
from tui import collector

TYPE_CHECKING = False  # `typing` costs a daemon-answered search ~3 ms (the start-up budget)
if TYPE_CHECKING:
    from collections.abc import Sequence

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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (tests call this directly)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in {"-h", "--help", "--version"}:
        from tui.cli_parser import top_parser

        try:
            top_parser(COMMANDS).parse_args(args[:1])
        except SystemExit as exit_:
            return int(exit_.code or 0)
    name = args[0] if args and args[0] in COMMANDS else "palette"
    rest = args[1:] if args and args[0] in COMMANDS else args
    if args and not args[0].startswith("-") and args[0] not in COMMANDS:
        print(f"ade: unknown command {_shown(args[0])!r} (try `ade --help`)", file=sys.stderr)
        return 2
    # `__import__`, not `importlib.import_module`: the `importlib` package (with `warnings`) is
    # ~2.7 M instructions, a quarter of a millisecond, of every `ade search` (the start-up budget)
    __import__(COMMANDS[name][0])
    module = sys.modules[COMMANDS[name][0]]
    # A command may parse the plain shape of its arguments itself (``ade search WORDS --json``):
    # the same namespace argparse would give, without importing argparse (the start-up budget).
    plain = getattr(module, "parse_plain", None)
    namespace = plain(rest) if plain is not None else None
    if namespace is None:
        from tui.cli_parser import OneLineParser

        parser = OneLineParser(prog=f"ade {name}", description=COMMANDS[name][1])
        module.configure(parser)
        try:
            namespace = parser.parse_args(rest)
        except SystemExit as exit_:
            return int(exit_.code or 0)
    if name != "search":  # a search releases it once its index is open (tui.search_run)
        collector.release()
    try:
        # A command that wants the words it was parsed from (``ade search``: a daemon answers
        # them whole) has ``run_with_argv``.
        with_argv = getattr(module, "run_with_argv", None)
        return int(module.run(namespace) if with_argv is None else with_argv(namespace, rest))
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
