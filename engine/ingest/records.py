"""Processors for sources re-derived wholesale: one PR, the PR sweep, the project's git log.

Each reads its records, computes the full doc set, and in one ``BEGIN IMMEDIATE`` transaction
upserts it, deletes what vanished, and stores the stat signature that ``catch_up`` compares so a
warm CLI run skips unchanged sources without reading them. The document builders are imported
by the processors: ``catch_up`` needs only the signatures here, not redaction and chunking.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
from pathlib import Path

import apsw

from engine.index.db import (
    IndexDoc,
    SourceRow,
    list_sources,
    put_source,
)
from engine.index.sources import delete_source
from engine.index.writer import IndexWriter
from engine.project.git import GitError, common_dir, git_dir
from engine.project.lane_memo import branches
from engine.project.lanes import list_lanes
from engine.project.model import Lane, Project
from engine.project.prs import read_pr
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally

GIT_SOURCE = "git"
"""Source key of the branch docs (re-derived together); its stat signature of every lane's HEAD
and refs also triggers the commit history pass (``engine.ingest.history``), whose commit docs
have a source of their own."""


def pr_path(project: Project, number: int) -> Path:
    """Where PR ``number``'s snapshot lives."""
    return project.ade_dir / "prs" / f"{number}.json"


def _lane_for_branch(lanes: list[Lane], branch: str) -> str | None:
    return next((lane.id for lane in lanes if lane.branch == branch), None)


def process_pr(
    writer: IndexWriter, project: Project, number: int, lanes: list[Lane],
    tally: WarningTally, now_ms: int,
) -> int:  # fmt: skip
    """Index PR ``number`` (or delete its doc when the snapshot is gone). Returns docs written."""
    from engine.ingest.docs import pr_doc  # deferred: see module docstring
    from engine.ingest.pr_review_docs import pr_review_docs

    key = f"pr:{number}"
    signature = stat_signature([pr_path(project, number)])
    pr = read_pr(project, number, tally)
    conn = writer.conn
    with writer.transaction():
        if pr is None:
            writer.delete_docs_by_source(key)
            delete_source(conn, key)
            return 0
        lane_id = _lane_for_branch(lanes, pr.head_branch)
        docs = [pr_doc(pr, lane_id), *pr_review_docs(pr, lane_id)]
        if pr.reviews or pr.review_comments or _has_review_docs(conn, key):
            writer.delete_docs_by_source(key)  # a review deleted on GitHub leaves no stale doc
        writer.upsert_docs(docs)
        put_source(conn, SourceRow(key=key, identity=signature, last_run=now_ms))
    return len(docs)


def _has_review_docs(conn: apsw.Connection, key: str) -> bool:
    """True when ``key``'s PR has more documents than its own: review docs from a past pass."""
    count = conn.execute("SELECT count(*) FROM docs WHERE source_key = ?", (key,)).fetchone()
    return bool(count and count[0] > 1)


def sweep_prs(writer: IndexWriter, project: Project) -> list[int]:
    """Delete the docs and sources of PRs whose snapshot file vanished. Returns their numbers."""
    gone: list[int] = []
    conn = writer.conn
    with writer.transaction():
        for row in list_sources(conn):
            if not row.key.startswith("pr:"):
                continue
            number = row.key.removeprefix("pr:")
            if number.isdigit() and not pr_path(project, int(number)).exists():
                writer.delete_docs_by_source(row.key)
                delete_source(conn, row.key)
                gone.append(int(number))
    return gone


BRANCH_DOCS_SALT = ":branch-lanes"
"""Part of the git source's identity: changed when the branch documents are derived anew (they
once all named the primary lane), so an existing index re-derives them once."""


def git_signature(lanes: list[Lane]) -> str:
    """A stat-only summary of every lane's HEAD and refs: changes when a commit or branch does."""
    paths: list[Path] = []
    for lane in lanes:
        gitdir = git_dir(lane.path)
        if gitdir is None:
            continue
        common = common_dir(gitdir)
        paths += [gitdir / "HEAD", gitdir / "logs" / "HEAD", common / "packed-refs"]
        paths += _ref_dirs(common / "refs" / "heads")
    return stat_signature(paths) + BRANCH_DOCS_SALT


def _ref_dirs(heads: Path) -> list[Path]:
    # A ref update renames a file into its folder, which changes that folder's mtime.
    found = [heads]
    for root, dirs, _files in os.walk(heads):
        found += [Path(root) / d for d in sorted(dirs)]
    return found


def git_docs(lanes: list[Lane], tally: WarningTally) -> list[IndexDoc]:
    """The repository's branches, listed from the primary lane, each on the lane it is checked
    out in (commits are the history source's, ``engine.ingest.history``)."""
    from engine.ingest.docs import branch_doc  # deferred: see module docstring

    docs: dict[str, IndexDoc] = {}
    primary = next((lane for lane in lanes if lane.primary), None)
    if primary is not None:
        try:
            for branch in branches(primary.path):
                # The lane the branch is checked out in, if any: a branch is not the primary
                # lane's because the primary lane lists it.
                doc = branch_doc(branch, _lane_for_branch(lanes, branch.name))
                docs[doc.doc_id] = doc
        except GitError as err:
            tally.add(f"lane-git:{primary.id}", f"git for-each-ref failed: {err}")
    return list(docs.values())


def process_git(writer: IndexWriter, project: Project, tally: WarningTally, now_ms: int) -> int:
    """Re-derive every branch doc (and drop commit docs of the capped seed's ``git`` source).
    Returns how many branch docs the index now holds."""
    lanes = list_lanes(project, tally)
    signature = git_signature(lanes)
    docs = git_docs(lanes, tally)
    wanted = {d.doc_id for d in docs}
    conn = writer.conn
    with writer.transaction():
        stale = [
            str(r[0])
            for r in conn.execute("SELECT doc_id FROM docs WHERE source_key = ?", (GIT_SOURCE,))
            if str(r[0]) not in wanted
        ]
        writer.delete_docs(stale)
        writer.upsert_docs(docs)
        put_source(conn, SourceRow(key=GIT_SOURCE, identity=signature, last_run=now_ms))
    return len(docs)
