"""The ``ade`` command line's argparse side: each command's parser, errors in one line, and the
top-level ``ade --help``. Imported only when a command's arguments need argparse: a plain ``ade
search WORDS --json`` is parsed without it (``tui.commands.search.parse_plain``; argparse with
``gettext`` and ``locale`` is ~13 M instructions, the start-up budget).
"""

from __future__ import annotations

import argparse
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


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


def top_parser(commands: dict[str, tuple[str, str]]) -> argparse.ArgumentParser:
    """The parser of ``ade --help`` and ``ade --version``; ``commands`` as ``tui.cli.COMMANDS``."""
    lines = "\n".join(f"  {name:<10} {help_}" for name, (_, help_) in commands.items())
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
