"""The warm-run manifest: one digest of every stat the reconcile would compare (start-up budget).

A warm ``ade search`` where nothing changed used to list and parse every session file, stat each
session's three or four files and read every source row (190 ms over 924 sessions). The manifest
is one digest of one ``scandir`` per folder of ``.ade`` (``sessions``, ``chats``, ``terminals``,
``prs``; each entry's ``(mtime_ns, size, inode)`` as ``DirEntry.stat`` gives it), the project
and lane files, the git signature and each lane's Aider history and Crush database. It is
stored in ``meta`` only after a reconcile whose every queued source was drained to the end, so
an equal digest means every source is ingested as of those stats: the reconcile is skipped (no
session parsed, no source row read, no write lock). Any change to a file in those folders
changes the digest and the reconcile runs in full, as before.

The agent tools' folders are in it too, one ``scandir`` per folder the discovery would look in:
the Claude Code folders of the project's lanes (matched by name in the projects folder, each
session's ``subagents`` folder), every Codex day folder, Gemini CLI's project folders, OpenCode's
data folder and Copilot CLI's session folders. A file appended, added or removed there changes
the digest, as in ``.ade``. What discovery remembers from another environment lies
outside those folders: ``covers`` says so, and such a reconcile stores no manifest.

The digest is two: which sessions there are (``.ade/sessions``, the project and lane files, the
agent tools' folders and the lanes' agent files) and what the project's own sources hold
(``chats``, ``terminals``, ``prs``, git, the settings). A change of the second only (a line
appended to a transcript, a PR written, a commit) leaves the sessions and every agent's files as
the stored manifest vouched for: ``same_sessions`` says so, and the reconcile then compares only
the project's own sources, neither listing the agents' sessions nor looking for gone ones (a
search right after a write, the read-your-writes budget).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from engine.agent_table import AGENTS
from engine.basics.digests import blake2b
from engine.external.roots import agent_places, claude_folder_matches, claude_lane_slugs
from engine.ingest.records import git_signature
from engine.project.model import Lane, Project, SessionMeta
from engine.project.stat import stat_signature

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engine.ingest.quiet_folders import Listed, QuietFolders

FOLDERS = ("sessions", "chats", "terminals", "prs")
"""The ``.ade`` folders whose entries the reconcile compares (DESIGN §2)."""

SESSIONS_FOLDER = "sessions"
SOURCE_FOLDERS = tuple(name for name in FOLDERS if name != SESSIONS_FOLDER)
"""The folder naming the project's sessions, and those holding what its sources say."""

SETTINGS = ("ADE_HISTORY_DEPTH",)
"""Environment settings that change what a reconcile ingests (``history_plan.DEPTH_ENV``: a
deeper history walk must run though no file changed)."""

MAX_EXTERNAL_ENTRIES = 100_000
"""Entries of the agent tools' folders one manifest stats at most; a larger tree (years of
Codex rollouts) gets no manifest and the reconcile runs in full, as without one."""


def _by_name(entry: os.DirEntry[str]) -> str:
    return entry.name


class Listing:
    """What the manifest's walk saw in the project's own ``.ade`` folders, so the reconcile that
    follows compares each session's stat signature without a ``stat`` of its own (a search right
    after a write, the read-your-writes budget): per folder, each entry's ``[mtime_ns, size,
    inode]`` as ``os.stat`` gives it, written as ``stat_signature`` writes it (``null`` when
    that failed), and the session files that are regular files (``lstat``, from the listing's
    file type)."""

    __slots__ = ("entries", "regular")

    def __init__(self) -> None:
        self.entries: dict[str, dict[str, str]] = {}
        self.regular: set[str] = set()


