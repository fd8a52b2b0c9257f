"""One lane listing per query or command, instead of one per caller.

Listing lanes spawns ``git worktree list`` (3-7 ms). A warm ``ade search`` used to list them three
times: the catch-up's git signature, the query's lane filter and the lane delegate's warnings.
Inside ``one_listing()`` the first listing of a project is remembered and replayed, warnings
included, to every later caller; outside it ``list_lanes`` lists afresh as before. The service
opens one per query, the command line one per command (a listing taken when the command starts is
as fresh as the command), so a long-running service never serves a lane list older than a query.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from engine.basics.caller_env import current_environ
from engine.project import lanes
from engine.project.git import list_branches, origin_slug
from engine.project.model import Branch, Lane, Project, PrSnapshot
from engine.project.origin_memo import remembered_origin
from engine.project.prs import list_prs
from engine.project.tally import WarningTally

_Listing = tuple[list[Lane], WarningTally]
"""The lanes and the warnings their listing added."""

_MEMO: ContextVar[dict[Path, _Listing] | None] = ContextVar("ade_lane_memo", default=None)

_EnvelopeInputs = tuple[str | None, list[PrSnapshot]]
"""The ``origin`` slug and the PR snapshots: what every lane's portable envelope is made from."""

_ENVELOPE_MEMO: ContextVar[dict[Path, _EnvelopeInputs] | None] = ContextVar(
    "ade_envelope_memo", default=None
)


_BRANCH_MEMO: ContextVar[dict[Path, list[Branch]] | None] = ContextVar(
    "ade_branch_memo", default=None
)


@contextlib.contextmanager
def one_listing() -> Iterator[None]:
    """List each project's lanes at most once inside this block (nested blocks share it), and
    each repository's branches."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    envelope_token = _ENVELOPE_MEMO.set({})
    branch_token = _BRANCH_MEMO.set({})
    try:
        yield
    finally:
        _BRANCH_MEMO.reset(branch_token)
        _ENVELOPE_MEMO.reset(envelope_token)
        _MEMO.reset(token)


def branches(repo: Path) -> list[Branch]:
    """``git.list_branches``, run once per ``one_listing`` block: a catch-up's branch documents
    (``git:*``) and its history pass's tips each ran ``git for-each-ref refs/heads/``, one after
    the other (a first index's, benchmarks/journal/2026-12-08-first-index-small.md).

    Raises:
        GitError: not a repository, or git failed (not remembered: the next caller asks again).
    """
    memo = _BRANCH_MEMO.get()
    if memo is None:
        return list_branches(repo)
    found = memo.get(repo)
    if found is None:
        found = memo[repo] = list_branches(repo)
    return list(found)


def list_lanes(project: Project, tally: WarningTally) -> list[Lane]:
    """``engine.project.lanes.list_lanes``, listed once per ``one_listing`` block."""
    memo = _MEMO.get()
    if memo is None:
        return lanes.list_lanes(project, tally)
    listing = memo.get(project.root)
    if listing is None:
        own = WarningTally()
        found = lanes.list_lanes(project, own)
        listing = memo[project.root] = (found, own)
    tally.merge(listing[1])
    return list(listing[0])


def envelope_inputs(project: Project) -> _EnvelopeInputs:
    """The origin remote's ``owner/name`` (one ``git remote get-url``) and the PR snapshots,
    read once per ``one_listing`` block: every lane is a worktree of one repository, so the lane
    delegate and the links of chat, terminal and commit hits share them."""
    memo = _ENVELOPE_MEMO.get()
    found = memo.get(project.root) if memo is not None else None
    if found is None:
        repo = _origin(project) if project.is_git else None
        found = (repo, list_prs(project, WarningTally()))
        if memo is not None:
            memo[project.root] = found
    return found


_ORIGINS: dict[tuple[Path, str | None], tuple[tuple[int, int, int], str | None]] = {}
"""Origin slug per repository and ``HOME`` git ran in (a daemon's callers' ``~/.gitconfig`` may
rewrite the URL each its own way), with the stat of the ``.git/config`` it was read under: a
long-running palette or daemon spawns ``git remote get-url`` again only when that file changed."""


def _origin(project: Project) -> str | None:
    config = project.root / ".git" / "config"
    try:
        st = config.stat()
    except OSError:
        return origin_slug(project.root)  # a linked worktree's .git is a file: ask every time
    identity = (st.st_mtime_ns, st.st_size, st.st_ino)
    key = (project.root, current_environ().get("HOME"))
    cached = _ORIGINS.get(key)
    if cached is not None and cached[0] == identity:
        return cached[1]
    slug = remembered_origin(project)  # the last command's answer while git's config is unchanged
    _ORIGINS[key] = (identity, slug)
    return slug
