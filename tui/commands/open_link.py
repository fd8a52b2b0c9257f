"""`ade open <ade://link>`: print what a deep link points at (DESIGN §6, issue 5).

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
from dataclasses import replace
from pathlib import Path

from engine.errors import ProjectError, UsageError
from engine.external.catalog import project_sessions
from engine.external.view import transcript_exists
from engine.links.deeplink import DeepLink, parse_deep_link
from engine.links.details import (
    Context,
    Detail,
    DetailError,
    artifact_detail,
    branch_detail,
    chat_context,
    commit_detail,
    file_detail,
    lane_detail,
    linear_detail,
    pr_detail,
    scrollback_context,
)
from engine.project.git import GitError, run_git
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.model import Lane, Project, SessionMeta
from engine.project.safe_io import read_regular
from engine.project.tally import WarningTally
from engine.project.transcripts import transcript_file
from tui.open_format import format_context, format_detail

DEFAULT_CONTEXT: dict[str, int] = {"terminal": 10, "chat": 2, "file": 10}
"""Lines (messages, for a chat) shown on each side of the target when ``--context`` is not given:
a screenful for a terminal or a file, a short exchange for a chat."""

MAX_CONTEXT = 10_000
"""More context than this is a dump; the whole transcript is one `cat` away."""

ARTIFACT_PREVIEW_BYTES = 64 * 1024
"""A text artifact (log, report) up to this size is printed below its record."""


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
        "--raw", action="store_true", help="keep terminal escape sequences (colours) as recorded"
    )
    parser.add_argument(
        "--context", type=int, metavar="N",
        help="lines (chat: messages) on each side of the target (default: terminal 10, chat 2, "
        "file 10)",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Print the link's target; see the module docstring for exit codes."""
    if args.context is not None and not 0 <= args.context <= MAX_CONTEXT:
        raise UsageError(f"--context must be between 0 and {MAX_CONTEXT}, got {args.context}")
    link = parse_deep_link(args.link.strip())
    project = open_project(args.project)
    if link.project_id is not None and link.project_id != project.id:
        raise ProjectError(
            f"the link belongs to project {link.project_id!r}, not {project.id!r} "
            f"({project.root}); pass --project with that project's folder"
        )
    try:
        shown = open_target(project, link, context=args.context, raw=args.raw)
    except (TargetGone, DetailError) as err:
        print(f"ade open: {err}", file=sys.stderr)
        return 1
    text, note = shown
    if note:
        print(f"note: {note}", file=sys.stderr)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def open_target(
    project: Project, link: DeepLink, *, context: int | None = None, raw: bool = False
) -> tuple[str, str | None]:
    """The printable target of ``link`` and an optional note for stderr.

    Raises:
        TargetGone / DetailError: the target no longer exists (exit 1).
        DeepLinkError: the link leaves its lane or names something impossible (exit 2).
    """
    radius = DEFAULT_CONTEXT.get(link.kind, 10) if context is None else context
    if link.kind in ("chat", "terminal"):
        session, path = _session(project, link)
        header = f"{link.kind}  {session.title}  ({session.id})"
        if link.kind == "terminal":
            found = scrollback_context(
                path, link.offset or 0, before=radius, after=radius, keep_ansi=raw
            )
            return _with_header(header, found, numbered=False), found.note
        found = chat_context(path, link.event, radius=radius)
        return _with_header(header, found, numbered=True), found.note
    detail = _detail(project, link, radius)
    return format_detail(detail), detail.note


def _with_header(header: str, found: Context, *, numbered: bool) -> str:
    return header + "\n\n" + format_context(found, numbered=numbered)


def _session(project: Project, link: DeepLink) -> tuple[SessionMeta, Path]:
    sessions = project_sessions(project, WarningTally())
    session = next((s for s in sessions if s.id == link.target and s.kind == link.kind), None)
    if session is None:
        raise TargetGone(f"{link.kind} session {link.target!r} is gone (no metadata)")
    path = session.transcript_path or transcript_file(project, session.kind, session.id)
    if path is None or not transcript_exists(path):
        raise TargetGone(f"{link.kind} session {link.target!r} has no transcript any more")
    return session, path


def _lanes(project: Project) -> list[Lane]:
    return list_lanes(project, WarningTally())


def _lane(project: Project, lane_id: str | None) -> Lane:
    """The lane ``lane_id`` (None: the primary lane, else the project folder as one)."""
    lanes = _lanes(project)
    for lane in lanes:
        if lane.id == lane_id or (lane_id is None and lane.primary):
            if not lane.path.is_dir():
                raise TargetGone(f"lane {lane.id!r}: its folder {lane.path} is missing")
            return lane
    if lane_id is None or (lane_id == "primary" and not lanes):
        return Lane(id="primary", name=project.name, path=project.root, branch=None, primary=True)
    raise TargetGone(f"lane {lane_id!r} is gone (lanes: {', '.join(x.id for x in lanes)})")


def _detail(project: Project, link: DeepLink, radius: int) -> Detail:
    kind, target = link.kind, link.target
    if kind == "pr":
        return pr_detail(project, int(target))
    if kind == "commit":
        return commit_detail(_lane(project, None).path, target)
    if kind == "branch":
        return branch_detail(_lane(project, None).path, target)
    if kind == "file":
        return file_detail(_lane(project, link.lane).path, target, link.line, radius=radius)
    if kind == "lane":
        return _lane_detail(project, target)
    if kind == "artifact":
        return _artifact(project, target)
    return linear_detail(target)


def _lane_detail(project: Project, lane_id: str) -> Detail:
    lane = _lane(project, lane_id)
    try:
        log = run_git(lane.path, "log", "-n", "8", "--format=%h %s", "--")
    except GitError:
        log = ""
    return lane_detail(lane, project_sessions(project, WarningTally()), log, project.root)


def _artifact(project: Project, artifact_id: str) -> Detail:
    """The artifact record, and the text of the file it points at when that is small text."""
    detail = artifact_detail(project, artifact_id)
    relative = dict(detail.fields).get("path", "")
    if not relative:
        return detail
    folder = (project.ade_dir / "artifacts").resolve()
    target = (folder / relative).resolve()
    if not target.is_relative_to(folder) or not target.is_file():
        return detail
    try:
        data = read_regular(target, ARTIFACT_PREVIEW_BYTES + 1)
    except OSError:
        return detail
    if b"\0" in data[:8192] or len(data) > ARTIFACT_PREVIEW_BYTES:
        return detail  # binary (a screenshot) or large: the path is the useful part
    return replace(detail, body=data.decode("utf-8", "replace"), path=target)
