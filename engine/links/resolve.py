"""What an ``ade://`` link points at: the one resolver behind ``ade open`` and the palette.

``resolve_link`` looks the link's target up in its project (sessions, lanes, the transcript
file, the lane folder) and returns a plain value; it never raises for a target that is gone
(it returns ``Gone`` with the message to show). ``load_detail`` then reads the detail record of
a PR, commit, branch, lane, file, artifact or Linear target (``engine.links.details``); chat and
terminal targets carry the transcript path the front end reads the context from.

A link of another project (a hit of the daemon's multi-project chat aggregation) is resolved in
that project when the caller knows its root (``projectRoot`` of the hit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from engine.errors import ProjectError
from engine.links.deeplink import DeepLink
from engine.links.details import (
    Detail,
    artifact_detail,
    branch_detail,
    commit_detail,
    file_detail,
    lane_detail,
    linear_detail,
    pr_detail,
)
from engine.links.listings import ProjectListings
from engine.project.git import GitError, run_git
from engine.project.locate import open_project
from engine.project.model import Lane, Project, SessionMeta
from engine.project.safe_io import read_regular

ARTIFACT_PREVIEW_BYTES = 64 * 1024
"""A text artifact (log, report) up to this size is shown below its record."""


@dataclass(frozen=True, slots=True)
class ChatTarget:
    """A chat session, opened at message ``event`` (None: its last message)."""

    session: SessionMeta
    path: Path
    event: int | None

    @property
    def title(self) -> str:
        return f"{self.session.title}  ({self.session.id})"


@dataclass(frozen=True, slots=True)
class TerminalTarget:
    """A terminal session, opened at byte ``offset`` (the line to mark starts there)."""

    session: SessionMeta
    path: Path
    offset: int

    @property
    def title(self) -> str:
        return f"{self.session.title}  ({self.session.id})"


@dataclass(frozen=True, slots=True)
class PrTarget:
    project: Project
    number: int
    review: str | None = None
    """The review the link lands on (shown first in the detail), if any."""
    comment: str | None = None
    """The review comment the link lands on, if any."""


@dataclass(frozen=True, slots=True)
class CommitTarget:
    sha: str
    repo: Path
    """The folder of the lane that holds the commit (any worktree of the repository shows it)."""


@dataclass(frozen=True, slots=True)
class BranchTarget:
    name: str
    repo: Path


@dataclass(frozen=True, slots=True)
class LaneTarget:
    lane: Lane
    listings: ProjectListings


@dataclass(frozen=True, slots=True)
class FileTarget:
    relative: str
    """The lane-relative path, as decoded from the link (resolved strictly when loaded)."""
    line: int | None
    lane_root: Path


@dataclass(frozen=True, slots=True)
class ArtifactTarget:
    project: Project
    artifact_id: str


@dataclass(frozen=True, slots=True)
class LinearTarget:
    identifier: str
    title: str = ""
    snippet: str = ""


@dataclass(frozen=True, slots=True)
class Gone:
    """The link is well formed but its target no longer exists; ``message`` says why."""

    message: str


DetailTarget = (
    PrTarget | CommitTarget | BranchTarget | LaneTarget | FileTarget | ArtifactTarget | LinearTarget
)
LinkTarget = ChatTarget | TerminalTarget | DetailTarget | Gone


def resolve_link(
    link: DeepLink,
    listings: ProjectListings,
    *,
    known: Sequence[SessionMeta] = (),
    lane_hint: str | None = None,
    project_root: Path | None = None,
    title: str = "",
    snippet: str = "",
) -> LinkTarget:
    """What ``link`` points at in the project of ``listings`` (or of ``project_root``).

    Args:
        link: the parsed link.
        listings: the current project's listings.
        known: sessions the front end already listed (looked up before a fresh listing).
        lane_hint: the lane a hit came from (a commit is shown from that lane's folder).
        project_root: the root of the link's project when it is not the current one.
        title, snippet: what the hit said (a Linear issue is shown from them).
    """
    if link.project_id is not None and link.project_id != listings.project.id:
        other = _other_project(link.project_id, project_root)
        if isinstance(other, Gone):
            return other
        listings, known = ProjectListings(other), ()
    if link.kind in ("chat", "terminal"):
        return _session_target(link, listings, known)
    if link.kind == "pr":
        return PrTarget(listings.project, int(link.target), link.review, link.comment)
    if link.kind in ("commit", "branch"):
        lanes = listings.list_lanes()
        hinted = next((lane for lane in lanes if lane.id == lane_hint), None) if lane_hint else None
        lane = hinted or _lane(listings, None, lanes)
        if isinstance(lane, Gone):
            return lane
        if link.kind == "commit":
            return CommitTarget(link.target, lane.path)
        return BranchTarget(link.target, lane.path)
    if link.kind == "file":
        lane = _lane(listings, link.lane, listings.list_lanes())
        return lane if isinstance(lane, Gone) else FileTarget(link.target, link.line, lane.path)
    if link.kind == "lane":
        lane = _lane(listings, link.target, listings.list_lanes())
        return lane if isinstance(lane, Gone) else LaneTarget(lane, listings)
    if link.kind == "artifact":
        return ArtifactTarget(listings.project, link.target)
    return LinearTarget(link.target, title, snippet)


def _other_project(project_id: str, root: Path | None) -> Project | Gone:
    if root is None:
        return Gone(f"the link belongs to project {project_id!r}, which is not open here")
    try:
        other = open_project(root)
    except ProjectError as err:
        return Gone(f"project {project_id!r} is gone: {err}")
    if other.id != project_id:
        return Gone(f"the folder {root} is no longer project {project_id!r}")
    return other


def _session_target(
    link: DeepLink, listings: ProjectListings, known: Sequence[SessionMeta]
) -> LinkTarget:
    kind, sid = link.kind, link.target
    # One fresh listing decides whether the session still exists (its metadata may have been
    # deleted since the front end listed it); the front end's own record of it is preferred.
    current = next((s for s in listings.list_sessions() if s.id == sid), None)
    session = next((s for s in known if s.id == sid), current)
    if current is None or session is None or session.kind != kind:
        return Gone(f"{kind} session {sid!r} is gone (deleted since it was indexed)")
    path = listings.session_transcript(current)
    if path is None:
        return Gone(f"{kind} session {sid!r} is gone: it has no transcript any more")
    if kind == "chat":
        return ChatTarget(session, path, link.event)
    return TerminalTarget(session, path, link.offset or 0)


def _lane(listings: ProjectListings, lane_id: str | None, lanes: list[Lane]) -> Lane | Gone:
    """The lane ``lane_id`` (None: the primary lane, else the project folder as one)."""
    project = listings.project
    for lane in lanes:
        if lane.id == lane_id or (lane_id is None and lane.primary):
            if not lane.path.is_dir():
                return Gone(f"lane {lane.id!r}: its folder {lane.path} is missing")
            return lane
    if lane_id is None or (lane_id == "primary" and not lanes):
        return Lane(id="primary", name=project.name, path=project.root, branch=None, primary=True)
    return Gone(f"lane {lane_id!r} is gone (lanes: {', '.join(x.id for x in lanes)})")


def load_detail(target: DetailTarget, *, radius: int = 12, artifact_text: bool = False) -> Detail:
    """The detail record of ``target``, read now.

    Args:
        radius: lines shown on each side of a file target's line.
        artifact_text: show the text of a small text artifact below its record (``ade open``).

    Raises:
        DetailError: the target cannot be shown (gone meanwhile, unreadable).
        DeepLinkError: a file path leaves its lane, a sha or id is impossible.
    """
    if isinstance(target, PrTarget):
        return pr_detail(target.project, target.number, target.review, target.comment)
    if isinstance(target, CommitTarget):
        return commit_detail(target.repo, target.sha)
    if isinstance(target, BranchTarget):
        return branch_detail(target.repo, target.name)
    if isinstance(target, FileTarget):
        return file_detail(target.lane_root, target.relative, target.line, radius=radius)
    if isinstance(target, LaneTarget):
        return _lane_detail(target)
    if isinstance(target, ArtifactTarget):
        detail = artifact_detail(target.project, target.artifact_id)
        return _with_artifact_text(target.project, detail) if artifact_text else detail
    return linear_detail(target.identifier, target.title, target.snippet)


def _lane_detail(target: LaneTarget) -> Detail:
    lane, listings = target.lane, target.listings
    try:
        log = run_git(lane.path, "log", "-n", "8", "--format=%h %s", "--")
    except GitError:
        log = ""
    return lane_detail(lane, listings.list_sessions(), log, listings.project.root)


def _with_artifact_text(project: Project, detail: Detail) -> Detail:
    """The artifact record, and the text of the file it points at when that is small text."""
    relative = dict(detail.fields).get("path", "")
    if not relative:
        return detail
    folder = (project.ade_dir / "artifacts").resolve()
    target = (folder / relative).resolve()
    if not target.is_relative_to(folder) or not target.is_file():
        return detail
    try:
        data = read_regular(target, ARTIFACT_PREVIEW_BYTES + 1)  # a FIFO would block a read
    except OSError:
        return detail
    if b"\0" in data[:8192] or len(data) > ARTIFACT_PREVIEW_BYTES:
        return detail  # binary (a screenshot) or large: the path is the useful part
    return replace(detail, body=data.decode("utf-8", "replace"), path=target)
