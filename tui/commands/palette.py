"""``ade palette`` (and bare ``ade``): the full-screen search palette.

With ``--height N[%]`` it draws under the prompt instead of taking the screen (``tui.inline``);
``--print-command`` prints a hit as it belongs on a command line (``tui.shell_line``).

With ``--print`` it behaves like fzf: the palette draws on the terminal (Textual renders to
stderr, sized by the controlling terminal), and the chosen hit's deep link — or ``path:line`` for
a file hit — goes to stdout, exit 0; Esc exits 1 and Ctrl+C 130, so ``cd``/``$EDITOR`` shell
widgets can use it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.client import SearchClient
    from tui.app import PaletteApp


def parse_height(value: str) -> str:
    """``--height``'s type (``tui.inline.parse_height``, imported with Textual only when given)."""
    from tui.inline import parse_height as parse

    return parse(value)


INTERRUPTED = 130
"""The palette ended by Ctrl+C: the shell's code for SIGINT, as fzf exits."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``ade palette``."""
    parser.add_argument("--project", metavar="DIR", type=Path, help="project folder")
    parser.add_argument(
        "--print", action="store_true", dest="print_link",
        help="print the chosen hit's deep link (or path:line) instead of opening it",
    )  # fmt: skip
    parser.add_argument(
        "--print-command", action="store_true",
        help="like --print, but a shell command hit prints its command line and a file hit its"
        " quoted path: for key bindings that put a hit on the command line (docs/palette.md)",
    )  # fmt: skip
    parser.add_argument(
        "--height", metavar="N[%]", type=parse_height,
        help="draw under the prompt, N lines or N%% of the terminal tall, instead of full screen",
    )  # fmt: skip
    parser.add_argument("--query", metavar="TEXT", default="", help="start with this query")
    parser.add_argument(
        "--no-daemon", action="store_true",
        help="run the search in this process (the default while no daemon runs)",
    )  # fmt: skip
    parser.add_argument(
        "--demo", action="store_true",
        help="open the built-in demo project (built on first use in the user cache folder)",
    )  # fmt: skip
    parser.add_argument(
        "--check", action="store_true",
        help="load the app and its stylesheets headlessly, then exit (install self-test)",
    )  # fmt: skip
    parser.add_argument("--no-watch", action="store_true", help=argparse.SUPPRESS)


def demo_root() -> Path:
    """The demo project in the user cache folder, built on first use and reused afterwards."""
    from platformdirs import user_cache_dir

    from engine.demo import build_demo

    root = Path(user_cache_dir("ade-search")) / "demo"
    if not (root / ".ade" / "project.json").is_file():
        print(f"building the demo project in {root} …", file=sys.stderr)
        import os

        from tui.commands.demo import demo_now

        build_demo(root, force=root.exists(), now=demo_now(os.environ))
    return root


def check_app(project: Path | None) -> int:
    """Mount the palette headlessly on ``project`` and exit: proves the styles ship and parse."""
    import asyncio

    from engine.embedded import EmbeddedClient
    from tui.app import PaletteApp

    client = EmbeddedClient.open(project, start_worker=False)

    async def mount_and_quit() -> int:
        app = PaletteApp(client, clock=client.clock, cursor_blink=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            return len(app.stylesheet.rules)

    try:
        rules = asyncio.run(mount_and_quit())
    finally:
        client.close()
    print(f"ok: palette mounted, {rules} style rules loaded")
    return 0


def run(args: argparse.Namespace) -> int:
    """Open the palette; 0 when a hit was printed or the palette was closed normally, 1 when
    ``--print`` was cancelled (Esc), 130 when it was interrupted (Ctrl+C), 2 (``UsageError``)
    when no terminal can be had (``tui.terminal_streams``)."""
    if args.check:
        return check_app(demo_root() if args.demo else args.project)
    from tui.terminal_streams import ensure_terminal

    app = build_app(args)  # first: a missing --project is said as such
    ensure_terminal()  # before Textual runs: with no terminal its input loop spins forever
    try:
        result = app.run()
    finally:
        app.clients.close()
    if app.resume_plan is not None:  # Ctrl+R: the terminal is ours again, hand it to the tool
        from tui.commands.resume import run_plan

        return run_plan(app.resume_plan)
    if app.interrupted:
        return INTERRUPTED  # with or without --print, as fzf: the shell's code for SIGINT
    if args.print_link or args.print_command:
        if result is None:
            return 1
        from tui.printable import printable  # a file hit's path is whatever its author named

        sys.stdout.write(printable(result) + "\n")
    return 0


def build_app(args: argparse.Namespace) -> PaletteApp:
    """The palette for ``args``, not yet running.

    Only Textual and the app are imported before the first paint; the search client (the
    daemon's when one runs, else the in-process service with its watcher) is opened by the app
    on a thread once the palette is on screen.

    Raises:
        ProjectError: ``--project`` names no folder (checked before the screen is taken over).
        UsageError: ``ADE_NOW`` is malformed.
    """
    project = demo_root() if args.demo else args.project
    if project is not None:
        check_folder(project)
    from engine.basics.clock import clock_from_env
    from tui.app import PaletteApp
    from tui.palette_client import open_palette_client

    def opener(root: Path | None) -> SearchClient:
        return open_palette_client(
            root, use_daemon=not args.no_daemon, watch=not args.no_watch, warn=app.clients.note
        )

    app = PaletteApp(
        opener=opener,
        root=project,
        clock=clock_from_env(),
        initial_query=args.query,
        print_mode=args.print_link or args.print_command,
    )
    app.print_command = args.print_command
    if args.height is not None:
        from tui.inline import make_inline

        make_inline(app, args.height)
    return app


def check_folder(path: Path) -> None:
    """Fail before the screen is taken over when ``--project`` names no folder (exit 2).

    Raises:
        ProjectError: ``path`` is missing or not a folder.
    """
    from engine.errors import ProjectError

    folder = path.expanduser()
    if not folder.exists():
        raise ProjectError(f"project folder not found: {path}")
    if not folder.is_dir():
        raise ProjectError(f"project path is not a folder: {path}")
