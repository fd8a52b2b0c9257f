"""The warm-run manifest: one digest of every stat the reconcile would compare (issue 14.4).

A warm ``ade search`` where nothing changed used to list and parse every session file, stat each
session's three or four files and read every source row (190 ms over 924 sessions). The manifest
is one digest of one ``scandir`` per folder of ``.ade`` (``sessions``, ``chats``, ``terminals``,
``prs``; each entry's ``(mtime_ns, size, inode)`` as ``DirEntry.stat`` gives it), the project
and lane files, the git signature and each lane's Aider history. It is stored in ``meta`` only
after a reconcile whose every queued source was drained to the end, so an equal digest means
every source is ingested as of those stats: the reconcile is skipped (no session parsed, no
source row read, no write lock). Any change to a file in those folders changes the digest and
the reconcile runs in full, as before.

External tools (Claude Code, Codex, Gemini, OpenCode, Copilot) keep their sessions in folder
trees and databases that one stat per folder cannot vouch for: when any of their folders exists,
or the last full reconcile found a session of theirs, there is no manifest and the reconcile
runs in full.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from engine.external.aider import HISTORY_FILE
from engine.ingest.records import git_signature
from engine.project.model import Lane, Project
from engine.project.stat import stat_signature

MANIFEST_KEY = "reconcile_manifest"
"""The ``meta`` row holding the digest of the last fully drained reconcile."""

FOLDERS = ("sessions", "chats", "terminals", "prs")
"""The ``.ade`` folders whose entries the reconcile compares (DESIGN §2)."""


def _folder(digest: hashlib.blake2b, folder: Path) -> bool:
    """Add ``folder``'s entries to ``digest``; False when it cannot be read (no manifest)."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except FileNotFoundError:
        digest.update(b"\0missing\n")
        return True
    except OSError:
        return False
    for entry in entries:
        try:
            st = entry.stat()  # follows links: the corpus and some tools link transcripts
        except OSError:
            digest.update(f"{entry.name}\0?\n".encode())
            continue
        digest.update(f"{entry.name}\0{st.st_mtime_ns}\0{st.st_size}\0{st.st_ino}\n".encode())
    return True


def project_manifest(project: Project, lanes: list[Lane], external_roots: list[Path]) -> str | None:
    """The digest of everything a reconcile of ``project`` compares, or None when it cannot
    vouch for the external tools' folders (see the module docstring)."""
    if external_roots:
        return None
    digest = hashlib.blake2b(digest_size=16)
    for name in FOLDERS:
        digest.update(f"[{name}]\n".encode())
        if not _folder(digest, project.ade_dir / name):
            return None
    ade = project.ade_dir
    digest.update(stat_signature([ade / "lanes.json", ade / "project.json"]).encode())
    digest.update(git_signature(lanes).encode())
    digest.update(stat_signature([lane.path / HISTORY_FILE for lane in lanes]).encode())
    return digest.hexdigest()