class Manifest:
    """The digest and the folders whose entries it vouches for (a plain class: a dataclass
    costs ~0.5 ms to create at import, on every run)."""

    __slots__ = ("covered", "digest", "listing", "sessions")

    def __init__(
        self, sessions: str, sources: str, covered: frozenset[str], listing: Listing | None = None
    ) -> None:
        self.sessions = sessions
        """The digest of which sessions there are (the first part of ``digest``)."""
        self.digest = f"{sessions}.{sources}"
        self.covered = covered
        self.listing = listing
        """The stats of the ``.ade`` folders' entries the digest was made of."""

    def same_sessions(self, stored: str | None) -> bool:
        """Whether ``stored``, the manifest of the last reconcile whose every source was
        ingested, names the same sessions: no session file, agent folder or agent file changed
        since, only the project's own transcripts, PRs or git (see the module docstring)."""
        return stored is not None and stored.partition(".")[0] == self.sessions

    def covers(self, sessions: Iterable[SessionMeta]) -> bool:
        """Whether every external session's transcript lies in a folder the digest lists (an
        OpenCode session's path is ``<database>/<id>``: its database's folder)."""
        for meta in sessions:
            path = meta.transcript_path
            if path is not None and not {str(path.parent), str(path.parent.parent)} & self.covered:
                return False
        return True


class _Walk:
    """One digest over folder listings, bounded in the agent tools' entries."""

    def __init__(self, listing: Listing | None = None, quiet: QuietFolders | None = None) -> None:
        self.digest = blake2b(digest_size=16)
        self.covered: set[str] = set()
        self.entries = 0
        self.listing = listing
        self.quiet = quiet
        self.anchors: dict[str, bool] = {}
        """The anchors of folders known missing this walk checked (``QuietFolders.missing``)."""

    def _known_missing(self, folder: str) -> bool:
        return self.quiet is not None and self.quiet.missing(folder, self.anchors)

    def _note_missing(self, folder: str) -> None:
        if self.quiet is not None:
            self.quiet.note_missing(folder)

    def folder(self, folder: str, depth: int = 0, name: str | None = None) -> list[str] | None:
        """Add ``folder``'s entries (and, ``depth`` levels down, its subfolders'). Returns its
        subfolders, or None when it cannot be read or the walk grew too large (no manifest).
        ``name``: an ``.ade`` folder, whose entries' stats the ``Listing`` keeps (and, in the
        daemon, which is answered from its last listing while nothing changed in it:
        ``engine.ingest.quiet_folders``)."""
        self.digest.update(f"[{folder}]\n".encode())
        kept, regular = None, None  # a folder that is not there is kept empty: no file exists
        if name is not None and self.listing is not None:
            kept = self.listing.entries[name] = {}
            regular = self.listing.regular if name == SESSIONS_FOLDER else None
        if self._known_missing(folder):
            self.digest.update(b"\0missing\n")  # as the listing below says it
            return []
        quiet = self.quiet if kept is not None and depth == 0 else None
        watched = None
        if quiet is not None and kept is not None:
            seen = quiet.listed(folder)
            if seen is not None:
                return self._reused(folder, seen, kept, regular)
            watched = quiet.watch(folder)  # before the listing: a change from now on is seen
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=_by_name)
        except FileNotFoundError:
            self.digest.update(b"\0missing\n")
            self._note_missing(folder)
            return []
        except NotADirectoryError:
            self.digest.update(b"\0missing\n")
            return []
        except OSError:
            return None
        self.covered.add(folder)
        self.entries += len(entries)
        if self.entries > MAX_EXTERNAL_ENTRIES:
            return None
        folders: list[str] = []
        lines: list[str] = []
        vouched = watched is not None  # every entry a plain file with one name: see quiet_folders
        for entry in entries:
            try:
                st = entry.stat()  # follows links: the corpus and some tools link transcripts
            except OSError:
                lines.append(f"{entry.name}\0?\n")
                if kept is not None:
                    kept[entry.name] = "null"
                vouched = False
                continue
            lines.append(f"{entry.name}\0{st.st_mtime_ns}\0{st.st_size}\0{st.st_ino}\n")
            if kept is not None:
                kept[entry.name] = f"[{st.st_mtime_ns},{st.st_size},{st.st_ino}]"
                if regular is not None and entry.is_file(follow_symlinks=False):
                    regular.add(entry.name)
            if stat.S_ISDIR(st.st_mode):
                folders.append(entry.path)
            if vouched and (st.st_nlink != 1 or entry.is_symlink() or not stat.S_ISREG(st.st_mode)):
                vouched = False
        text = "".join(lines).encode()
        self.digest.update(text)
        if vouched and quiet is not None and watched is not None and kept is not None:
            from engine.ingest.quiet_folders import Listed  # the daemon's: imported already

            names = frozenset(kept) if regular is not None else frozenset()
            wd, identity, mark = watched
            listed = Listed(wd, identity, text, dict(kept), names, len(entries))
            quiet.remember(folder, listed, mark)
        if depth > 0:
            for sub in folders:
                if self.folder(sub, depth - 1) is None:
                    return None
        return folders

    def _reused(
        self, folder: str, seen: Listed, kept: dict[str, str], regular: set[str] | None
    ) -> list[str] | None:
        """``folder`` as its last listing saw it (nothing changed in it since)."""
        self.covered.add(folder)
        self.entries += seen.count
        if self.entries > MAX_EXTERNAL_ENTRIES:
            return None
        self.digest.update(seen.lines)
        kept.update(seen.kept)
        if regular is not None:
            regular.update(seen.regular)
        return []  # a folder with a subfolder is never remembered

    def per_lane(self, base: Path, lanes: list[Lane]) -> bool:
        """The folder's names that may be the lanes' folders (Claude Code's slugs), those
        folders, and each session's ``subagents`` folder (a subagent file joins its session)."""
        slugs = claude_lane_slugs(lanes)
        self.digest.update(f"[lanes {base}]\n".encode())
        folder = str(base)
        if self._known_missing(folder):
            return True  # as the listing below finds it
        try:
            with os.scandir(folder) as listing:
                names = sorted(e.name for e in listing if claude_folder_matches(e.name, slugs))
        except FileNotFoundError:
            self._note_missing(folder)
            return True
        except NotADirectoryError:
            return True
        except OSError:
            return False
        for name in names:
            self.digest.update(f"{name}\n".encode())
            sessions = self.folder(os.path.join(base, name))
            if sessions is None:
                return False
            for session in sessions:
                if self.folder(os.path.join(session, "subagents")) is None:
                    return False
        return True


