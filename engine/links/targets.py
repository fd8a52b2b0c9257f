"""Resolving deep links against a project: file targets on disk, and the portable envelope.

``resolve_file_target`` is the only function here that touches the disk. It never decodes: the
path it gets was decoded exactly once by ``engine.links.deeplink.parse_deep_link``, so an escape that
is still there (``%2e%2e``) is refused as double encoding rather than decoded a second time.
Containment is decided on fully resolved paths with ``Path.is_relative_to`` — a string
``startswith`` would accept the sibling ``<root>-evil/…`` (RELIABILITY item 24).

The envelope helpers are pure: callers pass in the origin slug, the lane's branch, the PR
snapshots and any session text, so they can be tested without git.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from engine.errors import DeepLinkError
from engine.links.deeplink import (
    Envelope,
    is_valid_branch_name,
    is_valid_linear_identifier,
    is_valid_repo_slug,
    validate_relative_path,
)
from engine.project.model import PrSnapshot

__all__ = [
    "envelope_for_lane",
    "linear_identifier_in",
    "repo_slug_from_remote",
    "resolve_file_target",
]

_LINEAR_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]*-[0-9]+(?![A-Za-z0-9])")
"""An upper-case identifier standing alone; ``utf-8`` or ``py-311`` in prose never match."""


@functools.cache
def _team_key_re() -> re.Pattern[str]:
    """A Linear team key, compiled on first use (a warm search matches no team key)."""
    return re.compile(r"[A-Z][A-Z0-9]*")


@functools.cache
def _scp_remote_re() -> re.Pattern[str]:
    """scp-like git remotes: ``git@github.com:owner/name.git``, compiled on first use (a warm
    search reads the stored origin and parses no remote)."""
    return re.compile(r"[^@/:\s]+@[^@/:\s]+:(?P<path>[^\s]+)")


def resolve_file_target(lane_root: Path, relative: str) -> Path:
    """Resolve a file link's decoded path inside ``lane_root``, or refuse it.

    Every prefix of the path is resolved in turn, so a symlink anywhere along it that points
    out of the lane is refused even if a later link would lead back in. The file itself need
    not exist (an opener reports that); the lane root must.

    Args:
        lane_root: the lane's working-copy folder.
        relative: the lane-relative path from a parsed ``ade://file/…`` link.

    Returns:
        The fully resolved path, inside the resolved lane root.

    Raises:
        DeepLinkError: the path is malformed (``..``, absolute, backslash, NUL, leftover
            escapes) or resolves outside the lane root.
    """
    parts = validate_relative_path(relative)
    try:
        root = lane_root.resolve(strict=False)
        if not root.is_dir():
            raise DeepLinkError(f"lane root {str(lane_root)!r} is not a folder")
        current = root
        for index, part in enumerate(parts):
            current = (current / part).resolve(strict=False)
            if not current.is_relative_to(root):
                through = "/".join(parts[: index + 1])
                raise DeepLinkError(
                    f"file path {relative!r} leaves the lane root through {through!r}"
                )
    except (OSError, RuntimeError) as err:
        # RuntimeError: symlink loop on Python 3.11/3.12; OSError (ELOOP, EACCES…) on 3.13+.
        raise DeepLinkError(f"file path {relative!r} cannot be resolved: {err}") from None
    return current


def linear_identifier_in(text: str, *, team_keys: Iterable[str] = ()) -> str | None:
    """Find the first Linear issue identifier in ``text``.

    Upper-case identifiers (``ABC-123``) match anywhere they stand alone. Linear's own branch
    names are lower case (``jane/eng-42-fix-login``), so identifiers of the known ``team_keys``
    also match in any case; without keys, lower case is ignored to avoid ``utf-8`` and the like.

    Returns:
        The identifier in upper case, or ``None``.
    """
    found: list[tuple[int, str]] = []
    match = _LINEAR_IN_TEXT.search(text)
    if match:
        found.append((match.start(), match.group()))
    for key in team_keys:
        if not _team_key_re().fullmatch(key):
            continue
        pattern = rf"(?<![A-Za-z0-9]){re.escape(key)}-[0-9]+(?![A-Za-z0-9])"
        keyed = re.search(pattern, text, flags=re.IGNORECASE)
        if keyed:
            found.append((keyed.start(), keyed.group().upper()))
    for _, identifier in sorted(found):
        if is_valid_linear_identifier(identifier):
            return identifier
    return None


def repo_slug_from_remote(url: str) -> str | None:
    """The ``owner/name`` slug of a git remote URL, or ``None`` for a local path or junk.

    Accepts ``https://host/owner/name(.git)``, ``ssh://git@host/owner/name``, ``git://…`` and
    scp-like ``git@host:owner/name.git``; credentials in the URL are never part of the result.
    """
    text = url.strip()
    scp = _scp_remote_re().fullmatch(text)
    if scp and "://" not in text:
        path = scp.group("path")
    else:
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https", "ssh", "git", "git+ssh") or not parts.hostname:
            return None
        path = parts.path
    path = path.strip("/")
    path = path.removesuffix(".git")
    return path if is_valid_repo_slug(path) else None


def _pr_for_branch(branch: str, prs: Iterable[PrSnapshot]) -> int | None:
    """The PR whose head is ``branch``: an open one first, then the latest updated, then newest."""
    matching = [pr for pr in prs if pr.head_branch == branch]
    if not matching:
        return None
    best = max(matching, key=lambda pr: (pr.state.lower() == "open", pr.updated_at, pr.number))
    return best.number if 1 <= best.number <= 10**9 else None


def envelope_for_lane(
    *,
    repo: str | None,
    branch: str | None,
    prs: Iterable[PrSnapshot] = (),
    texts: Iterable[str] = (),
    team_keys: Iterable[str] = (),
) -> Envelope | None:
    """The portable envelope of a session, lane or commit whose owning lane is known.

    Values that would not survive a deep link (an invalid slug or branch name) are dropped
    rather than raised, so building a result's link never fails because of odd local data.

    Args:
        repo: ``owner/name`` of the ``origin`` remote (see ``repo_slug_from_remote``).
        branch: the owning lane's branch, ``None`` for a detached head.
        prs: PR snapshots; the one whose ``head_branch`` is ``branch`` gives ``pr``.
        texts: session metadata text (title, …) searched for a Linear identifier after the
            branch name.
        team_keys: known Linear team keys, matched in any case (see ``linear_identifier_in``).

    Returns:
        The envelope, or ``None`` when nothing could be resolved.
    """
    keys = tuple(team_keys)
    slug = repo if repo is not None and is_valid_repo_slug(repo) else None
    lane_branch = branch if branch is not None and is_valid_branch_name(branch) else None
    pr = _pr_for_branch(lane_branch, prs) if lane_branch else None
    linear = None
    for text in (lane_branch or "", *texts):
        linear = linear_identifier_in(text, team_keys=keys)
        if linear:
            break
    envelope = Envelope(repo=slug, branch=lane_branch, pr=pr, linear=linear)
    return None if envelope.is_empty() else envelope
