"""Finding a project's agent sessions: every registered agent's, listed as chat sessions.

Each agent's format (``engine.external.registry``) lists the sessions whose working folder lies
in the project or one of its lanes (any subfolder); this merges them. Heads (cwd, id, title) are
remembered in one ``HeadCache``, so a warm listing stats files and reads none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from engine.external.agent_format import Source
from engine.external.heads import HeadCache
from engine.external.registry import all_formats, format_of
from engine.external.roots import claude_projects_dir as claude_projects_dir
from engine.external.roots import claude_slug as claude_slug
from engine.project.model import Lane, Project, SessionMeta
from engine.project.tally import WarningTally


def external_sessions(
    project: Project, lanes: list[Lane], tally: WarningTally,
    environ: Mapping[str, str] | None = None, heads: HeadCache | None = None,
) -> list[SessionMeta]:  # fmt: skip
    """Every registered agent's session whose cwd is in the project or one of its lanes.

    ``heads`` remembers what each file's head said, so a warm listing stats files and reads none.
    """
    env = os.environ if environ is None else environ
    cache = heads if heads is not None else HeadCache(None)
    roots = lanes or [project_lane(project)]
    found: list[SessionMeta] = []
    for fmt in all_formats():
        found += fmt.sessions(roots, tally, env, cache)
    return sorted(found, key=lambda m: m.id)


def project_lane(project: Project) -> Lane:
    """The project folder as its one lane, for a project without lanes (not a git repository)."""
    return Lane("primary", project.name, project.root, None, True)


def transcript_sources(meta: SessionMeta) -> list[Source]:
    """``(source key, file, seq base)`` of every transcript file of an external session."""
    fmt = format_of(meta.source)
    if fmt is None:
        return (
            [] if meta.transcript_path is None else [(f"chat:{meta.id}", meta.transcript_path, 0)]
        )
    return fmt.sources(meta)