def project_manifest(
    project: Project,
    lanes: list[Lane],
    environ: Mapping[str, str] | None = None,
    quiet: QuietFolders | None = None,
) -> Manifest | None:
    """The digest of everything a reconcile of ``project`` compares, or None when a folder
    cannot be read or the agent tools' folders are too large to vouch for. ``quiet``: the
    daemon's ``.ade`` folders known unchanged since their last listing (the same digest)."""
    env = os.environ if environ is None else environ
    listing = Listing()
    if quiet is not None:
        quiet.forget_changed()
    sources = _Walk(listing, quiet)
    for name in SOURCE_FOLDERS:
        if sources.folder(str(project.ade_dir / name), name=name) is None:
            return None
    sources.digest.update(git_signature(lanes).encode())
    sources.digest.update(repr([env.get(name) for name in SETTINGS]).encode())
    walk = _Walk(listing, quiet)
    if walk.folder(str(project.ade_dir / SESSIONS_FOLDER), name=SESSIONS_FOLDER) is None:
        return None
    walk.entries = 0  # the bound is on the agent tools' folders, not the project's own
    ade = project.ade_dir
    walk.digest.update(stat_signature([ade / "lanes.json", ade / "project.json"]).encode())
    lane_files = [
        lane.path / name for agent in AGENTS for name in agent.lane_files for lane in lanes
    ]
    walk.digest.update(stat_signature(lane_files).encode())
    the_lanes = lanes or [Lane("primary", project.name, project.root, None, True)]
    for agent in AGENTS:  # each agent's session folders, as deep as its table line says
        for spec, path in agent_places(agent.name, env):
            if spec.per_lane:
                if not walk.per_lane(path, the_lanes):
                    return None
            elif walk.folder(str(path), spec.depth) is None:
                return None
        for variable in agent.also:  # a folder the agent's other variable moves (Crush's data)
            moved = env.get(variable)
            if moved and walk.folder(moved) is None:
                return None
    walk.covered.update(str(lane.path) for lane in the_lanes)  # lane files, stat'ed above
    walk.covered.update(str(path.parent) for path in lane_files)  # Crush's .crush folders
    covered = frozenset(walk.covered | sources.covered)
    return Manifest(walk.digest.hexdigest(), sources.digest.hexdigest(), covered, listing)
