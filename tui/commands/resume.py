"""`ade resume LINK`: continue a chat session in its own tool, in its folder (docs/agents.md).

Claude Code, Codex, Gemini CLI, OpenCode and Copilot CLI resume a session by id; Aider cannot,
and a chat recorded by ade itself has no id its tool knows. ``--print`` prints the command
(``cd DIR && tool …``) instead of running it. Exit codes: the tool's own when it ran, 2 for a
link that is not a resumable chat, or a tool that is not installed (one line on stderr).
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from engine.errors import ProjectError, UsageError
from engine.external.resume import ResumePlan, installed, plan_for_session
from engine.links.deeplink import parse_deep_link
from engine.project.locate import open_project
from engine.project.model import Project


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``ade resume``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  ade resume \"$(ade search tool:claude backoff --json | jq -r '.items[0].deepLink')\"\n"
        "  ade resume --print 'ade://chat/codex-0199-abc?event=3'\n\n"
        "resumes: claude, codex, gemini, opencode, copilot (aider cannot resume by id)"
    )
    parser.add_argument("link", help="an ade:// chat link (as printed by ade search)")
    parser.add_argument("--project", metavar="DIR", type=Path, help="project folder")
    parser.add_argument(
        "--print", dest="print_only", action="store_true", help="print the command, do not run it"
    )


def plan_for_link(project: Project, text: str) -> ResumePlan:
    """The resume plan of the chat session a link names.

    Raises:
        UsageError: not a chat link, a session that is gone, or one whose tool cannot resume.
    """
    link = parse_deep_link(text.strip())
    if link.kind != "chat":
        raise UsageError(f"only chat links resume; this is a {link.kind} link")
    if link.project_id is not None and link.project_id != project.id:
        raise ProjectError(
            f"the link belongs to project {link.project_id!r}, not {project.id!r} "
            f"({project.root}); pass --project with that project's folder"
        )
    return plan_for_session(project, link.target)


def command_line(plan: ResumePlan) -> str:
    """``cd DIR && tool args`` quoted for a POSIX shell."""
    return f"cd {shlex.quote(str(plan.cwd))} && {shlex.join(plan.argv)}"


def run_plan(plan: ResumePlan) -> int:
    """Run the tool in its folder on this terminal; its exit code, or 2 when not installed."""
    if not installed(plan.argv[0]):
        print(f"ade resume: {plan.tool} is not installed (no {plan.argv[0]!r} on PATH)",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        code = subprocess.call(list(plan.argv), cwd=plan.cwd)
    except OSError as err:
        print(f"ade resume: cannot run {plan.argv[0]}: {err.strerror or err}", file=sys.stderr)
        return 2
    # Killed by signal N (Ctrl+C: SIGINT): 128+N as a shell says, never Python's -N (254).
    return 128 - code if code < 0 else code


def run(args: argparse.Namespace) -> int:
    """Resume (or with ``--print`` print how to resume) the linked chat."""
    from tui.search_everywhere import link_project_root  # a hit found from anywhere

    plan = plan_for_link(open_project(link_project_root(args.project, args.link)), args.link)
    if args.print_only:
        from tui.printable import printable  # the folder is a transcript's `cwd`: any name

        print(printable(command_line(plan)))
        return 0
    return run_plan(plan)
