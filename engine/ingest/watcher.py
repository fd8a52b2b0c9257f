"""The file watcher (watchfiles): turns changes under ``.ade/`` and the git folders into notifies.

It is an input like any other (DESIGN §4): everything it triggers also happens through the
backfill, the periodic reconcile or ``process_pending_now``. Directories are watched, never files
(an atomic save replaces a file and a file watch goes blind, RELIABILITY 7). When ``.ade/`` is
missing, or is deleted while watched, the watcher waits for it on the project root (not
recursively) and re-arms once it is back, then asks for a reconcile to pick up what happened
meanwhile. The same goes for every other root (``engine.ingest.watch_plan``): an agent's folder
made after the project was opened is found by a cheap stat poll and watched from then on. A
watcher that cannot start degrades to the periodic reconcile and says so in the status
(``watcher_state``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import watchfiles

from engine.basics.caller_env import carried
from engine.basics.logs import get_logger
from engine.ingest.watch_plan import POLL_MS, Identity, WatchPlan, identity, plan
from engine.project.model import Project, is_valid_session_id

log = get_logger(__name__)

WATCH_DEBOUNCE_MS = 50
"""Longest the watcher groups changes before handing them over; the queue debounces after."""

WATCH_STEP_MS = 20
"""Quiet time that ends a group of changes, and how often the stop event is checked."""

_GIT_PARTS = ("HEAD", "packed-refs", "refs", "logs")
"""Git paths whose change means a commit, checkout or branch change; objects/ is noise."""


class Notifiable(Protocol):
    """What the watcher calls: the service's notify hooks."""

    def notify_chat_event(self, session_id: str) -> None: ...
    def notify_terminal_data(self, session_id: str) -> None: ...
    def notify_session_changed(self, session_id: str) -> None: ...
    def notify_pr_changed(self, number: int) -> None: ...
    def notify_lane_activity(self, lane_id: str) -> None: ...
    def request_reconcile(self) -> None: ...
    def notify_external_file(self, path: Path) -> None: ...


@dataclass(frozen=True)
class Notice:
    """One notify call derived from a file change."""

    hook: str
    arg: str


def _session_file(name: str, suffixes: tuple[str, ...]) -> str | None:
    for suffix in suffixes:
        if name.endswith(suffix):
            sid = name[: -len(suffix)]
            return sid if is_valid_session_id(sid) else None
    return None


def classify(ade_dir: Path, path: Path, external_roots: Iterable[Path] = ()) -> Notice | None:
    """Map a changed path to the notify hook it calls (None: not ours, or our own cache).

    A path under one of ``external_roots`` (the Claude Code projects folder, the Codex sessions
    folder) is handed over whole: the service knows which session, if any, owns that file.
    """
    if any(root in path.parents for root in external_roots):
        return Notice("external", str(path))
    if ade_dir in path.parents or path == ade_dir:
        rel = path.relative_to(ade_dir).parts
        if not rel:
            return Notice("reconcile", "")
        if rel[0] == "cache":
            return None  # our own index writes must never wake us
        if len(rel) == 1:
            return Notice("lane", "*") if rel[0] == "lanes.json" else Notice("reconcile", "")
        folder, name = rel[0], rel[-1]
        if folder == "chats" and (sid := _session_file(name, (".jsonl.gz", ".jsonl"))):
            return Notice("chat", sid)
        if folder == "terminals" and (sid := _session_file(name, (".log.gz", ".log"))):
            return Notice("terminal", sid)
        if folder == "sessions" and (sid := _session_file(name, (".json",))):
            return Notice("session", sid)
        if folder == "prs" and name.endswith(".json") and name[:-5].isdigit():
            return Notice("pr", name[:-5])
        return None
    parts = path.parts
    if ".git" in parts:
        rest = parts[parts.index(".git") + 1 :]
        if rest and rest[-1].endswith(".lock"):
            return None
        if any(part in _GIT_PARTS for part in rest[:1]) or (
            "worktrees" in rest[:1] and any(part in _GIT_PARTS for part in rest[2:3])
        ):
            return Notice("lane", "*")
    return None


def dispatch(target: Notifiable, notices: Iterable[Notice]) -> None:
    """Call the notify hook of each notice (duplicates cost a dict lookup each)."""
    for notice in notices:
        if notice.hook == "chat":
            target.notify_chat_event(notice.arg)
        elif notice.hook == "terminal":
            target.notify_terminal_data(notice.arg)
        elif notice.hook == "session":
            target.notify_session_changed(notice.arg)
        elif notice.hook == "pr":
            target.notify_pr_changed(int(notice.arg))
        elif notice.hook == "lane":
            target.notify_lane_activity(notice.arg)
        elif notice.hook == "external":
            target.notify_external_file(Path(notice.arg))
        else:
            target.request_reconcile()


def _watch_filter(change: watchfiles.Change, path: str) -> bool:
    del change
    return "/.git/objects" not in path and "/.ade/cache" not in path


def _new_folder_under(roots: list[Path], changes: set[tuple[watchfiles.Change, str]]) -> bool:
    return any(
        change == watchfiles.Change.added
        and any(root in Path(path).parents for root in roots)
        and os.path.isdir(path)
        for change, path in changes
    )


