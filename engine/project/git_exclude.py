"""Keep ``.ade/`` out of git when ``ade`` writes transcripts into a repository (secrets in file hits).

Raw PTY logs and session records are environment state, not source: a repository that does not
ignore ``.ade/`` would show them in ``git status`` and, through ``git add -A``, commit raw
transcripts with whatever secrets they hold. ``.git/info/exclude`` is the repository-local,
never-committed ignore file, so adding ``.ade/`` there changes nothing anyone else sees. A
repository that tracks files under ``.ade/`` chose to: it is left alone.
"""

from __future__ import annotations

from pathlib import Path

from engine.project.git import GitError, run_git
from engine.project.model import Project

EXCLUDE_LINE = ".ade/"


def exclude_ade_state(project: Project) -> Path | None:
    """Add ``.ade/`` to the ``info/exclude`` of the project's common git dir when git does not
    already ignore it; returns the file written (None when nothing was needed or possible).

    Best effort: a project that is not a git work tree, a git that fails, or an unwritable
    exclude file leaves everything as it was.
    """
    if not project.is_git:
        return None
    root = project.root
    try:
        if _ignored(root) or run_git(root, "ls-files", "-z", "--", EXCLUDE_LINE):
            return None
        common = Path(run_git(root, "rev-parse", "--git-common-dir").strip())
    except GitError:
        return None
    exclude = (common if common.is_absolute() else root / common) / "info" / "exclude"
    try:
        exclude.parent.mkdir(parents=True, exist_ok=True)
        before = exclude.read_bytes() if exclude.exists() else b""
        separator = b"" if not before or before.endswith(b"\n") else b"\n"
        with exclude.open("ab") as handle:
            handle.write(separator + EXCLUDE_LINE.encode() + b"\n")
    except OSError:
        return None
    return exclude


def _ignored(root: Path) -> bool:
    """Whether git ignores ``.ade/`` in ``root`` (``check-ignore`` exits 1 when it does not)."""
    try:
        run_git(root, "check-ignore", "-q", "--no-index", "--", EXCLUDE_LINE)
    except GitError:
        return False
    return True


def note_excluded(project: Project, command: str) -> str | None:
    """The one stderr line a command prints when it added the exclusion, else None."""
    written = exclude_ade_state(project)
    if written is None:
        return None
    return f"{command}: added {EXCLUDE_LINE} to {written} so git ignores this project's transcripts"
