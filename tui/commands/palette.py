"""``ade palette`` (and bare ``ade``): the full-screen search palette.

With ``--print`` it behaves like fzf: the palette draws on the terminal (Textual renders to
stderr), and the chosen hit's deep link — or ``path:line`` for a file hit — goes to stdout, exit 0;
cancelling exits 1, so ``cd``/``$EDITOR`` shell widgets can use it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``ade palette``."""
    parser.add_argument("--project", metavar="DIR", type=Path, help="project folder")
    parser.add_argument(
        "--print", action="store_true", dest="print_link",
        help="print the chosen hit's deep link (or path:line) instead of opening it",
    )  # fmt: skip
    parser.add_argument("--query", metavar="TEXT", default="", help="start with this query")
    parser.add_argument(
        "--no-daemon", action="store_true",
        help="run the search in this process (the default while no daemon runs)",
    )  # fmt: skip
    parser.add_argument("--no-watch", action="store_true", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Open the palette; 0 when a hit was printed or the palette was closed normally, 1 when
    ``--print`` was cancelled."""
    from engine.embedded import EmbeddedClient
    from tui.app import PaletteApp

    client = EmbeddedClient.open(args.project, watch=not args.no_watch, backfill_delay=0.0)
    try:
        app = PaletteApp(
            client,
            clock=client.clock,
            initial_query=args.query,
            print_mode=args.print_link,
        )
        result = app.run()
    finally:
        client.close()
    if args.print_link:
        if result is None:
            return 1
        sys.stdout.write(result + "\n")
    return 0