class Watcher:
    """A thread running ``watchfiles.watch`` over the project's folders until ``stop``."""

    def __init__(
        self,
        project: Project,
        target: Notifiable,
        git_dirs: Callable[[], list[Path]],
        on_state: Callable[[str], None],
        external_dirs: Callable[[], list[Path]] = list,
        lane_files: Callable[[], list[Path]] = list,
    ) -> None:
        self.project = project
        self.target = target
        self.git_dirs = git_dirs
        self.external_dirs = external_dirs
        self.lane_files = lane_files
        self.on_state = on_state
        self.rearms = 0
        self.armed = threading.Event()
        """Set once the current watch is in place (its first poll came back); cleared on re-arm."""
        self.files_armed = threading.Event()
        """Set once the watch of the ``lane_files``' folders is in place; cleared on re-arm."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=carried(self._run), name="ade-watcher", daemon=True)
        self._files = threading.Thread(
            target=carried(self._run_files), name="ade-watcher-files", daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        self._files.start()

    def stop(self) -> None:
        """Stop watching and join the threads (idempotent)."""
        self._stop.set()
        for thread in (self._thread, self._files):
            if thread.is_alive() and thread is not threading.current_thread():
                thread.join()

    def _run(self) -> None:
        ade = self.project.ade_dir
        while not self._stop.is_set():
            present = ade.is_dir()
            external = self.external_dirs() if present else []
            roots = plan([ade, *self.git_dirs(), *external] if present else [self.project.root])
            self.armed.clear()
            try:
                self.on_state("watching" if present else "waiting for .ade/")
                self._watch(roots, recursive=present, external=external)
            except FileNotFoundError:
                pass  # a watched folder vanished while arming: re-arm
            except (OSError, RuntimeError) as err:
                self.on_state(f"degraded: {err}; polling by reconcile")
                log.warning("file watcher stopped: %s", err)
                return
            if not self._stop.is_set():
                self.rearms += 1
                self.target.request_reconcile()  # what happened while we were re-arming

    def _watch(self, roots: WatchPlan, *, recursive: bool, external: list[Path]) -> None:
        ade = self.project.ade_dir
        armed = False
        for changes in watchfiles.watch(
            *roots.watched,
            watch_filter=_watch_filter,
            debounce=WATCH_DEBOUNCE_MS,
            step=WATCH_STEP_MS,
            stop_event=self._stop,
            recursive=recursive,
            raise_interrupt=False,
            # Wake every POLL_MS even when nothing changed: a root that did not exist when
            # armed (an agent's folder made later, or .ade/ itself) is found by its stat.
            rust_timeout=POLL_MS,
            yield_on_timeout=True,
        ):
            if not armed:
                armed = True
                self.armed.set()
                if self.rearms:  # anything written between the re-arm's reconcile and this
                    self.target.request_reconcile()  # watch taking hold: not left to the timer
            if not recursive:
                if ade.is_dir():
                    return  # .ade/ appeared: re-arm on it
                continue
            notices = [classify(ade, Path(p), external) for _, p in changes]
            dispatch(self.target, (n for n in notices if n is not None))
            if _new_folder_under(external, changes):
                # Its own watch is added only once its creation is seen: a file written into
                # it at once (a tool's first session there) may have no event of its own.
                self.target.request_reconcile()
            # A root that appeared, vanished or was replaced: arm on what is there now. Its
            # deletion event counts too, as a folder made again at once often gets the same
            # inode number back and the poll alone would not tell.
            gone = any(
                c == watchfiles.Change.deleted and Path(p) in roots.roots for c, p in changes
            )
            # The agent folders are named by the environment the service answers in, which a
            # daemon sets to its caller's after opening: follow it when it changes.
            if gone or roots.changed() or self.external_dirs() != external:
                return

    def _run_files(self) -> None:
        """Follow ``lane_files``: their folders (a lane's root) are watched alone, never their
        subfolders, so a big work tree costs one watch; changes to other names are dropped."""
        while not self._stop.is_set():
            files = self.lane_files()
            folders = WatchPlan(*_unique_identities(p.parent for p in files))
            self.files_armed.clear()
            try:
                if folders.watched:
                    self._watch_files(files, folders)
                else:  # no lane folder there (yet): poll until one is
                    self.files_armed.set()
                    while not self._stop.wait(POLL_MS / 1000):
                        if folders.changed() or self.lane_files() != files:
                            break
            except FileNotFoundError:
                pass  # a folder vanished while arming: re-arm
            except (OSError, RuntimeError) as err:
                log.warning("file watcher of the lanes' agent files stopped: %s", err)
                return  # the periodic reconcile still catches these files up
            if not self._stop.is_set():
                self.target.request_reconcile()  # what happened while re-arming

    def _watch_files(self, files: list[Path], folders: WatchPlan) -> None:
        names = {str(p) for p in files}
        for changes in watchfiles.watch(
            *folders.watched,
            watch_filter=lambda _change, path: path in names,
            debounce=WATCH_DEBOUNCE_MS,
            step=WATCH_STEP_MS,
            stop_event=self._stop,
            recursive=False,
            raise_interrupt=False,
            rust_timeout=POLL_MS,
            yield_on_timeout=True,
        ):
            self.files_armed.set()
            for _, path in changes:
                self.target.notify_external_file(Path(path))
            if folders.changed() or self.lane_files() != files:
                return


def _unique_identities(paths: Iterable[Path]) -> tuple[tuple[Path, ...], tuple[Identity, ...]]:
    """Each folder once (a lane inside another is watched on its own: no recursion here)."""
    unique = tuple(dict.fromkeys(paths))
    return unique, tuple(identity(p) for p in unique)
