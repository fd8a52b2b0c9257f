"""`ade open <ade://link>`: print what a deep link points at (DESIGN §6, docs/search.md).

The scrollback lines around a terminal offset (ANSI stripped unless ``--raw``), the chat message
with its neighbours, the PR, the commit (``git show --stat``), the branch, the lane, the file
lines around the line (resolved strictly inside the lane), the artifact; a Linear link prints its
identifier (nothing about it is stored locally).

Exit 0 when the target was printed, 1 when it is gone (session deleted, commit unknown, file
removed), 2 when the link is malformed or belongs to another project or leaves its lane.
stdout carries the target only; notes ("offset past the end…") go to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.errors import ProjectError, UsageError
from engine.links.deeplink import DeepLink, parse_deep_link
from engine.links.details import Context, DetailError, chat_context, scrollback_context
from engine.links.listings import ProjectListings
from engine.links.resolve import ChatTarget, Gone, TerminalTarget, load_detail, resolve_link
from tui.open_format import cut_long_messages, format_context, format_detail
from tui.printable import printable, printable_colour

DEFAULT_CONTEXT: dict[str, int] = {"terminal": 10, "chat": 2, "file": 10}
"""Lines (messages, for a chat) shown on each side of the target when ``--context`` is not given:
a screenful for a terminal or a file, a short exchange for a chat."""

MESSAGE_LINES = 20
"""Lines of each chat message shown when ``--context`` is not given (a tool result may hold
thousands); ``--context N`` shows N."""

MAX_CONTEXT = 10_000
"""More context than this is a dump; the whole transcript is one `cat` away."""


class TargetGone(Exception):
    """The link is well-formed but what it points at no longer exists (exit 1)."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``ade open``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  ade open 'ade://terminal/term-pytest-retry?offset=0'\n"
        "  ade open 'ade://chat/chat-readtimeout-triage?event=8' --context 1\n"
        "  ade open 'ade://file/payments_api/config.py?line=12&lane=primary'\n"
        "  ade open \"$(ade search kind:commit backoff --json | jq -r '.items[0].deepLink')\"\n\n"
        "exit codes: 0 printed, 1 the target is gone, 2 malformed or out-of-project link"
    )
    parser.add_argument("link", help="an ade:// deep link (as printed by ade search)")
    parser.add_argument("--project", metavar="DIR", type=Path, help="project folder")
    parser.add_argument(
        "--raw", action="store_true", help="keep the recorded colours (SGR); other escapes go"
    )
    parser.add_argument(
        "--context", type=int, metavar="N",
        help="lines (chat: messages, each cut to N lines) on each side of the target (default: "
        "terminal 10, chat 2 messages of 20 lines, file 10)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Print the link's target; see the module docstring for exit codes."""
    if args.context is not None and not 0 <= args.context <= MAX_CONTEXT:
        raise UsageError(f"--context must be between 0 and {MAX_CONTEXT}, got {args.context}")
    link = parse_deep_link(args.link.strip())
    from tui.search_everywhere import link_project_root  # a hit found from anywhere

    listings = ProjectListings.open(link_project_root(args.project, args.link))
    project = listings.project
    if link.project_id is not None and link.project_id != project.id:
        raise ProjectError(
            f"the link belongs to project {link.project_id!r}, not {project.id!r} "
            f"({project.root}); pass --project with that project's folder"
        )
    try:
        shown = open_target(listings, link, context=args.context, raw=args.raw)
    except (TargetGone, DetailError) as err:
        print(f"ade open: {printable(str(err))}", file=sys.stderr)
        return 1
    text, note = shown
    if note:
        print(f"note: {printable(note)}", file=sys.stderr)
    # Titles, commit subjects, file lines and scrollback are other people's text: never raw
    # to the terminal (--raw keeps the recorded colours, nothing else).
    text = _undecodable_as_escapes(text)  # a file name's raw bytes (the tree git sees)
    text = printable_colour(text) if args.raw else printable(text)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _undecodable_as_escapes(text: str) -> str:
    """``text`` with a file name's undecodable bytes (``os.fsdecode``'s lone surrogates) shown
    as ``\\xNN``, as search results show them; other lone surrogates as U+FFFD."""
    if text.isascii():
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def open_target(
    listings: ProjectListings, link: DeepLink, *, context: int | None = None, raw: bool = False
) -> tuple[str, str | None]:
    """The printable target of ``link`` and an optional note for stderr.

    Raises:
        TargetGone / DetailError: the target no longer exists (exit 1).
        DeepLinkError: the link leaves its lane or names something impossible (exit 2).
    """
    radius = DEFAULT_CONTEXT.get(link.kind, 10) if context is None else context
    target = resolve_link(link, listings)
    if isinstance(target, Gone):
        raise TargetGone(target.message)
    if isinstance(target, TerminalTarget):
        found = scrollback_context(
            target.path, target.offset, before=radius, after=radius, keep_ansi=raw
        )
        return _with_header(f"terminal  {target.title}", found, numbered=False), found.note
    if isinstance(target, ChatTarget):
        found = chat_context(target.path, target.event, radius=radius)
        found = cut_long_messages(found, MESSAGE_LINES if context is None else context)
        return _with_header(f"chat  {target.title}", found, numbered=True), found.note
    detail = load_detail(target, radius=radius, artifact_text=True)
    return format_detail(detail), detail.note


def _with_header(header: str, found: Context, *, numbered: bool) -> str:
    return header + "\n\n" + format_context(found, numbered=numbered)
